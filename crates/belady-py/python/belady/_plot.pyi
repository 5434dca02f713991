import pandas as pd
from matplotlib.figure import Figure

LABELS: dict[str, str]

def label(column: str) -> str: ...
def plot(frame: pd.DataFrame, metric: str | None = ..., *, trace: str | None = ..., ax=...) -> Figure: ...
