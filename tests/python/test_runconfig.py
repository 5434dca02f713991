"""One configuration: what `belady sim --print-config` prints runs to the same rows through
`belady sim --config` and through Python's `belady.run` as the flags did."""

from __future__ import annotations

import json
import subprocess

import belady
import pytest

from conftest import ROOT

DEMO = ROOT / "data" / "zipf-loop.trace.gz"

# Flag sets that reach each engine: the streaming block grid, the file engine with a disk and two
# read-ahead settings, the block hierarchy with its link timing, and hierarchies under read-ahead.
FLAG_SETS = [
    ["-p", "lru,arc,opt", "-c", "100,5%"],
    ["-p", "lru,lirs", "-c", "200", "--prefetch", "none,linux24", "--disk", "cheetah9lp", "--scheduler", "clook"],
    ["--levels", "client:lru:100,storage:mq:300", "--placement", "access,eviction", "--disk", "hdd7200"],
    ["--levels", "client:lru:100,storage:lru:300", "--prefetch", "ondemand"],
]


def cli(belady_bin, *args: str) -> str:
    out = subprocess.run([str(belady_bin), "sim", *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("flags", FLAG_SETS, ids=["block", "file", "levels-disk", "levels-ra"])
def test_a_printed_config_gives_the_flags_rows_in_the_cli_and_in_python(belady_bin, tmp_path, flags):
    base = ["-t", str(DEMO), "-f", "lirs", *flags]
    rows = cli(belady_bin, *base, "--json")
    printed = cli(belady_bin, *base, "--print-config")
    path = tmp_path / "run.json"
    path.write_text(printed)
    assert cli(belady_bin, "--config", str(path), "--json") == rows, "the same bytes from the file"
    config = json.loads(printed)
    py = belady.run(config)
    assert py.to_dict("records") == json.loads(rows)
    assert len(py) > 0


def test_simulate_builds_the_config_the_cli_prints(belady_bin):
    py = belady.simulate(DEMO, ["lru", "arc"], [200], format="lirs", prefetch=["none", "linux24"], disk="cheetah9lp")
    rows = cli(belady_bin, "-t", str(DEMO), "-f", "lirs", "-p", "lru,arc", "-c", "200",
               "--prefetch", "none,linux24", "--disk", "cheetah9lp", "--json")
    assert py.to_dict("records") == json.loads(rows)


def test_a_bad_key_is_named_in_python_and_in_the_cli(belady_bin, tmp_path):
    with pytest.raises(belady.ConfigError, match="unknown field `polices`"):
        belady.run({"trace": str(DEMO), "polices": ["lru"], "cache_sizes": ["10"]})
    bad = tmp_path / "bad.toml"
    bad.write_text(f'trace = "{DEMO}"\ncache_sizes = ["10"]\ncache_size = ["20"]\n')
    out = subprocess.run([str(belady_bin), "sim", "--config", str(bad)], capture_output=True, text=True)
    assert out.returncode != 0
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{bad}:3:" in lines[0] and "unknown field `cache_size`" in lines[0], out.stderr


def test_run_options_given_with_a_config_file_are_refused(belady_bin, tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"trace": str(DEMO), "format": "lirs", "cache_sizes": ["10"]}))
    out = subprocess.run([str(belady_bin), "sim", "--config", str(path), "-p", "arc"], capture_output=True, text=True)
    assert out.returncode != 0 and "--policy" in out.stderr and "give no run options" in out.stderr
    # Output and thread options are not run options.
    assert json.loads(cli(belady_bin, "--config", str(path), "--json", "--threads", "1"))[0]["policy"] == "lru"
