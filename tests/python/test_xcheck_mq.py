"""belady's MQ against libcachesim's MQ on the shared LIRS and ARC traces.

libcachesim's MQ (libCacheSim/cache/eviction/MQ.c) follows the paper's steps with the same clock
order as belady: the expiry time is set to (requests before this one) + lifetime, then Adjust
advances the clock and demotes the LRU block of each queue Qk (k >= 1) whose expiry time is
strictly below the clock, one per queue, to the MRU end of Q(k-1), keeping its count. Qout is a
FIFO of floor(c * Qout-size-ratio) ids with their counts. One order differs: on a miss
libcachesim takes the missed block out of Qout *before* evicting, the paper's pseudo-code looks it
up *after* the eviction has pushed the victim into Qout (dropping Qout's oldest id if full).
belady's `mq.ghost_lookup=before-evict` selects libcachesim's order and then agrees hit for hit;
the default (paper) order differs only when the missed block is the oldest id of a full Qout, so
the miss counts stay within a small bound (measured on these traces: at most 0.17 % of the
requests, ps at 30 blocks; the assertion allows 0.5 %).
"""

from __future__ import annotations

import pytest

from conftest import sim, traces_dir
from test_xcheck_twoq import lcs_hits_oracle, to_oracle

LIRS_TRACES = sorted(p.name for p in (traces_dir() / "lirs").glob("*.trace.gz")) or ["(none)"]
ARC_TRACES = sorted(p.name for p in (traces_dir() / "arc").glob("*.lis.zst")) or ["(none)"]
SIZES = {"lirs": ["1%", "5%", "10%", "30%"], "arc": ["0.5%", "2%", "10%"]}
# (belady preset, libcachesim n_queue, Qout ratio); lifetime = c in both presets.
SETTINGS = [("paper", 8, 4.0), ("study", 4, 1.0)]
# Largest |paper order - libcachesim order| miss difference allowed, as a fraction of requests.
ORDER_BOUND = 0.005


def _check(belady_bin, lcs, path, fmt, tmp_path):
    oracle = to_oracle(belady_bin, path, fmt, tmp_path)
    for preset, queues, qout in SETTINGS:
        paper = sim(belady_bin, path, fmt, ["mq"], SIZES[fmt], "--preset", preset)
        aligned = sim(belady_bin, path, fmt, ["mq"], SIZES[fmt], "--preset", preset,
                      "--param", "mq.ghost_lookup=before-evict")
        for row, arow in zip(paper, aligned):
            c = row["cache_blocks"]
            cache = lcs.MQ(cache_size=c, n_queue=queues, lifetime=c, qout_size_ratio=qout)
            expected = round(lcs_hits_oracle(lcs, oracle, cache) * row["requests"])
            assert arow["misses"] == expected, (preset, c, arow["misses"], expected)
            assert abs(row["misses"] - expected) <= ORDER_BOUND * row["requests"], (
                preset, c, row["misses"], expected)


@pytest.mark.parametrize("name", LIRS_TRACES)
def test_lirs_traces(belady_bin, traces, lcs, name, tmp_path):
    _check(belady_bin, lcs, traces / "lirs" / name, "lirs", tmp_path)


@pytest.mark.parametrize("name", ARC_TRACES)
def test_arc_traces(belady_bin, traces, lcs, name, tmp_path):
    _check(belady_bin, lcs, traces / "arc" / name, "arc", tmp_path)
