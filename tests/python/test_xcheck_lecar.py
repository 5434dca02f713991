"""belady's LeCaR against libcachesim's, at 1 %, 10 % and 30 % of the footprint: equal misses.

`--preset libcachesim` sets `lecar.variant=libcachesim`: LeCaR as libcachesim 0.3.5 runs LeCaR.c
(a history per expert of floor(c/2) ids, no draw and no history entry when both experts pick the
same victim; see policy/lecar.rs), drawing from libCacheSim's own generator. Its stream is one per
thread and goes on from cache to cache, starting at the same state in every process, so belady's
seed 0 replays the draws of the first LeCaR a fresh libcachesim process creates: each libcachesim
run here is its own process, and the misses must be equal.
"""

from __future__ import annotations

import subprocess

from conftest import block_ids
from xcheck_learned import footprint_sizes
from xcheck_today import belady_misses, cases, generated_traces, lcs_first_cache_misses, write_lirs

def test_equal_misses_with_libcachesims_variant_and_draws(belady_bin, traces, lcs, tmp_path):
    cells = 0
    for name, path, _, _ in cases(belady_bin, traces, tmp_path):
        sizes = footprint_sizes(belady_bin, path, tmp_path)
        ids_path = tmp_path / f"{name}.ids"
        ids_path.write_text("\n".join(map(str, block_ids(belady_bin, path, "lirs", tmp_path))))
        ours = belady_misses(belady_bin, path, "lirs", "lecar", sizes, "--preset", "libcachesim",
                             "--seed", "0")
        for size in sizes:
            assert ours[size][0] == lcs_first_cache_misses("LeCaR", ids_path, size), (name, size)
            cells += 1
    assert cells == 12


def test_the_seed_decides_and_threads_do_not(belady_bin, tmp_path):
    path = write_lirs(generated_traces()["zipf"][:8000], tmp_path / "zipf.trace")

    def run(seed, threads, *extra):
        cmd = [str(belady_bin), "sim", "--trace", str(path), "--format", "lirs", "--policy",
               "lecar", "--cache-size", "40,200", "--seed", str(seed), "--threads", str(threads),
               "--json", *extra]
        return subprocess.run(cmd, check=True, capture_output=True).stdout

    for extra in ((), ("--preset", "libcachesim")):
        assert run(1, 1, *extra) == run(1, 2, *extra)
        assert any(run(s, 1, *extra) != run(1, 1, *extra) for s in (2, 3, 4))
