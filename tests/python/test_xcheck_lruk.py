"""belady's LRU-K against libcachesim's LRUK on the shared LIRS and ARC traces.

libcachesim's LRUK (libCacheSim/cache/eviction/cpp/LRU_K.cpp) has no Correlated Reference Period
(every reference counts) and no retained history (a block's history is erased on eviction); blocks
with fewer than K references are evicted first, oldest insertion first, the others by the oldest
K-th most recent reference. belady's LRU-K with crp=0 and history=0 is the same definition for
K = 2 (a block with one reference is ordered by that reference, which is its insertion), so the two
agree hit for hit. The study preset (CRP 20, history = cache size) is a different algorithm and is
not compared; for K > 2 libcachesim orders blocks with 2 .. K-1 references by insertion, belady by
their newest reference.
"""

from __future__ import annotations

import pytest

from conftest import sim, traces_dir
from test_xcheck_twoq import lcs_hits_oracle, to_oracle

LIRS_TRACES = sorted(p.name for p in (traces_dir() / "lirs").glob("*.trace.gz")) or ["(none)"]
ARC_TRACES = sorted(p.name for p in (traces_dir() / "arc").glob("*.lis.zst")) or ["(none)"]
SIZES = {"lirs": ["1%", "5%", "10%", "30%"], "arc": ["0.5%", "2%", "10%"]}


def _check(belady_bin, lcs, path, fmt, tmp_path):
    oracle = to_oracle(belady_bin, path, fmt, tmp_path)
    rows = sim(belady_bin, path, fmt, ["lru-k"], SIZES[fmt],
               "--param", "lru-k.crp=0", "--param", "lru-k.history=0")
    for row in rows:
        c = row["cache_blocks"]
        expected = round(lcs_hits_oracle(lcs, oracle, lcs.LRUK(cache_size=c, k=2)) * row["requests"])
        assert row["misses"] == expected, (c, row["misses"], expected)


@pytest.mark.parametrize("name", LIRS_TRACES)
def test_lirs_traces(belady_bin, traces, lcs, name, tmp_path):
    _check(belady_bin, lcs, traces / "lirs" / name, "lirs", tmp_path)


@pytest.mark.parametrize("name", ARC_TRACES)
def test_arc_traces(belady_bin, traces, lcs, name, tmp_path):
    _check(belady_bin, lcs, traces / "arc" / name, "arc", tmp_path)
