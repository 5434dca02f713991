"""Shared pieces of the cross-checks of policies against libcachesim (Hyperbolic, LHD): miss ratios
within a bound at 1 %, 10 % and 30 % of each trace's footprint (LeCaR and Cacheus, equal under
--preset libcachesim, use its sizes only).

They reuse the traces of xcheck_today (three generated, LIRS's multi1); the sizes are taken from each
trace's count of distinct blocks (its footprint in unit-size objects), so both simulators get the
same whole number of blocks.
"""

from __future__ import annotations

from conftest import block_ids
from xcheck_today import belady_misses, cases, lcs_first_cache_misses, lcs_misses

# Shares of the footprint the issue names.
SHARES = (0.01, 0.10, 0.30)
# The bound the issue sets, in percentage points of miss ratio.
BOUND_PP = 1.0


def footprint_sizes(belady_bin, path, tmp_path) -> list[int]:
    """Cache sizes in blocks at SHARES of the distinct blocks of the LIRS-format trace at `path`."""
    unique = len(set(block_ids(belady_bin, path, "lirs", tmp_path)))
    return sorted({max(1, round(unique * s)) for s in SHARES})


def gaps(belady_bin, lcs, traces_root, tmp_path, policy, make_cache, *extra, draws=1):
    """(trace, size, belady misses, libcachesim misses, gap in points) at every footprint share.

    With `draws` > 1 a randomised policy is compared as the mean of that many runs on each side
    (belady with seeds 0..draws-1, libcachesim with its own stream going on): one run of either
    moves by a fraction of a point with its random draws."""
    out = []
    for name, path, oracle, _ in cases(belady_bin, traces_root, tmp_path):
        sizes = footprint_sizes(belady_bin, path, tmp_path)
        runs = [belady_misses(belady_bin, path, "lirs", policy, sizes, *extra,
                              *(("--seed", str(seed)) if draws > 1 else ()))
                for seed in range(draws)]
        for ours in runs:
            assert sorted(ours) == sizes, (name, ours)
        for size in sizes:
            requests = runs[0][size][1]
            misses = sum(r[size][0] for r in runs) / draws
            theirs = sum(lcs_misses(lcs, make_cache, oracle, size, requests)
                         for _ in range(draws)) / draws
            out.append((name, size, misses, theirs, 100 * abs(misses - theirs) / requests))
    return out


def assert_first_cache_misses_equal(belady_bin, traces_root, tmp_path, policy, policy_class) -> int:
    """belady's `policy` under `--preset libcachesim --seed 0` misses exactly as often as the first
    `policy_class` cache of a fresh libcachesim process, on every case at each footprint share;
    returns the cells compared."""
    cells = 0
    for name, path, _, _ in cases(belady_bin, traces_root, tmp_path):
        sizes = footprint_sizes(belady_bin, path, tmp_path)
        ids_path = tmp_path / f"{name}.ids"
        ids_path.write_text("\n".join(map(str, block_ids(belady_bin, path, "lirs", tmp_path))))
        ours = belady_misses(belady_bin, path, "lirs", policy, sizes, "--preset", "libcachesim",
                             "--seed", "0")
        for size in sizes:
            assert ours[size][0] == lcs_first_cache_misses(policy_class, ids_path, size), (name, size)
            cells += 1
    return cells
