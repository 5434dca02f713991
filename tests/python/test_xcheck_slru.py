"""belady's SLRU against libcachesim's SLRU (four equal segments, its default): equal misses on
generated traces and LIRS's multi1.

Sizes are multiples of 4: libCacheSim gives each segment floor(c/4) and, when 4 does not divide c,
lets segment 0 overflow and trims it by evicting on a hit, which a belady level never does
(policy/slru.rs gives segment 0 the remainder instead).
"""

from __future__ import annotations

from xcheck_today import GENERATED_SIZES, REAL_SIZES, assert_exact


def test_equal_misses(belady_bin, traces, lcs, tmp_path):
    assert all(c % 4 == 0 for c in GENERATED_SIZES + REAL_SIZES)
    assert_exact(belady_bin, lcs, traces, tmp_path, "slru", lcs.SLRU)
