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


def test_defaults_come_from_the_core(belady_bin):
    """One place writes every default: the CLI's flags, `belady.simulate`'s keywords and the
    configuration all read it."""
    import inspect

    from belady import _belady

    defaults = json.loads(_belady.defaults())
    printed = json.loads(cli(belady_bin, "-t", str(DEMO), "-c", "10", "--print-config"))
    for key, value in defaults.items():
        if key not in ("trace", "cache_sizes"):
            assert printed[key] == value, key
    params = inspect.signature(belady.simulate).parameters
    for key in ("block_size", "ops", "preset", "scheduler", "max_request", "admission", "seed", "cache_model"):
        assert params[key].default == defaults[key], key
    assert params["policies"].default == ",".join(defaults["policies"])
    mrc = inspect.signature(belady.mrc).parameters
    for key in ("block_size", "ops", "preset", "seed"):
        assert mrc[key].default == defaults[key], key


def test_an_older_call_and_config_keep_working(tmp_path):
    """Calls and files written for earlier versions run as they did: every key keeps its name
    and meaning, and spellings normalise (`TinyLFU`, `Objects`)."""
    old = {
        "trace": str(DEMO), "format": "lirs", "policies": ["LRU", "arc"], "cache_sizes": ["100", "5%"],
        "admission": "TinyLFU", "cache_model": "Blocks", "preset": "Paper", "scheduler": "fcfs",
        "max_request": "64KiB", "placement": "access", "link_mbps": 1000.0, "seed": 0,
    }
    frame = belady.run(old)
    assert list(frame["policy"]) == ["lru", "lru", "arc", "arc"]
    assert set(frame["admission"]) == {"tinylfu"}
    same = belady.simulate(DEMO, ["lru", "arc"], [100, "5%"], format="lirs", admission="tinylfu")
    assert frame.to_dict("records") == same.to_dict("records")


def test_options_that_change_nothing_are_refused_by_keyword():
    base = {"trace": str(DEMO), "format": "lirs", "cache_sizes": ["10"]}
    for key, value, needs in [
        ("think_us", 5.0, "levels"),
        ("read_ahead_kb", 64, "prefetch"),
        ("layout", "scattered", "disk"),
        ("placement", "eviction", "levels"),
    ]:
        with pytest.raises(belady.ConfigError) as info:
            belady.run({**base, key: value})
        text = str(info.value)
        assert text.startswith(f"invalid {key} ") and needs in text and "--" not in text, text
    with pytest.raises(belady.ConfigError, match="invalid block_size '0'"):
        belady.simulate(DEMO, "lru", 10, format="lirs", block_size=0)
    with pytest.raises(belady.ConfigError, match="invalid block_size '0'"):
        belady.mrc(DEMO, "lru", [10], format="lirs", block_size=0)


def test_mrc_reads_sizes_as_simulate_does_on_an_object_trace(belady_bin, tmp_path):
    path = tmp_path / "t.oracleGeneral.bin"
    subprocess.run(
        [str(belady_bin), "gen", "zipf", "--requests", "20000", "--blocks", "2000",
         "--sizes", "lognormal:8KiB,1.5,4MiB", "--to", "oracle-general", "-o", str(path)],
        check=True, capture_output=True,
    )
    sim = belady.simulate(path, ["lru", "arc"], ["1MiB", "5%"])
    curves = belady.mrc(path, ["lru", "arc"], ["1MiB", "5%"])
    # mrc orders each policy's sizes ascending, sim as given: compared by (policy, bytes).
    by_size = {(r["policy"], r["cache_bytes"]): r for r in curves.to_dict("records")}
    assert len(by_size) == len(sim) == 4
    for r in sim.to_dict("records"):
        m = by_size[(r["policy"], r["cache_bytes"])]
        assert m["hits"] == r["hits"]
        assert m["miss_ratio"] == pytest.approx(r["misses"] / r["requests"], abs=1e-12)
    # The blocks model counts each object as one block, in both.
    blocks = belady.mrc(path, "lru", ["1MiB", "5%"], cache_model="blocks")
    sim_blocks = belady.simulate(path, "lru", ["1MiB", "5%"], cache_model="blocks")
    assert sorted(blocks["hits"]) == sorted(sim_blocks["hits"])
