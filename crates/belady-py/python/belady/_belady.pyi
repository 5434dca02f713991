"""Type stubs for the compiled extension."""

__version__: str

class BeladyError(ValueError): ...
class ConfigError(BeladyError): ...
class TraceError(BeladyError): ...

def policies() -> list[str]: ...
def simulate(
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
) -> list[dict]: ...
