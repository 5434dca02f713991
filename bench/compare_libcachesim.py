"""Requests/second and peak memory of belady and libcachesim on the same traces, in one run.

For each trace (P3 from the shared ARC traces, and a synthetic Zipf trace of 10 million requests for
each --alpha, 0.9 and 1.0 by default) and each policy both simulators implement, at 1% and 10% of the
unique blocks, single-threaded:
  belady:      `belady sim --threads 1`, timed end to end (process start, reading, mapping, simulation,
               output), from text (P3: the ARC paper's text form, decompressed; Zipf: one id per line)
               and from belady's native format;
  libcachesim: `cache.process_trace(reader)` on the same trace in libCacheSim's oracleGeneral format
               (written by `belady convert --to oracle-general`), timed around that call only.
Peak memory is each process's maximum resident set. Hit counts are compared as a sanity check.
On the Zipf traces each belady figure is also set against the limit loop (crates/belady-core/benches/
limit.rs, run through `cargo bench` on the same ids and cache size): the least work an LRU, FIFO or
CLOCK simulation over dense ids can do. "of limit" is belady's whole-process rate over the limit
loop's simulation rate (LRU's loop for the policies without a loop of their own).
The objects model is timed on its own trace (--objects-requests, Zipf popularity over a tenth as many
objects, Pareto sizes): belady from native and from oracleGeneral against libcachesim, at a byte
capacity of 10% of the footprint.
With --repeat N each cell runs N times on both simulators, alternating; the fastest and the median run
are reported (on a shared, loaded machine single runs vary by 2x). The machine and its load average
are printed before and after. --lcs-timeout T ends a libcachesim run after T seconds of process_trace
(libcachesim's LFUDA can take very long); that cell then reports "> T s" and a lower bound on the ratio.

    python3 bench/compare_libcachesim.py [--traces DIR] [--zipf-requests N] [--policies lru,fifo,...]
                                         [--sizes 1,10] [--from text,native] [--repeat N]
                                         [--alpha 0.9,1.0] [--no-limit] [--objects-requests N]
                                         [--lcs-timeout SECONDS]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]

# belady policy -> (belady settings, libcachesim class, constructor keywords, same algorithm?).
# Settings are `--param` values, or whole options where they start with "--". Parameters are aligned
# where the two implement the same definition, so hit counts can be compared; "CACHE" in a keyword
# value stands for the cache size in blocks. Policies marked False differ by definition, hashing or
# random draws (see docs/policies.md), so their hits are shown, not required equal.
SHARED = {
    "lru": ([], "LRU", {}, True),
    "fifo": ([], "FIFO", {}, True),
    "clock": ([], "Clock", {}, True),
    "opt": ([], "Belady", {}, True),
    "arc": ([], "ARC", {}, True),
    "2q": ([], "TwoQ", {"a_in_size_ratio": 0.25, "a_out_size_ratio": 0.5}, True),
    "mq": (["mq.ghost_lookup=before-evict"], "MQ", {"n_queue": 8, "lifetime": "CACHE", "qout_size_ratio": 4.0}, True),
    "lru-k": (["lru-k.crp=0", "lru-k.history=0"], "LRUK", {"k": 2}, False),
    "lirs": (["lirs.min_hir=1", "lirs.bound=stack-nonresident", "lirs.skip_dup=false"], "LIRS", {}, False),
    "clock-pro": ([], "ClockPro", {}, False),
    "car": ([], "CAR", {}, False),
    "s3fifo": ([], "S3FIFO", {}, True),
    "sieve": ([], "Sieve", {}, True),
    "slru": ([], "SLRU", {}, True),
    "lfu": ([], "LFU", {}, True),
    "lfuda": ([], "LFUDA", {}, True),
    "wtinylfu": ([], "WTinyLFU", {}, False),
    "gdsf": ([], "GDSF", {}, True),
    "lhd": ([], "LHD", {}, False),
    "hyperbolic": ([], "Hyperbolic", {}, False),
    # libCacheSim's own LeCaR and Cacheus variants (histories, adaptation, generator): with belady's
    # default --seed 0 they replay the first LeCaR/Cacheus of a libcachesim process, which each timed
    # libcachesim run is (one process per run), so their misses are equal.
    "lecar": (["--preset", "libcachesim"], "LeCaR", {}, True),
    "cacheus": (["--preset", "libcachesim"], "Cacheus", {}, True),
}

# The objects model's policies, with the settings that make belady follow libCacheSim's variant.
OBJECT_POLICIES = {
    "lru": ([], "LRU"),
    "fifo": ([], "FIFO"),
    "clock": ([], "Clock"),
    "arc": ([], "ARC"),
    "lirs": (["--preset", "libcachesim"], "LIRS"),
    "opt": ([], "Belady"),
}

# Policies with a limit loop of their own in benches/limit.rs; the others are set against LRU's.
LIMIT_LOOPS = ("lru", "fifo", "clock")


def settings_args(settings: list[str]) -> list[str]:
    """belady arguments for SHARED's settings: `--param` values, or whole options."""
    args: list[str] = []
    i = 0
    while i < len(settings):
        if settings[i].startswith("--"):
            args += settings[i:i + 2]
            i += 2
        else:
            args += ["--param", settings[i]]
            i += 1
    return args

LCS_RUNNER = r"""
import json, signal, sys, time, resource
import libcachesim as lcs
path, cls, size, kwargs = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
reader = lcs.TraceReader(path, lcs.TraceType.ORACLE_GENERAL_TRACE)
if hasattr(lcs, cls):
    cache = getattr(lcs, cls)(cache_size=size, **kwargs)
else:
    # libcachesim 0.3.5 exports no Python class for some of its policies (CAR); wrap the C one.
    from libcachesim.cache import CacheBase, _create_common_params
    import libcachesim.libcachesim_python as native
    cache = CacheBase(_cache=getattr(native, cls + "_init")(_create_common_params(size)))
if len(sys.argv) > 5 and float(sys.argv[5]) > 0:
    # No Python handler: SIGALRM's default action ends the process even inside process_trace's C loop.
    signal.setitimer(signal.ITIMER_REAL, float(sys.argv[5]))
t = time.perf_counter()
miss_ratio, byte_miss_ratio = cache.process_trace(reader)
elapsed = time.perf_counter() - t
print(json.dumps({"seconds": elapsed, "miss_ratio": miss_ratio, "byte_miss_ratio": byte_miss_ratio}))
"""




def run_with_rusage(cmd: list[str], may_fail: bool = False) -> tuple[str | None, float, float]:
    """Runs cmd; returns stdout, wall seconds and the peak RSS (MiB) of that process alone.

    The peak comes from GNU time, which forks the command from its own small process: a child
    forked straight from this script would inherit this script's high-water mark. With may_fail a
    failing command (a libcachesim run ended by its --lcs-timeout alarm) gives None for stdout.
    """
    with tempfile.NamedTemporaryFile(mode="r", suffix=".rss") as rss:
        timed = ["/usr/bin/time", "-f", "%M", "-o", rss.name, *cmd]
        start = time.perf_counter()
        proc = subprocess.run(timed, capture_output=True, text=True)
        wall = time.perf_counter() - start
        peak_kib = rss.read().strip().splitlines()[-1]
    if proc.returncode != 0:
        if may_fail:
            return None, wall, 0.0
        sys.exit(f"command failed: {' '.join(cmd)}\n{proc.stderr}")
    return proc.stdout, wall, int(peak_kib) / 1024


def make_zipf(path: pathlib.Path, requests: int, objects: int, alpha: float, seed: int) -> None:
    import numpy as np

    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, objects + 1, dtype=np.float64) ** alpha
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    ranks = np.searchsorted(cdf, rng.random(requests), side="right")
    ids = rng.permutation(objects).astype("<u4")[ranks]
    ids.tofile(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--traces", default=os.environ.get("BELADY_TRACES", ROOT.parent / "shared" / "traces"))
    ap.add_argument("--belady", default=ROOT / "target" / "release" / "belady")
    ap.add_argument("--zipf-requests", type=int, default=10_000_000)
    ap.add_argument("--zipf-objects", type=int, default=1_000_000)
    ap.add_argument("--alpha", default="0.9,1.0",
                    help="Zipf exponents, comma-separated: one trace each (empty: no Zipf trace)")
    ap.add_argument("--policies", default=",".join(SHARED), help="comma-separated; default: all shared")
    ap.add_argument("--sizes", default="1,10", help="percentages of unique blocks")
    ap.add_argument("--sequential-accesses", type=int, default=10_000_000,
                    help="block accesses of the file-level sequential workload timed with linux24")
    ap.add_argument("--no-file-level", action="store_true", help="skip the read-ahead and AccuSim timings")
    ap.add_argument("--no-limit", action="store_true", help="skip the limit loop (needs cargo)")
    ap.add_argument("--no-p3", action="store_true", help="skip P3 (only the Zipf traces)")
    ap.add_argument("--objects-requests", type=int, default=10_000_000,
                    help="requests of the objects-model trace (0: skip it)")
    ap.add_argument("--object-policies", default=",".join(OBJECT_POLICIES),
                    help="comma-separated policies timed in the objects model")
    ap.add_argument("--repeat", type=int, default=1, help="runs per cell; fastest and median are reported")
    ap.add_argument("--lcs-timeout", type=float, default=0,
                    help="seconds after which a libcachesim process_trace is ended (0: no limit); a cell "
                         "whose run is ended skips its remaining libcachesim runs and reports '> T s'")
    ap.add_argument("--from", dest="sources", default="text,native",
                    help="belady's inputs, comma-separated: text, native")
    args = ap.parse_args()
    if args.repeat < 1:
        sys.exit(f"--repeat must be at least 1, got {args.repeat}")
    try:
        args.alphas = [float(a) for a in args.alpha.split(",") if a]
    except ValueError:
        sys.exit(f"--alpha takes comma-separated numbers, got {args.alpha!r}")
    if not pathlib.Path("/usr/bin/time").exists():
        sys.exit("GNU time (/usr/bin/time) is needed to measure peak memory: apt-get install time")
    belady = str(args.belady)
    if not pathlib.Path(belady).exists():
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "belady-cli"], cwd=ROOT, check=True)
    policies = [p for p in args.policies.split(",") if p]
    unknown = [p for p in policies if p not in SHARED]
    if unknown:
        sys.exit(f"not shared with libcachesim: {', '.join(unknown)}; choose from {', '.join(SHARED)}")
    object_policies = [p for p in args.object_policies.split(",") if p]
    unknown = [p for p in object_policies if p not in OBJECT_POLICIES]
    if unknown:
        sys.exit(f"not timed in the objects model: {', '.join(unknown)}; choose from {', '.join(OBJECT_POLICIES)}")
    with tempfile.TemporaryDirectory(prefix="belady-bench-") as tmp:
        run_all(args, belady, policies, pathlib.Path(tmp))
        if args.objects_requests > 0:
            run_objects(args, belady, object_policies, pathlib.Path(tmp))
        if not args.no_file_level:
            run_file_level(args, belady, pathlib.Path(tmp))


def machine() -> str:
    """The CPU model, core count and load average, for the report's conditions."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{model}, {os.cpu_count()} logical cpus, load average {load}"


def limit_rates(ids: pathlib.Path, cache: int) -> dict[str, tuple[float, float, int]]:
    """{loop: (fastest req/s, median req/s, hits)} of benches/limit.rs over the u32 ids at `cache` blocks."""
    env = dict(os.environ, BELADY_LIMIT_TRACE=str(ids), BELADY_LIMIT_CACHE=str(cache))
    proc = subprocess.run(["cargo", "bench", "-q", "-p", "belady-core", "--bench", "limit", "--", "--noplot"],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"the limit bench failed:\n{proc.stderr[-2000:]}")
    hits = {}
    for line in proc.stdout.splitlines():
        # "limit lru: N references, U distinct, cache C: H hits"
        if line.startswith("limit ") and line.endswith(" hits"):
            name = line.split()[1].rstrip(":")
            hits[name] = int(line.rsplit(":", 1)[1].split()[0])
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    references = ids.stat().st_size // 4
    rates = {}
    for name in LIMIT_LOOPS:
        sample = json.loads((target / "criterion" / "limit" / name / "new" / "sample.json").read_text())
        per_iter = sorted(t / n for t, n in zip(sample["times"], sample["iters"]))
        rates[name] = (references / (per_iter[0] * 1e-9), references / (statistics.median(per_iter) * 1e-9),
                       hits.get(name, -1))
    return rates


def run_all(args, belady: str, policies: list[str], work: pathlib.Path) -> None:
    """Converts each input once, then times every policy and size on both simulators."""
    inputs = []
    p3 = pathlib.Path(args.traces) / "arc" / "P3.lis.zst"
    if args.no_p3:
        pass
    elif p3.exists():
        inputs.append(("P3", p3, "arc"))
    else:
        print(f"note: {p3} not found; P3 skipped", file=sys.stderr)
    for alpha in args.alphas:
        zipf = work / f"zipf-{alpha}.u32"
        make_zipf(zipf, args.zipf_requests, args.zipf_objects, alpha, 42)
        inputs.append((f"zipf-{args.zipf_requests // 1_000_000}M-a{alpha:g}", zipf, "u32le"))
    sources = [s for s in args.sources.split(",") if s]
    print(f"# machine: {machine()}")
    print(f"# belady {belady}; {args.repeat} run(s) per cell, fastest and median")
    print(f"{'trace':<16} {'from':<6} {'policy':<10} {'cache':>8} {'belady req/s':>23} "
          f"{'libcachesim req/s':>23} {'ratio':>11} {'of limit':>11} {'belady MiB':>11} {'lcs MiB':>8}  hits")
    print(f"{'':<16} {'':<6} {'':<10} {'':>8} {'fastest':>11} {'median':>11} {'fastest':>11} {'median':>11} "
          f"{'fast':>5} {'med':>5} {'fast':>5} {'med':>5}")
    limits = []
    for name, path, fmt in inputs:
        native = work / f"{name}.bldy"
        oracle = work / f"{name}.oracleGeneral"
        subprocess.run([belady, "convert", "-t", str(path), "-f", fmt, "-o", str(native)], check=True,
                       capture_output=True)
        subprocess.run([belady, "convert", "-t", str(path), "-f", fmt, "--to", "oracle-general", "-o", str(oracle)],
                       check=True, capture_output=True)
        # Text as the trace's own text form: P3 decompressed, the Zipf ids one per line.
        text = work / f"{name}.txt"
        text_format = "arc" if fmt == "arc" else "lirs"
        if fmt == "arc":
            with open(text, "wb") as out:
                subprocess.run(["zstd", "-dc", str(path)], stdout=out, check=True)
        else:
            subprocess.run([belady, "convert", "-t", str(native), "-f", "native", "--to", "lirs", "-o", str(text)],
                           check=True, capture_output=True)
        files = {"text": (text, text_format), "native": (native, "native")}
        limit_by_size: dict[int, dict] = {}
        for policy in policies:
            params, cls, kwargs, same = SHARED[policy]
            settings = settings_args(params)
            for pct in args.sizes.split(","):
                walls = {src: [] for src in sources}
                peaks = {src: 0.0 for src in sources}
                l_times, l_peak, row, lcs, timed_out = [], 0.0, None, None, False
                for _ in range(args.repeat):
                    for src in sources:
                        trace, tf = files[src]
                        out, run_wall, run_peak = run_with_rusage(
                            [belady, "sim", "-t", str(trace), "-f", tf, "-p", policy, "-c", f"{pct}%",
                             "--threads", "1", "--json", *settings])
                        row = json.loads(out)[0]
                        walls[src].append(run_wall)
                        peaks[src] = max(peaks[src], run_peak)
                    size, requests = row["cache_blocks"], row["requests"]
                    if timed_out:
                        continue
                    sized = {k: (size if v == "CACHE" else v) for k, v in kwargs.items()}
                    out, _, run_peak = run_with_rusage(
                        [sys.executable, "-c", LCS_RUNNER, str(oracle), cls, str(size), json.dumps(sized),
                         str(args.lcs_timeout)], may_fail=args.lcs_timeout > 0)
                    if out is None:
                        timed_out = True
                        continue
                    lcs = json.loads(out)
                    l_times.append(lcs["seconds"])
                    l_peak = max(l_peak, run_peak)
                if lcs is None:
                    agree = f"libcachesim ended after {args.lcs_timeout:g} s, hits not compared"
                else:
                    lcs_misses = round(lcs["miss_ratio"] * requests)
                    if lcs_misses == row["misses"]:
                        agree = "equal"
                    else:
                        why = "" if same else ", different definitions"
                        agree = f"differ ({row['misses']} vs {lcs_misses} misses{why})"
                    if timed_out:
                        agree += f"; libcachesim {len(l_times)} of {args.repeat} runs, one ended after {args.lcs_timeout:g} s"
                limit = None
                if fmt == "u32le" and not args.no_limit:
                    if size not in limit_by_size:
                        limit_by_size[size] = limit_rates(path, size)
                        for loop, (fast, med, hits) in limit_by_size[size].items():
                            limits.append((name, loop, size, fast, med, hits))
                    limit = limit_by_size[size][policy if policy in LIMIT_LOOPS else "lru"]
                    if policy in LIMIT_LOOPS and limit[2] != row["hits"]:
                        agree += f"; limit loop's hits differ ({limit[2]})"
                for src in sources:
                    b_fast = requests / min(walls[src])
                    b_med = requests / statistics.median(walls[src])
                    of_limit = (f"{b_fast / limit[0]:>5.2f} {b_med / limit[1]:>5.2f}" if limit
                                else f"{'-':>5} {'-':>5}")
                    if l_times:
                        l_fast, l_med = requests / min(l_times), requests / statistics.median(l_times)
                        lcs_cols = (f"{l_fast:>11,.0f} {l_med:>11,.0f} {b_fast / l_fast:>5.2f} "
                                    f"{b_med / l_med:>5.2f}")
                    else:
                        # Only a bound: libcachesim took more than the timeout, so the ratio is at least
                        # the timeout over belady's whole-process time.
                        bound = f"> {args.lcs_timeout:g} s"
                        lcs_cols = (f"{bound:>11} {bound:>11} {'>' + format(args.lcs_timeout / min(walls[src]), '.1f'):>5} "
                                    f"{'>' + format(args.lcs_timeout / statistics.median(walls[src]), '.1f'):>5}")
                    print(f"{name:<16} {src:<6} {policy:<10} {size:>8} {b_fast:>11,.0f} {b_med:>11,.0f} "
                          f"{lcs_cols} {of_limit} {peaks[src]:>11.1f} "
                          f"{(format(l_peak, '.1f') if l_times else '-'):>8}  {agree}", flush=True)
    if limits:
        print()
        print(f"{'limit loop':<28} {'cache':>8} {'req/s fastest':>14} {'req/s median':>14} {'hits':>10}")
        for name, loop, size, fast, med, hits in limits:
            print(f"{name + ' ' + loop:<28} {size:>8} {fast:>14,.0f} {med:>14,.0f} {hits:>10}")
    print(f"# machine after: {machine()}")


def run_objects(args, belady: str, policies: list[str], work: pathlib.Path) -> None:
    """The objects model: Zipf popularity, heavy-tailed sizes, a byte capacity of 10% of the footprint."""
    native = work / "objects.bldy"
    oracle = work / "objects.oracleGeneral"
    objects = max(1, args.objects_requests // 10)
    gen = [belady, "gen", "zipf", "--requests", str(args.objects_requests), "--blocks", str(objects),
           "--alpha", "0.9", "--seed", "42", "--sizes", "pareto:512,1.1,16MiB"]
    subprocess.run([*gen, "--to", "oracle-general", "-o", str(oracle)], check=True, capture_output=True)
    # The native file as `convert` writes it (dense ids), as for the block traces above: the
    # generator's own native file keeps the original ids, which a run maps and spools first.
    subprocess.run([belady, "convert", "-t", str(oracle), "-f", "oracle-general", "-o", str(native)], check=True,
                   capture_output=True)
    files = {"native": (native, "native"), "oracleGeneral": (oracle, "oracle-general")}
    print()
    print(f"# objects model: {args.objects_requests:,} requests, Zipf 0.9 over {objects:,} objects, sizes "
          f"Pareto(512 B, 1.1) capped at 16 MiB, byte capacity 10% of the footprint; machine: {machine()}")
    print(f"{'from':<14} {'policy':<7} {'cache bytes':>13} {'belady req/s':>23} {'libcachesim req/s':>23} "
          f"{'ratio':>11} {'belady MiB':>11} {'lcs MiB':>8}  misses / byte misses")
    for policy in policies:
        settings, cls = OBJECT_POLICIES[policy]
        walls = {src: [] for src in files}
        peaks = {src: 0.0 for src in files}
        l_times, l_peak, row, lcs = [], 0.0, None, None
        for _ in range(args.repeat):
            for src, (trace, tf) in files.items():
                out, run_wall, run_peak = run_with_rusage(
                    [belady, "sim", "-t", str(trace), "-f", tf, "-p", policy, "-c", "10%", "--threads", "1",
                     "--json", *settings])
                row = json.loads(out)[0]
                walls[src].append(run_wall)
                peaks[src] = max(peaks[src], run_peak)
            size, requests = row["cache_bytes"], row["requests"]
            out, _, run_peak = run_with_rusage([sys.executable, "-c", LCS_RUNNER, str(oracle), cls, str(size), "{}"])
            lcs = json.loads(out)
            l_times.append(lcs["seconds"])
            l_peak = max(l_peak, run_peak)
        lcs_misses = round(lcs["miss_ratio"] * requests)
        lcs_bytes = round(lcs["byte_miss_ratio"] * row["bytes_requested"])
        agree = ("equal" if (lcs_misses, lcs_bytes) == (row["misses"], row["byte_misses"]) else
                 f"differ ({row['misses']} / {row['byte_misses']} vs {lcs_misses} / {lcs_bytes})")
        l_fast, l_med = requests / min(l_times), requests / statistics.median(l_times)
        for src in files:
            b_fast = requests / min(walls[src])
            b_med = requests / statistics.median(walls[src])
            print(f"{src:<14} {policy:<7} {size:>13,} {b_fast:>11,.0f} {b_med:>11,.0f} {l_fast:>11,.0f} "
                  f"{l_med:>11,.0f} {b_fast / l_fast:>5.2f} {b_med / l_med:>5.2f} {peaks[src]:>11.1f} "
                  f"{l_peak:>8.1f}  {agree}", flush=True)
    print(f"# machine after: {machine()}")


def write_sequential(path: pathlib.Path, accesses: int) -> None:
    """A file-level trace of 100 files read whole in 16 KB reads, `accesses` block references in all."""
    files, per_read = 100, 4
    blocks_per_file = max(per_read, accesses // files // per_read * per_read)
    size = blocks_per_file * 4096
    with open(path, "w") as f:
        f.write("# belady file-level trace v1\n")
        for i in range(files):
            f.write(f"file {i + 1} {size} /data/f{i}\n")
        lines = []
        for i in range(files):
            lines.append(f"open - 0 1 3 {i + 1}\n")
            lines.extend(f"read - 5 1 3 {i + 1} {off} 16384\n" for off in range(0, size, 16384))
            lines.append(f"close - 0 1 3 {i + 1}\n")
            f.writelines(lines)
            lines.clear()


def run_file_level(args, belady: str, work: pathlib.Path) -> None:
    """Read-ahead throughput on a large sequential workload, and the AccuSim grid's wall time."""
    seq = work / "sequential.bev"
    write_sequential(seq, args.sequential_accesses)
    print()
    print(f"{'file-level run':<52} {'accesses':>12} {'seconds':>8} {'accesses/s':>14}")
    for prefetch, disk in (("linux24", []), ("linux24", ["--disk", "cheetah9lp"])):
        out, wall, _ = run_with_rusage([belady, "sim", "-t", str(seq), "-f", "events", "-p", "lru", "-c", "1000",
                                        "--prefetch", prefetch, "--threads", "1", "--json", *disk])
        row = json.loads(out)[0]
        label = f"sequential, lru 1000 blocks, {prefetch}" + (", cheetah9lp" if disk else "")
        print(f"{label:<52} {row['requests']:>12,} {wall:>8.2f} {row['requests'] / wall:>14,.0f}", flush=True)
    oracle = pathlib.Path(args.traces).parent / "oracles" / "accusim"
    if not (oracle / "untimed.tsv").exists():
        print(f"note: {oracle} not found; AccuSim grid skipped", file=sys.stderr)
        return
    for table, disk in (("untimed.tsv", []), ("timed.tsv", ["--disk", "cheetah9lp"])):
        groups: dict[tuple[str, str], set[int]] = {}
        with open(oracle / table) as f:
            header = f.readline().rstrip("\n").split("\t")
            for line in f:
                row = dict(zip(header, line.rstrip("\n").split("\t")))
                prefetch = "linux24" if row["prefetch"] == "1" else "none"
                groups.setdefault((row["trace"], prefetch), set()).add(int(row["cache_blocks"]))
        start = time.perf_counter()
        runs = 0
        for (trace, prefetch), sizes in sorted(groups.items()):
            cmd = [belady, "sim", "--trace", str(oracle / "inputs" / f"{trace}.bin.gz"), "--format", "accusim",
                   "--compat", "accusim", "--policy", "opt,lru,lru2,lrfu,lirs,mq,2q,arc",
                   "--cache-size", ",".join(map(str, sorted(sizes))), "--prefetch", prefetch, "--json", *disk]
            runs += len(json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout))
        wall = time.perf_counter() - start
        print(f"{'AccuSim grid ' + table:<52} {runs:>9,} runs {wall:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
