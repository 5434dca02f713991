"""`belady.sweep` and `belady.results` give DataFrames equal to the CLI's store; the Dask path gives
the same results as the local one; `belady.plot` draws every policy."""

from __future__ import annotations

import re
import subprocess

import belady
import pytest

from conftest import ROOT

DEMO = ROOT / "data" / "zipf-loop.trace.gz"


def _experiment(tmp_path, name="exp.toml"):
    exp = tmp_path / name
    exp.write_text(
        'policies = ["lru", "arc", "lirs", "opt"]\n'
        'sizes = ["100", "300", "5%"]\n'
        'prefetch = ["none", "linux24"]\n'
        f'[[trace]]\npath = "{DEMO}"\nformat = "lirs"\n'
    )
    return exp


def _metrics(frame):
    cols = ["key", "policy", "cache_blocks", "prefetch", "hits", "misses", "requests", "hit_ratio"]
    return frame[cols].sort_values("key").reset_index(drop=True)


def test_python_sweep_equals_the_cli_store(belady_bin, tmp_path):
    exp = _experiment(tmp_path)
    frame = belady.sweep(exp, tmp_path / "py.sqlite")
    assert len(frame) == 4 * 3 * 2
    subprocess.run([str(belady_bin), "sweep", str(exp), "--store", str(tmp_path / "cli.sqlite"), "--quiet"],
                   check=True, capture_output=True)
    cli = belady.results(tmp_path / "cli.sqlite")
    assert _metrics(frame).equals(_metrics(cli))
    # Each row equals a direct simulation of its configuration.
    direct = belady.simulate(DEMO, ["lru", "arc", "lirs", "opt"], [100, 300, "5%"], format="lirs", prefetch="linux24")
    stored = frame[frame["prefetch"] == "linux24"].set_index(["policy", "cache_blocks"])
    for row in direct.to_dict("records"):
        assert stored.loc[(row["policy"], row["cache_blocks"]), "hits"] == row["hits"]


def test_the_readme_experiment_runs_with_its_settings(traces, tmp_path):
    # The README's example, as written but for where the trace is: several policies and a
    # setting for one of them, on the block and the file engine, timed and untimed.
    readme = (ROOT / "docs" / "sweeps.md").read_text()
    section = readme[readme.index("## Sweeps and the results store"):]
    toml = section[section.index("```toml\n") + 8:section.index("```\n", section.index("```toml"))]
    cpp = traces / "lirs" / "cpp.trace.gz"
    toml, n = re.subn(r'(?m)^path = "[^"]*"', f'path = "{cpp}"', toml)
    assert n == 1
    exp = tmp_path / "readme.toml"
    exp.write_text(toml)
    frame = belady.sweep(exp, tmp_path / "readme.sqlite")
    policies = ["opt", "lru", "lru2", "2q", "lirs", "lrfu", "mq", "arc"]
    assert len(frame) == len(policies) * 3 * 2 * 2
    # Results name policies by their registered names: lru2 is lru-k.
    labels = {"lirs": "lirs(hir=0.01)", "lru2": "lru-k"}
    labels = [labels.get(p, p) for p in policies]
    assert sorted(set(frame["policy"])) == sorted(labels)
    timed = frame[(frame["prefetch"] == "linux24") & (frame["disk"] == "cheetah9lp")]
    direct = belady.simulate(cpp, policies, ["20", "100", "1%"], format="lirs", params={"lirs.hir": "0.01"},
                             prefetch="linux24", disk="cheetah9lp")
    assert len(timed) == len(direct) == len(policies) * 3
    stored = timed.set_index(["policy", "cache_blocks"])
    for row in direct.to_dict("records"):
        got = stored.loc[(row["policy"], row["cache_blocks"])]
        for col in ("hits", "misses", "disk_requests", "exec_time_s"):
            assert got[col] == row[col], (row["policy"], row["cache_blocks"], col)


def test_dask_sweep_gives_the_local_results(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    exp = _experiment(tmp_path)
    local = belady.sweep(exp, tmp_path / "local.sqlite")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            remote = belady.sweep(exp, tmp_path / "dask.sqlite", dask=client)
            # Running it again finds everything stored and sends nothing.
            again = belady.sweep(exp, tmp_path / "dask.sqlite", dask=client)
    assert len(remote) == len(local) == 24
    result_cols = [c for c in local.columns if c not in ("experiment",)]
    assert local[result_cols].equals(remote[result_cols])
    assert again.equals(remote)


def test_plot_draws_every_policy(tmp_path):
    pytest.importorskip("matplotlib")
    frame = belady.sweep(_experiment(tmp_path), tmp_path / "p.sqlite")
    fig = belady.plot(frame, "hit_ratio")
    assert len(fig.axes) == 2, "one panel per read-ahead setting"
    for ax in fig.axes:
        # OPT is drawn as the reference line, and labelled so.
        labels = {line.get_label() for line in ax.get_lines()}
        assert labels == {"lru", "arc", "lirs", "opt (reference)"}
    fig.savefig(tmp_path / "hit.png")
    assert (tmp_path / "hit.png").stat().st_size > 10_000
    with pytest.raises(ValueError, match="no column"):
        belady.plot(frame, "nope")


def test_sweep_errors_are_typed(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('policies = ["nope"]\nsizes = ["10"]\n[[trace]]\npath = "x.trace"\n')
    with pytest.raises(belady.ConfigError, match="nope"):
        belady.sweep(bad, tmp_path / "s.sqlite")


def test_cli_dask_option_uses_the_cluster(belady_bin, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    exp = _experiment(tmp_path)
    local = belady.sweep(exp, tmp_path / "local.sqlite")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        out = subprocess.run([str(belady_bin), "sweep", str(exp), "--store", str(tmp_path / "cli-dask.sqlite"),
                              "--dask", cluster.scheduler_address], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    remote = belady.results(tmp_path / "cli-dask.sqlite")
    assert _metrics(remote).equals(_metrics(local))


def test_dask_workers_read_traces_by_url(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    pytest.importorskip("fsspec")
    by_path = _experiment(tmp_path, "path.toml")
    by_url = tmp_path / "url.toml"
    by_url.write_text(by_path.read_text().replace(f'path = "{DEMO}"', f'path = "{DEMO.as_uri()}"'))
    assert "file://" in by_url.read_text()
    local = belady.sweep(by_path, tmp_path / "local.sqlite")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            remote = belady.sweep(by_url, tmp_path / "url.sqlite", dask=client)
    # The runs are named by URL; their results equal the local ones.
    assert set(remote["trace"]) == {DEMO.as_uri()}
    cols = ["policy", "cache_blocks", "prefetch", "hits", "misses", "requests"]
    order = ["policy", "cache_blocks", "prefetch"]
    assert remote[cols].sort_values(order).reset_index(drop=True).equals(
        local[cols].sort_values(order).reset_index(drop=True))
