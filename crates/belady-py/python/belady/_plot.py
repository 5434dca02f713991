"""matplotlib charts of simulation results and miss-ratio curves, in the shape of the prefetching study's
figures and of `belady report`: cache size on a log2 axis, one line per policy, one panel per read-ahead
setting."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

# Axis labels in words for the metrics people plot; any other column is spelt out by `label`.
LABELS = {
    "hit_ratio": "hit ratio (%)",
    "miss_ratio": "miss ratio",
    "byte_miss_ratio": "byte miss ratio (%)",
    "disk_requests": "disk requests",
    "exec_time_s": "execution time (s)",
    "io_wait_s": "time waiting for the disk (s)",
    "misses": "misses",
    "hits": "hits",
    "late": "references that waited for read-ahead",
    "prefetched_blocks": "blocks read ahead",
    "prefetch_unused_evicted": "read-ahead blocks evicted unused",
}

# Metrics drawn in percent (stored as 0..1).
PERCENT = {"hit_ratio", "byte_miss_ratio"}

# Line styles and markers cycled per policy, so lines that coincide still show each policy.
STYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "D", "x", "v", "P", "*"]


def label(column: str) -> str:
    """`column` as an axis label in words: the known metrics by name, others with units spelt out
    (``io_time_s`` -> "io time (s)")."""
    if column in LABELS:
        return LABELS[column]
    for suffix, unit in (("_ms", "ms"), ("_s", "s"), ("_bytes", "bytes")):
        if column.endswith(suffix):
            return f"{column[: -len(suffix)].replace('_', ' ')} ({unit})"
    return column.replace("_", " ")


# Columns that tell stored runs apart besides policy, size and read-ahead (the lines, the x axis
# and the panels): runs differing in any of them must not share a line.
SETTING = ["trace", "trace_hash", "format", "block_size", "params", "preset", "disk", "scheduler", "compat",
           "max_request", "read_ahead_kb", "belady_version", "levels", "placement"]


def _one_setting(data: pd.DataFrame) -> pd.DataFrame:
    """`data` with one run per (read-ahead, policy, size); a ValueError when runs that differ in a
    setting (a changed trace file, another preset, ...) would be drawn on one line."""
    cols = [c for c in SETTING if c in data.columns]
    mixed = [c for c in cols if data[c].astype(str).nunique() > 1]
    place = [c for c in ("prefetch", "policy", "cache_blocks") if c in data.columns]
    if mixed:
        raise ValueError(
            f"the frame mixes runs that differ in {', '.join(mixed)}; select one value of each before plotting, "
            f"e.g. frame[frame[{mixed[0]!r}] == {data[mixed[0]].iloc[0]!r}]")
    # Left over: the same run stored under two spellings of its size ("10%" and "185").
    return data.drop_duplicates(subset=place) if place else data


def _is_mrc(frame: pd.DataFrame) -> bool:
    """Whether `frame` holds miss-ratio curves (`belady.mrc`), not simulation runs."""
    return "method" in frame.columns and "sample_rate" in frame.columns and "prefetch" not in frame.columns


def _size_ticks(panel, sizes) -> None:
    """A tick at each size when they are few (as `belady report`), else at powers of two, labelled in
    plain numbers."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator

    sizes = sorted({int(s) for s in sizes if s > 0})
    if 0 < len(sizes) <= 12:
        panel.xaxis.set_major_locator(FixedLocator(sizes))
    else:
        panel.xaxis.set_major_locator(LogLocator(base=2))
    panel.xaxis.set_minor_locator(NullLocator())

    def plain(v, _pos):
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
    if "prefetch" in data.columns:
        settings = sorted(data["prefetch"].fillna("none").unique(), key=lambda p: (p != "none", p))
    else:
        settings = [None]
    if ax is None:
        fig, axes = plt.subplots(1, len(settings), figsize=(5.5 * len(settings), 4), squeeze=False)
        axes = list(axes[0])
    else:
        fig, axes = ax.figure, [ax] * len(settings)
    scale = 100 if metric in PERCENT else 1
    for panel, setting in zip(axes, settings):
        part = data if setting is None else data[data["prefetch"].fillna("none") == setting]
        for i, (policy, runs) in enumerate(part.groupby("policy", sort=False)):
            runs = runs.sort_values("cache_blocks")
            many = len(runs) > 12
            # Curves of ~100 points get a marker every few points, staggered per policy.
            every = (i % max(1, len(runs) // 10), max(1, len(runs) // 10)) if many else None
            panel.plot(runs["cache_blocks"], runs[metric] * scale, label=policy,
                       linestyle=STYLES[i % len(STYLES)], marker=MARKERS[i % len(MARKERS)],
                       markevery=every, markersize=5 if many else 6)
        panel.set_xscale("log", base=2)
        _size_ticks(panel, part["cache_blocks"])
        if setting is not None:
            panel.set_title(f"read-ahead: {setting}")
        elif mrc:
            rates = sorted({float(r) for r in part["sample_rate"]})
            sampled = [r for r in rates if r < 1]
            panel.set_title("miss-ratio curves" + (f" (sampled, R = {', '.join(f'{r:g}' for r in sampled)})"
                                                   if sampled else ""))
        panel.set_xlabel("cache size (blocks, log2 scale)")
        panel.set_ylabel(label(metric))
        panel.grid(alpha=0.3)
        panel.legend(fontsize="small")
    fig.tight_layout()
    return fig
