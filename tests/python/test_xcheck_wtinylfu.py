"""belady's W-TinyLFU (Caffeine's design) against libcachesim's WTinyLFU: miss ratios close, not equal.

The two are different designs (policy/wtinylfu.rs and docs/policies.md list the differences: the
sketch, what it records, when it ages, the main space's split), so misses are compared within a
bound. libCacheSim's window is floor(0.01 c) objects and it admits nothing larger than the window,
so below 100 blocks it caches nothing at all; those sizes are checked for exactly that and left out
of the comparison. GAP_PP is the largest difference measured on these traces (2.31 percentage points,
the shifting trace at 1000 blocks, where belady's faster aging follows the moving hot set), rounded up:
it is above the 1 point the issue asks for, which docs/policies.md records as open.
"""

from __future__ import annotations

from xcheck_today import belady_misses, cases, lcs_misses

GAP_PP = 2.5
WINDOWLESS = 100  # libCacheSim's window floor(0.01 c) is empty below this many blocks


def test_miss_ratios_within_the_measured_gap(belady_bin, traces, lcs, tmp_path):
    compared = 0
    for name, path, oracle, sizes in cases(belady_bin, traces, tmp_path):
        ours = belady_misses(belady_bin, path, "lirs", "wtinylfu", sizes)
        for size in sizes:
            misses, requests = ours[size]
            theirs = lcs_misses(lcs, lcs.WTinyLFU, oracle, size, requests)
            if size < WINDOWLESS:
                assert theirs == requests, (name, size, theirs)
                assert misses < requests, (name, size, misses)
                continue
            gap = 100 * abs(misses - theirs) / requests
            assert gap <= GAP_PP, (name, size, misses, theirs, gap)
            compared += 1
    assert compared >= 6


def test_libcachesims_eviction_can_leave_its_cache_short(lcs):
    """docs/policies.md: libCacheSim's eviction loop moves each winning window candidate into main
    (evicting main's victim) and goes on with the next candidate until one loses or the window is
    empty, so one miss can evict two blocks and the cache holds c - 1 until the next miss. belady's
    W-TinyLFU evicts one block per miss. Measured here so the page's claim stays true."""
    from xcheck_today import generated_traces

    size = 200
    cache = lcs.WTinyLFU(cache_size=size)
    req = lcs.Request()
    req.obj_size = 1
    filled, short, lowest = False, 0, size
    for obj in generated_traces()["shifting"]:
        req.obj_id = int(obj)
        cache.get(req)
        held = cache.get_n_obj()
        filled = filled or held == size
        if filled:
            short += held < size
            lowest = min(lowest, held)
    assert filled and short > 0 and lowest == size - 1, (short, lowest)
