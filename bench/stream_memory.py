"""Peak memory (and wall time) of streaming simulation: issue #17's memory check.

Generates (once, in --work) a Zipf trace of --requests references over --blocks blocks (alpha 1.0)
in belady's native format and as LIRS text, then measures with GNU time (maximum resident set of
the belady process alone):
  - each of LRU, ARC, LIRS, 2Q at 10% of the unique blocks, one thread, from native and from text;
  - a grid of those four policies at 1% and 10% on two threads, from native and from text;
  - `belady stats` on the text trace, exact and with --sample-rate 0.01;
and, with --scan N, `belady stats --sample-rate 0.01` on an N-block use-once scan (every block new).
Limits checked (issue #17): 128 MiB per single run, 256 MiB per grid. Prints one row per case and
exits 1 when a limit is exceeded.

    python3 bench/stream_memory.py [--requests 50000000] [--blocks 1000000] [--work DIR] [--scan N]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def measure(cmd: list[str]) -> tuple[float, float]:
    """Runs cmd; returns wall seconds and peak RSS in MiB of that process."""
    with tempfile.NamedTemporaryFile(mode="r", suffix=".rss") as rss:
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name, *cmd],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr}")
        peak_kib = int(rss.read().strip().splitlines()[-1])
    return wall, peak_kib / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--belady", default=str(ROOT / "target" / "release" / "belady"))
    ap.add_argument("--requests", type=int, default=50_000_000)
    ap.add_argument("--blocks", type=int, default=1_000_000)
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "belady-stream-bench"))
    ap.add_argument("--scan", type=int, default=0, help="also stats a use-once scan of this many blocks")
    args = ap.parse_args()
    b = args.belady
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    print(f"# machine: {platform.machine()}, {os.cpu_count()} cpus, load {os.getloadavg()}")
    print(f"# belady: {b}")
    tag = f"zipf-{args.requests}-{args.blocks}"
    native, text = work / f"{tag}.bldy", work / f"{tag}.trace"
    if not native.exists():
        subprocess.run([b, "gen", "zipf", "--requests", str(args.requests), "--blocks", str(args.blocks),
                        "--alpha", "1.0", "--seed", "7", "-o", str(native)], check=True)
    if not text.exists():
        subprocess.run([b, "convert", "-t", str(native), "-f", "native", "--to", "lirs", "-o", str(text)],
                       check=True)
    failed = False
    print(f"{'case':<44} {'wall s':>8} {'peak MiB':>9} {'limit':>6}")

    def row(name: str, cmd: list[str], limit: float | None) -> None:
        nonlocal failed
        wall, peak = measure(cmd)
        over = limit is not None and peak > limit
        failed |= over
        print(f"{name:<44} {wall:>8.1f} {peak:>9.1f} {limit or '-':>6}{'  OVER' if over else ''}",
              flush=True)

    for src, path, fmt in [("native", native, "native"), ("text", text, "lirs")]:
        for policy in ["lru", "arc", "lirs", "2q"]:
            row(f"{policy} 10% from {src}, 1 thread",
                [b, "sim", "-t", str(path), "-f", fmt, "-p", policy, "-c", "10%", "--threads", "1", "--json"],
                128)
        row(f"grid lru,arc,lirs,2q x 1%,10% from {src}, 2 threads",
            [b, "sim", "-t", str(path), "-f", fmt, "-p", "lru,arc,lirs,2q", "-c", "1%,10%",
             "--threads", "2", "--json"], 256)
    row("stats, exact, from text", [b, "stats", str(text), "-f", "lirs", "--json"], None)
    row("stats --sample-rate 0.01, from text",
        [b, "stats", str(text), "-f", "lirs", "--json", "--sample-rate", "0.01"], None)
    if args.scan:
        scan = work / f"scan-{args.scan}.bldy"
        if not scan.exists():
            subprocess.run([b, "gen", "scan", "--mode", "use-once", "--region", "100000",
                            "--requests", str(args.scan), "-o", str(scan)], check=True)
        row(f"stats --sample-rate 0.01, {args.scan}-block scan",
            [b, "stats", str(scan), "--json", "--sample-rate", "0.01"], None)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
