"""belady's 2Q against libcachesim's TwoQ: equal hit for hit on the shared LIRS and ARC traces.

libcachesim's TwoQ (libCacheSim/cache/eviction/TwoQ.c) keeps Ain as a FIFO, Aout as a FIFO of
ids capped at floor(c * Aout-size-ratio), and Am as an LRU; on a full cache it evicts Ain's oldest
block into Aout when Ain holds more than floor(c * Ain-size-ratio) blocks (strict >), else Am's
LRU block without remembering it; Ain hits do not move; an Aout hit is taken out of Aout before
the eviction and enters Am. That is the paper's full 2Q with Kin = Ain-size-ratio and Kout =
Aout-size-ratio. Its one structural difference, Am being a separate LRU capped at c - Kin, cannot
bind on demand-only traffic: Aout only receives ids once Ain has grown past Kin, and Ain never
shrinks below Kin afterwards, so Am never exceeds c - Kin. Hence exact equality is asserted.
"""

from __future__ import annotations

import subprocess

import pytest

from conftest import sim, traces_dir

LIRS_TRACES = sorted(p.name for p in (traces_dir() / "lirs").glob("*.trace.gz")) or ["(none)"]
ARC_TRACES = sorted(p.name for p in (traces_dir() / "arc").glob("*.lis.zst")) or ["(none)"]
SIZES = {"lirs": ["1%", "5%", "10%", "30%"], "arc": ["0.5%", "2%", "10%"]}
# (belady preset, libcachesim Ain ratio, Aout ratio)
SETTINGS = [("paper", 0.25, 0.5), ("study", 0.25, 1.0)]


def lcs_hits_oracle(lcs, oracle_path, cache) -> float:
    """Replays an oracleGeneral file through `cache` with process_trace; returns the miss ratio."""
    reader = lcs.TraceReader(str(oracle_path), lcs.TraceType.ORACLE_GENERAL_TRACE)
    miss_ratio, _ = cache.process_trace(reader)
    return miss_ratio


def to_oracle(belady_bin, path, fmt, tmp_path):
    """Writes the trace as an oracleGeneral file (unit-size objects) for libcachesim."""
    out = tmp_path / (path.name + ".oracleGeneral")
    subprocess.run(
        [str(belady_bin), "convert", "-t", str(path), "-f", fmt, "--to", "oracle-general", "-o", str(out)],
        check=True, capture_output=True,
    )
    return out


def _check(belady_bin, lcs, path, fmt, tmp_path):
    oracle = to_oracle(belady_bin, path, fmt, tmp_path)
    for preset, ain, aout in SETTINGS:
        for row in sim(belady_bin, path, fmt, ["2q"], SIZES[fmt], "--preset", preset):
            c = row["cache_blocks"]
            cache = lcs.TwoQ(cache_size=c, a_in_size_ratio=ain, a_out_size_ratio=aout)
            miss_ratio = lcs_hits_oracle(lcs, oracle, cache)
            assert round(miss_ratio * row["requests"]) == row["misses"], (preset, c, row["misses"], miss_ratio)


@pytest.mark.parametrize("name", LIRS_TRACES)
def test_lirs_traces(belady_bin, traces, lcs, name, tmp_path):
    _check(belady_bin, lcs, traces / "lirs" / name, "lirs", tmp_path)


@pytest.mark.parametrize("name", ARC_TRACES)
def test_arc_traces(belady_bin, traces, lcs, name, tmp_path):
    _check(belady_bin, lcs, traces / "arc" / name, "arc", tmp_path)
