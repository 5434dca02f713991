//! `belady report`: one self-contained HTML page (charts inline as SVG, no scripts, no network)
//! from a results store, in the shape of the prefetching study's Figures 3–6: hit ratio, disk
//! requests and execution time against cache size, one line per policy, one chart per read-ahead
//! setting; each chart is also written as an SVG file, and each figure has its table.
//!
//! The SVG is written here rather than through a plotting crate so the output is byte-for-byte
//! deterministic and needs no fonts at build or run time (the viewer renders the text).

use anyhow::{bail, Context, Result};
use clap::Args;
use rusqlite::Connection;
use std::collections::BTreeMap;
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
}

/// One stored run, as the report needs it.
struct Point {
    policy: String,
    cache_blocks: u64,
    hit_ratio: f64,
    disk_requests: Option<f64>,
    exec_time_s: Option<f64>,
}

/// A chart's metric: its title, axis label and how to read it from a run.
struct Metric {
    slug: &'static str,
    title: &'static str,
    axis: &'static str,
    value: fn(&Point) -> Option<f64>,
}

const METRICS: &[Metric] = &[
    Metric {
        slug: "hit-ratio",
        title: "Hit ratio",
        axis: "hit ratio (%)",
        value: |p| Some(100.0 * p.hit_ratio),
    },
    Metric {
        slug: "disk-requests",
        title: "Disk requests",
        axis: "disk requests",
        value: |p| p.disk_requests,
    },
    Metric {
        slug: "exec-time",
        title: "Execution time",
        axis: "execution time (s)",
        value: |p| p.exec_time_s,
    },
];

const COLOURS: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31",
];

/// `belady report`.
pub fn run(args: ReportArgs) -> Result<()> {
    belady_core::outfile::refuse_overwrite(&args.output, &[&args.store])?;
    let charts = write_report(&args.store, &args.output, args.svg_dir.as_deref())?;
    eprintln!("wrote {} ({} charts)", args.output.display(), charts);
    Ok(())
}

/// Writes the report of `store` to `output` (charts also as SVG files in `svg_dir`, by default
/// NAME-charts/ beside it); returns how many charts it drew.
pub fn write_report(store: &Path, output: &Path, svg_dir: Option<&Path>) -> Result<usize> {
    let args = ReportArgs {
        store: store.to_path_buf(),
        output: output.to_path_buf(),
        svg_dir: svg_dir.map(Path::to_path_buf),
    };
    if !args.store.exists() {
        bail!(
            "{}: no such results store (run `belady sweep` first)",
            args.store.display()
        );
    }
    let db = Connection::open(&args.store)
        .with_context(|| format!("cannot open {}", args.store.display()))?;
    let mut stmt = db
        .prepare(
            // The block engine has no clustering: each miss is one single-block request.
            "SELECT trace, prefetch, disk, policy, cache_blocks, hit_ratio,
                    COALESCE(disk_requests, misses), exec_time_s
             FROM runs ORDER BY trace, disk, prefetch, policy, cache_blocks",
        )
        .with_context(|| format!("{} is not a belady results store", args.store.display()))?;
    // (trace, disk) -> prefetch -> runs
    let mut groups: BTreeMap<(String, String), BTreeMap<String, Vec<Point>>> = BTreeMap::new();
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            Point {
                policy: r.get(3)?,
                cache_blocks: r.get::<_, i64>(4)? as u64,
                hit_ratio: r.get(5)?,
                disk_requests: r.get::<_, Option<i64>>(6)?.map(|v| v as f64),
                exec_time_s: r.get(7)?,
            },
        ))
    })?;
    let mut total = 0;
    for row in rows {
        let (trace, prefetch, disk, point) = row?;
        groups
            .entry((trace, disk))
            .or_default()
            .entry(prefetch)
            .or_default()
            .push(point);
        total += 1;
    }
    if total == 0 {
        bail!("{}: the store holds no runs", args.store.display());
    }
    let svg_dir = args.svg_dir.clone().unwrap_or_else(|| {
        let stem = args
            .output
            .file_stem()
            .map_or("report".into(), |s| s.to_string_lossy().into_owned());
        args.output.with_file_name(format!("{stem}-charts"))
    });
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
         </style></head><body>\n",
    );
    let _ = writeln!(
        html,
        "<h1>belady report</h1><p>{} runs from <code>{}</code>.</p>",
        total,
        esc(&args.store.display().to_string())
    );
    let mut charts = 0;
    for ((trace, disk), by_prefetch) in &groups {
        // Without read-ahead first, as the study's figures put the baseline first.
        let mut by_prefetch: Vec<(&String, &Vec<Point>)> = by_prefetch.iter().collect();
        by_prefetch.sort_by_key(|(p, _)| (p.as_str() != "none", p.as_str()));
        let _ = writeln!(
            html,
            "<h2>{} <small>(disk: {})</small></h2>",
            esc(trace),
            esc(disk)
        );
        for metric in METRICS {
            if !by_prefetch
                .iter()
                .flat_map(|(_, points)| points.iter())
                .any(|p| (metric.value)(p).is_some())
            {
                continue;
            }
            let _ = writeln!(html, "<h3>{}</h3><div>", metric.title);
            for &(prefetch, points) in &by_prefetch {
                let title = format!("{} — read-ahead: {}", metric.title, prefetch);
                let svg = chart(&title, metric, points);
                let file = svg_dir.join(format!(
                    "{}-{}-{}-{}.svg",
                    slug(trace),
                    slug(disk),
                    slug(prefetch),
                    metric.slug
                ));
                belady_core::outfile::write_atomic(&file, svg.as_bytes())?;
                let _ = writeln!(html, "<figure>{svg}</figure>");
                charts += 1;
            }
            html.push_str("</div>\n");
            for &(prefetch, points) in &by_prefetch {
                html.push_str(&table(metric, prefetch, points));
            }
        }
    }
    html.push_str("</body></html>\n");
    belady_core::outfile::write_atomic(&args.output, html.as_bytes())?;
    Ok(charts)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn slug(s: &str) -> String {
    let name = Path::new(s)
        .file_name()
        .map_or(s.to_string(), |n| n.to_string_lossy().into_owned());
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Policies in first-seen order, each with its (size, value) points sorted by size.
fn series(metric: &Metric, points: &[Point]) -> Vec<(String, Vec<(f64, f64)>)> {
    let mut out: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    for p in points {
        let Some(v) = (metric.value)(p) else { continue };
        match out.iter_mut().find(|(name, _)| *name == p.policy) {
            Some((_, pts)) => pts.push((p.cache_blocks as f64, v)),
            None => out.push((p.policy.clone(), vec![(p.cache_blocks as f64, v)])),
        }
    }
    for (_, pts) in &mut out {
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    out
}

/// A "nice" step for about `target` ticks over `span`.
fn nice_step(span: f64, target: f64) -> f64 {
    let raw = (span / target).max(f64::MIN_POSITIVE);
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let nice = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let step = nice_step(hi - lo, 5.0);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 {
        out.push(t);
        t += step;
    }
    out
}

fn label(v: f64) -> String {
    if v.abs() >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v.abs() >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if v.fract().abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// One line chart as standalone SVG.
fn chart(title: &str, metric: &Metric, points: &[Point]) -> String {
    let (w, h) = (520.0, 340.0);
    let (left, right, top, bottom) = (70.0, 150.0, 36.0, 50.0);
    let series = series(metric, points);
    let xs = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.0));
    let ys = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.1));
    let (mut x0, mut x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let (_, mut y1) = ys.fold((f64::MAX, f64::MIN), |(a, b), y| (a.min(y), b.max(y)));
    let mut y0 = 0.0;
    if x0 >= x1 {
        x0 -= 1.0;
        x1 += 1.0;
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    y1 *= 1.05;
    if metric.slug == "hit-ratio" {
        y0 = 0.0;
        y1 = y1.min(100.0);
    }
    let pw = w - left - right;
    let ph = h - top - bottom;
    let sx = |x: f64| left + (x - x0) / (x1 - x0) * pw;
    let sy = |y: f64| top + ph - (y - y0) / (y1 - y0) * ph;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"sans-serif\" font-size=\"12\"><rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>"
    );
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">{}</text>",
        left + pw / 2.0,
        esc(title)
    );
    for t in ticks(y0, y1) {
        let y = sy(t);
        let _ = write!(
            s,
            "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#e5e5e5\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left + pw,
            left - 6.0,
            y + 4.0,
            label(t)
        );
    }
    for t in ticks(x0, x1) {
        let x = sx(t);
        let _ = write!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#999\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            top + ph,
            top + ph + 5.0,
            top + ph + 18.0,
            label(t)
        );
    }
    let _ = write!(
        s,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#333\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">cache size (blocks)</text>\
         <text transform=\"translate(16,{:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
        left + pw / 2.0,
        h - 10.0,
        top + ph / 2.0,
        esc(metric.axis)
    );
    for (i, (name, pts)) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let path: Vec<String> = pts
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        let _ = write!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/>",
            path.join(" ")
        );
        for &(x, y) in pts {
            let _ = write!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"/>",
                sx(x),
                sy(y)
            );
        }
        let ly = top + 12.0 + 16.0 * i as f64;
        let lx = left + pw + 12.0;
        let _ = write!(
            s,
            "<line x1=\"{lx}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" stroke-width=\"3\"/>\
             <text x=\"{:.1}\" y=\"{ly:.1}\">{}</text>",
            ly - 4.0,
            lx + 18.0,
            ly - 4.0,
            lx + 24.0,
            esc(name)
        );
    }
    s.push_str("</svg>");
    s
}

/// The figure's numbers: one row per policy, one column per cache size.
fn table(metric: &Metric, prefetch: &str, points: &[Point]) -> String {
    let series = series(metric, points);
    let mut sizes: Vec<u64> = points.iter().map(|p| p.cache_blocks).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut t = format!(
        "<table><caption>{} — read-ahead: {}</caption><tr><th>policy</th>",
        metric.title,
        esc(prefetch)
    );
    for s in &sizes {
        let _ = write!(t, "<th>{s}</th>");
    }
    t.push_str("</tr>");
    for (name, pts) in &series {
        let _ = write!(t, "<tr><td>{}</td>", esc(name));
        for s in &sizes {
            match pts.iter().find(|p| p.0 == *s as f64) {
                Some(&(_, v)) if metric.slug == "hit-ratio" => {
                    let _ = write!(t, "<td>{v:.2}</td>");
                }
                Some(&(_, v)) if metric.slug == "exec-time" => {
                    let _ = write!(t, "<td>{v:.3}</td>");
                }
                Some(&(_, v)) => {
                    let _ = write!(t, "<td>{v:.0}</td>");
                }
                None => t.push_str("<td></td>"),
            }
        }
        t.push_str("</tr>");
    }
    t.push_str("</table>\n");
    t
}
