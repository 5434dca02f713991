import pandas as pd
from matplotlib.figure import Figure

LABELS: dict[str, str]

def label(column: str) -> str: ...
from collections.abc import Iterable

def value_span(values: Iterable[float], cap: float | None = ...) -> tuple[float, float]: ...
def plot(
    frame: pd.DataFrame,
    metric: str | None = ...,
    *,
    trace: str | None = ...,
    ax=...,
    highlight: Iterable[str] | None = ...,
) -> Figure: ...
