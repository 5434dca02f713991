#!/usr/bin/env python3
"""Writes docs/study-today.md: the prefetching study's experiment rerun with Linux 6's read-ahead.

The numbers come from one sweep, experiments/study-today.toml (traces x policies x cache sizes x read-ahead,
timed on the study's disk). `--run` runs it into a fresh store (a sweep never recomputes a stored run), exports the
columns the page uses to experiments/study-today.csv, and writes the page from that file; without `--run`
the page is written from the committed CSV. Every number and every verdict in the page is computed here;
tests/python/test_study_today.py reruns the sweep's cells and checks the CSV, the page and each claim.

    python3 scripts/study_today.py [--run] [--bin target/release/belady] [--check]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

try:
    import tomllib
except ModuleNotFoundError:  # Python before 3.11: the same parser as a package (requirements-dev.txt)
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        sys.exit("study_today.py: needs Python 3.11+ (tomllib) or the tomli package (pip install tomli)")

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXPERIMENT = ROOT / "experiments" / "study-today.toml"
CSV_PATH = ROOT / "experiments" / "study-today.csv"
DOC_PATH = ROOT / "docs" / "study-today.md"
# How the experiment file names the shared folder (paths relative to experiments/).
SHARED_PREFIX = "../../shared/"

# What the page needs of each run, in the CSV's column order.
COLUMNS = ["trace", "prefetch", "policy", "cache_size", "cache_blocks", "requests", "hits", "disk_requests",
           "sync_requests", "sync_blocks", "async_requests", "async_blocks", "prefetched_blocks",
           "prefetch_unused", "exec_time_s", "proc_time_s", "unique_blocks", "sequential_percent"]
INT_COLUMNS = {"cache_blocks", "requests", "hits", "disk_requests", "sync_requests", "sync_blocks",
               "async_requests", "async_blocks", "prefetched_blocks", "prefetch_unused", "unique_blocks"}
FLOAT_COLUMNS = {"exec_time_s", "proc_time_s", "sequential_percent"}

# The study's application each trace stands in for, and the study's group for it (sec. 5.1).
STANDS_FOR = {
    "seqloop": ("cscope", "sequential", "AccuSim's cscope-like input: 60 files read whole in 8 KB reads, 5 passes"),
    "cs": ("cscope", "sequential", "the LIRS authors' cscope trace"),
    "gli": ("glimpse", "sequential", "the LIRS authors' glimpse trace"),
    "lirs-cpp": ("gcc", "sequential", "the C preprocessor's trace (LIRS `cpp`) as AccuSim's file-level input"),
    "ps": ("tpc-h, tpc-r (a database)", "sequential",
           "the LIRS authors' postgres join queries: a database, but its scans are sequential"),
    "multi1": ("multi1 (cscope + gcc)", "concurrent", "the LIRS authors' multi1: cs and cpp run together"),
    "OLTP": ("tpc-h, tpc-r", "random", "the ARC paper's OLTP trace (a database's random reads)"),
}
BIG = "OLTP"  # the one large trace: the test reruns it at two sizes only
STUDY_POLICIES = ["opt", "lru", "lru-k", "lrfu", "lirs", "mq", "2q", "arc"]
KERNEL_POLICIES = ["linux", "mglru"]
READ_AHEAD = ["linux24", "linux6"]
LABEL = {"none": "none", "linux24": "Linux 2.4", "linux6": "Linux 6"}


# ----------------------------------------------------------------------------------------------- running


def shared_dir() -> pathlib.Path:
    """The shared folder: $BELADY_TRACES/.. when set, else ../shared beside the checkout."""
    if "BELADY_TRACES" in os.environ:
        return pathlib.Path(os.environ["BELADY_TRACES"]).resolve().parent
    return (ROOT.parent / "shared").resolve()


def load_experiment() -> dict:
    """The experiment file, parsed."""
    return tomllib.loads(EXPERIMENT.read_text())


def _toml_value(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def experiment_text(shared: pathlib.Path, store: pathlib.Path, traces=None, cache_sizes=None) -> str:
    """The experiment as TOML with its trace paths under `shared`, its store at `store`, and (for a
    subset) only the named traces and sizes; every other key as the file has it."""
    exp = load_experiment()
    lines = []
    for key, value in exp.items():
        if key == "trace":
            continue
        if key == "store":
            value = str(store)
        if key == "cache_sizes" and cache_sizes is not None:
            value = list(cache_sizes)
        lines.append(f"{key} = {_toml_value(value)}")
    for t in exp["trace"]:
        if traces is not None and t["name"] not in traces:
            continue
        spec = dict(t)
        if not spec["path"].startswith(SHARED_PREFIX):
            sys.exit(f"{EXPERIMENT}: trace path {spec['path']!r}: expected it under {SHARED_PREFIX}")
        spec["path"] = str(shared / spec["path"][len(SHARED_PREFIX):])
        lines.append("[[trace]]")
        lines.extend(f"{k} = {_toml_value(v)}" for k, v in spec.items())
    return "\n".join(lines) + "\n"


def sweep(bin_path, text: str, workdir: pathlib.Path, store: pathlib.Path) -> list[dict]:
    """Runs `belady sweep` on the experiment `text` and returns every stored run (results export)."""
    exp = workdir / "study-today.toml"
    exp.write_text(text)
    subprocess.run([str(bin_path), "sweep", str(exp)], check=True, stdout=subprocess.DEVNULL)
    out = workdir / "export.json"
    subprocess.run([str(bin_path), "results", "export", "--store", str(store), "--format", "json",
                    "-o", str(out)], check=True)
    return json.loads(out.read_text())


def sequential_percents(bin_path, shared: pathlib.Path, traces=None) -> dict[str, float]:
    """`belady stats`' share of references to the next block (the study's Table 2 "Seq. refs"), per trace."""
    out = {}
    for t in load_experiment()["trace"]:
        if traces is not None and t["name"] not in traces:
            continue
        path = shared / t["path"][len(SHARED_PREFIX):]
        res = subprocess.run([str(bin_path), "stats", str(path), "--format", t["format"], "--json"],
                             check=True, capture_output=True, text=True)
        out[t["name"]] = json.loads(res.stdout)["sequential_percent"]
    return out


def records(rows: list[dict], seq: dict[str, float]) -> list[dict]:
    """The CSV's records from exported runs, in the experiment's order."""
    recs = []
    for r in rows:
        recs.append({
            "trace": r["trace"], "prefetch": r["prefetch"], "policy": r["policy"],
            "cache_size": r["cache_sizes"], "cache_blocks": r["cache_blocks"], "requests": r["requests"],
            "hits": r["hits"], "disk_requests": r["disk_requests"], "sync_requests": r["sync_requests"],
            "sync_blocks": r["sync_blocks"], "async_requests": r["async_requests"],
            "async_blocks": r["async_blocks"], "prefetched_blocks": r["prefetched_blocks"],
            "prefetch_unused": r["prefetch_unused_evicted"] + r["prefetch_unused_resident"],
            "exec_time_s": r["exec_time_s"], "proc_time_s": r["proc_time_s"],
            "unique_blocks": r["unique_blocks"], "sequential_percent": seq[r["trace"]],
        })
    exp = load_experiment()
    order = {
        "trace": [t["name"] for t in exp["trace"]], "prefetch": exp["prefetch"],
        "policy": exp["policies"], "cache_size": exp["cache_sizes"],
    }
    recs.sort(key=lambda r: tuple(order[k].index(r[k]) for k in ("trace", "prefetch", "policy", "cache_size")))
    return recs


def csv_text(recs: list[dict]) -> str:
    """Records as CSV text (floats by repr, so reading them back gives the same values)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in recs:
        w.writerow({k: repr(r[k]) if k in FLOAT_COLUMNS else r[k] for k in COLUMNS})
    return buf.getvalue()


def read_csv(text: str) -> list[dict]:
    """Records from CSV text, with numbers as numbers."""
    recs = []
    for r in csv.DictReader(io.StringIO(text)):
        for k in INT_COLUMNS:
            r[k] = int(r[k])
        for k in FLOAT_COLUMNS:
            r[k] = float(r[k])
        recs.append(r)
    return recs


# ------------------------------------------------------------------------------------------- the data


class Data:
    """The runs, indexed by (trace, prefetch, policy, cache size), with the experiment's axes."""

    def __init__(self, recs: list[dict]):
        self.by = {(r["trace"], r["prefetch"], r["policy"], r["cache_size"]): r for r in recs}
        exp = load_experiment()
        present = {(r["trace"], r["cache_size"]) for r in recs}
        self.traces = [t["name"] for t in exp["trace"] if any(p[0] == t["name"] for p in present)]
        self.policies = list(exp["policies"])
        self.sizes = list(exp["cache_sizes"])
        self.prefetch = list(exp["prefetch"])

    def sizes_of(self, trace: str) -> list[str]:
        """The cache sizes run for `trace` (all of the experiment's in the full grid)."""
        return [s for s in self.sizes if (trace, "none", "lru", s) in self.by]

    def full(self, trace: str) -> bool:
        """Whether every size of the experiment was run for `trace`."""
        return self.sizes_of(trace) == self.sizes

    def get(self, trace, pf, policy, size) -> dict:
        return self.by[(trace, pf, policy, size)]

    def hr(self, trace, pf, policy, size) -> float:
        r = self.get(trace, pf, policy, size)
        return r["hits"] / r["requests"]

    def mean_hr(self, trace, pf, policy) -> float:
        """Hit ratio, mean over the trace's sizes."""
        return statistics.fmean(self.hr(trace, pf, policy, s) for s in self.sizes_of(trace))

    def total(self, trace, pf, policy, key) -> float:
        """A count summed over the trace's sizes."""
        return sum(self.get(trace, pf, policy, s)[key] for s in self.sizes_of(trace))


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def signed_pct(x: float) -> str:
    return f"{100 * x:+.1f}%".replace("-", "−")


def signed(x: float) -> str:
    """A plain number with a minus sign, never a hyphen."""
    return f"{x:.2f}".replace("-", "−")


def pp(x: float) -> str:
    return f"{100 * x:+.1f} pp".replace("-", "−")


def spearman(xs, ys):
    """Spearman's rank correlation (average ranks for ties); None when either side is constant."""
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / (sxx * syy) ** 0.5


# ------------------------------------------------------------------------------------------- findings


class Finding:
    """One of the study's findings: its words, where the study says it, the test applied here, and the
    workloads (and, for per-size findings, sizes) it is judged on."""

    def __init__(self, fid, short, quote, source, test, scope, judge, per_size=False):
        self.id, self.short, self.quote, self.source, self.test = fid, short, quote, source, test
        self.scope, self.judge, self.per_size = scope, judge, per_size

    def cells(self, data: Data):
        """The (workload, size or None) cells this finding is judged on, among those run."""
        for t in self.scope:
            if t not in data.traces:
                continue
            if self.per_size:
                for s in data.sizes_of(t):
                    yield t, s
            elif data.full(t):
                yield t, None

    def verdicts(self, data: Data):
        """{(prefetch, workload, size): (holds or None, numbers)} over the cells run."""
        out = {}
        for pf in READ_AHEAD:
            for t, s in self.cells(data):
                out[(pf, t, s)] = self.judge(data, pf, t, s)
        return out


SEQUENTIAL = ["seqloop", "cs", "gli", "lirs-cpp", "ps"]
WITH_COMPUTE = ["seqloop", "lirs-cpp"]


def _gains(data, pf, t):
    return {p: data.mean_hr(t, pf, p) - data.mean_hr(t, "none", p) for p in data.policies}


def judge_hit_gain(data, pf, t, s):
    g = _gains(data, pf, t)
    lo = min(g, key=g.get)
    hi = max(g, key=g.get)
    holds = g[lo] >= 0.10 and g[hi] - g[lo] >= 0.10
    return holds, f"gains {pp(g[lo])} ({lo}) to {pp(g[hi])} ({hi})"


def _req_cut(data, pf, t, p):
    return 1 - data.total(t, pf, p, "disk_requests") / data.total(t, "none", p, "disk_requests")


def judge_request_cut(data, pf, t, s):
    cut = {p: _req_cut(data, pf, t, p) for p in data.policies}
    lo = min(cut, key=cut.get)
    return cut[lo] >= 0.30, f"requests {signed_pct(-cut[lo])} ({lo}) to {signed_pct(-max(cut.values()))}"


def judge_time_not_proportional(data, pf, t, s):
    ratios = {}
    for p in data.policies:
        rc = _req_cut(data, pf, t, p)
        tc = 1 - data.total(t, pf, p, "exec_time_s") / data.total(t, "none", p, "exec_time_s")
        if rc > 0:
            ratios[p] = tc / rc
    if not ratios:
        return None, "no policy's requests fell"
    med = statistics.median(ratios.values())
    rc = _req_cut(data, pf, t, "lru")
    tc = 1 - data.total(t, pf, "lru", "exec_time_s") / data.total(t, "none", "lru", "exec_time_s")
    return med < 0.5, (f"LRU: requests {signed_pct(-rc)}, run time {signed_pct(-tc)}; "
                       f"median run-time cut / request cut {signed(med)}")


def judge_order_changes(data, pf, t, s):
    best = None
    non_opt = [p for p in data.policies if p != "opt"]
    for size in data.sizes_of(t):
        for i, a in enumerate(non_opt):
            for b in non_opt[i + 1:]:
                d0 = data.hr(t, "none", a, size) - data.hr(t, "none", b, size)
                d1 = data.hr(t, pf, a, size) - data.hr(t, pf, b, size)
                if d0 * d1 < 0:
                    margin = min(abs(d0), abs(d1))
                    if best is None or margin > best[0]:
                        best = (margin, size, a, b, d0, d1)
    if best is None:
        return False, "no pair of policies changes order"
    margin, size, a, b, d0, d1 = best
    if d0 < 0:
        a, b, d0, d1 = b, a, -d0, -d1
    return margin >= 0.05, (f"at {size}: {a} {pp(d0)} over {b} without read-ahead, "
                            f"{pp(d1)} with it")


def judge_gap_narrows(data, pf, t, s):
    non_opt = [p for p in data.policies if p != "opt"]

    def gap(pf_):
        return statistics.fmean(data.mean_hr(t, pf_, "opt") - data.mean_hr(t, pf_, p) for p in non_opt)
    g0, g1 = gap("none"), gap(pf)
    return g1 < g0, f"mean gap to OPT {100 * g0:.1f} pp → {100 * g1:.1f} pp"


def judge_requests_predict_time(data, pf, t, s):
    by_req, by_miss = [], []
    for size in data.sizes_of(t):
        rows = [data.get(t, pf, p, size) for p in data.policies]
        times = [r["exec_time_s"] for r in rows]
        a = spearman([r["disk_requests"] for r in rows], times)
        b = spearman([r["requests"] - r["hits"] for r in rows], times)
        if a is not None and b is not None:
            by_req.append(a)
            by_miss.append(b)
    if not by_req:
        return None, "every policy takes the same time"
    a, b = statistics.fmean(by_req), statistics.fmean(by_miss)
    return a > b, f"rank correlation with run time: requests {a:.2f}, misses {b:.2f}"


def _median_over_policies(data, pf, t, s, f):
    return statistics.median(f(data.get(t, pf, p, s), data.get(t, "none", p, s)) for p in data.policies)


def judge_random_costs(data, pf, t, s):
    gain = _median_over_policies(data, pf, t, s, lambda a, b: (a["hits"] - b["hits"]) / a["requests"])
    req = _median_over_policies(data, pf, t, s, lambda a, b: a["disk_requests"] / b["disk_requests"])
    tim = _median_over_policies(data, pf, t, s, lambda a, b: a["exec_time_s"] / b["exec_time_s"])
    return (gain < 0.05 and req >= 1.5 and tim >= 1.5,
            f"hit ratio {pp(gain)}, requests ×{req:.2f}, run time ×{tim:.2f}")


def judge_useless_prefetch(data, pf, t, s):
    tim = _median_over_policies(data, pf, t, s, lambda a, b: a["exec_time_s"] / b["exec_time_s"])
    unused = _median_over_policies(
        data, pf, t, s, lambda a, b: a["prefetch_unused"] / a["prefetched_blocks"] if a["prefetched_blocks"] else 0)
    return tim > 1, f"run time ×{tim:.2f}, {pct(unused)} of read-ahead blocks never used"


def judge_table5(data, pf, t, s):
    size = "40%"
    non_opt = [p for p in data.policies if p != "opt"]
    cut = {p: 1 - data.get(t, pf, p, size)["disk_requests"] / data.get(t, "none", p, size)["disk_requests"]
           for p in non_opt}
    lo = min(cut, key=cut.get)
    per_req = [data.get(t, pf, p, size)["async_blocks"] / data.get(t, pf, p, size)["async_requests"]
               for p in non_opt if data.get(t, pf, p, size)["async_requests"]]
    lo_b, hi_b = min(per_req), max(per_req)
    holds = cut[lo] >= 0.30 and lo_b >= 5 and hi_b <= 9
    return holds, (f"at {size}: requests {signed_pct(-cut[lo])} ({lo}) or more; "
                   f"{lo_b:.1f}–{hi_b:.1f} blocks per asynchronous request")


FINDINGS = [
    Finding(
        "hit-gain", "read-ahead raises every policy's hit ratio, by different amounts",
        "kernel prefetching has a significant impact on the hit ratio, but the improvement for different "
        "algorithms differ.", "sec. 5.3.1, cscope, first observation",
        "every policy's hit ratio (mean over the sizes) rises by at least 10 pp, and the largest rise exceeds "
        "the smallest by at least 10 pp", SEQUENTIAL, judge_hit_gain),
    Finding(
        "request-cut", "clustering cuts disk requests",
        "the clustering of I/O requests in the presence of prefetching also results in a significant "
        "reduction in the number of disk requests compared to without prefetching.",
        "sec. 5.3.1, cscope, second observation (604,000 → 422,000 requests at 64 MB)",
        "every policy's disk requests (summed over the sizes) fall by at least 30%", SEQUENTIAL,
        judge_request_cut),
    Finding(
        "time-not-proportional", "fewer requests, not proportionally less run time",
        "the reduction in the number of disk requests due to kernel prefetching does not necessarily "
        "translate into a proportional reduction in the execution time.",
        "sec. 5.3.1, cscope, fourth observation",
        "across policies, the median of (run-time cut / request cut), sums over the sizes, is below 0.5 "
        "(judged where the trace records compute time)", WITH_COMPUTE, judge_time_not_proportional),
    Finding(
        "order-changes", "read-ahead reorders the policies",
        "prefetching can result in significant changes in the relative performance of replacement "
        "algorithms.", "sec. 5.3.1, cscope, last observation; the abstract",
        "at some size, two policies (OPT aside) swap places by hit ratio with a margin of at least 5 pp both "
        "without and with read-ahead", SEQUENTIAL + ["multi1", "OLTP"], judge_order_changes),
    Finding(
        "gap-narrows", "read-ahead narrows the gap to OPT",
        "it can not only narrow the performance gap but also change the relative performance benefits of "
        "different algorithms.", "abstract; sec. 5.3.1 (2Q's gap to OPT at 128 MB: 18% → under 6%)",
        "the mean hit-ratio gap between OPT and the other policies (means over the sizes) is smaller with "
        "read-ahead", SEQUENTIAL + ["multi1", "OLTP"], judge_gap_narrows),
    Finding(
        "requests-predict-time", "disk requests predict run time better than hit ratio",
        "In contrast to the hit ratio, the number of disk requests provides a much better indication of "
        "the relative execution time among different replacement algorithms.", "sec. 5.3.1, glimpse",
        "across policies at each size, run time's rank correlation with disk requests exceeds its rank "
        "correlation with misses (means over the sizes)", SEQUENTIAL + ["multi1", "OLTP"],
        judge_requests_predict_time),
    Finding(
        "random-costs", "random reads: little gain, twice the requests and time",
        "prefetching provides little improvement in the hit ratio for these applications. Furthermore, most "
        "of the prefetched blocks are not accessed and as a result both the number of disk requests and the "
        "execution time are doubled.", "sec. 5.3.2, tpc-h and tpc-r",
        "medians over the policies: the hit ratio rises by less than 5 pp, while disk requests and run time "
        "grow at least 1.5×", ["OLTP"], judge_random_costs, per_size=True),
    Finding(
        "useless-prefetch", "the kernel cannot stop useless read-ahead",
        "even the elaborate prefetching scheme of the Linux kernel is unable to stop useless prefetching "
        "and prevent performance degradation.", "sec. 5.3.2",
        "the median policy runs longer with read-ahead than without", ["OLTP"], judge_useless_prefetch,
        per_size=True),
    Finding(
        "table5", "Table 5: 30% fewer requests, 5–9 blocks per asynchronous request",
        "the total number of disk requests (synchronous and asynchronous) with prefetching is at least 30% "
        "lower than without prefetching for all schemes except OPT [...] The asynchronous disk requests "
        "prefetch between 5 to 9 blocks per access", "sec. 5.3.4, Table 5 (cscope at 128 MB)",
        "at 40% of the unique blocks (cscope's 128 MB is 49% of its data): every policy but OPT issues at "
        "least 30% fewer requests, and every one's asynchronous requests carry 5 to 9 blocks on average",
        ["cs", "seqloop"], judge_table5),
]


def all_verdicts(data: Data) -> dict:
    """{(finding id, prefetch, workload, size): (holds, numbers)} for every finding."""
    out = {}
    for f in FINDINGS:
        for (pf, t, s), v in f.verdicts(data).items():
            out[(f.id, pf, t, s)] = v
    return out


# --------------------------------------------------------------------------- standings and winners


def position(data: Data, pf: str, t: str, policy: str, metric: str) -> float:
    """Where `policy` lies from LRU (0) to OPT (1): by mean hit ratio, or by disk requests (fewer is
    better) summed over the sizes."""
    if metric == "hit_ratio":
        lru, opt, x = (data.mean_hr(t, pf, p) for p in ("lru", "opt", policy))
    else:
        lru, opt, x = (-data.total(t, pf, p, "disk_requests") for p in ("lru", "opt", policy))
    if opt == lru:
        return float("nan")
    return (x - lru) / (opt - lru)


def place(pos: float) -> str:
    """Words for a position between LRU (0) and OPT (1)."""
    if pos != pos:
        return "LRU = OPT"
    if pos == 0:
        return "= LRU"
    if pos == 1:
        return "= OPT"
    if pos < 0:
        return "below LRU"
    if pos > 1:
        return "above OPT"
    return "between"


def standings(data: Data) -> dict:
    """{(prefetch, workload, policy, metric): position} for the kernel's two policies."""
    out = {}
    for pf in data.prefetch:
        for t in data.traces:
            if not data.full(t):
                continue
            for p in KERNEL_POLICIES:
                for m in ("hit_ratio", "disk_requests"):
                    out[(pf, t, p, m)] = position(data, pf, t, p, m)
    return out


METRICS = {
    "hit_ratio": ("hit ratio (mean)", lambda d, pf, t, p: d.mean_hr(t, pf, p), max),
    "disk_requests": ("disk requests (sum)", lambda d, pf, t, p: d.total(t, pf, p, "disk_requests"), min),
    "exec_time_s": ("run time (sum)", lambda d, pf, t, p: d.total(t, pf, p, "exec_time_s"), min),
}


def winners(data: Data, pf: str = "linux6") -> dict:
    """{(workload, metric): (winners, value, runner-up, its value)} among the policies other than OPT."""
    out = {}
    for t in data.traces:
        if not data.full(t):
            continue
        for m, (_, f, better) in METRICS.items():
            vals = {p: f(data, pf, t, p) for p in data.policies if p != "opt"}
            best = better(vals.values())
            top = [p for p in vals if vals[p] == best]
            rest = {p: v for p, v in vals.items() if v != best}
            second = better(rest.values()) if rest else None
            out[(t, m)] = (top, best, [p for p in rest if rest[p] == second], second)
    return out


# ---------------------------------------------------------------------------------------- the page


def fmt_metric(m: str, v: float) -> str:
    if m == "hit_ratio":
        return pct(v)
    if m == "disk_requests":
        return f"{int(v):,}"
    return f"{v:,.1f} s"


def anchor(title: str) -> str:
    """GitHub's anchor for a heading."""
    keep = "".join(c for c in title.lower() if c.isalnum() or c in " -_")
    return keep.replace(" ", "-")


def verdict_word(holds) -> str:
    return {True: "**holds**", False: "**does not hold**", None: "no verdict"}[holds]


def render(data: Data) -> str:
    exp = load_experiment()
    v = all_verdicts(data)
    out = []
    w = out.append
    w("# The prefetching study, today\n")
    w("Generated by `scripts/study_today.py` from `experiments/study-today.csv`, the results of the sweep "
      "`experiments/study-today.toml`; do not edit by hand. `python3 scripts/study_today.py --run` reruns the "
      "sweep and rewrites both; "
      "`tests/python/test_study_today.py` reruns its cells and checks the results, this page and every claim "
      "in it.\n")
    w("The prefetching study (Butt, Gniady, Hu, SIGMETRICS 2005) ran eight replacement policies with and "
      "without Linux 2.4's read-ahead on a simulated Seagate Cheetah 9LP and found that read-ahead changes "
      "which policy is best. Here its experiment is rerun with today's read-ahead (`linux6`, Linux 6.18 with "
      "large folios, `read_ahead_kb` 128: [readahead.md](readahead.md)) on the same disk "
      "([disk.md](disk.md)), its eight policies (Table 4's parameters, `preset = \"study\"`) beside today's "
      "and the kernel's own replacement (`linux`, `mglru`; [policies.md](policies.md)). Linux 2.4's "
      "read-ahead (`linux24`) is run too, so each finding can be checked first where the study made it.\n")
    pols = exp["policies"]
    w(f"Policies ({len(pols)}): " + ", ".join(f"`{p}`" for p in pols) + ". Cache sizes: "
      + ", ".join(exp["cache_sizes"]) + " of each trace's unique blocks. Read-ahead: "
      + ", ".join(f"`{p}`" for p in exp["prefetch"]) + f". Disk: `{exp['disk'][0]}`. "
      f"{len(data.by)} runs.\n")

    w("## In short\n")
    w("On how many of the workloads it speaks of (or workload and cache size, for the random group's "
      "findings) each of the study's findings holds, with the study's read-ahead and with today's; the "
      "sections below give the test and the numbers.\n")
    w("| finding | source | Linux 2.4 | Linux 6 |")
    w("|---|---|---|---|")
    for f in FINDINGS:
        counts = []
        for pf in READ_AHEAD:
            cells = list(f.cells(data))
            held = [c for c in cells if v[(f.id, pf, c[0], c[1])][0]]
            counts.append(f"{len(held)} of {len(cells)}")
        w(f"| [{f.short}](#{anchor(f.quote)}) | {f.source.split(',')[0].split(' (')[0]} | " + " | ".join(counts) + " |")
    w("")
    w(standings_summary(data, standings(data)) + " " + winners_summary(data, winners(data)) + "\n")

    w("## The workloads\n")
    w("The study's traces are not public. Each workload here stands in for one of its applications, in the "
      "study's groups (sec. 5.1: sequential, random, concurrent); \"seq. refs\" is the study's Table 2 "
      "column, from `belady stats`. The LIRS and ARC traces are block traces: each run of consecutive "
      "block numbers reads as one file (see [file-level.md](file-level.md)), and they record no compute "
      "time, so their run time is the disk's time alone. The two AccuSim inputs are file-level traces with "
      "the compute time between calls.\n")
    w("| workload | stands in for | group | what it is | references | unique blocks | seq. refs | compute time |")
    w("|---|---|---|---|---:|---:|---:|---|")
    for t in data.traces:
        r = data.get(t, "none", "lru", data.sizes_of(t)[0])
        app, group, what = STANDS_FOR[t]
        w(f"| {t} | {app} | {group} | {what} | {r['requests']:,} | {r['unique_blocks']:,} | "
          f"{r['sequential_percent']:.1f}% | {'yes' if r['proc_time_s'] > 0 else 'no'} |")
    w("")
    w("Missing: viewperf (a CPU-bound loop over a few large files), multi2 (cscope, gcc, viewperf) and "
      "multi3 (glimpse, tpc-h) have no public stand-in.")
    if "ps" in data.traces:
        seq = data.get("ps", "none", "lru", data.sizes_of("ps")[0])["sequential_percent"]
        w(f"Note that `ps`, a database, is {seq:.0f}% sequential: its queries scan.")
    if BIG in data.traces:
        rows = [data.get(BIG, "linux6", p, s) for p in data.policies for s in data.sizes_of(BIG)]
        used = sum(r["prefetched_blocks"] - r["prefetch_unused"] for r in rows) / sum(
            r["prefetched_blocks"] for r in rows)
        w(f"And OLTP, though random by the study's measure, reads later {'most' if used > 0.5 else 'few'} of "
          f"the neighbouring blocks "
          f"read ahead for it: {pct(used)} of the blocks Linux 6 reads ahead are used (all policies and "
          f"sizes), where the study's tpc-h used few.")
    w("")

    w("## The study's findings, then and now\n")
    w("Each finding is quoted, then judged on the workloads it speaks of by the test stated under it; "
      "\"Linux 2.4\" is the study's read-ahead on these workloads, \"Linux 6\" today's.\n")
    for f in FINDINGS:
        w(f"### \"{f.quote}\"\n")
        w(f"*{f.source}.* Test: {f.test}.\n")
        w("| workload | Linux 2.4 | Linux 6 |")
        w("|---|---|---|")
        for t, s in f.cells(data):
            cells = []
            for pf in READ_AHEAD:
                holds, nums = v[(f.id, pf, t, s)]
                cells.append(f"{verdict_word(holds)}: {nums}")
            label = t if s is None else f"{t} at {s}"
            w(f"| {label} | " + " | ".join(cells) + " |")
        w("")
        w(summary_line(f, v, data) + "\n")

    w("## Where the kernel's own replacement stands between LRU and OPT\n")
    w("Position = (policy − LRU) / (OPT − LRU): 0 is LRU, 1 is OPT, below 0 is worse than LRU. By hit ratio "
      "(mean over the sizes) and by disk requests (summed over the sizes; fewer is better).\n")
    st = standings(data)
    w("| workload | read-ahead | LRU hit ratio | OPT hit ratio | `linux` by hits | `mglru` by hits | "
      "`linux` by requests | `mglru` by requests |")
    w("|---|---|---:|---:|---|---|---|---|")
    for t in data.traces:
        if not data.full(t):
            continue
        for pf in data.prefetch:
            cells = [pct(data.mean_hr(t, pf, "lru")), pct(data.mean_hr(t, pf, "opt"))]
            for m in ("hit_ratio", "disk_requests"):
                for p in KERNEL_POLICIES:
                    x = st[(pf, t, p, m)]
                    cells.append(f"{x:.2f} ({place(x)})".replace("-", "−") if x == x else place(x))
            w(f"| {t} | {LABEL[pf]} | " + " | ".join(cells) + " |")
    w("")
    w(standings_summary(data, st) + "\n")

    w("## Which policy wins\n")
    w("Under Linux 6's read-ahead, OPT aside: the highest mean hit ratio, the fewest disk requests and the "
      "shortest run time (sums over the sizes), with the runner-up.\n")
    wins = winners(data)
    w("| workload | " + " | ".join(METRICS[m][0] for m in METRICS) + " |")
    w("|---|" + "---|" * len(METRICS))
    for t in data.traces:
        if not data.full(t):
            continue
        cells = []
        for m in METRICS:
            top, best, second, sv = wins[(t, m)]
            cell = f"{', '.join(f'`{p}`' for p in top)} {fmt_metric(m, best)}"
            if second:
                cell += f" (then {', '.join(f'`{p}`' for p in second)} {fmt_metric(m, sv)})"
            cells.append(cell)
        w(f"| {t} | " + " | ".join(cells) + " |")
    w("")
    w(winners_summary(data, wins) + "\n")

    w("## The numbers (Linux 6 read-ahead)\n")
    w("Per workload: hit ratio, disk requests and run time at each cache size (share of the unique blocks; "
      "the block count in the header). Every run of the sweep, with and without read-ahead, is in "
      "`experiments/study-today.csv`.\n")
    for t in data.traces:
        sizes = data.sizes_of(t)
        head = [f"{s} ({data.get(t, 'none', 'lru', s)['cache_blocks']:,})" for s in sizes]
        for m, title in (("hit_ratio", "hit ratio"), ("disk_requests", "disk requests"),
                         ("exec_time_s", "run time, s")):
            w(f"**{t}: {title}**\n")
            w("| policy | " + " | ".join(head) + " |")
            w("|---|" + "---:|" * len(sizes))
            for p in data.policies:
                vals = []
                for s in sizes:
                    r = data.get(t, "linux6", p, s)
                    if m == "hit_ratio":
                        vals.append(pct(r["hits"] / r["requests"]))
                    elif m == "disk_requests":
                        vals.append(f"{r['disk_requests']:,}")
                    else:
                        vals.append(f"{r['exec_time_s']:,.2f}")
                w(f"| {p} | " + " | ".join(vals) + " |")
            w("")
    return "\n".join(out).rstrip("\n") + "\n"


def summary_line(f: Finding, v: dict, data: Data) -> str:
    """One sentence: on how many workloads the finding holds under each read-ahead."""
    parts = []
    for pf in READ_AHEAD:
        cells = [(t, s) for t, s in f.cells(data)]
        held = [c for c in cells if v[(f.id, pf, c[0], c[1])][0]]
        parts.append(f"{LABEL[pf]}: {len(held)} of {len(cells)}")
    unit = "workload and size" if f.per_size else "workload"
    return f"Holds on ({unit}) — " + "; ".join(parts) + "."


def standings_summary(data: Data, st: dict) -> str:
    out = []
    for p in KERNEL_POLICIES:
        pos = {t: st[("linux6", t, p, "hit_ratio")] for t in data.traces if data.full(t)}
        groups = {}
        for t, x in pos.items():
            groups.setdefault(place(x), []).append(t)
        s = f"`{p}` lies between LRU and OPT on {len(groups.get('between', []))} of {len(pos)} workloads"
        if groups.get("between"):
            s += " (" + ", ".join(groups["between"]) + ")"
        for word in ("= LRU", "below LRU", "above OPT", "= OPT", "LRU = OPT"):
            if groups.get(word):
                s += f"; {word.replace('= ', 'equals ')} on " + ", ".join(groups[word])
        out.append(s)
    return "Under Linux 6's read-ahead, by hit ratio, " + "; ".join(out) + "."


def winners_summary(data: Data, wins: dict) -> str:
    counts = {}
    for (t, m), (top, *_rest) in wins.items():
        if m == "hit_ratio":
            for p in top:
                counts[p] = counts.get(p, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], data.policies.index(kv[0])))
    study = sum(n for p, n in ranked if p in STUDY_POLICIES)
    kernel = sum(n for p, n in ranked if p in KERNEL_POLICIES)
    today = sum(n for p, n in ranked if p not in STUDY_POLICIES and p not in KERNEL_POLICIES)
    return ("By hit ratio the wins (ties count for each) go to " + ", ".join(f"`{p}` {n}" for p, n in ranked)
            + f": the study's eight take {study}, today's policies {today}, the kernel's {kernel}.")


# ---------------------------------------------------------------------------------------------- main


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=str(ROOT / "target" / "release" / "belady"))
    ap.add_argument("--run", action="store_true", help="run the sweep and rewrite the CSV first")
    ap.add_argument("--check", action="store_true", help="only check that the page matches the CSV")
    args = ap.parse_args()
    if args.run:
        # A fresh store: a sweep never recomputes a stored run, so an old store would keep old code's numbers.
        shared = shared_dir()
        with tempfile.TemporaryDirectory() as tmp:
            store = pathlib.Path(tmp) / "study-today.sqlite"
            rows = sweep(args.bin, experiment_text(shared, store), pathlib.Path(tmp), store)
        exp = load_experiment()
        want = len(exp["trace"]) * len(exp["prefetch"]) * len(exp["policies"]) * len(exp["cache_sizes"])
        if len(rows) != want:
            sys.exit(f"the sweep stored {len(rows)} runs, the experiment has {want}")
        CSV_PATH.write_text(csv_text(records(rows, sequential_percents(args.bin, shared))))
    page = render(Data(read_csv(CSV_PATH.read_text())))
    if args.check:
        if DOC_PATH.read_text() != page:
            print(f"{DOC_PATH} differs from what {CSV_PATH.name} gives; run scripts/study_today.py", file=sys.stderr)
            return 1
        return 0
    DOC_PATH.write_text(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
