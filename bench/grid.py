"""Wall time and peak memory of a policy x size grid on a file-level trace (issue #17's grid check).

Generates (once, in --work) a file-level trace of about --references block references with
`belady gen sequential-files --to events` (8 KiB reads: two block references per read call), then runs
`belady sim` over 8 policies x 10 sizes, once per read-ahead setting (none, ondemand), on --threads
threads, timing each whole process and its peak resident set with GNU time. Goal (issue #17): under
60 s per setting on 2 cores for 10 M references. Prints the machine and its load before and after.

    python3 bench/grid.py [--references 10000000] [--threads 2] [--repeat 1] [--work DIR]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
POLICIES = "lru,fifo,clock,lirs,arc,2q,mq,clock-pro"
SIZES = "0.5%,1%,2%,3%,5%,7.5%,10%,15%,20%,30%"


def machine() -> str:
    """The CPU model, core count and load average."""
    model = platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{model}, {os.cpu_count()} logical cpus, load average {load}"


def measure(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of cmd."""
    with tempfile.NamedTemporaryFile(mode="r", suffix=".rss") as rss:
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name, *cmd],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr}")
        return wall, int(rss.read().strip().splitlines()[-1]) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--belady", default=str(ROOT / "target" / "release" / "belady"))
    ap.add_argument("--references", type=int, default=10_000_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "belady-grid-bench"))
    args = ap.parse_args()
    b = args.belady
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    trace = work / f"seqfiles-{args.references}.bev"
    if not trace.exists():
        # 8 KiB reads of 4 KiB blocks: two references per read call.
        subprocess.run([b, "gen", "sequential-files", "--to", "events", "--requests", str(args.references // 2),
                        "--files", "2000", "--median-size", "256KiB", "-o", str(trace)], check=True)
    print(f"# machine: {machine()}")
    print(f"# trace {trace}: {POLICIES} x {SIZES}, {args.threads} threads, {args.repeat} run(s)")
    print(f"{'prefetch':<10} {'fastest s':>10} {'median s':>10} {'peak MiB':>9}")
    for prefetch in ["none", "ondemand"]:
        walls, peak = [], 0.0
        for _ in range(args.repeat):
            wall, rss = measure([b, "sim", "-t", str(trace), "-p", POLICIES, "-c", SIZES, "--prefetch", prefetch,
                                 "--threads", str(args.threads), "--json"])
            walls.append(wall)
            peak = max(peak, rss)
        print(f"{prefetch:<10} {min(walls):>10.1f} {statistics.median(walls):>10.1f} {peak:>9.1f}", flush=True)
    print(f"# machine after: {machine()}")


if __name__ == "__main__":
    main()
