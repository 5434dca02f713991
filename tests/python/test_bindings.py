"""The Python package returns what the CLI prints and raises typed errors with the CLI's messages."""

from __future__ import annotations

import subprocess

import belady
import pytest

from conftest import ROOT, sim

DEMO = ROOT / "data" / "zipf-loop.trace.gz"


def test_simulate_equals_cli(belady_bin):
    py = belady.simulate(DEMO, ["lru", "clock", "opt"], [100, "5%"], format="lirs")
    cli = sim(belady_bin, DEMO, "lirs", ["lru", "clock", "opt"], [100, "5%"])
    assert len(py) == len(cli) == 6
    assert list(py.columns) == list(cli[0].keys()), "the DataFrame has the CLI's JSON keys, in order"
    for a, b in zip(py.to_dict("records"), cli):
        assert a == b


def test_simulate_with_read_ahead_and_a_disk_equals_cli(belady_bin):
    options = dict(prefetch="linux24", disk="cheetah9lp", scheduler="clook")
    py = belady.simulate(DEMO, ["lru", "arc"], [200], format="lirs", **options)
    cli = sim(belady_bin, DEMO, "lirs", ["lru", "arc"], [200], "--prefetch", "linux24", "--disk", "cheetah9lp",
              "--scheduler", "clook")
    assert py.to_dict("records") == cli
    assert (py["exec_time_s"] > 0).all() and (py["prefetched_blocks"] > 0).all()


def test_policies_lists_registry():
    assert {"lru", "fifo", "clock", "opt"} <= set(belady.policies())


def test_errors_are_typed_and_worded_like_the_cli(belady_bin, tmp_path):
    with pytest.raises(belady.ConfigError, match="invalid cache_sizes .0.: must be at least one block"):
        belady.simulate(DEMO, "lru", 0, format="lirs")
    with pytest.raises(belady.ConfigError, match="unknown policy"):
        belady.simulate(DEMO, "nope", 10, format="lirs")
    bad = tmp_path / "bad.trace"
    bad.write_text("1\n2\nthree\n")
    with pytest.raises(belady.TraceError) as info:
        belady.simulate(bad, "lru", 2, format="lirs")
    cli = subprocess.run(
        [str(belady_bin), "sim", "-t", str(bad), "-f", "lirs", "-c", "2"], capture_output=True, text=True
    )
    assert str(info.value) in cli.stderr
    assert issubclass(belady.TraceError, ValueError)


def test_a_missing_trace_is_the_same_one_line_error_in_python_and_the_cli(belady_bin, tmp_path):
    missing = tmp_path / "absent.trace"
    with pytest.raises(belady.TraceError) as info:
        belady.simulate(missing, "lru", 2, format="lirs")
    cli = subprocess.run(
        [str(belady_bin), "sim", "-t", str(missing), "-f", "lirs", "-c", "2"], capture_output=True, text=True
    )
    assert cli.returncode != 0
    assert cli.stderr == f"belady: error: {info.value}\n"
    assert str(info.value) == f"{missing}: No such file or directory (os error 2)", "the OS error once"


def test_admission_rejects_is_a_column_of_the_registrys_dtype():
    """The admission filter's rejections reach the DataFrame: prob:0 refuses every miss."""
    df = belady.simulate(DEMO, ["lru", "arc"], [100], format="lirs", admission="prob:0")
    assert str(df["admission_rejects"].dtype) == "int64"
    assert (df["admission_rejects"] == df["misses"]).all() and (df["hits"] == 0).all()
    assert {m["key"]: m for m in belady.metrics()}["admission_rejects"]["applies"] == "admission"
    assert (belady.simulate(DEMO, "lru", [100], format="lirs")["admission_rejects"] == 0).all()
