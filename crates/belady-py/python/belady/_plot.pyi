import pandas as pd
from matplotlib.figure import Figure

LABELS: dict[str, str]

def plot(frame: pd.DataFrame, metric: str = ..., *, trace: str | None = ..., ax=...) -> Figure: ...
