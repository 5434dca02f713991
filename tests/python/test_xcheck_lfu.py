"""belady's LFU against libcachesim's LFU: equal misses on generated traces and LIRS's multi1.

Both start a block's count at 1 when it enters, forget it on eviction, and among blocks with the
least count evict the one that reached that count first (libCacheSim's frequency nodes are FIFO
lists; policy/lfu.rs).
"""

from __future__ import annotations

from xcheck_today import assert_exact


def test_equal_misses(belady_bin, traces, lcs, tmp_path):
    assert_exact(belady_bin, lcs, traces, tmp_path, "lfu", lcs.LFU)
