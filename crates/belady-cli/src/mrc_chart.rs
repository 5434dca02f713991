//! The HTML page of `belady mrc --html`: the curves drawn as an inline SVG (the document, axis
//! and palette are `chart`'s).

use crate::chart::{self, TAB10};
use anyhow::Result;
use belady_core::analysis::mrc::{Method, Mrc};
use belady_core::OpFilter;
use plotters::prelude::*;

/// One curve: its legend label and `(log2 size, miss ratio)` points.
type Curve = (String, Vec<(f64, f64)>);

/// The curves of `mrc`, one per policy and method, in row order.
fn curves(mrc: &Mrc) -> Vec<Curve> {
    let mut out: Vec<Curve> = Vec::new();
    for r in &mrc.rows {
        let label = match r.method {
            Method::Exact => format!("{} (exact)", r.policy),
            Method::Sampled => format!("{} (sampled, R={})", r.policy, r.sample_rate),
        };
        if out.last().map_or(true, |(l, _)| *l != label) {
            out.push((label, Vec::new()));
        }
        let x = chart::log2_blocks(r.cache_blocks.max(1));
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

/// How curve `i` of `n` is drawn: its colour, marker shape, dash (`None`: solid) and which of its
/// `points` points carry a marker.
fn look(i: usize, n: usize, points: usize) -> (RGBColor, usize, Option<(u32, u32)>, Vec<usize>) {
    let colour = TAB10[i % TAB10.len()];
    let dash = (i > 0).then(|| DASHES[(i - 1) % DASHES.len()]);
    let every = points.div_ceil(MARKS).max(1);
    // Curve i starts its markers i/n of the way into the interval, so no two curves share one.
    let offset = (i * every) / n.max(1);
    let at = (0..points)
        .filter(|j| j % every == offset % every)
        .collect();
    (colour, i % 6, dash, at)
}

/// The curves as an SVG document, with the compulsory-miss floor as a grey dashed line.
pub fn svg(mrc: &Mrc, title: &str) -> Result<String> {
    let all = curves(mrc);
    let axis = size_axis(&all);
    let (x0, x1) = (axis.range.start, axis.range.end);
    let e = |e: &dyn std::fmt::Display| chart::error(title, e);
    let floor_style = RGBColor(119, 119, 119).stroke_width(2);
    chart::document(title, SIZE, |root| {
        let (plot, legend) = root.split_horizontally(PLOT_WIDTH);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 24))
            .margin(12)
            .x_label_area_size(56)
            .y_label_area_size(70)
            .build_cartesian_2d(axis, 0f64..1.0)
            .map_err(|x| e(&x))?;
        chart
            .configure_mesh()
            .x_desc(chart::SIZE_AXIS)
            .y_desc("miss ratio")
            .y_labels(11)
            .x_label_formatter(&size_label)
            .y_label_formatter(&|v| format!("{v:.1}"))
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
        for (i, (_, points)) in all.iter().enumerate() {
            let (colour, shape, dash, marks) = look(i, n, points.len());
            let style = colour.stroke_width(if dash.is_none() { 3 } else { 2 });
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
            for j in marks {
                // The chart's pixels are the root's: the plot area starts at the root's origin.
                chart::marker(root, chart.backend_coord(&points[j]), shape, colour)?;
            }
        }
        // The legend: one entry per curve in drawing order, then the floor.
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
        for (i, (label, points)) in all.iter().enumerate() {
            let (colour, shape, dash, _) = look(i, n, points.len());
            let y = entry_y(i);
            let style = colour.stroke_width(if dash.is_none() { 3 } else { 2 });
            sample(y, style, dash)?;
            chart::marker(&legend, (28, y), shape, colour)?;
            legend
                .draw(&Text::new(label.clone(), (56, y - 8), text.clone()))
                .map_err(|x| e(&x))?;
        }
        let y = entry_y(n);
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
pub fn page(source: &str, mrc: &Mrc, ops: OpFilter, warning: Option<&str>) -> Result<String> {
    let chart = svg(mrc, "Miss-ratio curves")?;
    let mut rows = String::new();
    for r in &mrc.rows {
        rows.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{:.4}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&r.policy),
            r.cache_blocks,
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
            cache_blocks: c,
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
        let html = page("a<b>.trace", &mrc, OpFilter::Read, Some("warning: few")).unwrap();
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
        let looks: Vec<_> = (0..n).map(|i| look(i, n, 100)).collect();
        // Solid first, then dashes that differ from one another.
        assert_eq!(looks[0].2, None);
        assert!(looks[1].2.is_some() && looks[2].2.is_some() && looks[1].2 != looks[2].2);
        for (i, a) in looks.iter().enumerate() {
            assert!(a.3.len() >= MARKS - 1, "about {MARKS} markers: {:?}", a.3);
            for b in &looks[i + 1..] {
                assert_ne!(a.0, b.0, "colours");
                assert_ne!(a.1, b.1, "marker shapes");
                assert!(a.3.iter().all(|j| !b.3.contains(j)), "{:?} {:?}", a.3, b.3);
            }
        }
    }
}
