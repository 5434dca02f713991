"""belady --compat accusim against AccuSim's own results (../shared/oracles/accusim).

Every row of untimed.tsv for the schemes listed in EXACT_UNTIMED must match exactly in hits, misses and
synchronous/asynchronous requests and blocks, with the command the issue names:
    belady sim --trace IN.bin.gz --format accusim --compat accusim --policy ... --cache-size ...
               --prefetch linux24|none --json
A scheme joins the list once belady reproduces all of its rows.
"""

from __future__ import annotations

import collections
import csv

import pytest

from conftest import shared_dir, sim

ORACLE = shared_dir() / "oracles" / "accusim"
SCHEMES = {"OPT": "opt", "LRU": "lru", "LRU-2": "lru2", "LRFU": "lrfu", "LIRS": "lirs", "MQ": "mq", "2Q": "2q",
           "ARC": "arc"}
# belady's JSON names each run by its registry name.
LABELS = {"opt": "OPT", "lru": "LRU", "lru-k": "LRU-2", "lrfu": "LRFU", "lirs": "LIRS", "mq": "MQ", "2q": "2Q",
          "arc": "ARC"}
EXACT_UNTIMED = list(SCHEMES)
COLUMNS = {"hits": "hits", "misses": "misses", "sync_reqs": "sync_requests", "sync_blocks": "sync_blocks",
           "async_reqs": "async_requests", "async_blocks": "async_blocks", "accesses": "requests"}


def _rows(name: str) -> list[dict]:
    path = ORACLE / name
    if not path.is_file():
        return []
    with path.open() as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _groups(rows, schemes):
    groups = collections.defaultdict(list)
    for r in rows:
        if r["scheme"] in schemes:
            groups[(r["trace"], r["prefetch"], r["scheme"])].append(r)
    return sorted(groups.items())


UNTIMED = _groups(_rows("untimed.tsv"), EXACT_UNTIMED)


@pytest.fixture(scope="module")
def oracle():
    if not (ORACLE / "untimed.tsv").is_file():
        pytest.skip(f"AccuSim oracle not found at {ORACLE}")
    return ORACLE


def test_grid_is_complete(oracle):
    """The oracle holds the whole grid the README describes: 8 schemes x 2 x 14 trace sizes."""
    rows = _rows("untimed.tsv")
    assert len(rows) == 8 * 2 * 14
    assert {r["scheme"] for r in rows} == set(SCHEMES)


@pytest.mark.parametrize("key,rows", UNTIMED, ids=[f"{t}-pf{p}-{s}" for (t, p, s), _ in UNTIMED])
def test_untimed_rows_match_exactly(belady_bin, oracle, key, rows):
    trace, prefetch, scheme = key
    sizes = [int(r["cache_blocks"]) for r in rows]
    out = sim(belady_bin, oracle / "inputs" / f"{trace}.bin.gz", "accusim", [SCHEMES[scheme]], sizes,
              "--compat", "accusim", "--prefetch", "linux24" if prefetch == "1" else "none")
    assert len(out) == len(rows)
    for row, got in zip(rows, out):
        assert got["cache_blocks"] == int(row["cache_blocks"])
        assert got.get("late", 0) == 0
        for theirs, ours in COLUMNS.items():
            assert got[ours] == int(row[theirs]), (trace, prefetch, scheme, row["cache_blocks"], theirs)


# Timed runs (DiskSim's Cheetah 9LP in AccuSim, belady's cheetah9lp model here). The issue asks for run
# time within 5% on every row and 2% at the median, and hits, misses and request counts within 1%. The
# model meets that on every row: run time worst 1.4% (median 0.2%), hits 0.07%, misses 0.62%, disk
# requests 0.21% (synchronous requests and blocks and asynchronous blocks exact, asynchronous requests
# 0.38%; docs/disk.md, "Against AccuSim's runs"). The bounds below hold the level reached, with
# a little room, as a guard against regressions.
TIMED = _rows("timed.tsv")
EXEC_EACH, EXEC_MEDIAN = 0.015, 0.003
COUNT_BOUNDS = {"hits": ("hits", 0.001), "misses": ("misses", 0.0075), "num_ios": ("disk_requests", 0.003),
                "sync_reqs": ("sync_requests", 0.001), "sync_blocks": ("sync_blocks", 0.001),
                "async_reqs": ("async_requests", 0.005), "async_blocks": ("async_blocks", 0.001)}


def test_timed_rows_within_bounds(belady_bin, oracle):
    errors = []
    for (trace, prefetch), rows in sorted(_by_input(TIMED).items()):
        sizes = sorted({int(r["cache_blocks"]) for r in rows})
        schemes = [s for s in SCHEMES if any(r["scheme"] == s for r in rows)]
        out = sim(belady_bin, oracle / "inputs" / f"{trace}.bin.gz", "accusim", [SCHEMES[s] for s in schemes],
                  sizes, "--compat", "accusim", "--prefetch", "linux24" if prefetch == "1" else "none",
                  "--disk", "cheetah9lp")
        got = {(LABELS[r["policy"].split("(")[0]], r["cache_blocks"]): r for r in out}
        for row in rows:
            ours = got[(row["scheme"], int(row["cache_blocks"]))]
            where = (trace, prefetch, row["scheme"], row["cache_blocks"])
            assert ours["proc_time_s"] == pytest.approx(float(row["proc_time_s"]), abs=1e-6), where
            exec_error = abs(ours["exec_time_s"] / float(row["exec_time_s"]) - 1)
            assert exec_error < EXEC_EACH, (where, ours["exec_time_s"], row["exec_time_s"])
            errors.append(exec_error)
            for theirs, (field, bound) in COUNT_BOUNDS.items():
                assert abs(ours[field] - int(row[theirs])) <= bound * int(row[theirs]), (where, theirs)
    errors.sort()
    assert errors[len(errors) // 2] < EXEC_MEDIAN, f"median run-time error {errors[len(errors) // 2]:.3%}"


def _by_input(rows):
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["trace"], r["prefetch"])].append(r)
    return groups
