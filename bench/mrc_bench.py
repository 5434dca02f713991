#!/usr/bin/env python3
"""Benchmark and accuracy check of `belady mrc` (docs/mrc.md records the figures).

  python3 bench/mrc_bench.py error TRACE [--rate R] [--policies P] [-- extra mrc args]
      mean absolute miss-ratio error of `mrc --sample-rate R` against `belady sim` at 10
      log-spaced sizes from 1% to 50% of the unique blocks.
  python3 bench/mrc_bench.py ratio --work DIR [--repeat N] [--requests N] [--blocks N] [--alpha A]
      issue #29's two bars on one trace: the exact LRU curve (auto sizes) and OPT at 10%
      against one LRU run at 10%, whole process, single-threaded, the three alternating N
      times on a Zipf trace written by `belady gen` and made dense by `belady convert`;
      prints fastest and median wall and CPU seconds, peak RSS and the ratios.
  python3 bench/mrc_bench.py bench --work DIR [--repeat N] [--big-requests N]
      generates Zipf(0.9) traces into DIR (never into the repository) and times, with peak
      memory (max RSS of the child) and CPU time, the exact LRU curve of a 10 M-reference trace and the
      sampled curves of 8 policies at R = 0.01 on a 100 M-reference trace, beside full
      simulation at the same sizes (measured on a subset of sizes and scaled per run).

The binary is $BELADY_BIN, else target/release/belady.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("BELADY_BIN", os.path.join(ROOT, "target", "release", "belady"))
EIGHT = "lru,fifo,clock,arc,car,lirs,2q,clock-pro"


def run(args):
    """Runs belady; returns (stdout, seconds, peak RSS in MiB, CPU seconds) of that child alone."""
    start = time.monotonic()
    proc = subprocess.Popen([BIN] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.monotonic() - start
    if status != 0:
        sys.exit(f"belady {' '.join(args)} failed: {err.decode()}")
    return out.decode(), seconds, usage.ru_maxrss / 1024.0, usage.ru_utime + usage.ru_stime


def unique_blocks(trace):
    return json.loads(run(["stats", trace, "--json"])[0])["unique_blocks"]


def test_sizes(unique):
    return sorted({int(unique * 0.01 * 50 ** (i / 9)) for i in range(10)})


def error(ns):
    sizes = ",".join(map(str, test_sizes(unique_blocks(ns.trace))))
    mrc = json.loads(run(["mrc", ns.trace, "-p", ns.policies, "-c", sizes, "--sample-rate",
                          str(ns.rate), "--json"] + ns.extra)[0])
    sim = json.loads(run(["sim", "-t", ns.trace, "-p", ns.policies, "-c", sizes, "--json"])[0])
    full = {(r["policy"], r["cache_blocks"]): 1 - r["hit_ratio"] for r in sim}
    per = {}
    for r in mrc:
        per.setdefault(r["policy"], []).append(
            abs(r["miss_ratio"] - full[(r["policy"], r["cache_blocks"])]))
    every = [e for v in per.values() for e in v]
    print(json.dumps({"trace": os.path.basename(ns.trace), "rate": ns.rate, "extra": ns.extra,
                      "mean_abs_error": round(statistics.mean(every), 4),
                      "max_abs_error": round(max(every), 4),
                      "per_policy": {k: round(statistics.mean(v), 4) for k, v in per.items()}}))


def timed(label, args, repeat):
    runs = [run(args) for _ in range(repeat)]
    secs = sorted(r[1] for r in runs)
    rss = max(r[2] for r in runs)
    cpu = sorted(r[3] for r in runs)
    print(f"{label}: wall fastest {secs[0]:.2f} s, median {statistics.median(secs):.2f} s; "
          f"CPU fastest {cpu[0]:.2f} s, median {statistics.median(cpu):.2f} s; "
          f"peak RSS {rss:.0f} MiB ({repeat} runs; load average {os.getloadavg()[0]:.1f})",
          flush=True)
    return runs[0][0], cpu[0], rss


def bench(ns):
    os.makedirs(ns.work, exist_ok=True)
    small = os.path.join(ns.work, "zipf-10m.bldy")
    big = os.path.join(ns.work, f"zipf-{ns.big_requests // 1_000_000}m.bldy")
    if not os.path.exists(small):
        run(["gen", "zipf", "--blocks", "1000000", "--alpha", "0.9", "--requests", "10000000",
             "--seed", "1", "-o", small])
    if not os.path.exists(big):
        run(["gen", "zipf", "--blocks", str(ns.big_blocks), "--alpha", "0.9", "--requests",
             str(ns.big_requests), "--seed", "2", "-o", big])
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()}", flush=True)
    # Exact LRU, every size (auto: ~100 sizes) in one pass.
    out, _, _ = timed("exact LRU curve, 10M Zipf, auto sizes",
                      ["mrc", small, "-p", "lru", "--json"], ns.repeat)
    sizes = [r["cache_blocks"] for r in json.loads(out)]
    pick = sizes[:: max(1, len(sizes) // 3)][:3]
    _, t, _ = timed(f"full sim LRU, 10M Zipf, {len(pick)} of the {len(sizes)} sizes",
                    ["sim", "-t", small, "-p", "lru", "-c", ",".join(map(str, pick)), "--json",
                     "--threads", "1"], 1)
    print(f"  -> full simulation of all {len(sizes)} sizes: about "
          f"{t / len(pick) * len(sizes):.0f} CPU s", flush=True)
    for control in ["0", "1"]:
        out, _, _ = timed(f"sampled curves, 8 policies, R=0.01, control-rate {control}, "
                          f"{ns.big_requests // 1_000_000}M Zipf, auto sizes",
                          ["mrc", big, "-p", EIGHT, "--sample-rate", "0.01", "--control-rate",
                           control, "--json"], ns.big_repeat)
    sizes = sorted({r["cache_blocks"] for r in json.loads(out)})
    one = sizes[len(sizes) // 2]
    _, t, _ = timed(f"full sim, 8 policies at one size ({one} blocks), "
                    f"{ns.big_requests // 1_000_000}M Zipf",
                    ["sim", "-t", big, "-p", EIGHT, "-c", str(one), "--json", "--threads", "1"], 1)
    print(f"  -> full simulation of 8 policies x {len(sizes)} sizes: about "
          f"{t * len(sizes):.0f} CPU s", flush=True)


def ratio(ns):
    os.makedirs(ns.work, exist_ok=True)
    blocks = ns.blocks or ns.requests // 10
    stem = os.path.join(ns.work, f"zipf-{ns.requests}-b{blocks}-a{ns.alpha}")
    if not os.path.exists(stem + ".bldy"):
        run(["gen", "zipf", "--blocks", str(blocks), "--alpha", str(ns.alpha),
             "--requests", str(ns.requests), "--seed", "1", "-o", stem + ".gen.bldy"])
        # gen keeps its own ids (no table while generating); convert numbers them densely, as
        # a converted real trace is.
        run(["convert", "-t", stem + ".gen.bldy", "-o", stem + ".bldy"])
        os.remove(stem + ".gen.bldy")
    trace = stem + ".bldy"
    cases = {
        "lru": ["sim", "-t", trace, "-f", "native", "-p", "lru", "-c", "10%", "--threads", "1"],
        "opt": ["sim", "-t", trace, "-f", "native", "-p", "opt", "-c", "10%", "--threads", "1"],
        "mrc": ["mrc", "-t", trace, "-f", "native", "--threads", "1"],
    }
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()}", flush=True)
    got = {k: [] for k in cases}
    for _ in range(ns.repeat):
        for name, args in cases.items():
            _, wall, rss, cpu = run(args)
            got[name].append((wall, cpu, rss))
    summary = {}
    for name, runs in got.items():
        walls = sorted(r[0] for r in runs)
        cpus = sorted(r[1] for r in runs)
        summary[name] = (walls[0], statistics.median(walls), cpus[0], statistics.median(cpus))
        print(f"{name}: wall fastest {walls[0]:.3f} s, median {statistics.median(walls):.3f} s; "
              f"CPU fastest {cpus[0]:.3f} s, median {statistics.median(cpus):.3f} s; "
              f"peak RSS {max(r[2] for r in runs):.1f} MiB", flush=True)
    lru = summary["lru"]
    for name, bar in [("mrc", "at most 3x"), ("opt", "at most 2x: OPT at least half LRU's speed")]:
        s = summary[name]
        print(f"{name} / lru ({bar}): wall {s[0] / lru[0]:.2f} fastest, {s[1] / lru[1]:.2f} median; "
              f"CPU {s[2] / lru[2]:.2f} fastest, {s[3] / lru[3]:.2f} median", flush=True)
    print(f"load average after: {os.getloadavg()}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("error")
    e.add_argument("trace")
    e.add_argument("--rate", type=float, default=0.01)
    e.add_argument("--policies", default="arc,lirs,2q")
    e.add_argument("extra", nargs="*")
    b = sub.add_parser("bench")
    b.add_argument("--work", required=True)
    b.add_argument("--repeat", type=int, default=3)
    b.add_argument("--big-repeat", type=int, default=1)
    b.add_argument("--big-requests", type=int, default=100_000_000)
    b.add_argument("--big-blocks", type=int, default=10_000_000)
    r = sub.add_parser("ratio")
    r.add_argument("--work", required=True)
    r.add_argument("--repeat", type=int, default=7)
    r.add_argument("--requests", type=int, default=10_000_000)
    r.add_argument("--alpha", type=float, default=0.9)
    r.add_argument("--blocks", type=int, default=0, help="Zipf universe (default: requests / 10)")
    ns = p.parse_args()
    {"error": error, "bench": bench, "ratio": ratio}[ns.cmd](ns)


if __name__ == "__main__":
    main()
