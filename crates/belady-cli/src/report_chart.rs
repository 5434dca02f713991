//! One line chart of the report as standalone SVG (the document, palette and markers are
//! `chart`'s).
//!
//! The cache-size axis is log2 with a tick at each simulated size; lines take the Okabe–Ito
//! palette, each with its own marker, dashed beyond the palette's eight colours; OPT is the grey
//! dashed reference line.

use crate::chart::{self, look, marker, SizeAxis};
use anyhow::Result;
use plotters::prelude::*;

/// Chart size in pixels (the headless-Chromium test checks it).
pub const SIZE: (u32, u32) = (520, 340);
/// Width of the plot's half of the chart; the legend takes the rest.
const PLOT_WIDTH: u32 = 370;

/// One line: its label and its (cache blocks, value) points, sorted by size.
pub struct Line {
    /// The legend's text.
    pub label: String,
    /// The line's place in the report's order of lines, which picks its colour and marker (so a
    /// policy looks the same in every chart); `None` for the offline optimum, the reference.
    pub index: Option<usize>,
    /// (cache blocks, value).
    pub points: Vec<(u64, f64)>,
}

/// Tick labels: whole numbers as such, large ones shortened.
pub fn label(v: f64) -> String {
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

/// The chart as SVG text. `percent` caps the y axis at 100.
pub fn draw(title: &str, axis: &str, lines: &[Line], percent: bool) -> Result<String> {
    let err = |e: &dyn std::fmt::Display| chart::error(title, e);
    let mut sizes: Vec<u64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .filter(|&s| s > 0)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let ticks: Vec<f64> = sizes.iter().map(|&s| chart::log2_blocks(s)).collect();
    let (x0, x1) = match (ticks.first(), ticks.last()) {
        (Some(&a), Some(&b)) => (a - 0.25, b + 0.25),
        _ => (0.0, 1.0),
    };
    let top = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max);
    let y1 = if top <= 0.0 {
        1.0
    } else if percent {
        (top * 1.08).min(100.0)
    } else {
        top * 1.08
    };
    chart::document(title, SIZE, |root| {
        let (plot, legend) = root.split_horizontally(PLOT_WIDTH);
        let mut chart = ChartBuilder::on(&plot)
            .caption(title, ("sans-serif", 17))
            .margin(8)
            .x_label_area_size(40)
            .y_label_area_size(58)
            .build_cartesian_2d(
                SizeAxis {
                    range: x0..x1,
                    ticks: ticks.clone(),
                },
                0f64..y1,
            )
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_labels(ticks.len().max(1))
            .y_labels(6)
            .x_desc(chart::SIZE_AXIS)
            .y_desc(axis)
            .x_label_formatter(&|v| format!("{}", chart::blocks_at(*v) as u64))
            .y_label_formatter(&|v| label(*v))
            .bold_line_style(RGBColor(225, 225, 225))
            .max_light_lines(0)
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 15))
            .draw()
            .map_err(|e| err(&e))?;
        for (entry, line) in lines.iter().enumerate() {
            let l = look(line.index);
            let pts: Vec<(f64, f64)> = line
                .points
                .iter()
                .filter(|p| p.0 > 0)
                .map(|&(x, y)| (chart::log2_blocks(x), y))
                .collect();
            let style = l.colour.stroke_width(2);
            if l.dashed {
                chart
                    .draw_series(DashedLineSeries::new(pts.clone(), 6, 4, style))
                    .map_err(|e| err(&e))?;
            } else {
                chart
                    .draw_series(LineSeries::new(pts.clone(), style))
                    .map_err(|e| err(&e))?;
            }
            if let Some(shape) = l.marker {
                for &p in &pts {
                    let at = chart.backend_coord(&p);
                    // The chart's pixels are the root's; the plot area starts at the root's origin.
                    marker(root, at, shape, l.colour)?;
                }
            }
            // The legend, one entry per line in the chart's order.
            let y = 40 + 16 * entry as i32;
            if l.dashed {
                for x in [6, 20] {
                    legend
                        .draw(&PathElement::new(vec![(x, y), (x + 8, y)], style))
                        .map_err(|e| err(&e))?;
                }
            } else {
                legend
                    .draw(&PathElement::new(vec![(6, y), (34, y)], style))
                    .map_err(|e| err(&e))?;
            }
            if let Some(shape) = l.marker {
                marker(&legend, (20, y), shape, l.colour)?;
            }
            legend
                .draw(&Text::new(
                    line.label.clone(),
                    (40, y - 6),
                    ("sans-serif", 15).into_font().color(&BLACK),
                ))
                .map_err(|e| err(&e))?;
        }
        Ok(())
    })
}
