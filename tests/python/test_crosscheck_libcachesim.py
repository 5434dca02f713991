"""belady's LRU, FIFO and CLOCK equal libcachesim's hit for hit on every shared LIRS and ARC trace."""

from __future__ import annotations

import pytest

from conftest import block_ids, lcs_hits, sim, traces_dir

LIRS_TRACES = sorted(p.name for p in (traces_dir() / "lirs").glob("*.trace.gz")) or ["(none)"]
ARC_TRACES = sorted(p.name for p in (traces_dir() / "arc").glob("*.lis.zst")) or ["(none)"]
SIZES = {"lirs": ["1%", "5%", "10%", "30%"], "arc": ["0.5%", "2%", "10%"]}
POLICIES = {"lru": ("LRU", {}), "fifo": ("FIFO", {}), "clock": ("Clock", {})}


def _check(belady_bin, lcs, path, fmt, tmp_path):
    rows = sim(belady_bin, path, fmt, list(POLICIES), SIZES[fmt])
    ids = block_ids(belady_bin, path, fmt, tmp_path)
    assert rows[0]["requests"] == len(ids)
    for row in rows:
        cls_name, kwargs = POLICIES[row["policy"]]
        cache = getattr(lcs, cls_name)(cache_size=row["cache_blocks"], **kwargs)
        expected = lcs_hits(cache, ids)
        assert row["hits"] == expected, (row["policy"], row["cache_blocks"], row["hits"], expected)


@pytest.mark.parametrize("name", LIRS_TRACES)
def test_lirs_traces(belady_bin, traces, lcs, name, tmp_path):
    _check(belady_bin, lcs, traces / "lirs" / name, "lirs", tmp_path)


@pytest.mark.parametrize("name", ARC_TRACES)
def test_arc_traces(belady_bin, traces, lcs, name, tmp_path):
    _check(belady_bin, lcs, traces / "arc" / name, "arc", tmp_path)


def test_opt_equals_libcachesim_belady_with_oracle(belady_bin, traces, lcs, tmp_path):
    """libcachesim's Belady is MIN only with next-access times; belady writes them (oracleGeneral)."""
    path = traces / "lirs" / "ps.trace.gz"
    oracle = tmp_path / "ps.oracleGeneral"
    import subprocess

    subprocess.run(
        [str(belady_bin), "convert", "-t", str(path), "-f", "lirs", "--to", "oracle-general", "-o", str(oracle)],
        check=True, capture_output=True,
    )
    for row in sim(belady_bin, path, "lirs", ["opt"], ["2%", "10%", "40%"]):
        reader = lcs.TraceReader(str(oracle), lcs.TraceType.ORACLE_GENERAL_TRACE)
        cache = lcs.Belady(cache_size=row["cache_blocks"])
        miss_ratio, _ = cache.process_trace(reader)
        assert round(miss_ratio * row["requests"]) == row["misses"], (row, miss_ratio)
