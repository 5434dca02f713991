"""belady's LFUDA against libcachesim's LFUDA: equal misses on generated traces and LIRS's multi1.

belady follows libCacheSim's LFUDA.c rules (policy/lfuda.rs: a hit adds the age to the priority, the
age moves to the next non-empty group when its group empties). Priorities then grow geometrically,
and libCacheSim looks for the next group by stepping through every integer up to the largest
priority, which takes minutes beyond about 20000 references on these traces; the check therefore
uses the first 16000 references of each trace.
"""

from __future__ import annotations

from xcheck_today import assert_exact

PREFIX = 16000


def test_equal_misses(belady_bin, traces, lcs, tmp_path):
    assert_exact(belady_bin, lcs, traces, tmp_path, "lfuda", lcs.LFUDA, truncate=PREFIX)
