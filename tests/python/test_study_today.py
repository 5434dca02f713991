"""docs/study-today.md cannot drift from the code: the page is what scripts/study_today.py writes from the
committed results (experiments/study-today.csv), those results are what belady gives now for every cell
rerun here, and each claim the page makes (each finding's verdict and numbers, where `linux` and `mglru`
stand between LRU and OPT, which policy wins) comes out the same from the rerun.

The rerun is experiments/study-today.toml itself (trace paths under $BELADY_TRACES/..): every workload's
whole grid except OLTP's, whose 914,145 references make its 285 runs about a minute of CPU; OLTP runs at
OLTP_SIZES (BELADY_STUDY_TODAY_FULL=1 reruns all of it).
"""

from __future__ import annotations

import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import study_today as S  # noqa: E402

OLTP_SIZES = ["10%", "40%"]
BIG = S.BIG
KEYS = ("trace", "prefetch", "policy", "cache_size")


def key(r):
    return tuple(r[k] for k in KEYS)


@pytest.fixture(scope="module")
def committed():
    """The committed results, as the page was written from them."""
    return S.read_csv(S.CSV_PATH.read_text())


@pytest.fixture(scope="module")
def rerun(belady_bin, traces, tmp_path_factory):
    """The experiment's cells run now, in one fresh store."""
    tmp = tmp_path_factory.mktemp("study-today")
    store = tmp / "results.sqlite"
    shared = traces.parent
    names = [t["name"] for t in S.load_experiment()["trace"]]
    if not (shared / "oracles" / "accusim" / "inputs").is_dir():
        pytest.skip(f"AccuSim inputs not found under {shared}/oracles (set BELADY_TRACES)")
    S.sweep(belady_bin, S.experiment_text(shared, store, traces=[n for n in names if n != BIG]), tmp, store)
    full = os.environ.get("BELADY_STUDY_TODAY_FULL") == "1"
    rows = S.sweep(belady_bin, S.experiment_text(shared, store, traces=[BIG],
                                                 cache_sizes=None if full else OLTP_SIZES), tmp, store)
    return S.records(rows, S.sequential_percents(belady_bin, shared))


def test_page_is_written_from_the_committed_results(committed):
    page = S.render(S.Data(committed))
    assert S.DOC_PATH.read_text() == page, (
        "docs/study-today.md differs from what scripts/study_today.py writes from experiments/study-today.csv; "
        "run `python3 scripts/study_today.py`")


def test_each_number_carries_one_sign(committed):
    """A rise in requests reads "+0.6%", never "−-0.6%" (issue 37): changes are signed once, with a
    minus sign, and a phrase never puts a sign of its own before a signed number."""
    assert (S.signed_pct(0.006), S.signed_pct(-0.46)) == ("+0.6%", "−46.0%")
    assert S.signed(-1.42) == "−1.42"
    page = S.render(S.Data(committed))
    for twice in ("−-", "-−", "−−", "+-", "−+", "+−", "++"):
        assert twice not in page, f"{twice!r} in the page"
    rows = [line for line in page.splitlines() if "requests " in line]
    assert rows and all(" -" not in line.split("requests ", 1)[1][:2] for line in rows)


def test_committed_results_are_the_whole_experiment(committed):
    exp = S.load_experiment()
    want = [(t["name"], pf, p, s) for t in exp["trace"] for pf in exp["prefetch"] for p in exp["policies"]
            for s in exp["cache_sizes"]]
    have = [key(r) for r in committed]
    assert sorted(have) == sorted(want), (
        "experiments/study-today.csv is not the grid of experiments/study-today.toml (a policy, trace or size "
        "added or removed?); run `python3 scripts/study_today.py --run`")


def test_results_are_what_belady_gives_now(committed, rerun):
    by_key = {key(r): r for r in committed}
    assert len(rerun) > 1500
    for r in rerun:
        assert key(r) in by_key, f"{key(r)} was rerun but is not in the committed results"
        c = by_key[key(r)]
        diff = {k: (c[k], r[k]) for k in S.COLUMNS if c[k] != r[k]}
        assert not diff, (f"{key(r)}: committed vs now {diff}; rerun `python3 scripts/study_today.py --run` "
                          "and read what changed in docs/study-today.md")


@pytest.mark.parametrize("finding", [f.id for f in S.FINDINGS])
def test_each_finding_verdict_holds_now(finding, committed, rerun):
    """Each verdict the page states (per workload, or per workload and size), judged again on the rerun."""
    f = next(x for x in S.FINDINGS if x.id == finding)
    page = f.verdicts(S.Data(committed))
    now = f.verdicts(S.Data(rerun))
    assert now, f"{finding}: the rerun judges no cell"
    for cell, verdict in now.items():
        assert page[cell] == verdict, f"{finding} on {cell}: the page says {page[cell]}, now {verdict}"


def test_kernel_policies_stand_where_the_page_says(committed, rerun):
    """`linux` and `mglru` between LRU and OPT (or below LRU) as the page's table states."""
    page = S.standings(S.Data(committed))
    now = S.standings(S.Data(rerun))
    assert len(now) >= 6 * 3 * 2 * 2
    for k, x in now.items():
        assert S.place(page[k]) == S.place(x), f"{k}: the page says {S.place(page[k])}, now {S.place(x)}"
        assert page[k] == pytest.approx(x, abs=1e-12), k


def test_each_workload_has_the_winner_the_page_names(committed, rerun):
    page = S.winners(S.Data(committed))
    now = S.winners(S.Data(rerun))
    assert len(now) >= 6 * len(S.METRICS)
    for k, w in now.items():
        assert page[k][0] == w[0], f"{k}: the page names {page[k][0]}, now {w[0]} wins"
        assert page[k] == w, k


def test_the_page_claims_linux_between_lru_and_opt_where_it_is(committed):
    """The page's sentence on the kernel's policies, checked against the hit ratios directly (not through
    the script's positions): the workloads where each lies strictly between LRU and OPT under Linux 6."""
    data = S.Data(committed)
    text = S.DOC_PATH.read_text()
    for p in S.KERNEL_POLICIES:
        between = []
        for t in data.traces:
            lru, x, opt = (data.mean_hr(t, "linux6", q) for q in ("lru", p, "opt"))
            if min(lru, opt) < x < max(lru, opt):
                between.append(t)
        claim = f"`{p}` lies between LRU and OPT on {len(between)} of {len(data.traces)} workloads"
        if between:
            claim += " (" + ", ".join(between) + ")"
        assert claim in text, f"the page does not say: {claim}"
