"""Sweeps on a Dask cluster: each run goes to a worker that calls the same Rust engine; this
process writes every result to the store as it arrives (one transaction each), so a stopped sweep
resumes like a local one.

Traces named by URL (``s3://…``, ``https://…``) are read through fsspec: this process fetches a copy
to plan the grid, and each worker fetches its own (cached per worker); the run checks the trace's
SHA-256, so a changed trace is refused rather than simulated.

    python -m belady.dask_sweep EXPERIMENT.toml --store results.sqlite --scheduler tcp://host:8786
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

from belady import _belady


def _fetch(url: str) -> str:
    """A local copy of the file at `url`, cached by URL in the temporary directory."""
    import fsspec

    cache = Path(tempfile.gettempdir()) / "belady-traces"
    cache.mkdir(exist_ok=True)
    local = cache / (hashlib.sha256(url.encode()).hexdigest()[:16] + "-" + Path(url).name)
    if not local.exists():
        part = local.with_suffix(local.suffix + f".{os.getpid()}.part")
        with fsspec.open(url, "rb") as src, open(part, "wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
        part.replace(local)
    return str(local)


def run_remote(config_json: str) -> str:
    """What a worker does: fetch the trace if it is a URL, then run the configuration."""
    config = json.loads(config_json)
    if "://" in config["trace_path"]:
        config["trace_path"] = _fetch(config["trace_path"])
    return _belady.run_config_json(json.dumps(config))


def run(experiment, store, scheduler) -> set[str]:
    """Runs `experiment` on the Dask cluster at `scheduler` (an address or a Client) into
    `store`; returns the keys of the experiment's runs."""
    from dask.distributed import Client, as_completed

    from belady import _load_experiment

    experiment = Path(experiment)
    exp = _load_experiment(experiment)
    urls = {}
    for t in exp.get("trace", []):
        if "://" in str(t["path"]):
            local = _fetch(str(t["path"]))
            urls[local] = str(t["path"])
            t.setdefault("name", str(t["path"]))
            t["path"] = local
    plan = json.loads(_belady.plan_json(json.dumps(exp), str(experiment.parent), str(experiment)))
    done = set(_belady.store_keys(str(store)))
    todo = []
    for run_ in plan["runs"]:
        if run_["key"] in done:
            continue
        config = run_["config"]
        config["trace_path"] = urls.get(config["trace_path"], config["trace_path"])
        todo.append(json.dumps(config))
    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        futures = client.map(run_remote, todo, pure=False)
        index = {f.key: c for f, c in zip(futures, todo)}
        for future in as_completed(futures):
            _belady.store_insert(str(store), plan["name"], index[future.key], future.result())
    finally:
        if client is not scheduler:
            client.close()
    return {r["key"] for r in plan["runs"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m belady.dask_sweep", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("experiment")
    ap.add_argument("--store", default="belady-results.sqlite")
    ap.add_argument("--scheduler", required=True, help="Dask scheduler address, e.g. tcp://host:8786")
    args = ap.parse_args(argv)
    keys = run(args.experiment, args.store, args.scheduler)
    print(f"{len(keys)} runs in {args.store}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
