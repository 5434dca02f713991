"""belady's GDSF against libcachesim's GDSF, count-based: equal misses on generated traces and LIRS's
multi1.

Both follow libCacheSim's GDSF.cpp (policy/gdsf.rs lists its steps): priority L + frequency x 10^6 / size
with unit sizes here, ties to the oldest, L the last victim's priority, and a newcomer ranked below every
resident object evicted itself. test_xcheck_bytes.py checks the same at byte capacities.
"""

from __future__ import annotations

from xcheck_today import assert_exact


def test_equal_misses(belady_bin, traces, lcs, tmp_path):
    assert_exact(belady_bin, lcs, traces, tmp_path, "gdsf", lcs.GDSF)
