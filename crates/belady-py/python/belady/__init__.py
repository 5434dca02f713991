"""belady: buffer-cache and prefetching simulation (Rust core, Python front end).

``simulate``, ``run`` and ``sweep`` return pandas DataFrames with the columns of ``belady sim --json`` (one
row per run); ``plot`` draws them in the shape of the prefetching study's figures.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

from belady import _belady
from belady._belady import BeladyError, ConfigError, TraceError, __version__, policies

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "simulate",
    "metrics",
    "run",
    "mrc",
    "sweep",
    "results",
    "plot",
    "policies",
    "BeladyError",
    "ConfigError",
    "TraceError",
    "__version__",
]


def _as_list(value: str | int | float | Iterable[str | int]) -> list[str]:
    # One number of any kind is one size: a float is refused by the engine in words ("must be a
    # whole number"), not by Python's "'float' object is not iterable".
    if isinstance(value, (str, int, float)):
        return [str(value)]
    return [str(v) for v in value]


def _check_count(key: str, value: int | None, expected: str) -> None:
    """Refuses a negative ``threads`` or ``seed`` naming the keyword, before the binding's
    conversion to an unsigned number raises a bare OverflowError."""
    if value is not None and not isinstance(value, bool) and isinstance(value, int) and value < 0:
        raise ConfigError(f"invalid {key} '{value}': expected {expected}")


def _check_finite(config: dict) -> None:
    """Refuses NaN and infinite numbers in a run configuration naming their key: JSON has no
    spelling for them, and the engine's reader could only say "expected value"."""
    for key, value in config.items():
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(v, float) and not math.isfinite(v):
                raise ConfigError(f"invalid {key} '{v}': expected a finite number")


_REGISTRY: dict | None = None


def _registry() -> dict:
    """The metric registry (`crates/belady-core/src/run/metrics.rs`), read once through the binding."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = json.loads(_belady.registry_json())
    return _REGISTRY


def metrics() -> list[dict]:
    """Every metric of a result row, as the registry describes it: ``key``, ``name``, ``label`` (an
    axis label with its unit), ``unit`` (``count``, ``bytes``, ``ratio`` (0..1), ``blocks/request``,
    ``s``, ``ms``), ``scale`` (100 for ratios, drawn in percent), ``better`` (``higher``, ``lower`` or
    ``-``), ``applies`` (``always``, ``read-ahead``, ``timed``, ``objects``, ``admission``), ``report``
    (which runs ``belady report`` draws it for, or None) and ``dtype``."""
    return [dict(m) for m in _registry()["metrics"]]


def _frame(rows: list[dict]) -> pd.DataFrame:
    """`rows` as a DataFrame, each registry column with the registry's dtype: counts as integers
    (nullable ``Int64`` where some row lacks the key), the rest as floats (NaN where absent)."""
    import pandas as pd

    frame = pd.DataFrame.from_records(rows)
    registry = _registry()
    for column in registry["metrics"] + registry["fields"]:
        key, dtype = column["key"], column["dtype"]
        if key not in frame.columns or dtype == "object":
            continue
        if dtype == "int64" and frame[key].isna().any():
            dtype = "Int64"
        frame[key] = frame[key].astype(dtype)
    return frame


def _params(params: dict[str, object] | str | Iterable[str] | None) -> list[str]:
    """``params`` as ``POLICY.KEY=VALUE`` strings: a dict ``{"lirs.hir": 0.01}``, a list of such
    strings, or one string."""
    if params is None:
        return []
    if isinstance(params, dict):
        return [f"{k}={v}" for k, v in params.items()]
    if isinstance(params, str):
        return [params]
    return [str(p) for p in params]


def _options(value: str | Iterable[str] | None) -> list[str]:
    """A ``prefetch`` or ``disk`` value as the list of settings to run: ``None`` (not set), a
    comma-separated string, or a list."""
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else [str(v) for v in value]
    items = [i.strip() for i in items if i.strip()]
    if not items:
        raise ConfigError(f"invalid prefetch or disk {value!r}: name at least one")
    return items


def simulate(
    trace: str | PathLike[str],
    policies: str | Sequence[str] = "lru",
    cache_sizes: str | int | Iterable[str | int] | None = None,
    *,
    format: str | None = None,
    block_size: int = 4096,
    ops: str = "read",
    params: dict[str, object] | str | Iterable[str] | None = None,
    preset: str = "paper",
    columns: str | None = None,
    header: bool | None = None,
    prefetch: str | Iterable[str] | None = None,
    disk: str | Iterable[str] | None = None,
    scheduler: str = "fcfs",
    compat: str | None = None,
    max_request: str = "64KiB",
    read_ahead_kb: int | None = None,
    cache_model: str | None = None,
    admission: str = "none",
    seed: int = 0,
    threads: int | None = None,
) -> pd.DataFrame:
    """Simulates each policy at each cache size over `trace`; one DataFrame row per run.

    ``cache_sizes`` is required, as ``--cache-size`` is on the command line: blocks (``100``), bytes
    (``"64MiB"``) or shares of the unique blocks (``"1%"``), one value or a list.
    ``params`` sets policy parameters, as ``--param`` does: a dict ``{"lirs.hir": 0.01}`` or a list
    of ``"policy.key=value"`` strings.
    ``prefetch`` and ``disk`` take one value, a comma-separated string or a list; the runs are their
    product with policies and sizes (read-ahead major, as ``belady sim``).
    ``scheduler``, ``compat``, ``max_request``, ``read_ahead_kb``, ``cache_model`` (``"blocks"`` or
    ``"objects"``; by default objects for oracleGeneral and lcs traces), ``admission`` (``"none"``,
    ``"tinylfu"``, ``"size:BYTES"``, ``"prob:P"``) and ``seed`` are ``belady sim``'s options of the same
    names. Errors name these keyword arguments.
    Columns are the keys of ``belady sim --json``.
    """
    if cache_sizes is None:
        raise ConfigError("invalid cache_sizes 'None': name at least one cache size (blocks, bytes or a percentage)")
    names = policies.split(",") if isinstance(policies, str) else [str(p) for p in policies]
    config = {
        "trace": str(trace),
        "format": format,
        "columns": columns,
        "header": header,
        "block_size": block_size,
        "ops": ops,
        "policies": names,
        "params": _params(params),
        "preset": preset,
        "cache_sizes": _as_list(cache_sizes),
        "prefetch": _options(prefetch),
        "disk": _options(disk),
        "scheduler": scheduler,
        "compat": compat,
        "max_request": max_request,
        "read_ahead_kb": read_ahead_kb,
        "cache_model": cache_model,
        "admission": admission,
        "seed": seed,
    }
    return run(config, threads=threads)


def run(config: dict, *, threads: int | None = None) -> pd.DataFrame:
    """Performs one run configuration: a dict with the keys ``belady sim --print-config`` prints
    (``trace``, ``policies``, ``cache_sizes``, ``levels``, ``prefetch``, ``disk``, ...; absent keys
    take ``belady sim``'s defaults). One DataFrame row per run, the rows of ``belady sim --json``.
    An unknown key raises ConfigError naming it."""
    config = dict(config)
    _check_finite(config)
    _check_count("threads", threads, "1 to 1024 worker threads (omit it to use every core)")
    for key in ("trace", "cf_store"):
        if isinstance(config.get(key), PathLike):
            config[key] = str(config[key])
    return _frame(json.loads(_belady.run_json(json.dumps(config), threads)))


def mrc(
    trace: str | PathLike[str],
    policies: str | Sequence[str] = "lru",
    sizes: str | int | Iterable[str | int] = "auto",
    *,
    sample_rate: float | None = None,
    control_rate: float = 1.0,
    seed: int = 0,
    adjust: bool = True,
    format: str | None = None,
    block_size: int = 4096,
    ops: str = "read",
    params: dict[str, object] | None = None,
    preset: str = "paper",
    columns: str | None = None,
    header: bool | None = None,
    threads: int | None = None,
) -> pd.DataFrame:
    """Miss-ratio curves of `trace`: one DataFrame row per policy and cache size.

    Without ``sample_rate`` LRU is exact (one-pass stack algorithm) and other policies are
    simulated in full; with it every policy is simulated on that hash-chosen share of the blocks
    at scaled sizes (see docs/mrc.md). ``sizes`` is ``"auto"`` or sizes as in :func:`simulate`.
    Columns: policy, cache_blocks, miss_ratio, hits, requests, method, sample_rate.
    """
    names = policies.split(",") if isinstance(policies, str) else [str(p) for p in policies]
    _check_count("threads", threads, "1 to 1024 worker threads (omit it to use every core)")
    _check_count("seed", seed, "a whole number from 0 to 2^64-1")
    param_list = [f"{k}={v}" for k, v in (params or {}).items()]
    size_text = sizes if isinstance(sizes, str) else ",".join(_as_list(sizes))
    text = _belady.mrc_json(
        str(trace), names, size_text, sample_rate, control_rate, seed, adjust, format, block_size, ops,
        param_list, preset, columns, header, threads,
    )
    return _frame(json.loads(text))


def _flatten(run: dict) -> dict:
    """A stored run as one flat row: configuration first, then every metric."""
    config, result = run["config"], run["result"]
    row = {"key": run["key"], "experiment": run["experiment"]}
    # A cell has one value per list: shown as text, lists joined as the experiment wrote them.
    row.update({k: " ".join(map(str, v)) if isinstance(v, list) else v
                for k, v in config.items() if k != "trace_path"})
    row["policy"] = result["policy"]
    for key, value in result.items():
        if key not in row:
            row[key] = value
    return row


def results(store: str | PathLike[str] = "belady-results.sqlite") -> pd.DataFrame:
    """Every run in a results store, one row each, in the store's fixed order."""
    return _frame([_flatten(r) for r in json.loads(_belady.store_runs_json(str(store)))])


def sweep(
    experiment: str | PathLike[str],
    store: str | PathLike[str] | None = None,
    *,
    dask: str | object | None = None,
    threads: int | None = None,
) -> pd.DataFrame:
    """Runs an experiment file (see the README's "Sweeps") into `store`, skipping runs already
    stored, and returns the experiment's runs as a DataFrame.

    ``dask`` is a scheduler address (``"tcp://host:8786"``) or a ``dask.distributed.Client``: each
    run then goes to a Dask worker, which calls the same engine; results are written to the same
    store by this process.
    """
    experiment = Path(experiment)
    _check_count("threads", threads, "1 to 1024 worker threads (omit it to use every core)")
    if store is None:
        store = _default_store(experiment)
    if dask is None:
        _belady.sweep_file(str(experiment), str(store), threads)
        keys = {r["key"] for r in _plan(experiment)["runs"]}
    else:
        from belady.dask_sweep import run as dask_run

        keys = dask_run(experiment, store, dask)
    frame = results(store)
    return frame[frame["key"].isin(keys)].reset_index(drop=True)


def _load_experiment(experiment: Path) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    with open(experiment, "rb") as f:
        try:
            return tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{experiment}: {e}") from None


def _default_store(experiment: Path) -> Path:
    exp = _load_experiment(experiment)
    return experiment.parent / exp["store"] if "store" in exp else Path("belady-results.sqlite")


def _plan(experiment: Path, exp: dict | None = None) -> dict:
    exp = _load_experiment(experiment) if exp is None else exp
    return json.loads(_belady.plan_json(json.dumps(exp), str(experiment.parent), str(experiment)))


def plot(frame: pd.DataFrame, metric: str | None = None, *, trace: str | None = None, ax=None):
    """Draws `metric` against cache size on a log2 axis, one line per policy: for runs (`simulate`,
    `sweep`, `results`) one panel per read-ahead setting (the study's Figures 3-6), for miss-ratio
    curves (`mrc`) one panel. `metric` defaults to ``hit_ratio`` for runs and ``miss_ratio`` for
    curves. Returns the matplotlib Figure."""
    from belady._plot import plot as _plot

    return _plot(frame, metric, trace=trace, ax=ax)
