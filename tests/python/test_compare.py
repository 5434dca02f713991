"""`belady.compare` equals `belady compare --json` and, from `belady.results`, the definitions of
docs/compare.md (numpy's default percentiles); its refusals are Python exceptions."""

from __future__ import annotations

import json
import subprocess

import belady
import numpy as np
import pytest


@pytest.fixture(scope="module")
def store(belady_bin, tmp_path_factory):
    d = tmp_path_factory.mktemp("compare")
    traces = []
    for name, args in [("zipf", ["zipf", "--requests", "3000", "--blocks", "500"]),
                       ("temporal", ["temporal", "--seed", "2", "--requests", "3000", "--blocks", "800"]),
                       ("scan", ["scan", "--requests", "3000", "--region", "300", "--hot", "100"])]:
        path = d / f"{name}.lirs"
        subprocess.run([str(belady_bin), "gen", *args, "--to", "lirs", "-o", str(path)], check=True,
                       capture_output=True)
        traces.append(f'[[trace]]\npath = "{path}"\nformat = "lirs"\n')
    exp = d / "exp.toml"
    exp.write_text('policies = ["fifo", "lru", "sieve", "s3fifo", "arc"]\n'
                   'cache_sizes = ["5%", "10%"]\nprefetch = ["none", "linux24"]\n' + "".join(traces))
    path = d / "s.sqlite"
    subprocess.run([str(belady_bin), "sweep", str(exp), "--store", str(path), "--quiet"], check=True,
                   capture_output=True)
    return path


def test_compare_equals_the_cli_and_the_definitions(belady_bin, store):
    frame = belady.compare(store, where={"prefetch": "none"})
    assert list(frame.columns) == ["policy", "cache_size", "mean", "p10", "p25", "p50", "p75", "p90",
                                   "wins", "traces"]
    cli = json.loads(subprocess.run(
        [str(belady_bin), "compare", "--store", str(store), "--where", "prefetch=none", "--json"],
        check=True, capture_output=True, text=True).stdout)
    assert frame.to_dict("records") == cli
    runs = belady.results(store)
    runs = runs[runs["prefetch"] == "none"]
    ratio = runs.assign(r=runs["misses"] / runs["requests"]).pivot_table(
        index=["cache_size", "trace"], columns="policy", values="r")
    for row in frame.itertuples():
        at = ratio.loc[row.cache_size]
        reductions = ((at["fifo"] - at[row.policy]) / at["fifo"]).to_numpy()
        assert row.traces == len(reductions) == 3
        assert row.mean == pytest.approx(reductions.mean(), abs=1e-12)
        for level in (10, 25, 50, 75, 90):
            assert getattr(row, f"p{level}") == pytest.approx(np.percentile(reductions, level), abs=1e-12)
        assert row.wins == int((at[row.policy] == at.min(axis=1)).sum())


def test_byte_metric_and_policies(store):
    byte = belady.compare(store, metric="byte", where={"prefetch": "linux24"}, policies=["sieve"])
    assert set(byte["policy"]) == {"fifo", "sieve"}
    assert (byte[byte["policy"] == "fifo"]["mean"] == 0).all()


def test_refusals_are_exceptions(store):
    with pytest.raises(belady.ConfigError, match="differ in prefetch"):
        belady.compare(store)
    with pytest.raises(belady.ConfigError, match="--baseline opt is not in the store"):
        belady.compare(store, "opt", where={"prefetch": "none"})
    with pytest.raises(belady.ConfigError, match="expected 'miss' or 'byte'"):
        belady.compare(store, metric="hits", where={"prefetch": "none"})
