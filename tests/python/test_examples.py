"""The files in examples/ work as shipped: the experiment file sweeps from any directory, and the
notebook runs from top to bottom (executed by nbclient, as Jupyter would) and draws its figure."""

from __future__ import annotations

import os
import re
import subprocess
import time

import pytest

from conftest import ROOT, shared_dir, traces_dir

EXAMPLES = ROOT / "examples"


def test_the_shipped_experiment_runs_from_any_directory_with_the_traces_where_belady_traces_says(
        belady_bin, traces, tmp_path):
    # As shipped, from a directory outside the checkout; the README's own sweep line runs in
    # test_readme.py's Quick start test.
    experiment = EXAMPLES / "experiment.toml"
    assert "${BELADY_TRACES" in experiment.read_text()
    env = dict(os.environ, BELADY_TRACES=str(traces))
    out = subprocess.run([str(belady_bin), "sweep", str(experiment), "--quiet"], cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    done = re.search(r"(\d+) runs: (\d+) done now", out.stderr)
    assert done and done.group(1) == done.group(2) and int(done.group(1)) == 2 * 8 * 5 * 2, out.stderr
    assert (tmp_path / "belady-results.sqlite").is_file()


def test_the_notebook_reproduces_the_study_figure(monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason="nbformat not installed (pip install -r requirements-dev.txt)")
    nbclient = pytest.importorskip("nbclient", reason="nbclient not installed (pip install -r requirements-dev.txt)")
    pytest.importorskip("belady", reason="the belady Python package is not installed")
    if not (shared_dir() / "oracles" / "accusim" / "untimed.tsv").is_file():
        pytest.skip(f"AccuSim oracle not found under {shared_dir()}")
    # The kernel runs in examples/: a relative BELADY_TRACES (the README's ../shared/traces) would
    # resolve from there, so it gets the absolute path the tests use.
    monkeypatch.setenv("BELADY_TRACES", str(traces_dir()))
    nb = nbformat.read(EXAMPLES / "study-figure.ipynb", as_version=4)
    start = time.monotonic()
    # Errors in any cell raise here, with the cell and its traceback.
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(EXAMPLES)}}).execute()
    elapsed = time.monotonic() - start
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    pngs = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(pngs) == 1, "the notebook shows one figure"
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "80 points, all equal to AccuSim's" in text, text
    assert elapsed < 60, f"the notebook took {elapsed:.0f} s; keep it short"
