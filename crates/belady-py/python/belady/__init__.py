"""belady: buffer-cache and prefetching simulation (Rust core, Python front end)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from os import PathLike

from belady._belady import BeladyError, ConfigError, TraceError, __version__, policies
from belady._belady import simulate as _simulate

__all__ = ["simulate", "policies", "BeladyError", "ConfigError", "TraceError", "__version__"]


def _as_list(value: str | int | Iterable[str | int]) -> list[str]:
    if isinstance(value, (str, int)):
        return [str(value)]
    return [str(v) for v in value]


def simulate(
    trace: str | PathLike[str],
    policies: str | Sequence[str] = "lru",
    cache_sizes: str | int | Iterable[str | int] = "10%",
    *,
    format: str | None = None,
    block_size: int = 4096,
    ops: str = "read",
    params: dict[str, object] | None = None,
    preset: str = "paper",
    columns: str | None = None,
    header: bool | None = None,
) -> list[dict]:
    """Simulates each policy at each cache size over `trace`; returns one dict per run.

    Cache sizes are blocks (``100``), bytes (``"64MiB"``) or shares of the unique blocks (``"1%"``).
    ``params`` maps ``"policy.key"`` to a value, as ``--param`` does on the command line.
    Results have the keys of ``belady sim --json``.
    """
    names = _as_list(policies) if not isinstance(policies, str) else policies.split(",")
    param_list = [f"{k}={v}" for k, v in (params or {}).items()]
    return _simulate(
        str(trace), names, _as_list(cache_sizes), format, block_size, ops, param_list, preset, columns, header
    )
