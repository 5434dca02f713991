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

/// A policy (or tied policies) as shown, with its mean hit ratio in %.
type Named = (String, f64);

/// Best and worst non-OPT policy by mean hit ratio, and OPT's. A policy tied with others is
/// named first alphabetically, followed by how many share its value ("2q +4 tied").
fn extremes(runs: &[Run]) -> Option<(Named, Named, Option<f64>)> {
    let pol = by_policy(runs);
    let ranked: Vec<(&str, f64)> = pol
        .iter()
        .filter(|(p, _)| **p != OPT)
        .map(|(p, (m, _))| (*p, *m))
        .collect();
    let top = ranked.iter().map(|r| r.1).reduce(f64::max)?;
    let bottom = ranked.iter().map(|r| r.1).reduce(f64::min)?;
    let named = |v: f64| {
        // `ranked` is in name order, so the first match is the first name alphabetically.
        let tied: Vec<&str> = ranked.iter().filter(|r| r.1 == v).map(|r| r.0).collect();
        match tied.len() {
            1 => tied[0].to_string(),
            n => format!("{} +{} tied", tied[0], n - 1),
        }
    };
    Some((
        (named(top), top),
        (named(bottom), bottom),
        pol.get(OPT).map(|(m, _)| *m),
    ))
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
         means over the sizes;\nOPT (the offline optimum, which knows the future) is the ceiling \
         and is not ranked.\n",
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
            if let Some(((b, bv), (w, wv), opt)) = extremes(runs) {
                let opt = opt.map_or_else(String::new, |o| format!("   OPT {o:.2}%"));
                out.push_str(&format!(
                    "  {what:<14} best {b:<13} {bv:>6.2}%   worst {w:<13} {wv:>6.2}%{opt}\n"
                ));
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
                    worst_lru_gap = Some((name.clone(), *lru, *opt, b, bv));
                }
            }
        }
        let ra_pol = by_policy(ra);
        if let Some((lru, lru_runs)) = ra_pol.get("lru") {
            for (p, (m, rs)) in &ra_pol {
                let gap = lru - m;
                if *p == OPT || gap < SURPRISE_POINTS {
                    continue;
                }
                if !matches!(&surprise, Some(s) if gap <= s.3 - s.2) {
                    let share = |rs: &[&Run]| {
                        let pre: f64 = rs.iter().map(|r| r.prefetched).sum();
                        let unused: f64 = rs.iter().map(|r| r.unused_evicted).sum();
                        if pre > 0.0 {
                            100.0 * unused / pre
                        } else {
                            0.0
                        }
                    };
                    surprise = Some((
                        format!("{p} with linux24 on {name}"),
                        p.to_string(),
                        *m,
                        *lru,
                        share(rs),
                        share(lru_runs),
                    ));
                }
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
             demo` explains why.\n"
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
