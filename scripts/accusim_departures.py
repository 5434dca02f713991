#!/usr/bin/env python3
"""Writes docs/accusim.md: how far belady's own modes land from `--compat accusim` on the shared AccuSim
inputs, and which departure accounts for each difference.

Every number in the page comes from runs made here: belady over the grid of ../shared/oracles/accusim
(untimed.tsv, and timed.tsv with --disk cheetah9lp), compared with AccuSim's rows. Each departure is run
alone on top of the study's parameters and left out of `--compat accusim`, one at a time.

    scripts/accusim_departures.py [--bin target/release/belady] [--oracle DIR] [--output docs/accusim.md]
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import pathlib
import re
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCHEMES = {"OPT": "opt", "LRU": "lru", "LRU-2": "lru2", "LRFU": "lrfu", "LIRS": "lirs", "MQ": "mq", "2Q": "2q",
           "ARC": "arc"}
LABELS = {"opt": "OPT", "lru": "LRU", "lru-k": "LRU-2", "lrfu": "LRFU", "lirs": "LIRS", "mq": "MQ", "2q": "2Q",
          "arc": "ARC"}
# Registry name of each scheme's policy, for its parameters.
REGISTRY = {"OPT": "opt", "LRU": "lru", "LRU-2": "lru-k", "LRFU": "lrfu", "LIRS": "lirs", "MQ": "mq", "2Q": "2q",
            "ARC": "arc"}
# Columns that must be equal for a row to match, oracle name -> belady JSON name.
EXACT = {"hits": "hits", "misses": "misses", "sync_reqs": "sync_requests", "sync_blocks": "sync_blocks",
         "async_reqs": "async_requests", "async_blocks": "async_blocks"}

# What each engine rule is, in one line (the names come from belady itself; a rule without a line here
# stops the script, so the page cannot silently miss one).
RULES = {
    "request-cap-33": "a request holds at most 33 blocks (AccuSim closes it when it exceeds RCHUNK = 32), "
                      "not 64 KB",
    "requests-end-with-calls": "no request spans two read() calls",
    "demand-after-prefetch-splits": "a demand block queued after prefetched ones starts a new request",
    "skip-partial-last-block": "the last partial block of a file is never read ahead",
    "block0-sentinel": "a request starting at file block 0 is sent from block 1 and classed by its second "
                       "block",
    "opt-unused-prefetch-after-end": "OPT ranks a prefetched block the trace never references just past "
                                     "the end of the trace",
    "evict-in-flight": "blocks whose read is in flight may be evicted",
    "inode-spaced-layout": "block b of inode i lives at sector (2048 i + 8 b) mod 17,783,240",
    "accusim-clock": "AccuSim's clock (1 µs per record, nothing counted before its disk simulator's first "
                     "event)",
    "window-covers-call": "the call's demand blocks inside the read-ahead window are referenced without a "
                          "read-ahead decision of their own, and where the read-ahead reaches them",
    "done-flags": "a block is in flight until any request sending it completes, so block 0 of a request "
                  "from block 0 never completes",
    "late-by-address": "an access waits only for a pending request found by AccuSim's address test",
    "in-flight-reuse-hits": "only the first access of a prefetched block checks that its read completed",
}


def table(path: pathlib.Path) -> list[dict]:
    with path.open() as f:
        return list(csv.DictReader(f, delimiter="\t"))


class BeladyError(Exception):
    """belady exited with an error; the message is its standard error."""


def belady(binary, args) -> str:
    done = subprocess.run([str(binary), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise BeladyError(done.stderr.strip())
    return done.stdout


def rule_names(binary, oracle) -> list[str]:
    """The engine rules belady knows, from its own error message for an unknown one."""
    done = subprocess.run([str(binary), "sim", "--trace", str(oracle / "inputs" / "micro-tiny.bin.gz"), "--format",
                           "accusim", "--policy", "lru", "--cache-size", "10", "--compat-rule", "?"],
                          capture_output=True, text=True)
    m = re.search(r"expected one of (.+)$", done.stderr.strip())
    if not m:
        sys.exit(f"cannot read the rule names from: {done.stderr}")
    names = [n.strip() for n in m.group(1).split(",")]
    missing = [n for n in names if n not in RULES]
    if missing:
        sys.exit(f"no description for rule(s) {missing}; add them to RULES")
    return names


def policy_departures(binary) -> list[tuple[str, str, str, str, str]]:
    """(scheme, param, study value, accusim value, about) for every parameter --compat accusim changes."""
    out = []
    policies = {p["name"]: p for p in json.loads(belady(binary, ["policies", "--json"]))}
    for scheme, name in REGISTRY.items():
        for q in policies[name]["params"]:
            if q["accusim"] != q["study"]:
                out.append((scheme, q["name"], q["study"], q["accusim"], q["about"]))
    return out


class Grid:
    """Runs configurations over the oracle grid and scores them against AccuSim's rows."""

    def __init__(self, binary, oracle, timed):
        self.binary, self.oracle, self.timed = binary, oracle, timed
        self.rows = table(oracle / ("timed.tsv" if timed else "untimed.tsv"))
        self.groups = collections.defaultdict(list)
        for r in self.rows:
            self.groups[(r["trace"], r["prefetch"])].append(r)
        self.runs = 0

    def run(self, extra) -> dict:
        got = {}
        for (trace, prefetch), rows in sorted(self.groups.items()):
            sizes = sorted({int(r["cache_blocks"]) for r in rows})
            args = ["sim", "--trace", str(self.oracle / "inputs" / f"{trace}.bin.gz"), "--format", "accusim",
                    "--policy", ",".join(SCHEMES.values()), "--cache-size", ",".join(map(str, sizes)),
                    "--prefetch", "linux24" if prefetch == "1" else "none", "--json", *extra]
            if self.timed:
                args += ["--disk", "cheetah9lp"]
            for r in json.loads(belady(self.binary, args)):
                got[(trace, prefetch, LABELS[r["policy"].split("(")[0]], r["cache_blocks"])] = r
            self.runs += 1
        return got

    def score(self, got) -> dict:
        """Per scheme: rows equal to AccuSim's, summed |misses| and |disk requests| differences, and
        (timed) the run-time errors."""
        s = {k: {"exact": 0, "rows": 0, "misses": 0, "requests": 0, "exec": []} for k in SCHEMES}
        for r in self.rows:
            ours = got[(r["trace"], r["prefetch"], r["scheme"], int(r["cache_blocks"]))]
            t = s[r["scheme"]]
            t["rows"] += 1
            t["exact"] += all(ours[f] == int(r[c]) for c, f in EXACT.items())
            t["misses"] += abs(ours["misses"] - int(r["misses"]))
            t["requests"] += abs(ours["disk_requests"] - int(r["num_ios"]))
            if self.timed:
                t["exec"].append(abs(ours["exec_time_s"] / float(r["exec_time_s"]) - 1))
        return s


def cell(t) -> str:
    return f"{t['exact']}/{t['rows']} · {t['misses']} · {t['requests']}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=str(ROOT / "target" / "release" / "belady"))
    ap.add_argument("--oracle", default=str(ROOT.parent / "shared" / "oracles" / "accusim"))
    ap.add_argument("--output", default=str(ROOT / "docs" / "accusim.md"), help="'-' for standard output")
    args = ap.parse_args()
    binary, oracle = pathlib.Path(args.bin), pathlib.Path(args.oracle)
    if not (oracle / "untimed.tsv").is_file():
        sys.exit(f"no untimed.tsv in {oracle} (pass --oracle)")
    try:
        rules = rule_names(binary, oracle)
    except BeladyError as e:
        sys.exit(f"belady failed: {e}")
    params = policy_departures(binary)
    grid = Grid(binary, oracle, timed=False)
    schemes = list(SCHEMES)

    base = {"paper": grid.score(grid.run([])), "study": grid.score(grid.run(["--preset", "study"])),
            "compat": grid.score(grid.run(["--compat", "accusim"]))}
    every_rule = [a for r in rules for a in ("--compat-rule", r)]
    assembled = grid.score(grid.run(["--preset", "accusim", *every_rule]))
    if assembled != base["compat"]:
        sys.exit("--preset accusim with every --compat-rule differs from --compat accusim")

    alone, without = {}, {}
    for r in rules:
        alone[r] = grid.score(grid.run(["--preset", "study", "--compat-rule", r]))
        rest = [a for x in rules if x != r for a in ("--compat-rule", x)]
        without[r] = grid.score(grid.run(["--preset", "accusim", *rest]))
    p_alone, p_without, p_also = {}, {}, {}
    values = {f"{REGISTRY[s]}.{n}": (st, ac) for s, n, st, ac, _ in params}
    for scheme, name, study, accusim, _ in params:
        key = f"{REGISTRY[scheme]}.{name}"
        # Some parameters only exist together (LRFU's x87 comparisons need its AccuSim queue): a run
        # that belady refuses gets the parameter its message names, at the same preset's value.
        alone_set, without_set = {key: accusim}, {key: study}
        for side, preset, chosen in [("alone", ["--preset", "study"], alone_set),
                                     ("without", ["--compat", "accusim"], without_set)]:
            while True:
                try:
                    extra = preset + [a for k, v in chosen.items() for a in ("--param", f"{k}={v}")]
                    result = grid.score(grid.run(extra))[scheme]
                    break
                except BeladyError as e:
                    needed = re.search(r"need (\S+)=(\S+)", str(e))
                    invalid = re.search(r"invalid --param (\S+) '", str(e))
                    if side == "alone" and needed and needed.group(1) not in chosen:
                        chosen[needed.group(1)] = needed.group(2)
                    elif side == "without" and invalid and invalid.group(1) not in chosen:
                        chosen[invalid.group(1)] = values[invalid.group(1)][0]
                    else:
                        sys.exit(f"belady refused {extra}: {e}")
            (p_alone if side == "alone" else p_without)[key] = result
        p_also[key] = sorted({f"`{k}={v}`" for k, v in {**alone_set, **without_set}.items() if k != key})

    # MQ equals LRU without prefetching only when the counter follows AccuSim's.
    mq_lru = {}
    for mode, extra in [("paper", []), ("study", ["--preset", "study"]), ("compat", ["--compat", "accusim"])]:
        got = grid.run(extra)
        keys = [k for k in got if k[1] == "0" and k[2] == "MQ"]
        mq_lru[mode] = (sum(all(got[k][f] == got[(k[0], k[1], "LRU", k[3])][f] for f in EXACT.values())
                            for k in keys), len(keys))

    timed = Grid(binary, oracle, timed=True)
    t_base = {"study": timed.score(timed.run(["--preset", "study"])),
              "compat": timed.score(timed.run(["--compat", "accusim"]))}
    t_without = {}
    for r in rules:
        rest = [a for x in rules if x != r for a in ("--compat-rule", x)]
        t_without[r] = timed.score(timed.run(["--preset", "accusim", *rest]))

    out = []
    w = out.append
    w("# belady and AccuSim: what `--compat accusim` changes\n")
    w("Generated by `scripts/accusim_departures.py` from runs over the shared AccuSim grid "
      "(`../shared/oracles/accusim`: 5 inputs, 8 schemes, prefetching off and on, "
      f"{len(grid.rows)} rows per table); do not edit by hand. "
      "`scripts/accusim_compare.py` prints the same comparison row by row.\n")
    w("AccuSim is the simulator behind the prefetching study (Butt, Gniady, Hu, SIGMETRICS 2005). Where its code "
      "departs from the paper's text, belady follows the text by default and AccuSim under `--compat accusim`. "
      "Each departure is a switch of its own: an engine rule (`--compat-rule NAME`, repeatable) or a policy "
      "parameter (`--param POLICY.KEY=VALUE`); `--compat accusim` turns on every rule and selects the `accusim` "
      "preset, which is the study's Table 4 parameters (`--preset study`) plus the parameters below.\n")
    w("Cells read `exact rows · Σ|Δ misses| · Σ|Δ disk requests|` against AccuSim over a scheme's "
      f"{base['paper'][schemes[0]]['rows']} untimed rows (a row is exact when hits, misses and synchronous and "
      "asynchronous requests and blocks all equal AccuSim's).\n")

    w("## The three modes\n")
    w("| mode | " + " | ".join(schemes) + " |")
    w("|---|" + "---|" * len(schemes))
    names = {"paper": "default (`--preset paper`)", "study": "study parameters (`--preset study`)",
             "compat": "`--compat accusim`"}
    for mode, s in base.items():
        w(f"| {names[mode]} | " + " | ".join(cell(s[k]) for k in schemes) + " |")
    w("")
    w(f"Without prefetching MQ gives LRU's counts on {mq_lru['compat'][0]} of {mq_lru['compat'][1]} rows under "
      f"`--compat accusim` ({mq_lru['study'][0]} with the study's parameters, {mq_lru['paper'][0]} by default): "
      "AccuSim's MQ raises a block's counter only when it is prefetched, so without read-ahead every block "
      "stays in queue 0 (`mq.count=prefetches`).\n")

    w("## Engine rules\n")
    w("Each rule left out of `--compat accusim` (everything else on): the cell shows how far the result then "
      "lands from AccuSim; a scheme that stays at all rows exact does not depend on the rule.\n")
    w("| rule | what it does | " + " | ".join(schemes) + " |")
    w("|---|---|" + "---|" * len(schemes))
    for r in rules:
        w(f"| `{r}` | {RULES[r]} | " + " | ".join(cell(without[r][k]) for k in schemes) + " |")
    w("")
    w("Each rule alone on top of the study's parameters: exact rows, then the change in Σ|Δ misses| "
      "(Σ|Δ disk requests|) from the study row of the first table; negative is closer to AccuSim. A rule can "
      "change which requests are synchronous without changing how many there are; the exact-row count shows "
      "that.\n")
    w("| rule | " + " | ".join(schemes) + " |")
    w("|---|" + "---|" * len(schemes))
    for r in rules:
        cells = []
        for k in schemes:
            dm = alone[r][k]["misses"] - base["study"][k]["misses"]
            dr = alone[r][k]["requests"] - base["study"][k]["requests"]
            cells.append(f"{alone[r][k]['exact']} · {dm:+} ({dr:+})")
        w(f"| `{r}` | " + " | ".join(cells) + " |")
    w("")
    w("Rules that change no untimed row act on timing: which request an access waits for, where blocks "
      "lie on the disk, and the clock. The same rules left out of `--compat accusim` in timed runs: rows "
      "exact · Σ|Δ misses| · Σ|Δ disk requests|; median and largest run-time error.\n")
    w("| rule | " + " | ".join(schemes) + " |")
    w("|---|" + "---|" * len(schemes))
    for r in rules:
        t = t_without[r]
        w(f"| `{r}` | " + " | ".join(
            f"{cell(t[k])}; {statistics.median(t[k]['exec']):.1%}, {max(t[k]['exec']):.1%}" for k in schemes) + " |")
    w("")

    w("## Policy parameters\n")
    w("The parameters whose `accusim` value differs from the study's. *Without*: `--compat accusim` with this "
      "one parameter back at the study's value (the scheme's cell as in the first table). *Alone*: the study's "
      "parameters with only this one set as AccuSim does, as the change in Σ|Δ misses| (Σ|Δ disk requests|) "
      "from the study row.\n")
    w("| parameter | study | accusim | what it is | without | alone |")
    w("|---|---|---|---|---|---|")
    for scheme, name, study, accusim, about in params:
        key = f"{REGISTRY[scheme]}.{name}"
        dm = p_alone[key]["misses"] - base["study"][scheme]["misses"]
        dr = p_alone[key]["requests"] - base["study"][scheme]["requests"]
        also = f" (with {', '.join(p_also[key])})" if p_also[key] else ""
        w(f"| `{key}` | `{study}` | `{accusim}` | {about}{also} | {cell(p_without[key])} | {dm:+} ({dr:+}) |")
    w("")

    w("## Timed runs\n")
    w("With `--disk cheetah9lp` (timed.tsv): rows exact · Σ|Δ misses| · Σ|Δ disk requests|, then the median "
      "and largest run-time error against AccuSim's DiskSim runs.\n")
    w("| mode | " + " | ".join(schemes) + " |")
    w("|---|" + "---|" * len(schemes))
    for mode, s in t_base.items():
        w(f"| {names[mode]} | " + " | ".join(
            f"{cell(s[k])}; {statistics.median(s[k]['exec']):.1%}, {max(s[k]['exec']):.1%}" for k in schemes) + " |")
    w("")
    w("Under `--compat accusim` the untimed rows all match; the timed counts can differ only where the disk "
      "model's service times decide whether a prefetched block has arrived when the program reaches it. "
      "Without prefetching the counts are exact and the run-time error is the disk model's alone; "
      "docs/disk.md (\"Against AccuSim's runs\") shows which of the model's DiskSim rules account for it.\n")
    w("## Where the code lives\n")
    w("The engine rules and AccuSim's variants of the papers' policies live in "
      "`crates/belady-core/src/compat/accusim/`. `mod.rs` names the rules (`Departures`, what `--compat-rule` "
      "takes); `rules.rs` (`Rules`) holds their formulas and the state only they need, and the file engine "
      "(`engine/file/`) asks it each question instead of branching on the rules itself. `arc.rs` (`AccusimArc`: "
      "`arc.replace=accusim`, `arc.first_use=stay`, `arc.ghost_prefetch=unmarked`, `arc.directory=accusim`) and "
      "`lrfu.rs` (`AccusimLrfu`: `lrfu.heap=accusim` with `lrfu.threshold` and `lrfu.float`), `lruk.rs` "
      "(`AccusimLruK`: `lru-k.ties=heap`, `lru-k.ineligible=entry`, `lru-k.first_use=correlated`, "
      "`lru-k.prefetch_time=trigger`), `mq.rs` (`AccusimMq`: `mq.count=prefetches`, `mq.clock=before-access`, "
      "`mq.adjust_on_prefetch=true`), `lirs.rs` (`AccusimLirs`: `lirs.unused_prefetch_entry=keep`) and `opt.rs` "
      "(`AccusimOpt`: `opt.ties=heap`) are AccuSim's ARC, LRFU, LRU-K, MQ, LIRS and OPT; `cache/builder.rs` builds one of them instead of the paper's policy "
      "when the parameters ask for it (the `accusim` preset does), and the paper's types refuse those values. "
      "`policy/` does not import `compat/`. AccuSim's values of the other parameters above ("
      "`lrfu.prefetch_time`, `arc.p0`, `arc.delta`, `lirs.warmup`, `mq.ghost_lookup` and the study's values) "
      "are still parameters of the papers' policies in `policy/`." + "\n")
    w(f"({grid.runs + timed.runs} belady runs.)\n")

    text = "\n".join(out)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        pathlib.Path(args.output).write_text(text)
        print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
