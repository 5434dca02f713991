"""belady's SIEVE against libcachesim's Sieve: equal misses on generated traces and LIRS's multi1.

Both keep one FIFO queue with visited bits and a hand that walks from the tail toward the head,
clears bits, evicts the first unvisited block and stays at its neighbour toward the head
(libCacheSim's Sieve.c; policy/sieve.rs).
"""

from __future__ import annotations

from xcheck_today import assert_exact


def test_equal_misses(belady_bin, traces, lcs, tmp_path):
    assert_exact(belady_bin, lcs, traces, tmp_path, "sieve", lcs.Sieve)
