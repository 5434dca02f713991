"""matplotlib charts of simulation results, in the shape of the prefetching study's figures."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

LABELS = {
    "hit_ratio": "hit ratio (%)",
    "disk_requests": "disk requests",
    "exec_time_s": "execution time (s)",
    "misses": "misses",
}


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


def plot(frame: pd.DataFrame, metric: str = "hit_ratio", *, trace: str | None = None, ax=None):
    """`metric` against cache size, one line per policy, one panel per read-ahead setting."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    if metric not in frame.columns:
        raise ValueError(f"no column {metric!r}; choose one of {', '.join(map(str, frame.columns))}")
    data = frame if trace is None else frame[frame["trace"] == trace]
    if data.empty:
        raise ValueError("nothing to plot: the frame holds no runs" + (f" of {trace}" if trace else ""))
    data = _one_setting(data)
    settings = sorted(data["prefetch"].fillna("none").unique(), key=lambda p: (p != "none", p)) \
        if "prefetch" in data.columns else ["none"]
    if ax is None:
        fig, axes = plt.subplots(1, len(settings), figsize=(5.5 * len(settings), 4), squeeze=False)
        axes = list(axes[0])
    else:
        fig, axes = ax.figure, [ax] * len(settings)
    for panel, setting in zip(axes, settings):
        part = data if "prefetch" not in data.columns else data[data["prefetch"].fillna("none") == setting]
        for policy, runs in part.groupby("policy", sort=False):
            runs = runs.sort_values("cache_blocks")
            values = runs[metric] * (100 if metric == "hit_ratio" else 1)
            panel.plot(runs["cache_blocks"], values, marker="o", label=policy)
        panel.set_title(f"read-ahead: {setting}")
        panel.set_xlabel("cache size (blocks)")
        panel.set_ylabel(LABELS.get(metric, metric))
        panel.grid(alpha=0.3)
        panel.legend(fontsize="small")
    fig.tight_layout()
    return fig
