"""Shared pieces of the cross-checks of today's policies (S3-FIFO, SIEVE, SLRU, LFU, LFUDA, W-TinyLFU)
against libcachesim: traces the tests generate, the shared real trace, and the two replays.

The generated traces are written as LIRS-format files (one block number per line), which belady reads
with `--format lirs`; `belady convert` writes the same references as an oracleGeneral file of
unit-size objects that libcachesim replays with `process_trace`, so both simulators see one sequence
and count-based capacities agree.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np

from conftest import block_ids, sim
from test_xcheck_twoq import lcs_hits_oracle, to_oracle

# The shared real trace every today's-policy check also runs on (LIRS's multi1: 15858 references,
# 2606 blocks: cpp, gnuplot and postgres run together).
REAL_TRACE = ("lirs", "multi1.trace.gz")
# Sizes in blocks for the real trace: about 1 %, 10 % and 30 % of its 2606 blocks, multiples of 4
# (libCacheSim's SLRU gives each of its 4 segments floor(c/4); see policy/slru.rs).
REAL_SIZES = [28, 260, 780]
# Sizes in blocks for the generated traces (1 % to 25 % of their blocks; multiples of 4 and of 10).
GENERATED_SIZES = [40, 200, 1000]


def zipf_ids(rng, n_blocks: int, n_refs: int, alpha: float) -> np.ndarray:
    """`n_refs` block numbers drawn from a Zipf(alpha) popularity over `n_blocks` shuffled ids."""
    weights = 1.0 / np.arange(1, n_blocks + 1) ** alpha
    ranks = rng.choice(n_blocks, size=n_refs, p=weights / weights.sum())
    return rng.permutation(n_blocks)[ranks]


def generated_traces(seed: int = 26) -> dict[str, list[int]]:
    """Three synthetic traces: plain Zipf, Zipf with scans and loops mixed in, and a shifting hot set."""
    rng = np.random.default_rng(seed)
    traces = {"zipf": zipf_ids(rng, 4000, 40000, 0.9).tolist()}
    mixed: list[int] = []
    hot = zipf_ids(rng, 1500, 30000, 1.0)
    for i in range(0, len(hot), 3000):
        mixed.extend(hot[i:i + 3000].tolist())
        start = 10000 + i  # a scan of new blocks, then a loop over a small range, twice
        mixed.extend(range(start, start + 800))
        mixed.extend(list(range(20000, 20300)) * 2)
    traces["mixed"] = mixed
    shifting: list[int] = []
    for phase in range(4):
        shifting.extend((zipf_ids(rng, 1000, 10000, 0.8) + phase * 700).tolist())
    traces["shifting"] = shifting
    return traces


def write_lirs(ids: list[int], path: pathlib.Path) -> pathlib.Path:
    """Writes block numbers one per line (the LIRS trace format)."""
    path.write_text("\n".join(map(str, ids)) + "\n")
    return path


def belady_misses(belady_bin, path, fmt, policy, sizes, *extra) -> dict[int, tuple[int, int]]:
    """{cache blocks: (misses, requests)} of one belady policy at `sizes`."""
    rows = sim(belady_bin, path, fmt, [policy], sizes, *extra)
    return {row["cache_blocks"]: (row["misses"], row["requests"]) for row in rows}


def lcs_misses(lcs, make_cache, oracle_path, size: int, requests: int) -> int:
    """Misses of the libcachesim cache `make_cache(size)` replaying the oracleGeneral file."""
    # hashpower 16: the default (24) allocates a 2^24-bucket table per cache, which dominates
    # the run time at these trace lengths without changing any result.
    miss_ratio = lcs_hits_oracle(lcs, oracle_path, make_cache(cache_size=size, hashpower=16))
    return round(miss_ratio * requests)


def renumbered(ids: list[int]) -> list[int]:
    """The same reference string with each id replaced by its number in order of first reference
    from 0: the dense ids belady gives blocks, so a policy that hashes ids (libCacheSim's
    W-TinyLFU) hashes the same numbers in both simulators."""
    numbers: dict[int, int] = {}
    return [numbers.setdefault(i, len(numbers)) for i in ids]


def cases(belady_bin, traces_root, tmp_path, truncate=None, renumber=False):
    """(name, belady trace path, oracleGeneral path, sizes) for the generated traces and the real one,
    each cut to its first `truncate` references when given, its ids `renumbered` when asked."""
    out = []
    real = traces_root / REAL_TRACE[0] / REAL_TRACE[1]
    if truncate is not None or renumber:
        ids = block_ids(belady_bin, real, "lirs", tmp_path)[:truncate]
        real = write_lirs(renumbered(ids) if renumber else ids, tmp_path / real.stem)
    for name, ids in generated_traces().items():
        ids = ids[:truncate]
        path = write_lirs(renumbered(ids) if renumber else ids, tmp_path / f"{name}.trace")
        out.append((name, path, to_oracle(belady_bin, path, "lirs", tmp_path), GENERATED_SIZES))
    out.append((real.name, real, to_oracle(belady_bin, real, "lirs", tmp_path), REAL_SIZES))
    return out


def assert_exact(belady_bin, lcs, traces_root, tmp_path, policy, make_cache, *extra, truncate=None):
    """belady's `policy` (with `extra` sim options) misses exactly what `make_cache` misses on every
    generated trace and the real one, at every size; `truncate` keeps only the first references."""
    checked = 0
    for name, path, oracle, sizes in cases(belady_bin, traces_root, tmp_path, truncate):
        ours = belady_misses(belady_bin, path, "lirs", policy, sizes, *extra)
        assert sorted(ours) == sorted(sizes), (name, ours)
        for size in sizes:
            misses, requests = ours[size]
            theirs = lcs_misses(lcs, make_cache, oracle, size, requests)
            assert misses == theirs, (name, policy, size, misses, theirs)
            checked += 1
    assert checked == 3 * len(GENERATED_SIZES) + len(REAL_SIZES)


# Replays the ids in argv[1] through the first cache of libcachesim class argv[3] this process
# creates; prints its misses. libCacheSim's generator is one per process, starting at the same
# state, so the first cache of a fresh process is the one belady's `--seed 0` replays.
FIRST_CACHE = """
import sys
import libcachesim as lcs
ids = [int(x) for x in open(sys.argv[1]).read().split()]
cache = getattr(lcs, sys.argv[3])(cache_size=int(sys.argv[2]), hashpower=16)
req = lcs.Request()
req.obj_size = 1
misses = 0
for i in ids:
    req.obj_id = i
    misses += not cache.get(req)
print(misses)
"""


def lcs_first_cache_misses(policy_class: str, ids_path, size: int) -> int:
    """Misses of the first `policy_class` cache of a fresh libcachesim process over `ids_path`."""
    out = subprocess.run([sys.executable, "-c", FIRST_CACHE, str(ids_path), str(size), policy_class],
                         check=True, capture_output=True, text=True).stdout
    return int(out)
