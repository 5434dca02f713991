"""matplotlib charts of simulation results and miss-ratio curves, in the shape of the prefetching study's
figures and of `belady report`: cache size on a log2 axis, one line per policy, one panel per read-ahead
setting."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

# Miss-ratio curves (`belady.mrc`) are not result rows: their metric's label is theirs.
CURVE_LABELS = {"miss_ratio": "miss ratio"}


def _metrics() -> dict[str, dict]:
    """The registry's metrics by key: their axis labels and which are drawn in percent."""
    from belady import metrics

    return {m["key"]: m for m in metrics()}


# Line styles and markers cycled per policy, so lines that coincide still show each policy.
STYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "D", "x", "v", "P", "*"]


def label(column: str) -> str:
    """`column` as an axis label in words: a metric's label from the registry (``hit ratio (%)``),
    a curve's miss ratio, other columns with units spelt out (``launch_time_s`` -> "launch time (s)")."""
    known = _metrics()
    if column in known:
        return known[column]["label"]
    if column in CURVE_LABELS:
        return CURVE_LABELS[column]
    for suffix, unit in (("_ms", "ms"), ("_s", "s"), ("_bytes", "bytes")):
        if column.endswith(suffix):
            return f"{column[: -len(suffix)].replace('_', ' ')} ({unit})"
    return column.replace("_", " ")


def _scale(column: str) -> float:
    """The factor a column is drawn with: 100 for the registry's ratios (drawn in percent)."""
    return _metrics().get(column, {}).get("scale", 1)


# Columns that tell stored runs apart besides policy, size and read-ahead (the lines, the x axis
# and the panels): runs differing in any of them must not share a line.
SETTING = ["trace", "trace_hash", "format", "block_size", "params", "preset", "disk", "scheduler", "compat",
           "max_request", "read_ahead_kb", "belady_version", "levels", "placement"]


def _one_setting(data: pd.DataFrame) -> pd.DataFrame:
    """`data` with one run per (read-ahead, policy, size); a ValueError when runs that differ in a
    setting (a changed trace file, another preset, ...) would be drawn on one line."""
    cols = [c for c in SETTING if c in data.columns]
    mixed = [c for c in cols if data[c].astype(str).nunique() > 1]
    size = ("capacity_unit", "capacity") if "capacity" in data.columns else ("cache_blocks",)
    place = [c for c in ("prefetch", "policy", *size) if c in data.columns]
    if mixed:
        raise ValueError(
            f"the frame mixes runs that differ in {', '.join(mixed)}; select one value of each before plotting, "
            f"e.g. frame[frame[{mixed[0]!r}] == {data[mixed[0]].iloc[0]!r}]")
    # Left over: the same run stored under two spellings of its size ("10%" and "185").
    return data.drop_duplicates(subset=place) if place else data


def _is_mrc(frame: pd.DataFrame) -> bool:
    """Whether `frame` holds miss-ratio curves (`belady.mrc`), not simulation runs."""
    return "method" in frame.columns and "sample_rate" in frame.columns and "prefetch" not in frame.columns


def _bytes(v: float) -> str:
    """A byte size as the report names it: exactly in the largest unit dividing it (``64MiB``), else
    with two decimals in the largest binary unit below it."""
    v = int(round(v))
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10),
                        ("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if v >= scale and v % scale == 0:
            return f"{v // scale}{unit}"
    if v < 1024:
        return f"{v}B"
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v >= scale:
            return f"{v / scale:.2f}{unit}"
    return f"{v}B"


def _size_ticks(panel, sizes, unit: str = "blocks") -> None:
    """A tick at each size when they are few (as `belady report`), else at powers of two, labelled in
    plain numbers (byte capacities by their size, ``64MiB``)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator

    sizes = sorted({int(s) for s in sizes if s > 0})
    if 0 < len(sizes) <= 12:
        panel.xaxis.set_major_locator(FixedLocator(sizes))
    else:
        panel.xaxis.set_major_locator(LogLocator(base=2))
    panel.xaxis.set_minor_locator(NullLocator())

    def plain(v, _pos):
        if unit == "bytes":
            return _bytes(v)
        if v >= 1e6:
            return f"{v / 1e6:g}M"
        if v >= 1e4:
            return f"{v / 1e3:g}k"
        return f"{v:g}"

    panel.xaxis.set_major_formatter(FuncFormatter(plain))


def plot(frame: pd.DataFrame, metric: str | None = None, *, trace: str | None = None, ax=None):
    """`metric` against cache size (log2 axis), one line per policy; simulation runs get one panel per
    read-ahead setting, miss-ratio curves (`belady.mrc`) one panel. `metric` defaults to ``hit_ratio``,
    or ``miss_ratio`` for curves."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    mrc = _is_mrc(frame)
    if metric is None:
        metric = "miss_ratio" if mrc else "hit_ratio"
    if metric not in frame.columns:
        raise ValueError(f"no column {metric!r}; choose one of {', '.join(map(str, frame.columns))}")
    data = frame if trace is None else frame[frame["trace"] == trace]
    if data.empty:
        raise ValueError("nothing to plot: the frame holds no runs" + (f" of {trace}" if trace else ""))
    data = _one_setting(data)
    # Sizes in their own unit where the rows say it (`capacity`, `capacity_unit`), else in blocks.
    size = "capacity" if "capacity" in data.columns else "cache_blocks"
    if "capacity_unit" in data.columns:
        units = sorted(data["capacity_unit"].unique(), key=["blocks", "objects", "bytes"].index)
    else:
        units = [None]
    if "prefetch" in data.columns:
        settings = sorted(data["prefetch"].fillna("none").unique(), key=lambda p: (p != "none", p))
    else:
        settings = [None]
    # One panel per read-ahead setting, and per capacity unit when runs have several (an axis of
    # bytes is not one of objects).
    panels = [(s, u) for s in settings for u in units
              if not _part(data, s, u).empty]
    if ax is None:
        fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4), squeeze=False)
        axes = list(axes[0])
    else:
        fig, axes = ax.figure, [ax] * len(panels)
    scale = _scale(metric)
    for panel, (setting, unit) in zip(axes, panels):
        part = _part(data, setting, unit)
        for i, (policy, runs) in enumerate(part.groupby("policy", sort=False)):
            runs = runs.sort_values(size)
            many = len(runs) > 12
            # Curves of ~100 points get a marker every few points, staggered per policy.
            every = (i % max(1, len(runs) // 10), max(1, len(runs) // 10)) if many else None
            panel.plot(runs[size], runs[metric] * scale, label=policy,
                       linestyle=STYLES[i % len(STYLES)], marker=MARKERS[i % len(MARKERS)],
                       markevery=every, markersize=5 if many else 6)
        panel.set_xscale("log", base=2)
        _size_ticks(panel, part[size], unit or "blocks")
        if setting is not None:
            panel.set_title(f"read-ahead: {setting}" + (f", {unit}" if len(units) > 1 else ""))
        elif mrc:
            rates = sorted({float(r) for r in part["sample_rate"]})
            sampled = [r for r in rates if r < 1]
            panel.set_title("miss-ratio curves" + (f" (sampled, R = {', '.join(f'{r:g}' for r in sampled)})"
                                                   if sampled else ""))
        panel.set_xlabel(f"cache size ({unit or 'blocks'}, log2 scale)")
        panel.set_ylabel(label(metric))
        panel.grid(alpha=0.3)
        panel.legend(fontsize="small")
    fig.tight_layout()
    return fig


def _part(data: pd.DataFrame, setting: str | None, unit: str | None) -> pd.DataFrame:
    """The runs of one panel: one read-ahead setting and one capacity unit (None: all)."""
    part = data if setting is None else data[data["prefetch"].fillna("none") == setting]
    return part if unit is None else part[part["capacity_unit"] == unit]
