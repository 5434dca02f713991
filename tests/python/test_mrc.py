"""belady.mrc: the Python view of `belady mrc` (rows as a DataFrame)."""

import pytest

belady = pytest.importorskip("belady")
pd = pytest.importorskip("pandas")


def loop_trace(tmp_path, blocks=50, passes=60):
    path = tmp_path / "loop.trace"
    path.write_text("".join(f"{i % blocks}\n" for i in range(blocks * passes)))
    return path


def test_exact_rows_equal_simulate(tmp_path):
    trace = loop_trace(tmp_path)
    curve = belady.mrc(trace, "lru,arc", [10, 49, 50])
    assert list(curve.columns) == [
        "policy", "cache_blocks", "miss_ratio", "hits", "requests", "method", "sample_rate",
    ]
    sim = belady.simulate(trace, "lru,arc", [10, 49, 50])
    assert list(curve["hits"]) == list(sim["hits"])
    assert set(curve["method"]) == {"exact"}
    # A loop of 50 blocks: LRU misses everything below 50 and only the first pass at 50.
    lru = curve[curve.policy == "lru"].set_index("cache_blocks")["miss_ratio"]
    assert lru[49] == 1.0
    assert lru[50] == pytest.approx(50 / 3000)


def test_sampled_rows_and_errors(tmp_path):
    trace = loop_trace(tmp_path, blocks=2000, passes=5)
    curve = belady.mrc(trace, ["lru", "2q"], "auto", sample_rate=0.5)
    assert set(curve["method"]) == {"sampled"}
    assert (curve["sample_rate"] == 0.5).all()
    for _, rows in curve.groupby("policy"):
        assert rows["cache_blocks"].is_monotonic_increasing
        assert rows["cache_blocks"].min() >= 2  # auto sizes start at 1 / R when sampling
    with pytest.raises(belady.ConfigError, match="invalid sample_rate .1.5."):
        belady.mrc(trace, "arc", sample_rate=1.5)
    with pytest.raises(belady.BeladyError):
        belady.mrc(tmp_path / "missing.trace", "lru")
