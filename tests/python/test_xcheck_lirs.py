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

On the ARC traces OLTP and P3 (at 0.5 %, 2 % and 10 % of the unique blocks) no size agrees exactly,
but the gap is far smaller: at most 44 misses, 0.003 % of the requests (OLTP at 934 blocks: 605,008
vs 605,034). The cause is the same step: a transcription of libCacheSim's `LIRS.c` equals
libcachesim hit for hit at all six sizes, and the same transcription without that step equals belady.
"""

from __future__ import annotations

import pytest

from conftest import block_ids, lcs_hits, sim, traces_dir
from test_xcheck_twoq import lcs_hits_oracle, to_oracle

SIZES = ["1%", "5%", "10%", "30%"]
ALIGNED = ["--param", "lirs.min_hir=1", "--param", "lirs.bound=stack-nonresident",
           "--param", "lirs.skip_dup=false"]
# Traces where the hit_RD_HIRinQ step never changes the outcome at these sizes: exact.
EXACT = ["cs", "ps", "zigzag", "scan", "loop", "backf"]
# The others: hits differ by at most this share of the requests (observed: <= 0.10 %).
BOUNDED = ["cpp", "gli", "multi1", "2_pools"]
BOUND = 0.0015
ARC_TRACES = ["OLTP", "P3"]
ARC_SIZES = ["0.5%", "2%", "10%"]
# The ARC traces: misses differ by at most this share of the requests (observed: <= 0.003 %).
ARC_BOUND = 0.0001


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


@pytest.mark.parametrize("name", ARC_TRACES)
def test_lirs_close_to_libcachesim_on_arc_traces(belady_bin, traces, lcs, name, tmp_path):
    path = traces / "arc" / f"{name}.lis.zst"
    if not path.exists():
        pytest.skip(f"{path} not found")
    oracle = to_oracle(belady_bin, path, "arc", tmp_path)
    for row in sim(belady_bin, path, "arc", ["lirs"], ARC_SIZES, *ALIGNED):
        expected = round(lcs_hits_oracle(lcs, oracle, lcs.LIRS(cache_size=row["cache_blocks"])) * row["requests"])
        gap = abs(row["misses"] - expected) / row["requests"]
        assert gap <= ARC_BOUND, (name, row["cache_blocks"], row["misses"], expected)
