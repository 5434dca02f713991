"""belady's SLRU against libcachesim's SLRU (four equal segments, its default): equal misses on
generated traces and LIRS's multi1.

The paper's variant at multiples of 4: libCacheSim gives each segment floor(c/4) and, when 4 does not
divide c, lets segment 0 overflow and trims it by evicting on a hit, which the paper's variant does not
(policy/slru.rs gives segment 0 the remainder instead); `--preset libcachesim` models libCacheSim's
sizing (compat/libcachesim/slru.rs) and is checked at sizes 4 does not divide.
"""

from __future__ import annotations

from xcheck_today import GENERATED_SIZES, REAL_SIZES, assert_exact, belady_misses, cases, lcs_misses


def test_equal_misses(belady_bin, traces, lcs, tmp_path):
    assert all(c % 4 == 0 for c in GENERATED_SIZES + REAL_SIZES)
    assert_exact(belady_bin, lcs, traces, tmp_path, "slru", lcs.SLRU)


def test_the_libcachesim_preset_matches_at_sizes_the_segments_do_not_divide(belady_bin, traces, lcs, tmp_path):
    """Issue 37: `--preset libcachesim` builds libCacheSim's SLRU sizing (every segment floor(c/4),
    segment 0 trimmed by evicting on a hit; compat/libcachesim/slru.rs): equal misses at sizes with
    each remainder mod 4, and below 4 blocks (nothing cached) too. The paper's variant, which gives
    segment 0 the remainder, differs at some of them."""
    checked, differ = 0, 0
    for name, path, oracle, sizes in cases(belady_bin, traces, tmp_path):
        sizes = [3, 7] + [s + r for s, r in zip(sizes, (1, 2, 3))]
        assert all(s % 4 for s in sizes)
        ours = belady_misses(belady_bin, path, "lirs", "slru", sizes, "--preset", "libcachesim")
        paper = belady_misses(belady_bin, path, "lirs", "slru", sizes)
        for size in sizes:
            misses, requests = ours[size]
            theirs = lcs_misses(lcs, lcs.SLRU, oracle, size, requests)
            assert misses == theirs, (name, size, misses, theirs)
            differ += paper[size][0] != theirs
            checked += 1
    assert checked == 4 * 5
    assert differ > 0, "the paper's variant is expected to differ where 4 does not divide the size"
