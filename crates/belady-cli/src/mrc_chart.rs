//! The HTML page of `belady mrc --html`: the curves drawn as an inline SVG (the document, axis
//! and palette are `chart`'s).
//!
//! As in `belady report`, a few curves are highlighted, each in its own colour and marker (every
//! curve when there are at most `ALL` of them; else LRU, FIFO, those lowest at some size and those
//! named with `--highlight`), the rest are light grey under one legend entry; the miss-ratio axis
//! spans the data (its label says where it starts and ends).

use crate::chart::{self, look, Role};
use anyhow::Result;
use belady_core::analysis::mrc::{Method, Mrc};
use belady_core::OpFilter;
use plotters::prelude::*;

/// One curve: its legend label and `(log2 size, miss ratio)` points.
type Curve = (String, Vec<(f64, f64)>);

/// The curves of `mrc`, one per policy and method, in row order.
fn curves(mrc: &Mrc) -> Vec<Curve> {
    let mut out: Vec<Curve> = Vec::new();
    // A byte capacity has no place on the count axis: the table lists those rows.
    for r in mrc.rows.iter().filter(|r| r.cache_bytes.is_none()) {
        let label = match r.method {
            Method::Exact => format!("{} (exact)", r.policy),
            Method::Sampled => format!("{} (sampled, R={})", r.policy, r.sample_rate),
        };
        if out.last().map_or(true, |(l, _)| *l != label) {
            out.push((label, Vec::new()));
        }
        let x = chart::log2_blocks(r.cache_blocks.unwrap_or(1).max(1));
        out.last_mut()
            .expect("pushed above")
            .1
            .push((x, r.miss_ratio));
    }
    out
}

/// A size label for the log2 axis: `2^x` rounded, with k/M suffixes.
fn size_label(x: &f64) -> String {
    let v = chart::blocks_at(*x);
    if v >= 1e6 {
        format!("{}M", (v / 1e5).round() / 10.0)
    } else if v >= 1e3 {
        format!("{}k", (v / 1e2).round() / 10.0)
    } else {
        format!("{v}")
    }
}

/// The size axis: from the first size to the last (a quarter step of margin each side), with a
/// tick at every power of two between them, and at both ends when fewer than three powers fit.
fn size_axis(all: &[Curve]) -> chart::SizeAxis {
    let xs = || all.iter().flat_map(|(_, p)| p.iter().map(|&(x, _)| x));
    let lo = xs().fold(f64::INFINITY, f64::min);
    let hi = xs().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
    let mut ticks: Vec<f64> = (lo.ceil() as i64..=hi.floor() as i64)
        .map(|k| k as f64)
        .collect();
    if ticks.len() < 3 {
        ticks.push(lo);
        ticks.push(hi);
        ticks.sort_by(f64::total_cmp);
        ticks.dedup();
    }
    let margin = ((hi - lo) * 0.02).max(0.25);
    chart::SizeAxis {
        range: lo - margin..hi + margin,
        ticks,
    }
}

/// Chart size in pixels (the headless-Chromium test checks it).
pub const SIZE: (u32, u32) = (960, 540);
/// Width of the plot's part of the chart; the legend takes the rest.
const PLOT_WIDTH: u32 = 700;
/// Dash and gap lengths (pixels) of curves after the first, which is solid: where curves
/// coincide, the ones drawn later leave gaps through which the earlier ones show.
const DASHES: [(u32, u32); 4] = [(10, 6), (3, 5), (16, 5), (6, 10)];
/// Dash and gap of the compulsory-miss floor's grey line.
const FLOOR_DASH: (u32, u32) = (8, 6);
/// Markers per curve, about: spread along it and staggered between curves, so that curves drawn
/// on top of each other still show every curve's markers side by side.
const MARKS: usize = 12;

/// Up to this many curves are all highlighted; with more, only those that matter are.
const ALL: usize = 6;
/// A size where more curves than this tie for the lowest miss ratio makes none of them a winner.
const TIES: usize = 3;

/// Each curve's role: highlighted (LRU in slot 0, FIFO in 1, then the others in curve order) when
/// there are at most `ALL` curves, or when it is LRU's, FIFO's, named in `named` (a policy or a
/// curve's label) or lowest at some size (unless more than `TIES` tie there); else grey.
fn roles(all: &[Curve], policies: &[&str], named: &[String]) -> Vec<Role> {
    let mut lowest = vec![false; all.len()];
    let sizes: Vec<f64> = {
        let mut xs: Vec<f64> = all
            .iter()
            .flat_map(|(_, p)| p.iter().map(|&(x, _)| x))
            .collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        xs
    };
    for x in sizes {
        let at: Vec<(usize, f64)> = all
            .iter()
            .enumerate()
            .filter_map(|(i, (_, p))| p.iter().find(|q| q.0 == x).map(|q| (i, q.1)))
            .collect();
        let best = at.iter().map(|a| a.1).fold(f64::INFINITY, f64::min);
        let tied: Vec<usize> = at
            .iter()
            .filter(|a| (a.1 - best).abs() <= 1e-12)
            .map(|a| a.0)
            .collect();
        if tied.len() <= TIES {
            for i in tied {
                lowest[i] = true;
            }
        }
    }
    let mut next = 2;
    (0..all.len())
        .map(|i| {
            let policy = policies[i];
            let shown = all.len() <= ALL
                || lowest[i]
                || ["lru", "fifo"].contains(&policy)
                || named.iter().any(|n| n == policy || *n == all[i].0);
            match policy {
                _ if !shown => Role::Other,
                "lru" if !policies[..i].contains(&"lru") => Role::Highlight(0),
                "fifo" if !policies[..i].contains(&"fifo") => Role::Highlight(1),
                _ => {
                    next += 1;
                    Role::Highlight(next - 1)
                }
            }
        })
        .collect()
}

/// How curve `i` of `n` in `role` is drawn: its look, its dash (`None`: solid) and which of its
/// `points` points carry a marker. Highlighted curves after the first are dashed, each its own
/// way, so curves drawn on top of each other leave gaps through which the others show.
fn style(
    role: Role,
    i: usize,
    n: usize,
    points: usize,
) -> (chart::Look, Option<(u32, u32)>, Vec<usize>) {
    let l = look(role);
    let dash = match role {
        Role::Highlight(k) if k > 0 => Some(DASHES[(k - 1) % DASHES.len()]),
        _ => None,
    };
    let every = points.div_ceil(MARKS).max(1);
    // Curve i starts its markers i/n of the way into the interval, so no two curves share one.
    let offset = (i * every) / n.max(1);
    let at = if l.marker.is_some() {
        (0..points)
            .filter(|j| j % every == offset % every)
            .collect()
    } else {
        Vec::new()
    };
    (l, dash, at)
}

/// Each curve's policy, in the order of `curves`.
fn curve_policies(mrc: &Mrc) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let mut last: Option<(&str, Method)> = None;
    for r in &mrc.rows {
        if last != Some((r.policy.as_str(), r.method)) {
            out.push(r.policy.split('(').next().unwrap_or_default());
            last = Some((r.policy.as_str(), r.method));
        }
    }
    out
}

/// The curves as an SVG document, with the compulsory-miss floor as a grey dashed line; the
/// curves of `highlight` (policies or curve labels) are highlighted besides those that matter.
pub fn svg(mrc: &Mrc, title: &str, highlight: &[String]) -> Result<String> {
    let all = curves(mrc);
    let roles = roles(&all, &curve_policies(mrc), highlight);
    let axis = size_axis(&all);
    let (x0, x1) = (axis.range.start, axis.range.end);
    let mut values: Vec<f64> = all
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .collect();
    values.push(mrc.floor);
    let (y0, y1) = chart::value_span(&values, Some(1.0));
    let y_desc = format!(
        "miss ratio (axis from {y0:.2} to {y1:.2}{})",
        if y0 > 0.0 { ", not from 0" } else { "" }
    );
    let e = |e: &dyn std::fmt::Display| chart::error(title, e);
    let floor_style = chart::GREY.stroke_width(2);
    // Grey curves first, the highlighted ones over them (in slot order).
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&i| (roles[i], i));
    chart::document(title, SIZE, |root| {
        let (plot, legend) = root.split_horizontally(PLOT_WIDTH);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 24))
            .margin(12)
            .x_label_area_size(56)
            .y_label_area_size(70)
            .build_cartesian_2d(axis, y0..y1)
            .map_err(|x| e(&x))?;
        chart
            .configure_mesh()
            .x_desc(chart::SIZE_AXIS)
            .y_desc(y_desc.as_str())
            .y_labels(11)
            .x_label_formatter(&size_label)
            .y_label_formatter(&|v| format!("{v:.2}"))
            // A light grid at the labelled values only: the lines stay readable over it.
            .bold_line_style(RGBColor(225, 225, 225))
            .max_light_lines(0)
            .label_style(("sans-serif", 17))
            .axis_desc_style(("sans-serif", 18))
            .draw()
            .map_err(|x| e(&x))?;
        chart
            .draw_series(DashedLineSeries::new(
                vec![(x0, mrc.floor), (x1, mrc.floor)],
                FLOOR_DASH.0,
                FLOOR_DASH.1,
                floor_style,
            ))
            .map_err(|x| e(&x))?;
        let n = all.len();
        for &i in &order {
            let points = &all[i].1;
            let (l, dash, marks) = style(roles[i], i, n, points.len());
            let style = l.colour.stroke_width(if roles[i] == Role::Other {
                1
            } else if dash.is_none() {
                3
            } else {
                2
            });
            match dash {
                None => chart
                    .draw_series(LineSeries::new(points.iter().copied(), style))
                    .map(|_| ()),
                Some((on, off)) => chart
                    .draw_series(DashedLineSeries::new(
                        points.iter().copied(),
                        on,
                        off,
                        style,
                    ))
                    .map(|_| ()),
            }
            .map_err(|x| e(&x))?;
            if let Some(shape) = l.marker {
                for j in marks {
                    // The chart's pixels are the root's: the plot area starts at the root's origin.
                    chart::marker(root, chart.backend_coord(&points[j]), shape, l.colour)?;
                }
            }
        }
        // The legend: one entry per highlighted curve in slot order, one for the grey curves,
        // then the floor.
        let text = ("sans-serif", 16).into_font().color(&BLACK);
        let entry_y = |k: usize| 60 + 26 * k as i32;
        // A legend entry's sample of its line: the line's dashes laid out from x = 8 to 48.
        let sample = |y: i32, style: ShapeStyle, dash: Option<(u32, u32)>| -> Result<()> {
            let (on, off) = dash.map_or((40, 0), |(on, off)| (on as i32, off as i32));
            let mut x = 8;
            while x < 48 {
                legend
                    .draw(&PathElement::new(
                        vec![(x, y), ((x + on).min(48), y)],
                        style,
                    ))
                    .map_err(|x| e(&x))?;
                x += on + off;
            }
            Ok(())
        };
        let mut k = 0;
        for &i in order.iter().filter(|&&i| roles[i] != Role::Other) {
            let (l, dash, _) = style(roles[i], i, n, all[i].1.len());
            let y = entry_y(k);
            sample(
                y,
                l.colour.stroke_width(if dash.is_none() { 3 } else { 2 }),
                dash,
            )?;
            if let Some(shape) = l.marker {
                chart::marker(&legend, (28, y), shape, l.colour)?;
            }
            legend
                .draw(&Text::new(all[i].0.clone(), (56, y - 8), text.clone()))
                .map_err(|x| e(&x))?;
            k += 1;
        }
        let grey = roles.iter().filter(|r| **r == Role::Other).count();
        if grey > 0 {
            let y = entry_y(k);
            sample(y, chart::OTHER.stroke_width(2), None)?;
            legend
                .draw(&Text::new(
                    format!("{grey} other curves (grey)"),
                    (56, y - 8),
                    text.clone(),
                ))
                .map_err(|x| e(&x))?;
            k += 1;
        }
        let y = entry_y(k);
        sample(y, floor_style, Some(FLOOR_DASH))?;
        legend
            .draw(&Text::new(
                format!("compulsory misses ({:.3})", mrc.floor),
                (56, y - 8),
                text.clone(),
            ))
            .map_err(|x| e(&x))?;
        Ok(())
    })
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A self-contained HTML page: a summary line, the chart and the rows.
/// `warning`, if any, is shown above the chart (the one `belady mrc` prints on stderr).
pub fn page(
    source: &str,
    mrc: &Mrc,
    ops: OpFilter,
    warning: Option<&str>,
    highlight: &[String],
) -> Result<String> {
    let chart = svg(mrc, "Miss-ratio curves", highlight)?;
    let mut rows = String::new();
    for r in &mrc.rows {
        rows.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{:.4}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&r.policy),
            r.cache_bytes.map_or_else(
                || r.cache_blocks.unwrap_or(0).to_string(),
                |b| format!("{b} bytes")
            ),
            r.miss_ratio,
            r.hits,
            r.method.name(),
            r.sample_rate
        ));
    }
    Ok(format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>belady mrc: {title}</title>\n\
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}\
td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}</style></head><body>\n\
<h1>Miss-ratio curves</h1>\n<p>{summary}</p>\n{warning}{chart}\n\
<details><summary>{n} rows</summary><table>\n\
<tr><th>policy</th><th>cache_blocks</th><th>miss_ratio</th><th>hits</th><th>method</th><th>sample_rate</th></tr>\n\
{rows}</table></details>\n</body></html>\n",
        title = escape(source),
        summary = escape(&crate::mrc_cmd::summary(source, mrc, ops)),
        n = mrc.rows.len(),
        warning = warning.map_or_else(String::new, |w| format!(
            "<p style=\"color:#a00\"><strong>{}</strong></p>\n",
            escape(w)
        )),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use belady_core::analysis::mrc::MrcRow;

    fn row(policy: &str, c: u64, mr: f64, method: Method) -> MrcRow {
        MrcRow {
            policy: policy.into(),
            cache_blocks: Some(c),
            cache_bytes: None,
            miss_ratio: mr,
            hits: 0,
            requests: 10,
            method,
            sample_rate: if method == Method::Exact { 1.0 } else { 0.01 },
        }
    }

    #[test]
    fn one_curve_per_policy_and_method() {
        let mrc = Mrc {
            rows: vec![
                row("lru", 1, 0.9, Method::Exact),
                row("lru", 4, 0.5, Method::Exact),
                row("arc", 1, 0.8, Method::Sampled),
                row("arc", 4, 0.4, Method::Sampled),
            ],
            references: 10,
            unique_blocks: 4,
            unique_estimated: false,
            sizes: vec![1, 4],
            floor: 0.4,
            raised_to_floor: 0,
        };
        let c = curves(&mrc);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].1, vec![(0.0, 0.9), (2.0, 0.5)]);
        let html = page(
            "a<b>.trace",
            &mrc,
            OpFilter::Read,
            Some("warning: few"),
            &[],
        )
        .unwrap();
        assert!(html.contains("<svg"), "no chart");
        assert!(html.contains("arc (sampled, R=0.01)"));
        assert!(html.contains("a&lt;b&gt;.trace") && !html.contains("a<b>"));
        assert_eq!(size_label(&10.0), "1k");
        assert_eq!(size_label(&20.0), "1M");
        assert!(
            html.contains("compulsory misses (0.400)"),
            "the floor's legend"
        );
        assert!(html.contains("<strong>warning: few</strong>"));
    }

    #[test]
    fn the_size_axis_starts_at_the_first_size() {
        let curve = |xs: &[u64]| {
            (
                "c".to_string(),
                xs.iter()
                    .map(|&b| (chart::log2_blocks(b), 0.5))
                    .collect::<Vec<_>>(),
            )
        };
        // The quick start's sizes: 100 to 3,083 blocks (not from 1).
        let axis = size_axis(&[curve(&[100, 400, 3083])]);
        let (lo, hi) = (chart::log2_blocks(100), chart::log2_blocks(3083));
        assert!(
            axis.range.start < lo && axis.range.start > lo - 0.3,
            "{:?}",
            axis.range
        );
        assert!(axis.range.end > hi && axis.range.end < hi + 0.3);
        // Ticks at the powers of two in between: 128 .. 2048.
        assert_eq!(axis.ticks, vec![7.0, 8.0, 9.0, 10.0, 11.0]);
        // A narrow range still gets ticks at both ends.
        let narrow = size_axis(&[curve(&[100, 150])]);
        assert_eq!(narrow.ticks.first(), Some(&chart::log2_blocks(100)));
        assert_eq!(narrow.ticks.last(), Some(&chart::log2_blocks(150)));
    }

    #[test]
    fn coinciding_curves_differ_in_dash_and_put_markers_at_different_points() {
        let n = 3;
        let looks: Vec<_> = (0..n)
            .map(|i| style(Role::Highlight(i), i, n, 100))
            .collect();
        // Solid first, then dashes that differ from one another.
        assert_eq!(looks[0].1, None);
        assert!(looks[1].1.is_some() && looks[2].1.is_some() && looks[1].1 != looks[2].1);
        for (i, a) in looks.iter().enumerate() {
            assert!(a.2.len() >= MARKS - 1, "about {MARKS} markers: {:?}", a.2);
            for b in &looks[i + 1..] {
                assert_ne!(a.0.colour, b.0.colour, "colours");
                assert_ne!(a.0.marker, b.0.marker, "marker shapes");
                assert!(a.2.iter().all(|j| !b.2.contains(j)), "{:?} {:?}", a.2, b.2);
            }
        }
    }

    #[test]
    fn with_many_curves_only_those_that_matter_are_highlighted() {
        let curve = |label: &str, ys: &[f64]| -> Curve {
            (
                label.to_string(),
                ys.iter().enumerate().map(|(i, &y)| (i as f64, y)).collect(),
            )
        };
        let all = vec![
            curve("arc (exact)", &[0.5, 0.4]),
            curve("lru (exact)", &[0.6, 0.5]),
            curve("lirs (exact)", &[0.4, 0.45]),
            curve("fifo (exact)", &[0.7, 0.6]),
            curve("clock (exact)", &[0.65, 0.55]),
            curve("2q (exact)", &[0.66, 0.56]),
            curve("sieve (exact)", &[0.64, 0.54]),
        ];
        let policies = ["arc", "lru", "lirs", "fifo", "clock", "2q", "sieve"];
        let roles = roles(&all, &policies, &["sieve".to_string()]);
        // arc is lowest at the larger size, lirs at the smaller; lru and fifo are the baselines;
        // sieve is named; clock and 2q are grey.
        assert_eq!(
            roles,
            [
                Role::Highlight(2),
                Role::Highlight(0),
                Role::Highlight(3),
                Role::Highlight(1),
                Role::Other,
                Role::Other,
                Role::Highlight(4),
            ]
        );
        // A few curves are all highlighted.
        let few = super::roles(&all[..3], &policies[..3], &[]);
        assert!(
            few.iter().all(|r| matches!(r, Role::Highlight(_))),
            "{few:?}"
        );
    }
}
