//! The HTML page of `belady mrc --html`: the curves drawn as an inline SVG (the document, axis
//! and palette are `chart`'s).

use crate::chart::{self, TAB10};
use anyhow::Result;
use belady_core::mrc::{Method, Mrc};
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

/// The curves as an SVG document.
pub fn svg(mrc: &Mrc, title: &str) -> Result<String> {
    let all = curves(mrc);
    let xmax = all
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(x, _)| x))
        .fold(1.0f64, f64::max);
    let e = |e: &dyn std::fmt::Display| chart::error(title, e);
    chart::document(title, (960, 540), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..xmax.ceil().max(1.0), 0f64..1.0)
            .map_err(|x| e(&x))?;
        chart
            .configure_mesh()
            .x_desc(chart::SIZE_AXIS)
            .y_desc("miss ratio")
            .x_labels(16)
            .x_label_formatter(&size_label)
            .draw()
            .map_err(|x| e(&x))?;
        for (i, (label, points)) in all.iter().enumerate() {
            let colour = TAB10[i % TAB10.len()];
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    colour.stroke_width(2),
                ))
                .map_err(|x| e(&x))?
                .label(label.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 2, colour.filled())))
                .map_err(|x| e(&x))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
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
pub fn page(source: &str, mrc: &Mrc, ops: OpFilter) -> Result<String> {
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
<h1>Miss-ratio curves</h1>\n<p>{summary}</p>\n{chart}\n\
<details><summary>{n} rows</summary><table>\n\
<tr><th>policy</th><th>cache_blocks</th><th>miss_ratio</th><th>hits</th><th>method</th><th>sample_rate</th></tr>\n\
{rows}</table></details>\n</body></html>\n",
        title = escape(source),
        summary = escape(&crate::mrc_cmd::summary(source, mrc, ops)),
        n = mrc.rows.len(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use belady_core::mrc::MrcRow;

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
        };
        let c = curves(&mrc);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].1, vec![(0.0, 0.9), (2.0, 0.5)]);
        let html = page("a<b>.trace", &mrc, OpFilter::Read).unwrap();
        assert!(html.contains("<svg"), "no chart");
        assert!(html.contains("arc (sampled, R=0.01)"));
        assert!(html.contains("a&lt;b&gt;.trace") && !html.contains("a<b>"));
        assert_eq!(size_label(&10.0), "1k");
        assert_eq!(size_label(&20.0), "1M");
    }
}
