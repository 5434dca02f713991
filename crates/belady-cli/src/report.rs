//! `belady report`: one self-contained HTML page (charts inline as SVG, no scripts, no network)
//! from a results store, in the shape of the prefetching study's Figures 3–6: hit ratio, disk
//! requests and execution time against cache size, one line per policy, one chart per read-ahead
//! setting; each chart is also written as an SVG file, and each figure has its table. A summary
//! table at the top names the best policy per trace and setting; each section opens with its
//! answer, a ranked table of policies × sizes (`report_glance`), and its charts highlight the few
//! policies that matter (the best at some size, LRU, FIFO, OPT, and any named) with the rest grey.
//!
//! Runs are grouped by every configuration field (`report_data`), so two runs that differ in
//! anything (a changed trace file, another preset) never share a line or a cell.

use crate::chart::Role;
use crate::report_chart::{self, Line};
use crate::report_data::{self, Point, Section};
use crate::report_glance;
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
    /// Also highlight these policies in the charts (comma-separated), besides those the report
    /// highlights on its own: the best at some size, LRU, FIFO and OPT; the rest are grey.
    #[arg(long, value_delimiter = ',')]
    highlight: Vec<String>,
}

/// The offline optimum: the reference line, never "best".
pub const OPT: &str = "opt";

/// What an untimed run with read-ahead assumes: said once under a section's heading and once
/// under the summary, where "(untimed)" marks such runs.
const UNTIMED: &str = "no disk model, so read-ahead completes at once: every block read ahead \
                       is ready in time and no reference waits for one (time the runs with a disk \
                       model to see the waits)";

/// One chart of a row: its read-ahead setting, its runs and its lines.
type Chart<'a> = (&'a String, &'a Vec<Point>, Vec<Line>);

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
        &args.highlight,
    )?;
    eprintln!("wrote {} ({} charts)", args.output.display(), charts);
    Ok(())
}

/// Writes the report of `store` to `output` (charts also as SVG files in `svg_dir`, by default
/// NAME-charts/ beside it), showing only `policies` when given and highlighting `highlight`
/// besides the policies that matter; returns how many charts it drew.
pub fn write_report(
    store: &Path,
    output: &Path,
    svg_dir: Option<&Path>,
    policies: &[String],
    highlight: &[String],
) -> Result<usize> {
    let mut sections = report_data::load(store)?;
    let total: usize = sections
        .iter()
        .flat_map(|s| &s.charts)
        .map(|(_, p)| p.len())
        .sum();
    select(&mut sections, policies)?;
    let highlight = canonical(highlight);
    known(&sections, &highlight, "--highlight")?;
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
         figure{display:inline-block;vertical-align:top;margin:0 1em 1em 0}\
         table{border-collapse:collapse;margin:0 0 2em 0;font-size:90%}\
         td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}\
         th:first-child,td:first-child{text-align:left}\
         .setting{color:#555;font-size:85%}\
         table.summary td{text-align:left}\
         table.glance td.best{font-weight:bold}\
         table.glance{font-size:82%}\
         table.glance th{text-align:center;white-space:nowrap}\
         table.glance td{white-space:nowrap}\
         table.glance td:first-child{text-align:center}\
         table.glance td:nth-child(2){text-align:left}\
         table.glance caption{text-align:left;font-weight:bold;padding:2px 0}\
         table.glance tr.reference td{font-style:italic;color:#555}\
         details{margin:0 0 1.5em 0}\
         </style></head><body>\n",
    );
    let _ = writeln!(
        html,
        "<h1>belady report</h1><p>{} runs from <code>{}</code>. Each section opens with a ranked \
         table (the best of each column marked); its charts highlight the policies that matter \
         (the best at some size, the baselines LRU and FIFO, any named with --highlight) each in \
         its own colour and marker, draw the other policies in light grey, and OPT (the offline \
         optimum, which needs the future) as the grey dashed reference line. Value axes span the \
         data: each chart's subtitle says where its axis starts.</p>",
        total,
        esc(&store.display().to_string())
    );
    html.push_str(&summary(&sections));
    let mut charts = 0;
    for (n, section) in sections.iter().enumerate() {
        let (short, all) = report_glance::settings(section);
        let _ = writeln!(
            html,
            "<h2 id=\"s{n}\">{} <small>({})</small></h2>\n<p class=\"setting\">{}</p>\n\
             <details class=\"setting\"><summary>all settings</summary>{}</details>",
            esc(&section.name),
            esc(&section.qualifier()),
            esc(&short),
            esc(&all)
        );
        if section.charts.iter().any(|(p, points)| untimed(p, points)) {
            let _ = writeln!(
                html,
                "<p class=\"setting\"><strong>Untimed read-ahead:</strong> {}</p>",
                esc(UNTIMED)
            );
        }
        // The answer first: one ranked table per read-ahead setting.
        let _ = writeln!(
            html,
            "<p class=\"setting\">{}</p>",
            esc(&report_glance::rule(section))
        );
        for (prefetch, points) in &section.charts {
            html.push_str(&report_glance::ranked_table(
                prefetch,
                points,
                untimed(prefetch, points),
            ));
        }
        let highlights = report_glance::highlights(section, &highlight);
        if !highlights.left_grey.is_empty() {
            let _ = writeln!(
                html,
                "<p class=\"setting\">Also best at some size, drawn grey for want of colours: {}.</p>",
                esc(&highlights.left_grey.join(", "))
            );
        }
        let unit = section
            .charts
            .iter()
            .find_map(|(_, points)| points.first())
            .map_or(CapacityUnit::Blocks, |p| p.capacity.unit);
        // Every chart's lines first, so that every chart of the section takes one height.
        let mut rows: Vec<(&Metric, Vec<Chart>)> = Vec::new();
        for metric in report_data::metrics() {
            let row: Vec<_> = section
                .charts
                .iter()
                .map(|(prefetch, points)| {
                    let slots = highlights.of_chart(metric, points);
                    (prefetch, points, lines(metric, points, &slots))
                })
                .filter(|(_, _, lines)| !lines.is_empty())
                .collect();
            if !row.is_empty() {
                rows.push((metric, row));
            }
        }
        let height = rows
            .iter()
            .flat_map(|(_, row)| row.iter().map(|(_, _, l)| report_chart::height(l)))
            .max()
            .unwrap_or(report_chart::SIZE.1);
        for (metric, row) in &rows {
            let _ = writeln!(html, "<h3>{}</h3><div>", metric.title());
            for (prefetch, points, lines) in row {
                let title = format!(
                    "{} — read-ahead: {}{}",
                    metric.title(),
                    prefetch,
                    if untimed(prefetch, points) {
                        " (untimed)"
                    } else {
                        ""
                    }
                );
                let percent = metric.unit == Unit::Ratio;
                let svg =
                    report_chart::draw(&title, &metric.label(), lines, percent, unit, height)?;
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
            html.push_str("</div>\n<details><summary>the numbers of these charts</summary>\n");
            for (prefetch, points, lines) in row {
                html.push_str(&table(metric, prefetch, points, lines));
            }
            html.push_str("</details>\n");
        }
    }
    // The comparison across traces, when the store holds it (report_compare.rs).
    charts += crate::report_compare::section(store, &svg_dir, policies, &mut html)?;
    html.push_str("</body></html>\n");
    std::io::Write::write_all(&mut page, html.as_bytes())
        .with_context(|| format!("{}: write failed", output.display()))?;
    page.commit()?;
    Ok(charts)
}

/// Policy names spelled as sweeps and `sim` take them: `LRU` and `segmented-lru` are `lru` and
/// `slru`. A name that is no policy (a series such as `lirs(hir=0.01)`) is kept as given.
fn canonical(names: &[String]) -> Vec<String> {
    names
        .iter()
        .map(|n| {
            belady_core::policy::registry::PolicySpec::parse(n)
                .map_or_else(|_| n.clone(), |s| s.info.name.to_string())
        })
        .collect()
}

/// Fails, naming `flag`, if a name in `names` matches no stored run's policy or line.
fn known(sections: &[Section], names: &[String], flag: &str) -> Result<()> {
    let points = || {
        sections
            .iter()
            .flat_map(|s| &s.charts)
            .flat_map(|(_, p)| p.iter())
    };
    let known: BTreeSet<&str> = points()
        .flat_map(|p| [p.policy.as_str(), p.series.as_str()])
        .collect();
    if let Some(name) = names.iter().find(|n| !known.contains(n.as_str())) {
        let names: BTreeSet<&str> = points().map(|p| p.policy.as_str()).collect();
        bail!(
            "invalid {flag}: no run in the store has policy '{name}' (it has: {})",
            names.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    Ok(())
}

/// Keeps only the runs of `policies` (and OPT); each name must match a stored run.
fn select(sections: &mut [Section], policies: &[String]) -> Result<()> {
    if policies.is_empty() {
        return Ok(());
    }
    let policies = canonical(policies);
    known(sections, &policies, "--policies")?;
    let keep =
        |p: &Point| p.policy == OPT || policies.iter().any(|n| *n == p.policy || *n == p.series);
    for s in sections {
        for (_, points) in &mut s.charts {
            points.retain(keep);
        }
    }
    Ok(())
}

/// The chart's lines: OPT as the reference, the highlighted lines in their `slots`, the rest
/// grey; in the order of their labels.
fn lines(metric: &Metric, points: &[Point], slots: &BTreeMap<String, usize>) -> Vec<Line> {
    type Points = Vec<(u64, f64)>;
    let mut by: BTreeMap<&str, (Role, Points)> = BTreeMap::new();
    for p in points {
        let Some(v) = p.value(metric) else { continue };
        let role = if p.policy == OPT {
            Role::Reference
        } else {
            slots
                .get(&p.series)
                .map_or(Role::Other, |&i| Role::Highlight(i))
        };
        by.entry(&p.series)
            .or_insert_with(|| (role, Vec::new()))
            .1
            .push((p.size(), v));
    }
    by.into_iter()
        .map(|(label, (role, mut points))| {
            points.sort_by_key(|p| p.0);
            Line {
                label: label.to_string(),
                role,
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
            let common = report_glance::common_sizes(points);
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
        let _ = writeln!(t, "<p class=\"setting\">(untimed): {}</p>", esc(UNTIMED));
    }
    t
}

/// The policies with the best mean of `metric` over `sizes` (all of them on a tie), and that mean.
pub fn best(
    metric: &Metric,
    points: &[Point],
    sizes: &BTreeSet<u64>,
) -> Option<(Vec<String>, f64)> {
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

/// `s` escaped for HTML text and attributes.
pub fn esc(s: &str) -> String {
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
fn table(metric: &Metric, prefetch: &str, points: &[Point], lines: &[Line]) -> String {
    let mut sizes: Vec<&CacheCapacity> = points.iter().map(|p| &p.capacity).collect();
    sizes.sort_by_key(|c| c.sort_key());
    sizes.dedup_by_key(|c| c.sort_key());
    let mut t = format!(
        "<table><caption>{} — read-ahead: {}{}</caption><tr><th>policy</th>",
        metric.title(),
        esc(prefetch),
        if untimed(prefetch, points) {
            " (untimed)"
        } else {
            ""
        }
    );
    for s in &sizes {
        let _ = write!(t, "<th>{}</th>", esc(&s.label()));
    }
    t.push_str("</tr>");
    for line in lines {
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
