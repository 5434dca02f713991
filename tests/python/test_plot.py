"""`belady.plot`: sizes on a log2 axis, axis labels in words, panels titled by read-ahead only where
there is read-ahead (not on miss-ratio curves), and every policy's line drawn."""

from __future__ import annotations

import pytest

belady = pytest.importorskip("belady")
pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    """A loop of 300 blocks, three times, then a scan: policies differ, sizes matter."""
    d = tmp_path_factory.mktemp("plot")
    path = d / "loop.trace"
    refs = [i % 300 for i in range(900)] + list(range(1000, 1600))
    path.write_text("".join(f"{b}\n" for b in refs))
    return path


def test_miss_ratio_curves_are_drawn_on_log2_sizes_with_words_and_no_read_ahead_title(trace, tmp_path):
    curves = belady.mrc(trace, ["lru", "arc", "fifo"], format="lirs")
    fig = belady.plot(curves)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.xaxis.get_transform().base == 2
    assert ax.get_ylabel() == "miss ratio" and ax.get_xlabel() == "cache size (blocks, log2 scale)"
    assert "read-ahead" not in ax.get_title()
    assert ax.get_title() == "miss-ratio curves"
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == ["lru", "arc", "fifo"]
    # Lines that coincide (lru and fifo on a loop) still differ in style and marker.
    assert len({(ln.get_linestyle(), ln.get_marker()) for ln in lines}) == 3
    # The curve's own numbers, in the frame's units.
    lru = curves[curves["policy"] == "lru"].sort_values("cache_blocks")
    assert list(lines[0].get_ydata()) == list(lru["miss_ratio"])
    fig.savefig(tmp_path / "mrc.png")
    with pytest.warns(UserWarning, match="too few"):  # 450 of 900 blocks: said, and drawn all the same
        half = belady.mrc(trace, ["lru", "arc"], format="lirs", sample_rate=0.5)
    sampled = belady.plot(half)
    assert sampled.axes[0].get_title() == "miss-ratio curves (sampled, R = 0.5)"


def test_runs_get_a_panel_per_read_ahead_setting_and_size_ticks(trace):
    runs = belady.simulate(trace, ["lru", "arc"], [50, 100, 200, 400], format="lirs", prefetch=["none", "linux6"])
    fig = belady.plot(runs)
    assert [ax.get_title() for ax in fig.axes] == ["read-ahead: none", "read-ahead: linux6"]
    for ax in fig.axes:
        assert ax.get_xscale() == "log" and ax.get_ylabel() == "hit ratio (%)"
        # A tick at each simulated size, labelled as the number of blocks.
        ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
        assert ticks == [50, 100, 200, 400]
        assert {ln.get_label() for ln in ax.get_lines()} == {"lru", "arc"}
    fig = belady.plot(runs, "disk_requests")
    assert fig.axes[0].get_ylabel() == "disk requests"


def test_columns_without_a_label_are_spelt_out():
    from belady._plot import label

    assert label("exec_time_s") == "execution time (s)"
    assert label("mean_response_ms") == "mean response (ms)"
    assert label("prefetch_unused_resident") == "prefetch unused resident"
