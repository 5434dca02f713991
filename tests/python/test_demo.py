"""`belady demo` (the README's main job) runs the built-in study and writes its store and report."""

from __future__ import annotations

import json
import pathlib
import re
import sqlite3
import subprocess
from collections import defaultdict

import pytest

from conftest import ROOT


def _means(rows):
    """(trace file name, read-ahead) -> policy -> mean hit ratio in %, from the store's rows."""
    sums = defaultdict(lambda: defaultdict(list))
    for trace, prefetch, policy, hit in rows:
        sums[(pathlib.Path(trace).name, prefetch)][policy].append(100 * hit)
    return {k: {p: sum(v) / len(v) for p, v in pols.items()} for k, pols in sums.items()}


def test_demo_runs_every_policy_with_and_without_read_ahead_and_writes_the_report(belady_bin, tmp_path):
    out = tmp_path / "demo"
    run = subprocess.run([str(belady_bin), "demo", "--data", str(ROOT / "data"), "--out", str(out)],
                         capture_output=True, text=True, check=True)
    policies = subprocess.run([str(belady_bin), "policies", "--json"], capture_output=True, text=True,
                              check=True).stdout
    names = {p["name"] for p in json.loads(policies)}
    with sqlite3.connect(out / "results.sqlite") as db:
        rows = db.execute("SELECT trace, prefetch, policy, cache_blocks, exec_time_s FROM runs").fetchall()
        hits = db.execute("SELECT trace, prefetch, policy, hit_ratio FROM runs").fetchall()
    traces = {r[0] for r in rows}
    assert len(traces) == 4
    assert {r[1] for r in rows} == {"none", "linux24"}
    assert len(rows) == 4 * 2 * len(names) * 4
    assert all(r[4] is not None and r[4] > 0 for r in rows), "every run is timed"
    html = (out / "report.html").read_text()
    # Hit ratio, disk requests and run time, with and without read-ahead, per trace; then, after
    # the "across traces" heading, one box plot per read-ahead setting (the demo's four traces
    # all have FIFO).
    sections, across = html.split('<h2 id="across">')
    assert sections.count("<svg") == 4 * 3 * 2
    assert across.count("<svg") == 2

    # The summary is short and every number in it is the store's.
    lines = run.stdout.splitlines()
    assert len(lines) <= 60, run.stdout
    assert f"{len(rows)} runs" in run.stdout
    assert f"Report: {out / 'report.html'} ({4 * 3 * 2 + 2} charts)" in run.stdout
    means = _means(hits)
    heading = None
    checked = 0
    text = run.stdout
    for i, line in enumerate(lines):
        if m := re.match(r"^(\S+) \((\d+) unique blocks\)$", line):
            heading = m.group(1)
        elif m := re.match(r"^  (no read-ahead|linux24)\s+best (\S+(?:, \S+ \(tied\)| tied)?)\s+([\d.]+)%\s+"
                           r"worst (\S+(?:, \S+ \(tied\)| tied)?)\s+([\d.]+)%"
                           r"\s+OPT ([\d.]+)%$", line):
            pols = means[(heading, "none" if m.group(1) == "no read-ahead" else "linux24")]
            ranked = {p: v for p, v in pols.items() if p != "opt"}
            for what, shown, value in (("best", m.group(2), max(ranked.values())),
                                       ("worst", m.group(4), min(ranked.values()))):
                # Every tied policy is named: in the column when two tie, else on a line of its own.
                tied = sorted(p for p, v in ranked.items() if abs(v - value) < 1e-9)
                if len(tied) == 1:
                    assert shown == tied[0], line
                elif len(tied) == 2:
                    assert shown == f"{tied[0]}, {tied[1]} (tied)", line
                else:
                    assert shown == f"{len(tied)} tied", line
                    listed = re.search(rf"    {what}, {len(tied)} tied at {value:.2f}%: ([^\n]+(?:\n      [^\n]+)*)",
                                       "\n".join(lines[i:]))
                    assert listed, (what, line)
                    assert " ".join(listed.group(1).split()).split(", ") == tied, listed.group(1)
            best, worst = max(ranked, key=ranked.get), min(ranked, key=ranked.get)
            assert float(m.group(3)) == pytest.approx(ranked[best], abs=0.005)
            assert float(m.group(5)) == pytest.approx(ranked[worst], abs=0.005)
            assert float(m.group(6)) == pytest.approx(pols["opt"], abs=0.005)
            checked += 1
    assert checked == 4 * 2, run.stdout
    assert not re.search(r"\+\d+ tied", text), "ties name their members"

    # OPT's place, checked against the runs: the ceiling at every size without read-ahead; with
    # read-ahead, every "not the ceiling" claim names a run that beats OPT's at its size.
    with sqlite3.connect(out / "results.sqlite") as db:
        cells = db.execute("SELECT trace, prefetch, policy, cache_blocks, hit_ratio, disk_requests FROM runs").fetchall()
    by = defaultdict(dict)
    for trace, prefetch, policy, size, hit, disk in cells:
        by[(pathlib.Path(trace).name, prefetch, size)][policy] = (hit, disk)
    for (trace, prefetch, size), pols in by.items():
        if prefetch == "none":
            assert all(h <= pols["opt"][0] + 1e-12 for h, _ in pols.values()), (trace, size)
    assert "(unexpected" not in text
    assert "Without read-ahead it is the ceiling" in text and "With read-ahead it is not" in text
    claims = re.findall(r"at (\d+) blocks (\S+) hits ([\d.]+)% \(OPT ([\d.]+)%\)", text)
    claims_disk = re.findall(r"at (\d+) blocks (\S+) needs (\d+) disk requests \(OPT (\d+)\)", text)
    assert claims, "the demo's own numbers show OPT beaten with read-ahead"
    for size, policy, hit, opt in claims:
        match = [pols for (t, p, s), pols in by.items() if p == "linux24" and s == int(size)
                 and policy in pols and round(100 * pols[policy][0], 2) == float(hit)]
        assert match and float(hit) > float(opt) and round(100 * match[0]["opt"][0], 2) == float(opt), size
    for size, policy, disk, opt in claims_disk:
        assert any(p == "linux24" and s == int(size) and pols[policy][1] == int(disk) and pols["opt"][1] == int(opt)
                   for (t, p, s), pols in by.items()), size
        assert int(disk) < int(opt)
    assert "LRU's failure modes" in run.stdout

    # --verbose: every run's table, with every column explained.
    again = subprocess.run([str(belady_bin), "demo", "--data", str(ROOT / "data"), "--out", str(out), "--verbose"],
                           capture_output=True, text=True, check=True)
    verbose = again.stdout
    # The rerun computes nothing, and says so (the first run said nothing of the kind).
    reused = re.search(r"reusing (\d+) of its (\d+) runs stored in (\S+)", again.stderr)
    assert reused and reused.group(1) == reused.group(2), again.stderr
    assert reused.group(3) == str(out / "results.sqlite") and "reusing" not in run.stderr
    for name in names:
        assert f"\n{name} " in verbose, name
    columns = {c for line in verbose.splitlines() if line.startswith("policy ") for c in line.split()}
    legend = verbose[:verbose.index("\n==")]
    explained = {name for line in legend.splitlines() if line.startswith("  ")
                 for name in re.split(r"\s{2,}", line.strip())[0].split(", ")}
    assert columns and columns <= explained, columns - explained
    # Run again: every run is found in the store, the report is rewritten identically.
    assert (out / "report.html").read_text() == html


def test_lru_k_surprise_under_read_ahead_is_explained_by_evicted_prefetches(belady_bin, tmp_path):
    """docs/demo.md's explanation, checked: LRU-K throws away read-ahead blocks before their use."""
    out = tmp_path / "demo"
    run = subprocess.run([str(belady_bin), "demo", "--data", str(ROOT / "data"), "--out", str(out)],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"Surprise: (\S+) with linux24 on (\S+) hits ([\d.]+)% against ([\d.]+)% for LRU: (\d+)% of the "
                  r"blocks \S+ read ahead\n  were evicted before any use \(LRU: (\d+)%\)", run)
    assert m, run
    assert m.group(1) == "lru-k" and m.group(2) == "files-loop.bev"
    assert int(m.group(5)) > int(m.group(6)) + 20
    # It points to the page the binary carries, not to a checkout path.
    assert "`belady help demo` explains why" in run
    page = subprocess.run([str(belady_bin), "help", "demo"], capture_output=True, text=True, check=True).stdout
    assert page.startswith((ROOT / "docs" / "demo.md").read_text().splitlines()[0])
    # The mechanism: with CRP 0 a prefetched block (no reference history) is the first victim at
    # the next miss. Kept ineligible for longer than read-ahead runs ahead of the program (CRP 100
    # references), LRU-K loses no read-ahead and matches LRU run for run.
    def sim(*extra):
        text = subprocess.run([str(belady_bin), "sim", "--trace", str(out / "files-loop.bev"), "--format", "events",
                               "--policy", "lru,lru-k", "--cache-size", "20%", "--prefetch", "linux24", "--disk",
                               "cheetah9lp", "--json", *extra], capture_output=True, text=True, check=True).stdout
        rows = json.loads(text)
        io = [r.get("io") or r for r in rows]
        return [(r["hit_ratio"], i["prefetch_unused_evicted"], i["prefetched_blocks"]) for r, i in zip(rows, io)]

    (lru_hit, lru_unused, _), (k_hit, k_unused, k_pre) = sim()
    assert lru_unused == 0 and k_unused > 0.5 * k_pre and k_hit < lru_hit - 0.3
    (lru_hit, _, _), (k_hit, k_unused, _) = sim("--param", "lru-k.crp=100")
    assert k_unused == 0 and k_hit == lru_hit


def test_lirs_and_clock_pro_under_read_ahead_lose_what_they_read_ahead(belady_bin, tmp_path):
    """docs/demo.md's LIRS / CLOCK-Pro section, checked: with the `paper` settings both evict over
    half of their read-ahead unused at 5% of files-loop.bev's blocks; with room for read-ahead (a
    20% HIR share, a fixed cold allocation) they lose none at 20%, and the summary lists both."""
    out = tmp_path / "demo"
    run = subprocess.run([str(belady_bin), "demo", "--data", str(ROOT / "data"), "--out", str(out)],
                         capture_output=True, text=True, check=True).stdout
    below = re.search(r"files-loop\.bev .*?points below LRU with linux24[^\n]*\n    ([^\n]+)", run, re.S)
    assert below, run
    for policy in ("lirs", "clock-pro"):
        assert re.search(rf"\b{policy} [\d.]+% \((\d+)%\)", below.group(1)), below.group(1)

    def sim(policy, size, *extra):
        text = subprocess.run([str(belady_bin), "sim", "--trace", str(out / "files-loop.bev"), "--format", "events",
                               "--policy", policy, "--cache-size", size, "--prefetch", "linux24", "--disk",
                               "cheetah9lp", "--json", *extra], capture_output=True, text=True, check=True).stdout
        (row,) = json.loads(text)
        return row["hit_ratio"], row["prefetch_unused_evicted"], row["prefetched_blocks"]

    (lru_hit, lru_unused, _) = sim("lru", "5%")
    assert lru_unused == 0
    for policy in ("lirs", "clock-pro"):
        hit, unused, pre = sim(policy, "5%")
        assert unused > 0.5 * pre and hit < lru_hit - 0.3, policy
    hit, unused, _ = sim("lirs", "20%", "--param", "lirs.hir=0.2")
    assert unused == 0 and hit > lru_hit
    hit, unused, _ = sim("clock-pro", "20%", "--param", "clock-pro.adaptive=false")
    assert unused == 0 and hit == lru_hit
    # Adaptive, with a floor of 20% cold frames: read-ahead keeps its room, and LRU's hit ratio.
    hit, unused, pre = sim("clock-pro", "20%", "--param", "clock-pro.cold_min=0.2")
    assert unused < 0.01 * pre and abs(hit - lru_hit) < 0.001
