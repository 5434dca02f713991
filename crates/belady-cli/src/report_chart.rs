//! One line chart of the report as standalone SVG (the document, palette and markers are
//! `chart`'s).
//!
//! The cache-size axis is log2 with a tick at each simulated size; lines take the Okabe–Ito
//! palette, each with its own marker, dashed beyond the palette's eight colours; OPT is the grey
//! dashed reference line, drawn last so a line under it shows through its gaps.
//!
//! Ties stay visible: lines equal at every size are drawn once under one legend entry naming them
//! all ("arc, lru (tied)"), and markers that would cover one another at a size (lines meeting at
//! one point) are spread sideways so each shows.

use crate::chart::{self, look, marker, SizeAxis};
use anyhow::Result;
use belady_core::run::rows::{bytes_label, CapacityUnit};
use plotters::prelude::*;

/// Chart size in pixels (the headless-Chromium test checks it); a long legend makes it taller,
/// below the plot.
pub const SIZE: (u32, u32) = (520, 340);
/// The legend's text: size, line height, and characters per line before a label wraps.
const LEGEND_FONT: u32 = 15;
const LEGEND_ROW: i32 = 16;
const LEGEND_CHARS: usize = 17;
/// Markers closer than this (pixels, vertically) at one size are spread sideways by `SPREAD`,
/// closer together when many meet, so a cluster stays within `SPREAD_MAX` of its size.
const NEAR: i32 = 5;
const SPREAD: i32 = 7;
const SPREAD_MAX: i32 = 28;
/// Width of the plot's half of the chart; the legend takes the rest.
const PLOT_WIDTH: u32 = 370;

/// One line: its label and its (capacity, value) points, sorted by size (capacities of one unit).
pub struct Line {
    /// The legend's text.
    pub label: String,
    /// The line's place in the report's order of lines, which picks its colour and marker (so a
    /// policy looks the same in every chart); `None` for the offline optimum, the reference.
    pub index: Option<usize>,
    /// (capacity, value).
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

/// Lines equal at every point merged into one, labelled with every member's name and "(tied)",
/// drawn in the first member's look; the reference line is never merged.
pub fn merge_ties(lines: &[Line]) -> Vec<Line> {
    let same = |a: &Line, b: &Line| {
        a.points.len() == b.points.len()
            && a.points.iter().zip(&b.points).all(|(p, q)| {
                p.0 == q.0 && (p.1 - q.1).abs() <= 1e-9 * p.1.abs().max(q.1.abs()).max(1.0)
            })
    };
    let mut groups: Vec<Vec<&Line>> = Vec::new();
    for line in lines {
        match groups
            .iter_mut()
            .find(|g| line.index.is_some() && g[0].index.is_some() && same(g[0], line))
        {
            Some(g) => g.push(line),
            None => groups.push(vec![line]),
        }
    }
    groups
        .into_iter()
        .map(|g| Line {
            label: if g.len() == 1 {
                g[0].label.clone()
            } else {
                let names: Vec<&str> = g.iter().map(|l| l.label.as_str()).collect();
                format!("{} (tied)", names.join(", "))
            },
            index: g[0].index,
            points: g[0].points.clone(),
        })
        .collect()
}

/// `label` in rows of about `LEGEND_CHARS` characters, broken after commas and spaces.
fn wrap(label: &str) -> Vec<String> {
    let mut rows: Vec<String> = vec![String::new()];
    for word in label.split_inclusive(' ') {
        let row = rows.last_mut().expect("one row at least");
        if !row.is_empty() && row.len() + word.trim_end().len() > LEGEND_CHARS {
            rows.push(word.to_string());
        } else {
            row.push_str(word);
        }
    }
    rows.into_iter().map(|r| r.trim_end().to_string()).collect()
}

/// Horizontal offsets (pixels) for markers at `at` (one per marker, as backend pixels): markers
/// at one x within `NEAR` pixels of each other vertically are spread `SPREAD` apart around it.
fn spread(at: &[(i32, i32)]) -> Vec<i32> {
    let mut order: Vec<usize> = (0..at.len()).collect();
    order.sort_by_key(|&i| (at[i].0, at[i].1, i));
    let mut dx = vec![0; at.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len()
            && at[order[end]].0 == at[order[start]].0
            && at[order[end]].1 - at[order[end - 1]].1 <= NEAR
        {
            end += 1;
        }
        let n = (end - start) as i32;
        // Centred on the size: -(n-1)/2 .. (n-1)/2 steps, in the order of their heights.
        let half = ((n - 1) * SPREAD / 2).min(SPREAD_MAX);
        for (k, &i) in order[start..end].iter().enumerate() {
            dx[i] = if n == 1 {
                0
            } else {
                (2 * k as i32 - (n - 1)) * half / (n - 1)
            };
        }
        start = end;
    }
    dx
}

/// The chart's height: `SIZE`'s, or more when the legend's rows need it.
pub fn height(lines: &[Line]) -> u32 {
    let rows: usize = merge_ties(lines).iter().map(|l| wrap(&l.label).len()).sum();
    let entries = merge_ties(lines).len();
    let needed = 40 + LEGEND_ROW * rows as i32 + 4 * entries as i32 + 8;
    SIZE.1.max(needed as u32)
}

/// The chart as SVG text. `percent` caps the y axis at 100; `unit` is what the sizes count
/// (a byte capacity's tick is its size, `64MiB`).
pub fn draw(
    title: &str,
    axis: &str,
    lines: &[Line],
    percent: bool,
    unit: CapacityUnit,
) -> Result<String> {
    let err = |e: &dyn std::fmt::Display| chart::error(title, e);
    let height = height(lines);
    let mut lines = merge_ties(lines);
    // The reference last, on top: its dashes let a line it covers show through.
    lines.sort_by_key(|l| l.index.is_none());
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
    chart::document(title, (SIZE.0, height), |root| {
        let (left, legend) = root.split_horizontally(PLOT_WIDTH);
        // The plot keeps its place and size whatever the legend's length.
        let (plot, _) = left.split_vertically(SIZE.1);
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
            .x_desc(format!("cache size ({}, log2 scale)", unit.name()))
            .y_desc(axis)
            .x_label_formatter(&|v| {
                let size = chart::blocks_at(*v) as u64;
                match unit {
                    CapacityUnit::Bytes => bytes_label(size),
                    _ => size.to_string(),
                }
            })
            .y_label_formatter(&|v| label(*v))
            .bold_line_style(RGBColor(225, 225, 225))
            .max_light_lines(0)
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 15))
            .draw()
            .map_err(|e| err(&e))?;
        let mut marks: Vec<((i32, i32), usize, RGBColor)> = Vec::new();
        for line in &lines {
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
                marks.extend(
                    pts.iter()
                        .map(|p| (chart.backend_coord(p), shape, l.colour)),
                );
            }
        }
        // Markers after every line, spread where they would cover one another.
        let dx = spread(&marks.iter().map(|m| m.0).collect::<Vec<_>>());
        for (&((x, y), shape, colour), dx) in marks.iter().zip(dx) {
            // The chart's pixels are the root's: the plot area starts at the root's origin.
            marker(root, (x + dx, y), shape, colour)?;
        }
        // The legend, one entry per drawn line (the reference first), each label wrapped.
        let mut y = 40;
        let reference_first = lines.iter().filter(|l| l.index.is_none());
        for line in reference_first.chain(lines.iter().filter(|l| l.index.is_some())) {
            let l = look(line.index);
            let style = l.colour.stroke_width(2);
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
            for row in wrap(&line.label) {
                legend
                    .draw(&Text::new(
                        row,
                        (40, y - 6),
                        ("sans-serif", LEGEND_FONT).into_font().color(&BLACK),
                    ))
                    .map_err(|e| err(&e))?;
                y += LEGEND_ROW;
            }
            y += 4;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(label: &str, index: Option<usize>, values: &[f64]) -> Line {
        Line {
            label: label.into(),
            index,
            points: values
                .iter()
                .enumerate()
                .map(|(i, &v)| (100 << i, v))
                .collect(),
        }
    }

    #[test]
    fn lines_tied_everywhere_share_one_entry_naming_them_all() {
        let lines = [
            line("opt", None, &[1.0, 2.0]),
            line("arc", Some(0), &[1.0, 2.0]),
            line("lirs", Some(1), &[0.5, 2.0]),
            line("lru", Some(2), &[1.0, 2.0]),
        ];
        let merged = merge_ties(&lines);
        let labels: Vec<&str> = merged.iter().map(|l| l.label.as_str()).collect();
        // The reference is never merged; lirs meets the others at one size only.
        assert_eq!(labels, ["opt", "arc, lru (tied)", "lirs"]);
        assert_eq!(merged[1].index, Some(0));
        let svg = draw("t", "hit ratio (%)", &lines, true, CapacityUnit::Blocks).unwrap();
        assert!(svg.contains("\narc, lru (tied)\n"), "{svg}");
    }

    #[test]
    fn markers_meeting_at_a_size_are_spread_apart() {
        // Three markers at one size within a few pixels, one far away, one at another size.
        let dx = spread(&[(10, 50), (10, 52), (10, 200), (10, 54), (40, 50)]);
        assert_eq!(dx[2], 0);
        assert_eq!(dx[4], 0);
        let mut cluster = vec![dx[0], dx[1], dx[3]];
        cluster.sort_unstable();
        assert_eq!(cluster, vec![-SPREAD, 0, SPREAD]);
        // Many at one point stay within SPREAD_MAX of it, each at its own place.
        let many: Vec<(i32, i32)> = (0..22).map(|_| (100, 80)).collect();
        let mut dx = spread(&many);
        assert!(dx.iter().all(|d| d.abs() <= SPREAD_MAX), "{dx:?}");
        dx.dedup();
        assert_eq!(dx.len(), 22, "{dx:?}");
    }

    #[test]
    fn long_legends_wrap_and_make_the_chart_taller() {
        assert_eq!(
            wrap("2q, arc, car, clock, fbr (tied)"),
            ["2q, arc, car,", "clock, fbr (tied)"]
        );
        let few: Vec<Line> = (0..3)
            .map(|i| line(&format!("p{i}"), Some(i), &[i as f64]))
            .collect();
        assert_eq!(height(&few), SIZE.1);
        let many: Vec<Line> = (0..25)
            .map(|i| line(&format!("p{i}"), Some(i), &[i as f64]))
            .collect();
        let tall = height(&many);
        assert!(tall > SIZE.1, "{tall}");
        let svg = draw("t", "y", &many, false, CapacityUnit::Blocks).unwrap();
        assert!(svg.contains(&format!("height=\"{tall}\"")));
        assert!(svg.contains("\np24\n"), "every entry is drawn");
    }
}
