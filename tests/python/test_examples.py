"""The files in examples/ work as shipped: the README's experiment file sweeps and reports, and the
notebook runs from top to bottom (executed by nbclient, as Jupyter would) and draws its figure."""

from __future__ import annotations

import re
import time

import pytest

from conftest import ROOT, shared_dir, traces_dir
from test_readme import readme_line, run_as_written

EXAMPLES = ROOT / "examples"


def test_the_readme_sweeps_the_shipped_experiment(belady_bin, traces, tmp_path):
    line = readme_line("belady sweep ")
    experiment = re.search(r"belady sweep (\S+)", line).group(1)
    assert (ROOT / experiment).is_file(), f"the README sweeps {experiment}, which the checkout lacks"
    # Run where the checkout's examples/ would be, with the traces wherever BELADY_TRACES says.
    text = (ROOT / experiment).read_text()
    assert '"../../shared/traces/' in text
    (tmp_path / experiment).parent.mkdir(parents=True)
    (tmp_path / experiment).write_text(text.replace('"../../shared/traces/', f'"{traces_dir()}/'))
    out = run_as_written(line, belady_bin, tmp_path)
    assert out.returncode == 0, out.stderr
    done = re.search(r"(\d+) runs: (\d+) done now", out.stderr)
    assert done and done.group(1) == done.group(2) and int(done.group(1)) == 2 * 8 * 5 * 2, out.stderr
    report = run_as_written(readme_line("belady report "), belady_bin, tmp_path)
    assert report.returncode == 0, report.stderr
    assert "cpp" in (tmp_path / "report.html").read_text()


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
