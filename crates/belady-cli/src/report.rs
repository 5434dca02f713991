//! `belady report`: one self-contained HTML page (charts inline as SVG, no scripts, no network)
//! from a results store, in the shape of the prefetching study's Figures 3–6: hit ratio, disk
//! requests and execution time against cache size, one line per policy, one chart per read-ahead
//! setting; each chart is also written as an SVG file, and each figure has its table. A summary
//! table at the top names the best policy per trace and setting.
//!
//! Runs are grouped by every configuration field (`report_data`), so two runs that differ in
//! anything (a changed trace file, another preset) never share a line or a cell.

use crate::report_chart::{self, Line};
use crate::report_data::{self, Point, Section};
use anyhow::{bail, Context, Result};
use belady_core::run::metrics::{metric, Better, Metric, Unit};
use belady_core::run::rows::{CacheCapacity, CapacityUnit};
use clap::Args;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct ReportArgs {
    /// Results store written by `belady sweep`.
    #[arg(long, default_value = crate::sweep::DEFAULT_STORE)]
    store: PathBuf,
    /// The HTML file to write.
    #[arg(long, short = 'o', default_value = "belady-report.html")]
    output: PathBuf,
    /// Directory for the charts as SVG files (default: next to the HTML, NAME-charts/).
    #[arg(long)]
    svg_dir: Option<PathBuf>,
    /// Only these policies (comma-separated names, e.g. `lru,arc,lirs`) in the charts, tables and
    /// summary; OPT is drawn as the reference line whenever the store has it.
    #[arg(long, value_delimiter = ',')]
    policies: Vec<String>,
}

/// The offline optimum: the reference line, never "best".
const OPT: &str = "opt";

/// What an untimed run with read-ahead assumes, said wherever such runs are shown.
const UNTIMED: &str = "untimed: no disk model, so read-ahead completes at once: every block \
                       read ahead is ready in time and no reference waits for one (time the runs \
                       with a disk model to see the waits)";

/// Whether the runs of a read-ahead setting are untimed with read-ahead on (see `UNTIMED`).
fn untimed(prefetch: &str, points: &[Point]) -> bool {
    prefetch != "none" && !points.is_empty() && points.iter().all(|p| !p.timed)
}

/// `belady report`.
pub fn run(args: ReportArgs) -> Result<()> {
    belady_core::outfile::refuse_overwrite(&args.output, &[&args.store])?;
    let charts = write_report(
        &args.store,
        &args.output,
        args.svg_dir.as_deref(),
        &args.policies,
    )?;
    eprintln!("wrote {} ({} charts)", args.output.display(), charts);
    Ok(())
}

/// Writes the report of `store` to `output` (charts also as SVG files in `svg_dir`, by default
/// NAME-charts/ beside it), showing only `policies` when given; returns how many charts it drew.
pub fn write_report(
    store: &Path,
    output: &Path,
    svg_dir: Option<&Path>,
    policies: &[String],
) -> Result<usize> {
    let mut sections = report_data::load(store)?;
    let total: usize = sections
        .iter()
        .flat_map(|s| &s.charts)
        .map(|(_, p)| p.len())
        .sum();
    select(&mut sections, policies)?;
    // Every line's colour and marker, fixed for the whole report.
    let labels: BTreeSet<&str> = sections
        .iter()
        .flat_map(|s| &s.charts)
        .flat_map(|(_, p)| p.iter())
        .filter(|p| p.policy != OPT)
        .map(|p| p.series.as_str())
        .collect();
    let index: BTreeMap<String, usize> = labels
        .into_iter()
        .enumerate()
        .map(|(i, l)| (l.to_string(), i))
        .collect();
    let svg_dir = svg_dir.map(Path::to_path_buf).unwrap_or_else(|| {
        let stem = output
            .file_stem()
            .map_or("report".into(), |s| s.to_string_lossy().into_owned());
        output.with_file_name(format!("{stem}-charts"))
    });
    // The page's writer first: an output that cannot be written (a directory) is refused
    // before the charts' folder is made.
    let mut page = belady_core::outfile::OutFile::create(output)?;
    std::fs::create_dir_all(&svg_dir)
        .with_context(|| format!("cannot create {}", svg_dir.display()))?;

    let mut html = String::new();
    html.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>belady report</title><style>\
         body{font-family:sans-serif;margin:2em;color:#222}\
         figure{display:inline-block;margin:0 1em 1em 0}\
         table{border-collapse:collapse;margin:0 0 2em 0;font-size:90%}\
         td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}\
         th:first-child,td:first-child{text-align:left}\
         .setting{color:#555;font-size:85%}\
         table.summary td{text-align:left}\
         </style></head><body>\n",
    );
    let _ = writeln!(
        html,
        "<h1>belady report</h1><p>{} runs from <code>{}</code>; OPT (the offline optimum, \
         which needs the future) is the grey dashed reference line.</p>",
        total,
        esc(&store.display().to_string())
    );
    html.push_str(&summary(&sections));
    let mut charts = 0;
    for (n, section) in sections.iter().enumerate() {
        let _ = writeln!(
            html,
            "<h2 id=\"s{n}\">{} <small>({})</small></h2>\n<p class=\"setting\">{}</p>",
            esc(&section.name),
            esc(&section.qualifier()),
            esc(&details(section))
        );
        if section.charts.iter().any(|(p, points)| untimed(p, points)) {
            let _ = writeln!(
                html,
                "<p class=\"setting\"><strong>{}</strong></p>",
                esc(UNTIMED)
            );
        }
        let unit = section
            .charts
            .iter()
            .find_map(|(_, points)| points.first())
            .map_or(CapacityUnit::Blocks, |p| p.capacity.unit);
        for metric in report_data::metrics() {
            if !section
                .charts
                .iter()
                .flat_map(|(_, points)| points.iter())
                .any(|p| p.value(metric).is_some())
            {
                continue;
            }
            let _ = writeln!(html, "<h3>{}</h3><div>", metric.title());
            for (prefetch, points) in &section.charts {
                let title = format!("{} — read-ahead: {}", metric.title(), prefetch);
                let lines = lines(metric, points, &index);
                let percent = metric.unit == Unit::Ratio;
                let svg = report_chart::draw(&title, &metric.label(), &lines, percent, unit)?;
                let file = svg_dir.join(format!(
                    "{n:02}-{}-{}-{}.svg",
                    slug(&section.name),
                    slug(prefetch),
                    metric.slug()
                ));
                // A chart file may be a link to the store being read, as `-o` may.
                belady_core::outfile::refuse_overwrite_as("--svg-dir", &file, &[store])?;
                belady_core::outfile::write_atomic(&file, svg.as_bytes())?;
                let _ = writeln!(html, "<figure>{svg}</figure>");
                charts += 1;
            }
            html.push_str("</div>\n");
            for (prefetch, points) in &section.charts {
                html.push_str(&table(metric, prefetch, points, &index));
            }
        }
    }
    html.push_str("</body></html>\n");
    std::io::Write::write_all(&mut page, html.as_bytes())
        .with_context(|| format!("{}: write failed", output.display()))?;
    page.commit()?;
    Ok(charts)
}

/// Keeps only the runs of `policies` (and OPT); each name must match a stored run.
fn select(sections: &mut [Section], policies: &[String]) -> Result<()> {
    if policies.is_empty() {
        return Ok(());
    }
    // Spelled as sweeps and `sim` take them: `LRU` and `segmented-lru` are `lru` and `slru`.
    // A name that is no policy (a series such as `lirs(hir=0.01)`) is matched as given.
    let policies: Vec<String> = policies
        .iter()
        .map(|n| {
            belady_core::policy::registry::PolicySpec::parse(n)
                .map_or_else(|_| n.clone(), |s| s.info.name.to_string())
        })
        .collect();
    let policies = &policies;
    let known: BTreeSet<&str> = sections
        .iter()
        .flat_map(|s| &s.charts)
        .flat_map(|(_, p)| p.iter())
        .flat_map(|p| [p.policy.as_str(), p.series.as_str()])
        .collect();
    for name in policies {
        if !known.contains(name.as_str()) {
            let names: BTreeSet<&str> = sections
                .iter()
                .flat_map(|s| &s.charts)
                .flat_map(|(_, p)| p.iter())
                .map(|p| p.policy.as_str())
                .collect();
            bail!(
                "invalid --policies: no run in the store has policy '{name}' (it has: {})",
                names.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
    }
    let keep =
        |p: &Point| p.policy == OPT || policies.iter().any(|n| *n == p.policy || *n == p.series);
    for s in sections {
        for (_, points) in &mut s.charts {
            points.retain(keep);
        }
    }
    Ok(())
}

/// The section's full setting, for the line under its heading.
fn details(section: &Section) -> String {
    let mut parts = vec![format!("trace {}", section.trace)];
    parts.extend(
        section
            .setting
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| format!("{k} {v}")),
    );
    parts.join(" · ")
}

/// The chart's lines: OPT first (the reference), then every policy in the report's order.
fn lines(metric: &Metric, points: &[Point], index: &BTreeMap<String, usize>) -> Vec<Line> {
    // (colour index, OPT first as None; label) -> (size, value) points.
    type Points = Vec<(u64, f64)>;
    let mut by: BTreeMap<(Option<usize>, &str), Points> = BTreeMap::new();
    for p in points {
        let Some(v) = p.value(metric) else { continue };
        let at = if p.policy == OPT {
            None
        } else {
            index.get(&p.series).copied()
        };
        by.entry((at, &p.series)).or_default().push((p.size(), v));
    }
    by.into_iter()
        .map(|((index, label), mut points)| {
            points.sort_by_key(|p| p.0);
            Line {
                label: label.to_string(),
                index,
                points,
            }
        })
        .collect()
}

/// The best policy per section and read-ahead setting for each metric that has a better
/// direction: the mean over the cache sizes that every shown policy ran (so no policy wins by
/// missing a hard size); OPT excluded. The header and every row's cells come from one list of
/// metrics, so each row has as many cells as the header.
fn summary(sections: &[Section]) -> String {
    let points = || sections.iter().flat_map(|s| &s.charts).flat_map(|(_, p)| p);
    let ranked: Vec<&Metric> = report_data::metrics()
        .filter(|m| m.better != Better::Neither)
        .filter(|m| points().any(|p| p.value(m).is_some()))
        .collect();
    let hit_ratio = metric("hit_ratio").expect("the registry has the hit ratio");
    let mut t = String::from(
        "<h2>Summary</h2><p>Best policy per trace and setting: the mean of each metric over the \
         cache sizes every policy ran; OPT is left out of the ranking and shown for reference.</p>\
         <table class=\"summary\"><tr>",
    );
    let mut header: Vec<String> = ["trace", "setting", "read-ahead", "sizes"]
        .map(String::from)
        .to_vec();
    header.extend(ranked.iter().map(|m| match m.better {
        Better::Higher => format!("highest {}", m.label()),
        _ => format!("lowest {}", m.label()),
    }));
    header.push(format!("OPT {}", hit_ratio.label()));
    for h in &header {
        let _ = write!(t, "<th>{}</th>", esc(h));
    }
    t.push_str("</tr>");
    let mut any_untimed = false;
    for (n, s) in sections.iter().enumerate() {
        for (prefetch, points) in &s.charts {
            let mut sizes_of: BTreeMap<&str, BTreeSet<u64>> = BTreeMap::new();
            for p in points.iter().filter(|p| p.policy != OPT) {
                sizes_of.entry(&p.series).or_default().insert(p.size());
            }
            let common: BTreeSet<u64> = sizes_of
                .values()
                .cloned()
                .reduce(|a, b| a.intersection(&b).copied().collect())
                .unwrap_or_default();
            let shown = if untimed(prefetch, points) {
                any_untimed = true;
                format!("{prefetch} (untimed)")
            } else {
                prefetch.clone()
            };
            let mut cells = vec![
                format!("<a href=\"#s{n}\">{}</a>", esc(&s.name)),
                esc(&s.qualifier()),
                esc(&shown),
                common.len().to_string(),
            ];
            for metric in &ranked {
                cells.push(match best(metric, points, &common) {
                    Some((names, v)) => format!("{} {}", esc(&names.join(", ")), metric.format(v)),
                    None => "-".into(),
                });
            }
            let opt: Vec<f64> = points
                .iter()
                .filter(|p| p.policy == OPT && common.contains(&p.size()))
                .filter_map(|p| p.value(hit_ratio))
                .collect();
            cells.push(if opt.len() == common.len() && !opt.is_empty() {
                hit_ratio.format(opt.iter().sum::<f64>() / opt.len() as f64)
            } else {
                "-".into()
            });
            debug_assert_eq!(cells.len(), header.len());
            t.push_str("<tr>");
            for c in &cells {
                let _ = write!(t, "<td>{c}</td>");
            }
            t.push_str("</tr>");
        }
    }
    t.push_str("</table>\n");
    if any_untimed {
        let _ = writeln!(t, "<p class=\"setting\">(untimed) {}</p>", esc(UNTIMED));
    }
    t
}

/// The policies with the best mean of `metric` over `sizes` (all of them on a tie), and that mean.
fn best(metric: &Metric, points: &[Point], sizes: &BTreeSet<u64>) -> Option<(Vec<String>, f64)> {
    let mut sums: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for p in points
        .iter()
        .filter(|p| p.policy != OPT && sizes.contains(&p.size()))
    {
        if let Some(v) = p.value(metric) {
            let e = sums.entry(&p.series).or_default();
            e.0 += v;
            e.1 += 1;
        }
    }
    let means: Vec<(&str, f64)> = sums
        .into_iter()
        .filter(|(_, (_, n))| *n == sizes.len() && *n > 0)
        .map(|(k, (s, n))| (k, s / n as f64))
        .collect();
    let pick = if metric.better == Better::Higher {
        means.iter().map(|m| m.1).fold(f64::MIN, f64::max)
    } else {
        means.iter().map(|m| m.1).fold(f64::MAX, f64::min)
    };
    let names: Vec<String> = means
        .iter()
        .filter(|m| (m.1 - pick).abs() <= 1e-9 * pick.abs().max(1.0))
        .map(|m| m.0.to_string())
        .collect();
    (!names.is_empty()).then_some((names, pick))
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The figure's numbers: one row per policy, one column per cache size (named with its unit,
/// a byte capacity by its size), sorted by value.
fn table(
    metric: &Metric,
    prefetch: &str,
    points: &[Point],
    index: &BTreeMap<String, usize>,
) -> String {
    let lines = lines(metric, points, index);
    let mut sizes: Vec<&CacheCapacity> = points.iter().map(|p| &p.capacity).collect();
    sizes.sort_by_key(|c| c.sort_key());
    sizes.dedup_by_key(|c| c.sort_key());
    let mut t = format!(
        "<table><caption>{} — read-ahead: {}{}</caption><tr><th>policy</th>",
        metric.title(),
        esc(prefetch),
        if untimed(prefetch, points) {
            " (untimed: read-ahead completes at once)"
        } else {
            ""
        }
    );
    for s in &sizes {
        let _ = write!(t, "<th>{}</th>", esc(&s.label()));
    }
    t.push_str("</tr>");
    for line in &lines {
        let _ = write!(t, "<tr><td>{}</td>", esc(&line.label));
        for s in &sizes {
            match line.points.iter().find(|p| p.0 == s.amount) {
                Some(&(_, v)) => {
                    let _ = write!(t, "<td>{}</td>", metric.format(v));
                }
                None => t.push_str("<td></td>"),
            }
        }
        t.push_str("</tr>");
    }
    t.push_str("</table>\n");
    t
}
