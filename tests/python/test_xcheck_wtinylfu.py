"""belady's W-TinyLFU against libcachesim's WTinyLFU, in both of belady's variants.

The paper's variant (Caffeine's design, the default) and libCacheSim's `WTinyLFU.c` are different
designs (policy/wtinylfu.rs and docs/policies.md list the differences: the sketch, what it records,
when it ages, the main space's split, the eviction loop), so their misses are compared within a
bound. libCacheSim's window is floor(0.01 c) objects and it admits nothing larger than the window,
so below 100 blocks it caches nothing at all; those sizes are checked for exactly that and left out
of the comparison. GAP_PP is the largest difference measured on these traces (2.31 percentage points,
the shifting trace at 1000 blocks, where belady's faster aging follows the moving hot set), rounded up.

`--preset libcachesim` (`wtinylfu.variant=libcachesim`) runs the model of libCacheSim's design
(compat/libcachesim/wtinylfu.rs): equal misses when the trace's ids are belady's dense ids (numbered
from 0 in order of first reference), since its counting Bloom filter hashes those; with the traces'
own ids the two filters' collisions differ, and the miss ratios stay within the issue's 1 point
(0.24 at most measured with libcachesim 0.3.5).
"""

from __future__ import annotations

import subprocess

from xcheck_today import GENERATED_SIZES, REAL_SIZES, belady_misses, cases, lcs_misses

GAP_PP = 2.5
WINDOWLESS = 100  # libCacheSim's window floor(0.01 c) is empty below this many blocks
ISSUE_PP = 1.0  # the bound issue 26 asks for


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


def test_libcachesim_variant_misses_exactly_what_libcachesim_misses_with_dense_ids(belady_bin, traces, lcs, tmp_path):
    checked = 0
    for name, path, oracle, sizes in cases(belady_bin, traces, tmp_path, renumber=True):
        ours = belady_misses(belady_bin, path, "lirs", "wtinylfu", sizes, "--preset", "libcachesim")
        for size in sizes:
            misses, requests = ours[size]
            theirs = lcs_misses(lcs, lcs.WTinyLFU, oracle, size, requests)
            assert misses == theirs, (name, size, misses, theirs)
            if size < WINDOWLESS:
                assert misses == requests, (name, size, misses)
            checked += 1
    assert checked == 3 * len(GENERATED_SIZES) + len(REAL_SIZES)


def test_libcachesim_variant_within_a_point_with_the_traces_own_ids(belady_bin, traces, lcs, tmp_path):
    worst = 0.0
    for name, path, oracle, sizes in cases(belady_bin, traces, tmp_path):
        ours = belady_misses(belady_bin, path, "lirs", "wtinylfu", sizes, "--preset", "libcachesim")
        for size in sizes:
            misses, requests = ours[size]
            theirs = lcs_misses(lcs, lcs.WTinyLFU, oracle, size, requests)
            gap = 100 * abs(misses - theirs) / requests
            assert gap <= ISSUE_PP, (name, size, misses, theirs, gap)
            worst = max(worst, gap)
    # The paper's variant is further off than the model on the same cases.
    assert worst < GAP_PP


def test_libcachesims_eviction_can_leave_its_cache_short(lcs):
    """docs/policies.md: a hit in libCacheSim's probation segment promotes the object to protected,
    whose LRU object cools into probation; when probation then holds more than floor(m/5) (the
    segments' truncated sizes can sum to less than main's m, and a move into a full main space goes
    to probation) its LRU object is evicted during the hit, so the cache holds c - 1 until the next
    miss. belady's paper variant evicts only on a miss; the libcachesim variant reproduces this
    (compat/libcachesim/wtinylfu.rs's tests). Measured here so the page's claim stays true."""
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


def test_libcachesim_variant_within_a_point_on_oltp(belady_bin, traces, lcs, tmp_path):
    """ARC's OLTP at about 1, 10 and 30 % of its 186,880 blocks (../shared/traces/README.md), read
    as 512-byte blocks with its own ids: measured within 0.07 pp."""
    path = traces / "arc" / "OLTP.lis.zst"
    sizes = [1869, 18688, 56064]
    ours = belady_misses(belady_bin, path, "arc", "wtinylfu", sizes, "--block-size", "512",
                         "--preset", "libcachesim")
    out = tmp_path / "OLTP.oracleGeneral"
    subprocess.run([str(belady_bin), "convert", "-t", str(path), "-f", "arc", "--block-size", "512",
                    "--to", "oracle-general", "-o", str(out)], check=True, capture_output=True)
    for size in sizes:
        misses, requests = ours[size]
        theirs = lcs_misses(lcs, lcs.WTinyLFU, out, size, requests)
        assert 100 * abs(misses - theirs) / requests <= ISSUE_PP, (size, misses, theirs)
