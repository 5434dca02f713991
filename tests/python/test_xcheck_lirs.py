"""belady's LIRS against libcachesim's LIRS on the shared LIRS traces.

LIRS, aligned parameters: libcachesim uses L_hirs = 1 % of the cache with a minimum of 1 block,
no duplicate skipping, and keeps |S| <= 2c by dropping the oldest non-resident entries
(`limitStack`, LRU_nh list); belady's `lirs.min_hir=1, bound=stack-nonresident, skip_dup=false`
is that setting. Most traces then agree hit for hit. The remaining difference is one step of
libCacheSim's `LIRS.c`: on a hit to a resident HIR block that is not in S (`hit_RD_HIRinQ`) it
first calls `evictLIR` while the LIR set is full, which demotes the bottom LIR block to Q (evicting
Q's front to make room) although the hit block stays HIR; the LIR set is then one short until a
later miss refills it. The paper (and belady) only push the block on S and move it to Q's end.
That case is rare, so the gap is small and bounded; traces where it never changes a decision
agree exactly.
"""

from __future__ import annotations

import pytest

from conftest import block_ids, lcs_hits, sim, traces_dir

SIZES = ["1%", "5%", "10%", "30%"]
ALIGNED = ["--param", "lirs.min_hir=1", "--param", "lirs.bound=stack-nonresident",
           "--param", "lirs.skip_dup=false"]
# Traces where the hit_RD_HIRinQ step never changes the outcome at these sizes: exact.
EXACT = ["cs", "ps", "zigzag", "scan", "loop", "backf"]
# The others: hits differ by at most this share of the requests (observed: <= 0.10 %).
BOUNDED = ["cpp", "gli", "multi1", "2_pools"]
BOUND = 0.0015


def _lirs_pairs(belady_bin, name, tmp_path):
    path = traces_dir() / "lirs" / f"{name}.trace.gz"
    ids = block_ids(belady_bin, path, "lirs", tmp_path)
    import libcachesim

    for row in sim(belady_bin, path, "lirs", ["lirs"], SIZES, *ALIGNED):
        assert row["requests"] == len(ids)
        yield row, lcs_hits(libcachesim.LIRS(cache_size=row["cache_blocks"]), ids)


@pytest.mark.parametrize("name", EXACT)
def test_lirs_equals_libcachesim_when_aligned(belady_bin, traces, lcs, name, tmp_path):
    for row, expected in _lirs_pairs(belady_bin, name, tmp_path):
        assert row["hits"] == expected, (name, row["cache_blocks"], row["hits"], expected)


@pytest.mark.parametrize("name", BOUNDED)
def test_lirs_close_to_libcachesim_when_aligned(belady_bin, traces, lcs, name, tmp_path):
    for row, expected in _lirs_pairs(belady_bin, name, tmp_path):
        gap = abs(row["hits"] - expected) / row["requests"]
        assert gap <= BOUND, (name, row["cache_blocks"], row["hits"], expected)

