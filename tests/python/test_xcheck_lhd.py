"""belady's LHD against libcachesim's: miss ratios within 1 point at 1 %, 10 % and 30 % of the
footprint. Both draw 8 candidates per eviction (the warm-up count: neither trace reaches the 2^20
references of a first reconfiguration, so the densities stay at libCacheSim's start values) and make
one reference in 32 an explorer, from different random streams (libCacheSim its own generator, belady a
PCG stream seeded by --seed); each side is the mean of three runs, and docs/policies.md explains the gap.
"""

from __future__ import annotations

import subprocess

from xcheck_learned import BOUND_PP, gaps
from xcheck_today import generated_traces, write_lirs


def test_miss_ratios_within_a_point(belady_bin, traces, lcs, tmp_path):
    rows = gaps(belady_bin, lcs, traces, tmp_path, "lhd", lcs.LHD, draws=3)
    assert len(rows) == 12
    for name, size, ours, theirs, gap in rows:
        assert gap <= BOUND_PP, (name, size, ours, theirs, gap)


def test_the_seed_decides_and_threads_do_not(belady_bin, tmp_path):
    path = write_lirs(generated_traces()["zipf"][:8000], tmp_path / "zipf.trace")

    def run(seed, threads):
        cmd = [str(belady_bin), "sim", "--trace", str(path), "--format", "lirs", "--policy",
               "lhd", "--cache-size", "40,200", "--seed", str(seed), "--threads", str(threads),
               "--json"]
        return subprocess.run(cmd, check=True, capture_output=True).stdout

    assert run(1, 1) == run(1, 2)
    assert any(run(s, 1) != run(1, 1) for s in (2, 3, 4))
