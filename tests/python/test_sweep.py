"""`belady sweep`: a grid into a resumable SQLite store whose rows equal `belady sim` runs."""

from __future__ import annotations

import csv
import io
import json
import signal
import sqlite3
import subprocess
import time

import pytest

from conftest import ROOT, sim

POLICIES = ["opt", "lru", "lru2", "2q", "lirs", "lrfu", "mq", "arc"]
SIZES = [20, 50, 100, 200, 400, 800]


def _experiment(tmp_path, traces, policies=POLICIES, sizes=SIZES, prefetch=("none", "linux24"), params=()):
    lines = [
        'name = "test"',
        f"policies = {list(policies)!r}".replace("'", '"'),
        f"params = {list(params)!r}".replace("'", '"'),
        f"sizes = {[str(s) for s in sizes]!r}".replace("'", '"'),
        f"prefetch = {list(prefetch)!r}".replace("'", '"'),
    ]
    for path, fmt in traces:
        lines += ["[[trace]]", f'path = "{path}"', f'format = "{fmt}"']
    exp = tmp_path / "exp.toml"
    exp.write_text("\n".join(lines) + "\n")
    return exp


def _sweep(belady_bin, exp, store, *extra, check=True):
    return subprocess.run([str(belady_bin), "sweep", str(exp), "--store", str(store), "--quiet", *extra],
                          check=check, capture_output=True, text=True)


def _rows(store):
    with sqlite3.connect(store) as db:
        return db.execute("SELECT trace, prefetch, policy, cache_blocks, hits, misses, disk_requests FROM runs").fetchall()


def _results(store):
    """Each stored run's full result (every metric), by (trace, prefetch, policy, cache_blocks)."""
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT trace, prefetch, policy, cache_blocks, result_json FROM runs").fetchall()
    return {r[:4]: json.loads(r[4]) for r in rows}


def _export(belady_bin, store):
    return subprocess.run([str(belady_bin), "results", "export", "--store", str(store)], check=True,
                          capture_output=True, text=True).stdout


def test_sweep_rows_equal_sim_runs(belady_bin, traces, tmp_path):
    inputs = [(traces / "lirs" / "cpp.trace.gz", "lirs"), (traces / "arc" / "OLTP.lis.zst", "arc")]
    exp = _experiment(tmp_path, inputs)
    store = tmp_path / "r.sqlite"
    _sweep(belady_bin, exp, store)
    rows = _rows(store)
    assert len(rows) == 2 * 8 * 6 * 2
    assert len({r[:4] for r in rows}) == len(rows), "one row per configuration"
    stored = {r[:4]: r[4:] for r in rows}
    results = _results(store)
    for path, fmt in inputs:
        for prefetch in ("none", "linux24"):
            for run in sim(belady_bin, path, fmt, POLICIES, SIZES, "--prefetch", prefetch):
                key = (str(path), prefetch, run["policy"], run["cache_blocks"])
                assert stored[key] == (run["hits"], run["misses"], run.get("disk_requests")), key
                # Every metric of the run, not just the counted columns: the stored result is
                # the row sim prints, key for key.
                assert results[key] == run, key
    # A second sweep finds every run stored and does none again.
    again = _sweep(belady_bin, exp, store)
    assert "0 done now, 192 already" in again.stderr
    assert len(_rows(store)) == 192
    table = list(csv.DictReader(io.StringIO(_export(belady_bin, store))))
    assert len(table) == 192
    assert {"trace_hash", "belady_version", "policy", "cache_blocks", "hits", "disk_requests"} <= set(table[0])


def test_settings_reach_only_their_own_policy_on_block_and_file_traces(belady_bin, traces, tmp_path):
    inputs = [(traces / "lirs" / "cpp.trace.gz", "lirs"), (ROOT / "data" / "launch" / "gcc-headers.1.bev.gz", "events")]
    # Each entry, and the `belady sim` settings that give the same runs.
    grid = {
        "lru": [],
        "lirs": ["lirs.hir=0.05"],
        "lirs(hir=0.2)": ["lirs.hir=0.2"],
        "lru-k": ["lru-k.k=3"],
        "arc": [],
    }
    sizes = [20, 100, 400]
    exp = _experiment(tmp_path, inputs, policies=list(grid), sizes=sizes, params=["lirs.hir=0.05", "lru-k.k=3"])
    store = tmp_path / "p.sqlite"
    _sweep(belady_bin, exp, store)
    results = _results(store)
    assert len(results) == 2 * 2 * len(grid) * len(sizes)
    assert {k[2] for k in results} == {"lru", "lirs(hir=0.05)", "lirs(hir=0.2)", "lru-k(k=3)", "arc"}
    for path, fmt in inputs:
        for prefetch in ("none", "linux24"):
            for entry, settings in grid.items():
                policy = entry.split("(")[0]
                extra = [arg for p in settings for arg in ("--param", p)]
                for run in sim(belady_bin, path, fmt, [policy], sizes, "--prefetch", prefetch, *extra):
                    key = (str(path), prefetch, run["policy"], run["cache_blocks"])
                    assert {k: run[k] for k in results[key]} == results[key], key
    # A setting for a policy in no run is one clear error before anything runs.
    bad = _experiment(tmp_path, inputs, policies=["lru"], sizes=sizes, params=["lirs.hir=0.05"])
    out = _sweep(belady_bin, bad, tmp_path / "bad.sqlite", check=False)
    assert out.returncode != 0 and out.stderr.count("\n") == 1, out.stderr
    assert "lirs.hir=0.05" in out.stderr and "in none of the experiment's policies" in out.stderr


def test_a_killed_sweep_resumes_without_losing_or_repeating_runs(belady_bin, traces, tmp_path):
    inputs = [(traces / "arc" / "OLTP.lis.zst", "arc")]
    exp = _experiment(tmp_path, inputs, sizes=[100, 1000, 5000, 20000], prefetch=("none", "linux24", "bsd"))
    expected = 8 * 4 * 3
    store = tmp_path / "killed.sqlite"
    proc = subprocess.Popen([str(belady_bin), "sweep", str(exp), "--store", str(store), "--quiet", "--threads", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    done = 0
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
        try:
            with sqlite3.connect(store, timeout=1) as db:
                done = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        except sqlite3.Error:
            continue
        if done >= 5:
            break
    if proc.poll() is not None:
        pytest.fail("the sweep finished before it could be killed; enlarge the grid")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = len(_rows(store))
    assert 5 <= partial < expected
    _sweep(belady_bin, exp, store)
    assert len(_rows(store)) == expected
    clean = tmp_path / "clean.sqlite"
    _sweep(belady_bin, exp, clean)
    assert _export(belady_bin, store) == _export(belady_bin, clean), "same results, same bytes"


def test_bad_experiments_are_clear_errors(belady_bin, tmp_path):
    exp = tmp_path / "bad.toml"
    exp.write_text('policies = ["lru"]\nsizes = ["10"]\nbogus = 1\n[[trace]]\npath = "x"\n')
    out = _sweep(belady_bin, exp, tmp_path / "s.sqlite", check=False)
    assert out.returncode != 0 and "bad.toml" in out.stderr and "bogus" in out.stderr
    exp.write_text('policies = ["nope"]\nsizes = ["10"]\n[[trace]]\npath = "x"\n')
    out = _sweep(belady_bin, exp, tmp_path / "s.sqlite", check=False)
    assert out.returncode != 0 and "nope" in out.stderr
