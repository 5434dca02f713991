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


# Highlighted lines, as in `belady report` (crates/belady-cli/src/chart.rs HIGHLIGHT): slot 0 is LRU's,
# slot 1 FIFO's, the others follow; each of the twelve slots its own colour and marker, and line styles cycle so
# that lines drawn on top of each other still show.
PALETTE = ["#000000", "#8c564b", "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9",
           "#9467bd", "#d62728", "#17becf", "#808000"]
MARKERS = ["o", "s", "^", "D", "x", "v", "P", "*", "h", "<", ">", "p"]
STYLES = ["-", "--", ":", "-."]
# The lines not highlighted, and the reference (OPT).
OTHER = "#d0d0d0"
REFERENCE = "#777777"
BASELINES = ("lru", "fifo")
# Up to this many policies are all highlighted; with more, only those that matter are.
ALL = 6
# A size where more policies than this tie for the best value makes none of them a winner.
TIES = 3


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


def value_span(values, cap: float | None = None) -> tuple[float, float]:
    """The value axis for `values`, as `belady report` draws it: spanning the data (a little room,
    rounded to a step of 1, 2 or 5 times a power of ten) rather than from 0, unless the data come
    near 0; never below 0 for data that are not, nor above `cap` (100 for percentages)."""
    import math

    vals = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    if not vals or (min(vals) == 0 and max(vals) == 0):
        return 0.0, cap if cap is not None else 1.0
    lo, hi = min(vals), max(vals)
    span = hi - lo if hi > lo else max(abs(hi), abs(lo)) * 0.1
    raw = span / 5
    power = 10 ** math.floor(math.log10(raw))
    step = next(f for f in (1, 2, 5, 10) if raw / power <= f) * power
    y0 = math.floor((lo - span * 0.05) / step) * step
    y1 = math.ceil((hi + span * 0.05) / step) * step
    if lo >= 0 and y0 < 0:
        y0 = 0.0
    if cap is not None and hi <= cap:
        y1 = min(y1, cap)
    if y1 <= y0:
        y1 = y0 + step
    return y0, y1


def _better(column: str) -> str:
    """Which way `column` is better: the registry's ``higher`` or ``lower`` (``lower`` for a curve's
    miss ratio), ``-`` for other columns."""
    if column in CURVE_LABELS:
        return "lower"
    return _metrics().get(column, {}).get("better", "-")


def _winners(part: pd.DataFrame, metric: str, size: str) -> set[str]:
    """The policies of `part` best by `metric` at some size, or by the mean over the sizes every
    policy ran (OPT left out; a size where more than `TIES` tie gives none)."""
    better = _better(metric)
    if better not in ("higher", "lower"):
        return set()
    runs = part[part["policy"] != "opt"]
    found: set[str] = set()

    def best_of(values):
        values = values.dropna()
        if values.empty:
            return []
        pick = values.max() if better == "higher" else values.min()
        tied = list(values.index[(values - pick).abs() <= 1e-9 * max(abs(pick), 1.0)])
        return tied if len(tied) <= TIES else []

    for _, at in runs.groupby(size):
        found.update(best_of(at.set_index("policy")[metric]))
    sizes = runs.groupby("policy")[size].apply(set)
    if len(sizes):
        common = set.intersection(*sizes)
        if common:
            means = runs[runs[size].isin(common)].groupby("policy")[metric].mean()
            found.update(best_of(means))
    return found


def _slots(policies: list[str], highlighted: set[str]) -> dict[str, int]:
    """Each highlighted policy's palette slot: LRU 0, FIFO 1, the others from 2 in `policies` order."""
    slots = {p: i for i, p in enumerate(BASELINES) if p in highlighted}
    for p in policies:
        if p in highlighted and p not in slots:
            slots[p] = len(BASELINES) + len([q for q in slots if q not in BASELINES])
    return slots


def plot(frame: pd.DataFrame, metric: str | None = None, *, trace: str | None = None, ax=None,
         highlight=None):
    """`metric` against cache size (log2 axis), one line per policy; simulation runs get one panel per
    read-ahead setting, miss-ratio curves (`belady.mrc`) one panel. `metric` defaults to ``hit_ratio``,
    or ``miss_ratio`` for curves.

    As in `belady report`, with more than six policies only those that matter are highlighted, each in
    its own colour and marker: LRU and FIFO (the baselines), the best at some size or by the mean over
    the sizes, and the policies named in `highlight`; the others are thin light grey lines under one
    legend entry ("N other policies (grey)"), OPT a grey dashed reference. The value axis spans the
    data (not from 0 unless the data come near it) and each panel's title says where it starts."""
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
    percent = scale == 100
    named = {str(n).lower() for n in (highlight or [])}
    policies = list(dict.fromkeys(p for p in data["policy"] if p != "opt"))
    unknown = sorted(named - set(policies))
    if unknown:
        raise ValueError(f"highlight names no policy of the frame: {', '.join(unknown)} "
                         f"(it has {', '.join(policies)})")
    everyone = len(policies) <= ALL
    chosen = {p: set(policies) if everyone else
              ({p for p in policies if p in BASELINES} | named | _winners(_part(data, *p), metric, size))
              for p in panels}
    slots = _slots(policies, set().union(*chosen.values()) if chosen else set())
    for panel, (setting, unit) in zip(axes, panels):
        part = _part(data, setting, unit)
        shown = chosen[(setting, unit)]
        grey = [p for p in part["policy"].unique() if p != "opt" and p not in shown]
        groups = list(part.groupby("policy", sort=False))
        # Grey lines first, the reference over them, the highlighted lines on top.
        groups.sort(key=lambda g: 0 if g[0] in grey else (1 if g[0] == "opt" else 2))
        first_grey = True
        for policy, runs in groups:
            runs = runs.sort_values(size)
            x, y = runs[size], runs[metric] * scale
            if policy in grey:
                panel.plot(x, y, color=OTHER, linewidth=1, zorder=1,
                           label=f"{len(grey)} other {'policy' if len(grey) == 1 else 'policies'} (grey)"
                           if first_grey else "_nolegend_")
                first_grey = False
                continue
            if policy == "opt":
                panel.plot(x, y, color=REFERENCE, linestyle="--", linewidth=1.5, zorder=2, label="opt (reference)")
                continue
            i = slots[policy]
            many = len(runs) > 12
            # Curves of ~100 points get a marker every few points, staggered per policy.
            every = (i % max(1, len(runs) // 10), max(1, len(runs) // 10)) if many else None
            panel.plot(x, y, label=policy, color=PALETTE[i % len(PALETTE)], zorder=3,
                       linestyle=STYLES[i % len(STYLES)], marker=MARKERS[i % len(MARKERS)],
                       markevery=every, markersize=5 if many else 6)
        panel.set_xscale("log", base=2)
        _size_ticks(panel, part[size], unit or "blocks")
        lo, hi = value_span(part[metric] * scale, 100 if percent else (1 if metric in CURVE_LABELS else None))
        panel.set_ylim(lo, hi)
        span = (f"y axis from {lo:g}{'%' if percent else ''} to {hi:g}{'%' if percent else ''}"
                + (" (not from 0)" if lo > 0 else ""))
        if setting is not None:
            panel.set_title(f"read-ahead: {setting}" + (f", {unit}" if len(units) > 1 else "") + f"\n{span}")
        elif mrc:
            rates = sorted({float(r) for r in part["sample_rate"]})
            sampled = [r for r in rates if r < 1]
            panel.set_title("miss-ratio curves" + (f" (sampled, R = {', '.join(f'{r:g}' for r in sampled)})"
                                                   if sampled else "") + f"\n{span}")
        else:
            panel.set_title(span)
        panel.set_xlabel(f"cache size ({unit or 'blocks'}, log2 scale)")
        panel.set_ylabel(label(metric))
        panel.grid(alpha=0.3)
        # The legend as the report's: highlighted lines in slot order, the reference, the grey rest.
        handles, names = panel.get_legend_handles_labels()
        order = sorted(range(len(names)), key=lambda k: (names[k].endswith("(grey)"), names[k] == "opt (reference)",
                                                          slots.get(names[k], 0)))
        panel.legend([handles[k] for k in order], [names[k] for k in order], fontsize="small")
    fig.tight_layout()
    return fig


def _part(data: pd.DataFrame, setting: str | None, unit: str | None) -> pd.DataFrame:
    """The runs of one panel: one read-ahead setting and one capacity unit (None: all)."""
    part = data if setting is None else data[data["prefetch"].fillna("none") == setting]
    return part if unit is None else part[part["capacity_unit"] == unit]
