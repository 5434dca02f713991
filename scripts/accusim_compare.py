#!/usr/bin/env python3
"""How far `belady sim --compat accusim` lands from AccuSim's own results.

Runs, per (trace, prefetch) group of the oracle tables, the command the AccuSim issue names:

    belady sim --trace IN.bin.gz --format accusim --compat accusim
               --policy opt,lru,lru2,lrfu,lirs,mq,2q,arc --cache-size S1,S2,... --prefetch linux24|none --json
               [--disk cheetah9lp]

and prints every row that differs from untimed.tsv (counts must match exactly) and timed.tsv (counts
within 1%, run time within 5%), then a per-scheme summary. Extra arguments after `--` go to belady
(for example `-- --compat-rule block0-sentinel` together with `--no-compat`).

    scripts/accusim_compare.py [--bin target/release/belady] [--oracle DIR] [--table untimed|timed|both]
                               [--scheme LRU,ARC] [--all-rows]
    scripts/accusim_compare.py --dump iodumps/seqloop_LIRS_c1000_pf1.txt.gz

`--dump` compares one of AccuSim's request dumps (timed runs) with belady's request log, request by
request, and prints where they first part.
"""

from __future__ import annotations

import argparse
import collections
import csv
import gzip
import json
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCHEMES = {"OPT": "opt", "LRU": "lru", "LRU-2": "lru2", "LRFU": "lrfu", "LIRS": "lirs", "MQ": "mq", "2Q": "2q",
           "ARC": "arc"}
# belady's JSON names the policy by its registry label.
LABELS = {"opt": "OPT", "lru": "LRU", "lru-k": "LRU-2", "lru2": "LRU-2", "lrfu": "LRFU", "lirs": "LIRS",
          "mq": "MQ", "2q": "2Q", "arc": "ARC"}
# Oracle column -> belady JSON field.
COUNTS = {"accesses": "requests", "hits": "hits", "misses": "misses", "prefetch_hits": "prefetch_hits",
          "late": "late", "num_ios": "disk_requests", "sync_reqs": "sync_requests", "sync_blocks": "sync_blocks",
          "async_reqs": "async_requests", "async_blocks": "async_blocks"}
TIMES = {"exec_time_s": "exec_time_s", "proc_time_s": "proc_time_s", "io_time_s": "io_time_s"}
# The counts the issue checks, and how far they may be off in a timed run.
CHECKED = ["hits", "misses", "num_ios", "sync_reqs", "sync_blocks", "async_reqs", "async_blocks"]
TIMED_COUNT_BOUND = 0.01
EXEC_BOUND = 0.05


def read_table(path: pathlib.Path) -> list[dict]:
    with path.open() as f:
        return list(csv.DictReader(f, delimiter="\t"))


def run_group(binary, oracle, trace, prefetch, sizes, schemes, timed, extra) -> dict:
    cmd = [str(binary), "sim", "--trace", str(oracle / "inputs" / f"{trace}.bin.gz"), "--format", "accusim",
           "--policy", ",".join(SCHEMES[s] for s in schemes),
           "--cache-size", ",".join(str(s) for s in sizes),
           "--prefetch", "linux24" if prefetch == "1" else "none", "--json", *extra]
    if timed:
        cmd += ["--disk", "cheetah9lp"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"belady failed ({' '.join(cmd)}):\n{done.stderr}")
    return {(LABELS[r["policy"].split("(")[0]], r["cache_blocks"]): r for r in json.loads(done.stdout)}


def rel(ours: float, theirs: float) -> float:
    if theirs == 0:
        return 0.0 if ours == 0 else float("inf")
    return ours / theirs - 1


def compare(binary, oracle, table, schemes, extra, all_rows) -> dict:
    """Prints the differing rows of one table; returns per-scheme tallies."""
    timed = table == "timed"
    rows = [r for r in read_table(oracle / f"{table}.tsv") if r["scheme"] in schemes]
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["trace"], r["prefetch"])].append(r)
    tally = collections.defaultdict(lambda: {"rows": 0, "exact": 0, "within": 0, "count_err": [], "exec_err": []})
    print(f"== {table}.tsv ({len(rows)} rows) ==")
    for (trace, prefetch), group in sorted(groups.items()):
        sizes = sorted({int(r["cache_blocks"]) for r in group})
        in_group = [s for s in SCHEMES if any(r["scheme"] == s for r in group)]
        got = run_group(binary, oracle, trace, prefetch, sizes, in_group, timed, extra)
        for row in sorted(group, key=lambda r: (list(SCHEMES).index(r["scheme"]), int(r["cache_blocks"]))):
            ours = got[(row["scheme"], int(row["cache_blocks"]))]
            t = tally[row["scheme"]]
            t["rows"] += 1
            diffs = []
            worst = 0.0
            for col, field in COUNTS.items():
                theirs, mine = int(row[col]), ours.get(field, 0)
                if mine != theirs:
                    diffs.append(f"{col} {mine}/{theirs}")
                    if col in CHECKED:
                        worst = max(worst, abs(rel(mine, theirs)))
            exact = not any(d.split()[0] in CHECKED for d in diffs)
            t["exact"] += exact
            t["count_err"].append(worst)
            line = f"{trace:10} pf{prefetch} {row['scheme']:5} c={row['cache_blocks']:>4}"
            if timed:
                e = rel(ours["exec_time_s"], float(row["exec_time_s"]))
                t["exec_err"].append(abs(e))
                t["within"] += worst <= TIMED_COUNT_BOUND and abs(e) <= EXEC_BOUND
                line += f" exec {ours['exec_time_s']:.4f}/{float(row['exec_time_s']):.4f} ({e:+.2%})"
                show = all_rows or worst > TIMED_COUNT_BOUND or abs(e) > EXEC_BOUND
            else:
                show = all_rows or not exact
            if show:
                print(f"{line}  counts {worst:.2%}: " + (", ".join(diffs) if diffs else "exact"))
    return tally


def summarise(table, tally) -> None:
    timed = table == "timed"
    print(f"-- {table} summary (belady/AccuSim) --")
    total = collections.Counter()
    for s in SCHEMES:
        if s not in tally:
            continue
        t = tally[s]
        total["rows"] += t["rows"]
        total["exact"] += t["exact"]
        line = f"{s:5} exact {t['exact']:>2}/{t['rows']:<2}  worst count error {max(t['count_err']):.2%}"
        if timed:
            total["within"] += t["within"]
            line += (f"  within bounds {t['within']:>2}/{t['rows']:<2}  exec error max {max(t['exec_err']):.2%}"
                     f" median {statistics.median(t['exec_err']):.2%}")
        print(line)
    line = f"all   exact {total['exact']}/{total['rows']}"
    if timed:
        errs = [e for t in tally.values() for e in t["exec_err"]]
        cnt = [e for t in tally.values() for e in t["count_err"]]
        line += (f"  within bounds {total['within']}/{total['rows']}  count error max {max(cnt):.2%}"
                 f" median {statistics.median(cnt):.2%}  exec error max {max(errs):.2%}"
                 f" median {statistics.median(errs):.2%}")
    print(line)


SCHEME_IDS = {"1": "ARC", "2": "OPT", "3": "LRU", "4": "LIRS", "5": "LRFU", "6": "MQ", "7": "LRU-2", "8": "2Q"}


def read_dump(path: pathlib.Path):
    """(trace, cache, scheme, prefetch, requests) of an AccuSim dump; each request is
    (record, sync, inode, first block queued, blocks queued)."""
    opener = gzip.open if path.suffix == ".gz" else open
    head, reqs = {}, []
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith("# AccuSim request dump:"):
                head = dict(kv.split("=") for kv in line.split(":", 1)[1].split())
            elif line.startswith("IO "):
                r = dict(kv.split("=") for kv in line.split()[1:])
                queued, last = int(r["queued"]), int(r["last"])
                reqs.append((int(r["rec"]), r["kind"] == "sync", int(r["inode"]), last - queued + 1, queued))
    if not head:
        sys.exit(f"{path}: no '# AccuSim request dump:' header line")
    return head["trace"], int(head["cache"]), SCHEME_IDS[head["scheme"]], head["prefetch"], reqs


def compare_dump(binary, oracle, path, extra) -> None:
    trace, cache, scheme, prefetch, theirs = read_dump(path)
    got = run_group(binary, oracle, trace, prefetch, [cache], [scheme], True, extra + ["--log-requests"])
    ours = [(r["event"], r["sync"], r["file"], r["first"], r["blocks"])
            for r in got[(scheme, cache)].get("request_log", [])]
    print(f"{path.name}: AccuSim {len(theirs)} requests, belady {len(ours)}")
    for i, (a, b) in enumerate(zip(theirs, ours)):
        if a != b:
            print(f"first difference at request {i + 1} (record, sync, inode, first, blocks):")
            for j in range(max(0, i - 3), min(len(theirs), len(ours), i + 6)):
                mark = "  " if theirs[j] == ours[j] else "!="
                print(f"  {j + 1:5} AccuSim {theirs[j]}  {mark}  belady {ours[j]}")
            return
    print("identical" if len(theirs) == len(ours) else "one is a prefix of the other")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=str(ROOT / "target" / "release" / "belady"), help="belady binary")
    ap.add_argument("--oracle", default=str(ROOT.parent / "shared" / "oracles" / "accusim"),
                    help="folder holding untimed.tsv, timed.tsv and inputs/")
    ap.add_argument("--table", choices=["untimed", "timed", "both"], default="both")
    ap.add_argument("--scheme", default=",".join(SCHEMES), help="AccuSim scheme names, comma-separated")
    ap.add_argument("--all-rows", action="store_true", help="print matching rows too")
    ap.add_argument("--no-compat", action="store_true", help="leave out --compat accusim")
    ap.add_argument("--dump", help="an AccuSim request dump (iodumps/NAME) to compare request by request")
    ap.add_argument("extra", nargs="*", help="more belady arguments (after --)")
    args = ap.parse_args()
    schemes = [s for s in args.scheme.split(",") if s]
    unknown = [s for s in schemes if s not in SCHEMES]
    if unknown:
        sys.exit(f"unknown scheme {unknown}; expected some of {','.join(SCHEMES)}")
    oracle = pathlib.Path(args.oracle)
    if not (oracle / "untimed.tsv").is_file():
        sys.exit(f"no untimed.tsv in {oracle} (pass --oracle)")
    extra = ([] if args.no_compat else ["--compat", "accusim"]) + args.extra
    if args.dump:
        dump = pathlib.Path(args.dump)
        compare_dump(args.bin, oracle, dump if dump.exists() else oracle / "iodumps" / dump, extra)
        return
    tables = ["untimed", "timed"] if args.table == "both" else [args.table]
    tallies = [(t, compare(args.bin, oracle, t, schemes, extra, args.all_rows)) for t in tables]
    for t, tally in tallies:
        summarise(t, tally)


if __name__ == "__main__":
    main()
