"""`belady demo` (the README's main job) runs the built-in study and writes its store and report."""

from __future__ import annotations

import sqlite3
import subprocess

from conftest import ROOT


def test_demo_runs_every_policy_with_and_without_read_ahead_and_writes_the_report(belady_bin, tmp_path):
    out = tmp_path / "demo"
    run = subprocess.run([str(belady_bin), "demo", "--data", str(ROOT / "data"), "--out", str(out)],
                         capture_output=True, text=True, check=True)
    policies = subprocess.run([str(belady_bin), "policies", "--json"], capture_output=True, text=True,
                              check=True).stdout
    import json

    names = {p["name"] for p in json.loads(policies)}
    with sqlite3.connect(out / "results.sqlite") as db:
        rows = db.execute("SELECT trace, prefetch, policy, cache_blocks, exec_time_s FROM runs").fetchall()
    traces = {r[0] for r in rows}
    assert len(traces) == 4
    assert {r[1] for r in rows} == {"none", "linux24"}
    assert len(rows) == 4 * 2 * len(names) * 4
    assert all(r[4] is not None and r[4] > 0 for r in rows), "every run is timed"
    html = (out / "report.html").read_text()
    # Hit ratio, disk requests and run time, with and without read-ahead, per trace.
    assert html.count("<svg") == 4 * 3 * 2
    assert "report with 24 charts" in run.stdout
    for name in names:
        assert f"\n{name} " in run.stdout, name
    # Run again: every run is found in the store, the report is rewritten identically.
    before = html
    subprocess.run([str(belady_bin), "demo", "--data", str(ROOT / "data"), "--out", str(out)],
                   capture_output=True, check=True)
    assert (out / "report.html").read_text() == before
