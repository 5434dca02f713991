"""belady's Cacheus against libcachesim's, at 1 %, 10 % and 30 % of the footprint.

libCacheSim's Cacheus.c does not adapt (SR's target and the learning rate never move: see
policy/cacheus.rs), so the comparison runs belady with --preset libcachesim, which turns both
adaptations off. What is left between the two is random draws (the expert chosen per eviction, the first
learning rate) and one structural difference: libCacheSim's SR-LRU evicts SR's overflow out of the cache
even when the cache has room, so its cache runs below its size, while a belady level evicts only to make
room.

One run of either says little: a weight that reaches 0 stays there, so one draw of the first learning
rate moves the miss ratio by several points (libCacheSim's Cacheus on Zipf at 38 blocks: 26943 to 28960
misses over consecutive caches in one process, whose draws continue one stream). So the means of RUNS
runs are compared: belady over seeds 0..RUNS-1, libcachesim over RUNS consecutive caches.

Measured, the mean gaps exceed the issue's 1 point on 6 of the 12 cells (docs/policies.md records them
and keeps the issue's bound open for Cacheus): belady misses less in every one of them. The largest,
10.1 points on multi1 at 782 blocks, is libCacheSim's under-filled cache (it holds 83 % of its size on
average there); the 1.4 to 3.4 points at 1 % of every trace and on multi1 at 10 %, with libCacheSim's
cache nearly full, are not explained yet. The test asserts that shape: every gap above 1 point has belady lower, none exceeds
GAP_PP (the largest measured, rounded up), and every gap above UNDERFILLED_GAP_PP comes with a cache
libCacheSim kept under-filled (occupancy from a request-by-request replay).
"""

from __future__ import annotations

import subprocess
from statistics import mean

from conftest import block_ids
from xcheck_learned import BOUND_PP, footprint_sizes
from xcheck_today import belady_misses, cases, generated_traces, lcs_misses, write_lirs

# A cache counts as under-filled when it held on average less than this share of its size.
UNDERFILLED = 0.9
# The largest mean gap measured (10.14 points, multi1 at 782 blocks), rounded up.
GAP_PP = 10.5
# Gaps above this must come with libCacheSim's under-filled cache.
UNDERFILLED_GAP_PP = 5.0
# Runs averaged on each side.
RUNS = 5


def lcs_occupancy(lcs, ids, size) -> float:
    """Mean number of blocks libcachesim's Cacheus holds over `ids`."""
    cache = lcs.Cacheus(cache_size=size, hashpower=16)
    req = lcs.Request()
    req.obj_size = 1
    held = 0
    for i in ids:
        req.obj_id = i
        cache.get(req)
        held += cache.get_n_obj()
    return held / len(ids)


def test_mean_gaps_above_a_point_have_belady_lower(belady_bin, traces, lcs, tmp_path):
    within = 0
    for name, path, oracle, _ in cases(belady_bin, traces, tmp_path):
        sizes = footprint_sizes(belady_bin, path, tmp_path)
        ours = [belady_misses(belady_bin, path, "lirs", "cacheus", sizes, "--preset", "libcachesim",
                              "--seed", str(seed)) for seed in range(RUNS)]
        for size in sizes:
            requests = ours[0][size][1]
            mine = mean(run[size][0] for run in ours)
            theirs = mean(lcs_misses(lcs, lcs.Cacheus, oracle, size, requests) for _ in range(RUNS))
            gap = 100 * abs(mine - theirs) / requests
            if gap <= BOUND_PP:
                within += 1
                continue
            assert mine < theirs and gap <= GAP_PP, (name, size, mine, theirs, gap)
            if gap > UNDERFILLED_GAP_PP:
                held = lcs_occupancy(lcs, block_ids(belady_bin, path, "lirs", tmp_path), size)
                assert held < UNDERFILLED * size, (name, size, gap, held)
    # 6 of 12 measured within; libcachesim's draws continue one stream per process, so the tests
    # run before this one shift them a little.
    assert within >= 5


def test_the_seed_decides_and_threads_do_not(belady_bin, tmp_path):
    path = write_lirs(generated_traces()["zipf"][:8000], tmp_path / "zipf.trace")

    def run(seed, threads):
        cmd = [str(belady_bin), "sim", "--trace", str(path), "--format", "lirs", "--policy",
               "cacheus", "--cache-size", "40,200", "--seed", str(seed), "--threads", str(threads),
               "--json"]
        return subprocess.run(cmd, check=True, capture_output=True).stdout

    assert run(1, 1) == run(1, 2)
    assert any(run(s, 1) != run(1, 1) for s in (2, 3, 4))
