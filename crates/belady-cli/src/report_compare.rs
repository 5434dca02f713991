//! The report's "Across traces" section: `belady compare`'s numbers drawn as the S3-FIFO and SIEVE
//! papers draw them, a box per policy per cache size (whiskers P10–P90, box P25–P75, a line at the
//! median, a marker at the mean) of the miss-ratio reduction relative to FIFO, with its table.
//!
//! Drawn when a setting of the store holds at least two traces and FIFO; one chart per setting.
//! The numbers come from the one computation `belady compare` prints
//! ([`belady_core::analysis::compare`]).

use crate::chart::{self, SizeAxis};
use anyhow::Result;
use belady_core::analysis::compare::{CompareRow, Comparison, Skip};
use belady_core::sweep::comparison::{self, Group, Ratio};
use plotters::prelude::*;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// The baseline the report compares with, as the papers do.
const BASELINE: &str = "fifo";
/// Pixels per box, the plot's height, the legend's width.
const SLOT: u32 = 20;
const HEIGHT: u32 = 360;
const LEGEND: u32 = 130;

/// Appends the section to `html` (its charts also written into `svg_dir`) when some setting of
/// `store` has at least two traces and FIFO; the number of charts drawn. With `policies` (the
/// report's `--policies`) only those are drawn, and nothing unless FIFO is one of them; OPT, the
/// report's reference line, is never a box (it would win every trace).
pub fn section(
    store: &Path,
    svg_dir: &Path,
    policies: &[String],
    html: &mut String,
) -> Result<usize> {
    let chosen = crate::report_data::registered_names(policies);
    if !chosen.is_empty() && !chosen.iter().any(|p| p == BASELINE) {
        return Ok(0);
    }
    let mut groups =
        comparison::load(store, Ratio::Miss, &[]).map_err(crate::compare_cmd::one_line)?;
    for group in &mut groups {
        group.samples.retain(|s| {
            let name = s.policy.split(['(', ' ']).next().unwrap_or_default();
            name != "opt" && (chosen.is_empty() || chosen.iter().any(|c| c == name))
        });
    }
    let mut drawn = 0;
    for (n, group) in groups.iter().enumerate() {
        let traces: BTreeSet<&str> = group.samples.iter().map(|s| s.trace.as_str()).collect();
        if traces.len() < 2 || !group.samples.iter().any(|s| s.policy == BASELINE) {
            continue;
        }
        // Every trace skipped (FIFO never missed): nothing to draw for this setting.
        let Ok(comparison) = comparison::compare_group(store, group, BASELINE) else {
            continue;
        };
        if drawn == 0 {
            let _ = writeln!(
                html,
                "<h2 id=\"across\">Across traces: miss-ratio reduction relative to FIFO</h2>\n\
                 <p>Per policy and cache size, over the traces: the reduction (fifo − policy) / fifo \
                 of the miss ratio; whiskers from the 10th to the 90th percentile, the box from the \
                 25th to the 75th, a line at the median, a circle at the mean (percentiles by linear \
                 interpolation between closest ranks). Wins: traces where the policy's miss ratio is \
                 the lowest of all (ties count for each). <code>belady compare</code> prints the \
                 same numbers.</p>"
            );
        }
        let setting = setting_label(group);
        let title = if setting.is_empty() {
            format!("Reduction vs FIFO over {} traces", traces.len())
        } else {
            format!("Reduction vs FIFO over {} traces ({setting})", traces.len())
        };
        let svg = draw(&title, &comparison)?;
        let file = svg_dir.join(format!("across-traces-{n:02}-miss-ratio.svg"));
        belady_core::outfile::refuse_overwrite_as("--svg-dir", &file, &[store])?;
        belady_core::outfile::write_atomic(&file, svg.as_bytes())?;
        let _ = writeln!(html, "<div><figure>{svg}</figure></div>");
        html.push_str(&table(&comparison, &setting));
        drawn += 1;
    }
    Ok(drawn)
}

/// The setting that tells this group from the store's others (`prefetch: none, disk: hdd`).
fn setting_label(group: &Group) -> String {
    group
        .distinct
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Policy `i`'s colour: the baseline (first) grey, as the report's reference line, the others in
/// the report's palette.
fn colour(i: usize) -> RGBColor {
    let role = match i {
        0 => chart::Role::Reference,
        n => chart::Role::Highlight(n - 1),
    };
    chart::look(role).colour
}

/// The distinct values of `field` over the rows, in the comparison's order: the policies (the
/// baseline first, which picks each one's colour) or the sizes.
fn distinct(c: &Comparison, field: impl Fn(&CompareRow) -> &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for r in &c.rows {
        if !out.contains(&field(r)) {
            out.push(field(r));
        }
    }
    out
}

/// The box plot as SVG: one group of boxes per size, one box per policy, reductions in percent.
pub fn draw(title: &str, c: &Comparison) -> Result<String> {
    let err = |e: &dyn std::fmt::Display| chart::error(title, e);
    let policies = distinct(c, |r| &r.policy);
    let sizes = distinct(c, |r| &r.cache_size);
    // One slot per policy in each size's group, and one empty slot between groups.
    let per = policies.len() + 1;
    let slots = (sizes.len() * per).max(1) as f64;
    let slot = |r: &CompareRow| -> f64 {
        let s = sizes.iter().position(|x| *x == r.cache_size).unwrap_or(0);
        let p = policies.iter().position(|x| *x == r.policy).unwrap_or(0);
        (s * per + p) as f64 + 1.0
    };
    let values = c
        .rows
        .iter()
        .flat_map(|r| [r.p10, r.p90, r.mean])
        .map(|v| v * 100.0);
    let (lo, hi) = values.fold((0.0f64, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let pad = ((hi - lo) * 0.06).max(1.0);
    let (y0, y1) = (lo - pad, hi + pad);
    let centres: Vec<f64> = (0..sizes.len())
        .map(|s| (s * per) as f64 + per as f64 / 2.0 + 0.5)
        .collect();
    let width = 90 + SLOT * slots as u32 + LEGEND;
    chart::document(title, (width, HEIGHT), |root| {
        let (plot, legend) = root.split_horizontally(width - LEGEND);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(40)
            .y_label_area_size(58)
            .build_cartesian_2d(
                SizeAxis {
                    range: 0.0..slots + 0.5,
                    ticks: centres.clone(),
                },
                y0..y1,
            )
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(centres.len().max(1))
            .y_labels(8)
            .x_desc("cache size (as the experiment spelled it)")
            .y_desc("miss-ratio reduction vs FIFO (%)")
            .x_label_formatter(&|v| {
                centres
                    .iter()
                    .position(|c| (c - v).abs() < 1e-9)
                    .map_or_else(String::new, |i| sizes[i].to_string())
            })
            .draw()
            .map_err(|e| err(&e))?;
        // No change from FIFO.
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0.0, 0.0), (slots + 0.5, 0.0)],
                RGBColor(150, 150, 150).stroke_width(1),
            )))
            .map_err(|e| err(&e))?;
        for r in &c.rows {
            let i = policies.iter().position(|p| *p == r.policy).unwrap_or(0);
            let colour = colour(i);
            let x = slot(r);
            let pct = |v: f64| v * 100.0;
            let line = |a: (f64, f64), b: (f64, f64), w: u32| {
                PathElement::new(vec![a, b], colour.stroke_width(w))
            };
            chart
                .draw_series([
                    line((x, pct(r.p10)), (x, pct(r.p25)), 1),
                    line((x, pct(r.p75)), (x, pct(r.p90)), 1),
                    line((x - 0.2, pct(r.p10)), (x + 0.2, pct(r.p10)), 1),
                    line((x - 0.2, pct(r.p90)), (x + 0.2, pct(r.p90)), 1),
                ])
                .map_err(|e| err(&e))?;
            chart
                .draw_series([
                    Rectangle::new(
                        [(x - 0.35, pct(r.p25)), (x + 0.35, pct(r.p75))],
                        colour.mix(0.3).filled(),
                    ),
                    Rectangle::new(
                        [(x - 0.35, pct(r.p25)), (x + 0.35, pct(r.p75))],
                        colour.stroke_width(1),
                    ),
                ])
                .map_err(|e| err(&e))?;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x - 0.35, pct(r.p50)), (x + 0.35, pct(r.p50))],
                    BLACK.stroke_width(2),
                )))
                .map_err(|e| err(&e))?;
            chart
                .draw_series([
                    Circle::new((x, pct(r.mean)), 3, WHITE.filled()),
                    Circle::new((x, pct(r.mean)), 3, BLACK.stroke_width(1)),
                ])
                .map_err(|e| err(&e))?;
        }
        // The legend: a swatch and the policy's name, one per row.
        for (i, p) in policies.iter().enumerate() {
            let y = 40 + 18 * i as i32;
            let colour = colour(i);
            legend
                .draw(&Rectangle::new(
                    [(4, y - 6), (16, y + 6)],
                    colour.mix(0.3).filled(),
                ))
                .and_then(|_| {
                    legend.draw(&Rectangle::new(
                        [(4, y - 6), (16, y + 6)],
                        colour.stroke_width(1),
                    ))
                })
                .and_then(|_| {
                    legend.draw(&Text::new(
                        p.to_string(),
                        (22, y - 7),
                        ("sans-serif", 14).into_font(),
                    ))
                })
                .map_err(|e| err(&e))?;
        }
        Ok(())
    })
}

/// The chart's numbers: one row per policy and size, reductions in percent, then what was skipped.
fn table(c: &Comparison, setting: &str) -> String {
    let mut out = String::from("<table><tr>");
    for h in [
        "policy",
        "cache size",
        "mean (%)",
        "P10",
        "P25",
        "P50",
        "P75",
        "P90",
        "wins",
        "traces",
    ] {
        let _ = write!(out, "<th>{h}</th>");
    }
    out.push_str("</tr>\n");
    for r in &c.rows {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td>",
            crate::report::esc(&r.policy),
            crate::report::esc(&r.cache_size)
        );
        for v in [r.mean, r.p10, r.p25, r.p50, r.p75, r.p90] {
            let _ = write!(out, "<td>{:.2}</td>", v * 100.0);
        }
        let _ = writeln!(out, "<td>{}</td><td>{}</td></tr>", r.wins, r.traces);
    }
    out.push_str("</table>\n");
    for ((size, why), traces) in &c.skipped {
        let reason = match why {
            Skip::NoBaseline => "without fifo",
            Skip::ZeroBaseline => "where fifo's miss ratio is 0",
        };
        let _ = writeln!(
            out,
            "<p class=\"setting\">At {}: {} trace(s) {reason}, left out at that size: {}{}</p>",
            crate::report::esc(size),
            traces.len(),
            crate::report::esc(&traces.join(", ")),
            if setting.is_empty() {
                String::new()
            } else {
                format!(" ({})", crate::report::esc(setting))
            }
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use belady_core::analysis::compare::{compare, Sample};

    #[test]
    fn a_box_per_policy_per_size_with_its_legend() {
        let mut samples = Vec::new();
        for (t, base) in [("a", 0.5), ("b", 0.4), ("c", 0.8)] {
            for (p, f) in [("fifo", 1.0), ("lru", 0.9), ("sieve", 0.7)] {
                for size in ["1%", "10%"] {
                    samples.push(Sample {
                        trace: t.into(),
                        policy: p.into(),
                        cache_size: size.into(),
                        ratio: base * f,
                    });
                }
            }
        }
        let c = compare(&samples, "fifo").unwrap();
        let svg = draw("t", &c).unwrap();
        // Two boxes per row (fill and outline), three policies at two sizes.
        assert_eq!(svg.matches("<rect").count() - 1, 2 * 6 + 2 * 3, "{svg}");
        for label in ["fifo", "lru", "sieve", "1%", "10%"] {
            assert!(
                svg.contains(&format!("\n{label}\n</text>")),
                "{label}: {svg}"
            );
        }
        let html = table(&c, "");
        assert_eq!(html.matches("<tr>").count(), 1 + 6);
        assert!(
            html.contains("<td>sieve</td><td>10%</td><td>30.00</td>"),
            "{html}"
        );
    }
}
