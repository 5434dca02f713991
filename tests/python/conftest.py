"""Shared fixtures: the belady binary, the shared traces, and a libcachesim replay helper."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def traces_dir() -> pathlib.Path:
    """Where the shared real traces live (BELADY_TRACES, else ../shared/traces)."""
    # Absolute: tests write experiment files in temp dirs, where a relative path would not resolve.
    return pathlib.Path(os.environ.get("BELADY_TRACES", ROOT.parent / "shared" / "traces")).resolve()


def shared_dir() -> pathlib.Path:
    """The shared folder beside the checkout (oracles, references)."""
    return traces_dir().parent


@pytest.fixture(scope="session")
def belady_bin() -> pathlib.Path:
    """Path to a release build of the CLI, built on first use unless BELADY_BIN names one."""
    if "BELADY_BIN" in os.environ:
        return pathlib.Path(os.environ["BELADY_BIN"])
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "belady-cli"], cwd=ROOT, check=True
    )
    return ROOT / "target" / "release" / "belady"


@pytest.fixture(scope="session")
def traces() -> pathlib.Path:
    """The shared traces folder; tests using it skip with a message when it is absent."""
    d = traces_dir()
    if not (d / "lirs").is_dir():
        pytest.skip(f"shared traces not found at {d} (set BELADY_TRACES)")
    return d


@pytest.fixture(scope="session")
def lcs():
    """The libcachesim module; tests using it skip with a message when it is not installed."""
    return pytest.importorskip("libcachesim", reason="libcachesim not installed (pip install libcachesim)")


def sim(bin_path, trace, fmt, policies, sizes, *extra) -> list[dict]:
    """Runs `belady sim --json` and returns its rows."""
    cmd = [
        str(bin_path), "sim", "--trace", str(trace), "--format", fmt,
        "--policy", ",".join(policies), "--cache-size", ",".join(map(str, sizes)), "--json", *extra,
    ]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def block_ids(bin_path, trace, fmt, tmp_path) -> list[int]:
    """The trace's block references as original ids, via `belady convert --to lirs`."""
    out = tmp_path / "ids.txt"
    subprocess.run(
        [str(bin_path), "convert", "--trace", str(trace), "--format", fmt, "--to", "lirs",
         "--ops", "read", "-o", str(out)],
        check=True, capture_output=True,
    )
    return [int(x) for x in out.read_text().split()]


def lcs_hits(cache, ids) -> int:
    """Replays `ids` as unit-size objects through a libcachesim cache; returns the hits."""
    import libcachesim

    req = libcachesim.Request()
    req.obj_size = 1
    hits = 0
    get = cache.get
    for i in ids:
        req.obj_id = i
        if get(req):
            hits += 1
    return hits
