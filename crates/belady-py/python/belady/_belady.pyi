"""Type stubs for the compiled extension (JSON in and out; the package wraps it in DataFrames)."""

__version__: str

class BeladyError(ValueError): ...
class ConfigError(BeladyError): ...
class TraceError(BeladyError): ...

def policies() -> list[str]: ...
def simulate_json(
    trace: str,
    policies: list[str],
    cache_sizes: list[str],
    format: str | None = ...,
    block_size: int = ...,
    ops: str = ...,
    params: list[str] = ...,
    preset: str = ...,
    columns: str | None = ...,
    header: bool | None = ...,
    prefetch: str | None = ...,
    disk: str | None = ...,
    scheduler: str = ...,
    compat: str | None = ...,
    max_request: str = ...,
    read_ahead_kb: int | None = ...,
    threads: int | None = ...,
) -> str: ...
def plan_json(experiment: str, base: str, name: str) -> str: ...
def run_config_json(config: str) -> str: ...
def sweep_file(experiment: str, store: str, threads: int | None = ...) -> None: ...
def store_keys(store: str) -> list[str]: ...
def store_insert(store: str, experiment: str, config: str, result: str) -> None: ...
def store_runs_json(store: str) -> str: ...

def mrc_json(
    trace: str,
    policies: list[str],
    sizes: str = ...,
    sample_rate: float | None = ...,
    control_rate: float = ...,
    seed: int = ...,
    adjust: bool = ...,
    format: str | None = ...,
    block_size: int = ...,
    ops: str = ...,
    params: list[str] = ...,
    preset: str = ...,
    columns: str | None = ...,
    header: bool | None = ...,
    threads: int | None = ...,
) -> str: ...
