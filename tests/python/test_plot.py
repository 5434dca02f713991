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


def test_labels_are_the_registrys_and_other_columns_are_spelt_out():
    from belady._plot import label

    registry = {m["key"]: m for m in belady.metrics()}
    for key in ("hit_ratio", "exec_time_s", "mean_response_ms", "prefetch_unused_resident"):
        assert label(key) == registry[key]["label"]
    assert label("exec_time_s") == "execution time (s)"
    assert label("miss_ratio") == "miss ratio"
    assert label("launch_time_s") == "launch time (s)"
    assert label("store_limit_bytes") == "store limit (bytes)"


def test_byte_capacities_get_their_own_panel_named_in_bytes(tmp_path, belady_bin):
    """An objects-model frame at byte capacities beside an object count: one panel per unit, sizes in
    their unit, byte ticks by their size; the frame's columns have the registry's dtypes."""
    import subprocess

    og = tmp_path / "og.oracleGeneral.bin"
    subprocess.run([str(belady_bin), "gen", "zipf", "--requests", "20000", "--blocks", "2000", "--sizes",
                    "lognormal:8KiB,1.5,1MiB", "--to", "oracle-general", "-o", str(og)], check=True,
                   capture_output=True)
    runs = belady.simulate(og, ["lru", "arc"], ["8MiB", "64MiB", 100])
    assert list(runs["capacity_unit"]) == ["bytes", "bytes", "objects"] * 2
    assert str(runs["capacity"].dtype) == "int64" and str(runs["hits"].dtype) == "int64"
    assert str(runs["cache_blocks"].dtype) == "Int64", "absent for byte capacities, not 0"
    assert runs["cache_blocks"].isna().sum() == 4
    fig = belady.plot(runs, "byte_miss_ratio")
    # Units in the rows' order: blocks, objects, bytes.
    assert [ax.get_xlabel() for ax in fig.axes] == ["cache size (objects, log2 scale)",
                                                    "cache size (bytes, log2 scale)"]
    assert fig.axes[1].get_ylabel() == "byte miss ratio (%)"
    ticks = [t.get_text() for t in fig.axes[1].get_xticklabels()]
    assert "8MiB" in ticks and "64MiB" in ticks, ticks
