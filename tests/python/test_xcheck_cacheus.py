"""belady's Cacheus against libcachesim's, at 1 %, 10 % and 30 % of the footprint: equal misses.

`--preset libcachesim` sets `cacheus.variant=libcachesim`: SR-LRU and the learning rate as
libcachesim 0.3.5 runs SR_LRU.c and Cacheus.c (SR and R capped at floor(c/2) with SR's overflow
leaving the cache even when it has room, SR growing but never shrinking, libCacheSim's
learning-rate step; see policy/cacheus.rs), and draws from libCacheSim's own generator. Its stream
is one per thread and goes on from cache to cache, starting at the same state in every process,
so belady's seed 0 replays the draws of the first Cacheus a fresh libcachesim process creates:
each libcachesim run here is its own process, and the misses must be equal.
"""

from __future__ import annotations

import subprocess

from xcheck_learned import assert_first_cache_misses_equal
from xcheck_today import generated_traces, write_lirs

def test_equal_misses_with_libcachesims_variant_and_draws(belady_bin, traces, lcs, tmp_path):
    assert_first_cache_misses_equal(belady_bin, traces, tmp_path, "cacheus", "Cacheus")


def test_the_seed_decides_and_threads_do_not(belady_bin, tmp_path):
    path = write_lirs(generated_traces()["zipf"][:8000], tmp_path / "zipf.trace")

    def run(seed, threads, *extra):
        cmd = [str(belady_bin), "sim", "--trace", str(path), "--format", "lirs", "--policy",
               "cacheus", "--cache-size", "40,200", "--seed", str(seed), "--threads", str(threads),
               "--json", *extra]
        return subprocess.run(cmd, check=True, capture_output=True).stdout

    for extra in ((), ("--preset", "libcachesim")):
        assert run(1, 1, *extra) == run(1, 2, *extra)
        assert any(run(s, 1, *extra) != run(1, 1, *extra) for s in (2, 3, 4))
