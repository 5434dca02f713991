//! What `belady demo` prints by default: a short summary computed from the demo's store (per
//! workload the best and worst policy with and without read-ahead, what read-ahead changed, LRU's
//! failure modes, the most surprising result with its evidence), and the legend that goes with
//! the full tables of `--verbose`.
//!
//! Results are read by their JSON keys (`hit_ratio`, `disk_requests`, `exec_time_s`, ...),
//! wherever they sit in a run's result, so a change to how the result nests them is harmless.

use belady_core::sweep::store::StoredRun;
use serde_json::Value;
use std::collections::BTreeMap;

/// The offline optimum: the ceiling, never ranked.
const OPT: &str = "opt";
/// Shortfall against LRU (percentage points of hit ratio) from which a result is called surprising.
const SURPRISE_POINTS: f64 = 10.0;

/// Every column of the demo's tables, for `--verbose`.
pub const LEGEND: &str = "\
Columns:
  policy         replacement policy (`belady policies` describes each)
  cache_blocks   cache size in blocks (the demo sizes caches as shares of the unique blocks)
  requests       block references in the trace
  hits, misses   references found in the cache / not found
  hit_ratio_%    hits / requests; a block read ahead and then referenced counts as a hit
  disk_requests  requests sent to the disk; read-ahead clusters neighbouring blocks into one
  sync_req/blk   synchronous requests / their blocks: the program waits for these
  async_req/blk  asynchronous (read-ahead only) requests / their blocks: issued in the background
  late           references to a block whose read-ahead was issued but not finished (they wait)
  exec_s         simulated run time: computation between requests plus waiting for the disk
  io_wait_s      the part of exec_s spent waiting for the disk
  disk_cache_hits  disk reads the drive served from its own read cache (no seek, no rotation)
  bytes_requested  bytes the references ask for (blocks x block size in the blocks model)
  byte_misses    bytes of the references not found in the cache
  byte_miss_%    byte_misses / bytes_requested
";

/// A number from a run's result by key, at the top level or one object down (the I/O counters).
pub fn num(result: &Value, key: &str) -> Option<f64> {
    if let Some(v) = result.get(key).and_then(Value::as_f64) {
        return Some(v);
    }
    result
        .as_object()?
        .values()
        .filter(|v| v.is_object())
        .find_map(|v| v.get(key).and_then(Value::as_f64))
}

/// One run, as the summary needs it.
struct Run {
    policy: String,
    cache_blocks: u64,
    hit: f64,
    disk_requests: f64,
    exec_s: f64,
    prefetched: f64,
    unused_evicted: f64,
}

/// Per policy: the mean hit ratio (%) over its runs, and its runs.
fn by_policy(runs: &[Run]) -> BTreeMap<&str, (f64, Vec<&Run>)> {
    let mut out: BTreeMap<&str, (f64, Vec<&Run>)> = BTreeMap::new();
    for r in runs {
        out.entry(&r.policy).or_default().1.push(r);
    }
    for (mean, rs) in out.values_mut() {
        *mean = 100.0 * rs.iter().map(|r| r.hit).sum::<f64>() / rs.len() as f64;
    }
    out
}

/// The policies sharing one mean hit ratio (%), in name order.
type Named = (Vec<String>, f64);

/// At most this many tied names fit in the best / worst column; more are listed on a line of their own.
const NAMES_IN_COLUMN: usize = 2;

/// Best and worst non-OPT policies by mean hit ratio (every policy tied at that value), and OPT's.
fn extremes(runs: &[Run]) -> Option<(Named, Named, Option<f64>)> {
    let pol = by_policy(runs);
    let ranked: Vec<(&str, f64)> = pol
        .iter()
        .filter(|(p, _)| **p != OPT)
        .map(|(p, (m, _))| (*p, *m))
        .collect();
    let top = ranked.iter().map(|r| r.1).reduce(f64::max)?;
    let bottom = ranked.iter().map(|r| r.1).reduce(f64::min)?;
    // `ranked` is in name order, so the tied names are too.
    let named = |v: f64| -> Named {
        let tied = ranked.iter().filter(|r| r.1 == v).map(|r| r.0.to_string());
        (tied.collect(), v)
    };
    Some((named(top), named(bottom), pol.get(OPT).map(|(m, _)| *m)))
}

/// A best / worst column: the policy, the tied policies ("clock-pro, lirs (tied)") or, when
/// more are tied than fit, their number ("17 tied"), named in full by `tie_line`.
fn column(names: &[String]) -> String {
    match names.len() {
        1 => names[0].clone(),
        n if n <= NAMES_IN_COLUMN => format!("{} (tied)", names.join(", ")),
        n => format!("{n} tied"),
    }
}

/// The line naming every member of a tie too large for its column (`what` is "best" or
/// "worst"), wrapped at about 100 characters; empty when the column named them.
fn tie_line(what: &str, (names, value): &Named) -> String {
    if names.len() <= NAMES_IN_COLUMN {
        return String::new();
    }
    let mut out = format!("    {what}, {} tied at {value:.2}%:", names.len());
    let mut width = out.len();
    for (i, name) in names.iter().enumerate() {
        let piece = format!(" {name}{}", if i + 1 < names.len() { "," } else { "" });
        if width + piece.len() > 100 {
            out.push_str("\n     ");
            width = 5;
        }
        width += piece.len();
        out.push_str(&piece);
    }
    out.push('\n');
    out
}

/// A run that beats OPT at its size: (policy, cache blocks, its value, OPT's value).
type Beaten = (String, u64, f64, f64);

/// Where a policy beats OPT with read-ahead: the largest hit-ratio lead over OPT at one size,
/// as (policy, cache blocks, its hit ratio %, OPT's %), and the same for disk requests (fewer
/// than OPT's), as (policy, cache blocks, its requests, OPT's).
fn beats_opt(runs: &[Run]) -> (Option<Beaten>, Option<Beaten>) {
    let mut hit: Option<Beaten> = None;
    let mut disk: Option<Beaten> = None;
    for opt in runs.iter().filter(|r| r.policy == OPT) {
        for r in runs
            .iter()
            .filter(|r| r.policy != OPT && r.cache_blocks == opt.cache_blocks)
        {
            let lead = r.hit - opt.hit;
            if lead > 0.0 && hit.as_ref().map_or(true, |h| lead > (h.2 - h.3) / 100.0) {
                hit = Some((
                    r.policy.clone(),
                    r.cache_blocks,
                    100.0 * r.hit,
                    100.0 * opt.hit,
                ));
            }
            let saved = opt.disk_requests - r.disk_requests;
            if saved > 0.0 && disk.as_ref().map_or(true, |d| saved > d.3 - d.2) {
                disk = Some((
                    r.policy.clone(),
                    r.cache_blocks,
                    r.disk_requests,
                    opt.disk_requests,
                ));
            }
        }
    }
    (hit, disk)
}

/// The share (%) of the blocks `runs` read ahead that were evicted before any use.
fn unused_share(runs: &[&Run]) -> f64 {
    let pre: f64 = runs.iter().map(|r| r.prefetched).sum();
    let unused: f64 = runs.iter().map(|r| r.unused_evicted).sum();
    if pre > 0.0 {
        100.0 * unused / pre
    } else {
        0.0
    }
}

fn change(before: f64, after: f64) -> String {
    if before == 0.0 {
        return "n/a".into();
    }
    format!("{:+.1}%", 100.0 * (after - before) / before)
}

/// The summary: `traces` are (label, name, unique blocks) in the demo's order; `runs` is the store.
pub fn summary(
    traces: &[(String, String, usize)],
    runs: &[StoredRun],
    sizes: usize,
    report: &str,
) -> String {
    let mut grid: BTreeMap<(&str, &str), Vec<Run>> = BTreeMap::new();
    let mut policies = std::collections::BTreeSet::new();
    for r in runs {
        let result = serde_json::to_value(&r.result).unwrap_or(Value::Null);
        let run = Run {
            policy: r.result.policy.clone(),
            cache_blocks: r.result.capacity.amount,
            hit: num(&result, "hit_ratio").unwrap_or(0.0),
            disk_requests: num(&result, "disk_requests").unwrap_or(0.0),
            exec_s: num(&result, "exec_time_s").unwrap_or(0.0),
            prefetched: num(&result, "prefetched_blocks").unwrap_or(0.0),
            unused_evicted: num(&result, "prefetch_unused_evicted").unwrap_or(0.0),
        };
        policies.insert(run.policy.clone());
        grid.entry((r.config.trace.as_str(), r.config.run.the_prefetch()))
            .or_default()
            .push(run);
    }
    let mut out = format!(
        "belady demo: {} policies x {} cache sizes x {} workloads, without and with Linux 2.4 \
         read-ahead (linux24),\non a simulated Seagate Cheetah 9LP disk: {} runs. Hit ratios are \
         means over the sizes.\nOPT (the offline optimum, which knows the future) is not ranked. \
         Without read-ahead it is the ceiling on\nhit ratio. With read-ahead it is not: it keeps \
         the blocks used soonest whatever that does to\nread-ahead, so another policy can hit \
         more or need fewer disk requests (the prefetching study,\nsection 3: Belady's \
         algorithm is not optimal in disk requests once the kernel prefetches).\n",
        policies.len(),
        sizes,
        traces.len(),
        runs.len()
    );
    let empty = Vec::new();
    let mut worst_lru_gap: Option<(String, f64, f64, String, f64)> = None;
    let mut surprise: Option<(String, String, f64, f64, f64, f64)> = None;
    for (label, name, unique) in traces {
        let plain = grid.get(&(label.as_str(), "none")).unwrap_or(&empty);
        let ra = grid.get(&(label.as_str(), "linux24")).unwrap_or(&empty);
        out.push_str(&format!("\n{name} ({unique} unique blocks)\n"));
        for (what, runs) in [("no read-ahead", plain), ("linux24", ra)] {
            if let Some((best, worst, opt)) = extremes(runs) {
                let opt = opt.map_or_else(String::new, |o| format!("   OPT {o:.2}%"));
                out.push_str(&format!(
                    "  {what:<14} best {:<22} {:>6.2}%   worst {:<22} {:>6.2}%{opt}\n",
                    column(&best.0),
                    best.1,
                    column(&worst.0),
                    worst.1
                ));
                out.push_str(&tie_line("best", &best));
                out.push_str(&tie_line("worst", &worst));
            }
            // OPT's place, as this workload's own numbers show it.
            match (what, beats_opt(runs)) {
                ("no read-ahead", (Some((p, c, h, o)), _)) => out.push_str(&format!(
                    "    (unexpected: at {c} blocks {p} hits {h:.2}% against OPT's {o:.2}%)\n"
                )),
                ("linux24", (hit, disk)) if hit.is_some() || disk.is_some() => {
                    out.push_str("    OPT is not the ceiling with read-ahead:");
                    if let Some((p, c, h, o)) = &hit {
                        out.push_str(&format!(" at {c} blocks {p} hits {h:.2}% (OPT {o:.2}%)"));
                    }
                    if let Some((p, c, d, o)) = &disk {
                        out.push_str(&format!(
                            "{} at {c} blocks {p} needs {d:.0} disk requests (OPT {o:.0})",
                            if hit.is_some() { ";\n     " } else { "" }
                        ));
                    }
                    out.push('\n');
                }
                _ => {}
            }
        }
        let total = |runs: &[Run], f: fn(&Run) -> f64| runs.iter().map(f).sum::<f64>();
        let (d0, d1) = (
            total(plain, |r| r.disk_requests),
            total(ra, |r| r.disk_requests),
        );
        let (t0, t1) = (total(plain, |r| r.exec_s), total(ra, |r| r.exec_s));
        out.push_str(&format!(
            "  read-ahead changed (all runs): disk requests {d0:.0} -> {d1:.0} ({}), run time \
             {t0:.1} s -> {t1:.1} s ({})\n",
            change(d0, d1),
            change(t0, t1)
        ));
        let plain_pol = by_policy(plain);
        if let (Some((lru, _)), Some((opt, _))) = (plain_pol.get("lru"), plain_pol.get(OPT)) {
            if let Some(((b, bv), _, _)) = extremes(plain) {
                if !matches!(&worst_lru_gap, Some(g) if opt - lru <= g.2 - g.1) {
                    worst_lru_gap = Some((name.clone(), *lru, *opt, b.join(", "), bv));
                }
            }
        }
        let ra_pol = by_policy(ra);
        if let Some((lru, lru_runs)) = ra_pol.get("lru") {
            // Every policy far below LRU under read-ahead, lowest first, with the evidence.
            let mut below: Vec<(&str, f64, f64)> = Vec::new();
            for (p, (m, rs)) in &ra_pol {
                let gap = lru - m;
                if *p == OPT || gap < SURPRISE_POINTS {
                    continue;
                }
                below.push((p, *m, unused_share(rs)));
                if !matches!(&surprise, Some(s) if gap <= s.3 - s.2) {
                    surprise = Some((
                        format!("{p} with linux24 on {name}"),
                        p.to_string(),
                        *m,
                        *lru,
                        unused_share(rs),
                        unused_share(lru_runs),
                    ));
                }
            }
            below.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(b.0)));
            if !below.is_empty() {
                let list: Vec<String> = below
                    .iter()
                    .map(|(p, m, share)| format!("{p} {m:.2}% ({share:.0}%)"))
                    .collect();
                out.push_str(&format!(
                    "  {SURPRISE_POINTS:.0}+ points below LRU with linux24 (in brackets: read-ahead \
                     evicted unused):\n    {}; LRU {lru:.2}% ({:.0}%)\n",
                    list.join(", "),
                    unused_share(lru_runs)
                ));
            }
        }
    }
    out.push('\n');
    if let Some((name, lru, opt, best, best_hit)) = worst_lru_gap {
        out.push_str(&format!(
            "LRU's failure modes (loops longer than the cache; scans that push out reused blocks):\n  \
             without read-ahead on {name} LRU hits {lru:.2}% against {best_hit:.2}% for {best} \
             and {opt:.2}% for OPT;\n  `belady demo lru-failures` shows each mode and which \
             policies fix it.\n"
        ));
    }
    if let Some((what, p, hit, lru, share, lru_share)) = surprise {
        out.push_str(&format!(
            "Surprise: {what} hits {hit:.2}% against {lru:.2}% for LRU: {share:.0}% of the blocks \
             {p} read ahead\n  were evicted before any use (LRU: {lru_share:.0}%); `belady help \
             demo` explains why (LRU-K, LIRS, CLOCK-Pro).\n"
        ));
    }
    out.push_str(&format!(
        "Full tables with a legend of every column: belady demo --verbose\nReport: {report}\n"
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(policy: &str, cache_blocks: u64, hit: f64, disk_requests: f64) -> Run {
        Run {
            policy: policy.into(),
            cache_blocks,
            hit,
            disk_requests,
            exec_s: 0.0,
            prefetched: 0.0,
            unused_evicted: 0.0,
        }
    }

    #[test]
    fn ties_name_every_member() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(column(&names(&["lru"])), "lru");
        assert_eq!(
            column(&names(&["clock-pro", "lirs"])),
            "clock-pro, lirs (tied)"
        );
        let many = names(&["2q", "arc", "car"]);
        assert_eq!(column(&many), "3 tied");
        assert_eq!(
            tie_line("worst", &(many, 0.0)),
            "    worst, 3 tied at 0.00%: 2q, arc, car\n"
        );
        assert_eq!(tie_line("best", &(names(&["a", "b"]), 1.0)), "");
        // A long tie wraps, and every name is still there once.
        let long: Vec<String> = (0..30).map(|i| format!("policy{i}")).collect();
        let line = tie_line("best", &(long.clone(), 70.71));
        assert!(
            line.lines().count() > 1 && line.lines().all(|l| l.len() <= 100),
            "{line}"
        );
        let listed: Vec<&str> = line
            .split(':')
            .nth(1)
            .unwrap()
            .split(',')
            .map(str::trim)
            .collect();
        assert_eq!(listed, long);
        // The extremes carry every tied name.
        let runs = [
            run("lru", 1, 0.5, 0.0),
            run("arc", 1, 0.5, 0.0),
            run("fifo", 1, 0.1, 0.0),
        ];
        let (best, worst, opt) = extremes(&runs).unwrap();
        assert_eq!(best.0, names(&["arc", "lru"]));
        assert_eq!(worst.0, names(&["fifo"]));
        assert_eq!(opt, None);
    }

    #[test]
    fn opt_is_beaten_only_where_a_run_says_so() {
        let runs = [
            run("opt", 10, 0.70, 100.0),
            run("lru", 10, 0.71, 101.0),
            run("opt", 20, 0.80, 90.0),
            run("arc", 20, 0.75, 80.0),
        ];
        let (hit, disk) = beats_opt(&runs);
        let (p, c, h, o) = hit.unwrap();
        assert_eq!((p.as_str(), c), ("lru", 10));
        assert!((h - 71.0).abs() < 1e-9 && (o - 70.0).abs() < 1e-9);
        assert_eq!(disk.unwrap(), ("arc".to_string(), 20, 80.0, 90.0));
        // OPT on top everywhere: nothing to report.
        let (hit, disk) = beats_opt(&runs[..1]);
        assert!(hit.is_none() && disk.is_none());
    }

    #[test]
    fn numbers_are_found_at_the_top_or_one_level_down() {
        let v =
            serde_json::json!({"hit_ratio": 0.5, "io": {"disk_requests": 7, "exec_time_s": null}});
        assert_eq!(num(&v, "hit_ratio"), Some(0.5));
        assert_eq!(num(&v, "disk_requests"), Some(7.0));
        assert_eq!(num(&v, "exec_time_s"), None);
        assert_eq!(num(&v, "absent"), None);
    }
}
