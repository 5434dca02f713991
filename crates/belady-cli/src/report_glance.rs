//! What a report section opens with, so it can be read at a glance (issue 39): the settings that
//! differ from the defaults, a ranked table of policies × sizes per read-ahead setting (the best
//! value of each column marked, every tied one), and which few policies the charts highlight.

use crate::report::{esc, OPT};
use crate::report_data::{self, Point, Section};
use belady_core::run::metrics::{Better, Metric};
use belady_core::run::rows::{CacheCapacity, CapacityUnit};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The policies that are the baselines: highlighted in every chart, in palette slots 0 and 1.
const BASELINES: [&str; 2] = ["lru", "fifo"];
/// Up to this many policies (OPT aside) are all highlighted; with more, only those that matter.
const ALL: usize = 6;
/// How many policies a chart highlights at most (the palette's colours): the named ones and the
/// baselines first, then the winners with the most wins; policies never in one chart may share a
/// colour.
const MOST: usize = 12;
/// A size where more policies than this tie for the best value makes none of them a winner to
/// highlight (a line for each would hide the point); the ranked table still marks them all.
const TIES: usize = 3;

/// Setting fields the settings line never shows: the heading names the disk, the axes the
/// capacity's unit; the trace's hash and belady's version are in "all settings".
const NOT_SHOWN: &[&str] = &["disk", "capacity_unit", "trace_hash", "belady_version"];

/// Whether two shown values are equal (relative to their size).
fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// The section's settings: the line under its heading (the trace and what differs from the
/// defaults) and every field (for its "all settings" element).
pub fn settings(section: &Section) -> (String, String) {
    let defaults = report_data::default_setting();
    let is_default =
        |k: &str, v: &str| v.is_empty() || v == "-" || defaults.get(k).is_some_and(|d| d == v);
    let mut short = vec![format!("trace {}", section.trace)];
    short.extend(
        section
            .setting
            .iter()
            .filter(|(k, v)| !NOT_SHOWN.contains(&k.as_str()) && !is_default(k, v))
            .map(|(k, v)| format!("{k} {v}")),
    );
    let mut all = vec![format!("trace {}", section.trace)];
    all.extend(
        section
            .setting
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| format!("{k} {v}")),
    );
    (short.join(" · "), all.join(" · "))
}

/// The cache sizes every ranked policy (OPT left out) of `points` ran.
pub fn common_sizes(points: &[Point]) -> BTreeSet<u64> {
    let mut sizes_of: BTreeMap<&str, BTreeSet<u64>> = BTreeMap::new();
    for p in points.iter().filter(|p| p.policy != OPT) {
        sizes_of.entry(&p.series).or_default().insert(p.size());
    }
    sizes_of
        .into_values()
        .reduce(|a, b| a.intersection(&b).copied().collect())
        .unwrap_or_default()
}

/// The ranked metrics of `points`: those the report draws that have a better direction and that
/// some run has, in the registry's order (the hit ratio first: the ranking's key).
pub fn ranked_metrics(points: &[Point]) -> Vec<&'static Metric> {
    report_data::metrics()
        .filter(|m| m.better != Better::Neither)
        .filter(|m| points.iter().any(|p| p.value(m).is_some()))
        .collect()
}

/// The best value of `metric` among `values` (policy, value), and the policies that have it.
fn best<'a>(metric: &Metric, values: &[(&'a str, f64)]) -> Option<(f64, Vec<&'a str>)> {
    let pick = values
        .iter()
        .map(|v| v.1)
        .reduce(|a, b| match metric.better {
            Better::Lower => a.min(b),
            _ => a.max(b),
        })?;
    let names = values
        .iter()
        .filter(|v| same(v.1, pick))
        .map(|v| v.0)
        .collect();
    Some((pick, names))
}

/// Per cache size, the best value of `metric` among the ranked policies (OPT left out) and
/// the policies that have it.
fn best_per_size<'a>(metric: &Metric, points: &'a [Point]) -> BTreeMap<u64, (f64, Vec<&'a str>)> {
    let mut at: BTreeMap<u64, Vec<(&str, f64)>> = BTreeMap::new();
    for p in points.iter().filter(|p| p.policy != OPT) {
        if let Some(v) = p.value(metric) {
            at.entry(p.size()).or_default().push((&p.series, v));
        }
    }
    at.into_iter()
        .filter_map(|(size, values)| Some((size, best(metric, &values)?)))
        .collect()
}

/// The policies best at some size by `metric` among `points` (OPT left out), unless more than
/// `TIES` tie there; with how many sizes each wins.
fn winners<'a>(metric: &Metric, points: &'a [Point]) -> BTreeMap<&'a str, usize> {
    let mut wins: BTreeMap<&str, usize> = BTreeMap::new();
    // The best by the mean over the sizes every policy ran (the summary's), which need not be
    // best at any one size.
    if let Some((names, _)) = crate::report::best(metric, points, &common_sizes(points)) {
        if names.len() <= TIES {
            for n in names {
                if let Some(p) = points.iter().find(|p| p.series == n) {
                    *wins.entry(p.series.as_str()).or_default() += 1;
                }
            }
        }
    }
    for (_, names) in best_per_size(metric, points).into_values() {
        if names.len() <= TIES {
            for n in names {
                *wins.entry(n).or_default() += 1;
            }
        }
    }
    wins
}

/// Which lines a section's charts highlight, and in which palette slot (the same in every chart
/// of the section, so a policy keeps its colour and marker).
pub struct Highlights {
    /// Every line that some chart highlights, with its slot.
    slots: BTreeMap<String, usize>,
    /// The lines every chart highlights: the baselines and those named.
    always: BTreeSet<String>,
    /// Winners left grey for want of colours.
    pub left_grey: Vec<String>,
}

impl Highlights {
    /// The highlighted lines of the chart of `metric` over `points`, with their slots: the
    /// baselines, the named policies, and those best at some size in this chart.
    pub fn of_chart(&self, metric: &Metric, points: &[Point]) -> BTreeMap<String, usize> {
        let wins = winners(metric, points);
        self.slots
            .iter()
            .filter(|(s, _)| self.always.contains(*s) || wins.contains_key(s.as_str()))
            .map(|(s, &i)| (s.clone(), i))
            .collect()
    }
}

/// The lines the section's charts highlight: LRU and FIFO in slots 0 and 1, then the policies
/// named by `--highlight` (every policy when there are at most `ALL`), then those best at some size by some ranked metric in some chart
/// (unless more than `TIES` tie there), most wins first; at most `MOST` in any one chart.
pub fn highlights(section: &Section, named: &[String]) -> Highlights {
    let points = || section.charts.iter().flat_map(|(_, p)| p.iter());
    let series: BTreeSet<(&str, &str)> = points()
        .filter(|p| p.policy != OPT)
        .map(|p| (p.series.as_str(), p.policy.as_str()))
        .collect();
    let mut slots: BTreeMap<String, usize> = BTreeMap::new();
    for (slot, baseline) in BASELINES.iter().enumerate() {
        // A baseline written one way (no settings) takes its slot; others of it are winners.
        if let Some((s, _)) = series.iter().find(|(s, p)| p == baseline && s == p) {
            slots.insert(s.to_string(), slot);
        }
    }
    // With few policies every one matters.
    let everyone = series.len() <= ALL;
    let named: Vec<String> = series
        .iter()
        .filter(|(s, p)| everyone || named.iter().any(|n| n == s || n == p))
        .map(|(s, _)| s.to_string())
        .collect();
    let mut always: BTreeSet<String> = slots.keys().cloned().collect();
    always.extend(named.iter().cloned());
    // Each chart's highlighted lines, and every winner's wins over the section.
    let mut charts: Vec<BTreeSet<&str>> = Vec::new();
    let mut wins: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, points) in &section.charts {
        for metric in ranked_metrics(points) {
            let mine = winners(metric, points);
            for (&n, &w) in &mine {
                *wins.entry(n).or_default() += w;
            }
            let mut lines: BTreeSet<&str> = mine.into_keys().collect();
            lines.extend(always.iter().map(String::as_str));
            charts.push(lines);
        }
    }
    let mut by_wins: Vec<(&str, usize)> = wins.into_iter().collect();
    by_wins.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    // Each line keeps one slot (colour and marker) in the whole section, and no chart shows two
    // lines alike.
    let mut left_grey = Vec::new();
    for s in named
        .into_iter()
        .chain(by_wins.iter().map(|w| w.0.to_string()))
    {
        if slots.contains_key(&s) {
            continue;
        }
        let taken: BTreeSet<usize> = slots
            .iter()
            .filter(|(other, _)| {
                charts
                    .iter()
                    .any(|c| c.contains(s.as_str()) && c.contains(other.as_str()))
                    || always.contains(*other)
                    || always.contains(&s)
            })
            .map(|(_, &i)| i)
            .collect();
        // A slot no line has yet, while there is one (so a policy looks the same in every chart
        // of the section); past twelve, one no line of its charts has.
        let used: BTreeSet<usize> = slots.values().copied().collect();
        let free = |i: &usize| !taken.contains(i);
        match (BASELINES.len()..MOST)
            .find(|i| free(i) && !used.contains(i))
            .or_else(|| (BASELINES.len()..MOST).find(free))
        {
            Some(i) => {
                slots.insert(s, i);
            }
            None => left_grey.push(s),
        }
    }
    Highlights {
        slots,
        always,
        left_grey,
    }
}

/// How the ranked tables rank and mark, said once per section above them.
pub fn rule(section: &Section) -> String {
    let points: Vec<Point> = section
        .charts
        .iter()
        .flat_map(|(_, p)| p.iter().cloned())
        .collect();
    let Some(key) = ranked_metrics(&points).first().copied() else {
        return String::new();
    };
    let order = match key.better {
        Better::Lower => "lowest first",
        _ => "highest first",
    };
    format!(
        "Policies are ranked by their mean {} over the cache sizes every policy ran ({order}); \
         equal means share a rank. In each column ★ and bold mark the best value (every policy \
         tied for it); the shading runs from white (the column's worst) to green (its best). \
         OPT, the offline optimum, needs the future: it is the reference row, not ranked.",
        key.name
    )
}

/// The ranked table of one read-ahead setting: one row per policy (OPT first, as the
/// reference), one column per ranked metric and size, the best of each column marked.
pub fn ranked_table(prefetch: &str, points: &[Point], untimed: bool) -> String {
    let metrics = ranked_metrics(points);
    let Some(&key) = metrics.first() else {
        return String::new();
    };
    let mut sizes: Vec<&CacheCapacity> = points.iter().map(|p| &p.capacity).collect();
    sizes.sort_by_key(|c| c.sort_key());
    sizes.dedup_by_key(|c| c.sort_key());
    // series -> size -> point
    let mut rows: BTreeMap<&str, BTreeMap<u64, &Point>> = BTreeMap::new();
    for p in points {
        rows.entry(&p.series).or_default().insert(p.size(), p);
    }
    let ranked: Vec<&str> = rows
        .keys()
        .copied()
        .filter(|s| rows[s].values().all(|p| p.policy != OPT))
        .collect();
    let common = common_sizes(points);
    let mean = |s: &str| -> Option<f64> {
        let v: Vec<f64> = common
            .iter()
            .filter_map(|size| rows[s].get(size)?.value(key))
            .collect();
        mean_of(&v, common.len())
    };
    let mut order: Vec<(&str, Option<f64>)> = ranked.iter().map(|s| (*s, mean(s))).collect();
    order.sort_by(|a, b| {
        let by = match (a.1, b.1) {
            (Some(x), Some(y)) if key.better == Better::Lower => x.total_cmp(&y),
            (Some(x), Some(y)) => y.total_cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        by.then(a.0.cmp(b.0))
    });
    let bests: Vec<BTreeMap<u64, (f64, Vec<&str>)>> =
        metrics.iter().map(|m| best_per_size(m, points)).collect();
    // Each column's worst value, for the shading.
    let worst = |m: &Metric, size: u64| -> Option<f64> {
        let values = ranked.iter().filter_map(|s| rows[s].get(&size)?.value(m));
        match m.better {
            Better::Lower => values.reduce(f64::max),
            _ => values.reduce(f64::min),
        }
    };
    // Sizes by their number under each metric, the unit said once (a byte capacity by its size).
    let unit = sizes.first().map_or(CapacityUnit::Blocks, |c| c.unit);
    let size_label = |c: &CacheCapacity| match c.unit {
        CapacityUnit::Bytes => c.label(),
        _ => c.amount.to_string(),
    };
    let mut t = format!(
        "<table class=\"glance\"><caption>Ranked — read-ahead: {}{} (cache sizes in {})</caption><tr>\
         <th rowspan=\"2\">rank</th><th rowspan=\"2\">policy</th>\
         <th rowspan=\"2\">mean<br>{}</th>",
        esc(prefetch),
        if untimed { " (untimed)" } else { "" },
        unit.name(),
        esc(&key.label())
    );
    for m in &metrics {
        let _ = write!(
            t,
            "<th colspan=\"{}\">{}</th>",
            sizes.len(),
            esc(&m.label())
        );
    }
    t.push_str("</tr><tr>");
    for _ in &metrics {
        for s in &sizes {
            let _ = write!(t, "<th>{}</th>", esc(&size_label(s)));
        }
    }
    t.push_str("</tr>");
    let cells = |t: &mut String, series: &str, reference: bool| {
        for (m, best) in metrics.iter().zip(&bests) {
            for s in &sizes {
                let Some(v) = rows[series].get(&s.amount).and_then(|p| p.value(m)) else {
                    t.push_str("<td></td>");
                    continue;
                };
                let shown = m.format(v);
                match best.get(&s.amount) {
                    Some((b, names)) if !reference => {
                        let low = worst(m, s.amount).unwrap_or(*b);
                        let share = if same(*b, low) {
                            1.0
                        } else {
                            ((v - low) / (b - low)).clamp(0.0, 1.0)
                        };
                        let shade = |full: f64| (255.0 - (255.0 - full) * share).round() as u8;
                        let bg = format!(
                            "#{:02x}{:02x}{:02x}",
                            shade(150.0),
                            shade(215.0),
                            shade(160.0)
                        );
                        if names.contains(&series) {
                            let _ = write!(
                                t,
                                "<td class=\"best\" style=\"background:{bg}\">★ {shown}</td>"
                            );
                        } else {
                            let _ = write!(t, "<td style=\"background:{bg}\">{shown}</td>");
                        }
                    }
                    _ => {
                        let _ = write!(t, "<td>{shown}</td>");
                    }
                }
            }
        }
    };
    for series in rows.keys().filter(|s| !ranked.contains(s)) {
        let _ = write!(
            t,
            "<tr class=\"reference\"><td></td><td>{} (reference)</td><td>{}</td>",
            esc(series),
            mean(series).map_or(String::new(), |v| key.format(v))
        );
        cells(&mut t, series, true);
        t.push_str("</tr>");
    }
    // Means equal as shown share a rank, so the ranks agree with the column beside them.
    let mut rank = 0;
    let mut previous: Option<String> = None;
    for (i, (series, m)) in order.iter().enumerate() {
        let shown = m.map(|v| key.format(v));
        if shown.is_none() || shown != previous {
            rank = i + 1;
        }
        previous = shown;
        let _ = write!(
            t,
            "<tr><td>{}</td><td>{}</td><td>{}</td>",
            if m.is_some() {
                rank.to_string()
            } else {
                "-".into()
            },
            esc(series),
            m.map_or(String::new(), |v| key.format(v))
        );
        cells(&mut t, series, false);
        t.push_str("</tr>");
    }
    t.push_str("</table>\n");
    t
}

/// The mean of `values` when they are all `n` of a row's values (else none: a size is missing).
fn mean_of(values: &[f64], n: usize) -> Option<f64> {
    (!values.is_empty() && values.len() == n).then(|| values.iter().sum::<f64>() / n as f64)
}
