//! One line chart of the report as standalone SVG (the document, palette and markers are
//! `chart`'s).
//!
//! The cache-size axis is log2 with a tick at each simulated size; the value axis spans the data
//! (not from 0 unless the data come near it), and the subtitle says where it starts and ends. A
//! few lines are highlighted, each in its own colour and marker (`chart::look`); the rest are thin
//! light grey lines under one legend entry ("N other policies (grey)"), and OPT is the grey dashed
//! reference. Drawing order is grey, then OPT, then the highlighted lines, so neither the grey
//! lines nor the reference hide a highlighted one.
//!
//! Ties stay visible: highlighted lines equal at every size are drawn once under one legend entry
//! naming them all ("arc, lru (tied)"), and markers that would cover one another at a size (lines
//! meeting at one point) are spread sideways so each shows.

use crate::chart::{self, look, marker, Role, SizeAxis};
use anyhow::Result;
use belady_core::run::rows::{bytes_label, CapacityUnit};
use plotters::prelude::*;

/// Chart size in pixels (the headless-Chromium test checks it); a long legend makes it taller,
/// below the plot, and every chart of a section takes the height of its tallest.
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
/// Height of the title and the subtitle above the plot.
const HEADER: u32 = 44;

/// One line: its label and its (capacity, value) points, sorted by size (capacities of one unit).
pub struct Line {
    /// The legend's text.
    pub label: String,
    /// Highlighted (with its palette slot, the same in every chart of a section), the
    /// reference, or one of the grey rest.
    pub role: Role,
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

/// Highlighted lines equal at every point merged into one, labelled with every member's name and
/// "(tied)" in palette order, drawn in the look of the member with the first slot; the reference
/// and the grey lines are never merged.
pub fn merge_ties(lines: &[Line]) -> Vec<Line> {
    let same = |a: &Line, b: &Line| {
        a.points.len() == b.points.len()
            && a.points.iter().zip(&b.points).all(|(p, q)| {
                p.0 == q.0 && (p.1 - q.1).abs() <= 1e-9 * p.1.abs().max(q.1.abs()).max(1.0)
            })
    };
    let highlighted = |l: &Line| matches!(l.role, Role::Highlight(_));
    let mut groups: Vec<Vec<&Line>> = Vec::new();
    for line in lines {
        match groups
            .iter_mut()
            .find(|g| highlighted(line) && highlighted(g[0]) && same(g[0], line))
        {
            Some(g) => g.push(line),
            None => groups.push(vec![line]),
        }
    }
    groups
        .into_iter()
        .map(|mut g| {
            // The member with the first slot (a baseline before a winner) lends its look.
            g.sort_by_key(|l| l.role);
            g
        })
        .map(|g| Line {
            label: if g.len() == 1 {
                g[0].label.clone()
            } else {
                let names: Vec<&str> = g.iter().map(|l| l.label.as_str()).collect();
                format!("{} (tied)", names.join(", "))
            },
            role: g[0].role,
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

/// The legend's entries, top to bottom: each highlighted line (ties merged) in slot order, the
/// reference, then one entry for the grey lines (`None` as its role's line: its label says how
/// many).
fn legend(lines: &[Line]) -> Vec<(String, Role)> {
    let mut merged = merge_ties(lines);
    merged.sort_by_key(|l| match l.role {
        Role::Highlight(i) => (0, i),
        Role::Reference => (1, 0),
        Role::Other => (2, 0),
    });
    let others = merged.iter().filter(|l| l.role == Role::Other).count();
    let mut entries: Vec<(String, Role)> = merged
        .iter()
        .filter(|l| l.role != Role::Other)
        .map(|l| {
            let label = if l.role == Role::Reference {
                format!("{} (reference)", l.label)
            } else {
                l.label.clone()
            };
            (label, l.role)
        })
        .collect();
    if others > 0 {
        let what = if others == 1 { "policy" } else { "policies" };
        entries.push((format!("{others} other {what} (grey)"), Role::Other));
    }
    entries
}

/// The chart's height: `SIZE`'s, or more when the legend's rows need it.
pub fn height(lines: &[Line]) -> u32 {
    let entries = legend(lines);
    let rows: usize = entries.iter().map(|(l, _)| wrap(l).len()).sum();
    let needed = HEADER as i32 + LEGEND_ROW * rows as i32 + 4 * entries.len() as i32 + 8;
    SIZE.1.max(needed as u32)
}

/// The value axis' subtitle: where it starts and ends (`percent`: in percent).
pub fn span_note(span: (f64, f64), percent: bool) -> String {
    let unit = if percent { "%" } else { "" };
    let from_zero = if span.0 > 0.0 { " (not from 0)" } else { "" };
    format!(
        "y axis from {}{unit} to {}{unit}{from_zero}",
        label(span.0),
        label(span.1)
    )
}

/// The chart as SVG text, `height` pixels tall (at least `height(lines)`: the charts of a row
/// share one height so their plots line up). `percent` caps the value axis at 100; `unit` is what
/// the sizes count (a byte capacity's tick is its size, `64MiB`).
pub fn draw(
    title: &str,
    axis: &str,
    lines: &[Line],
    percent: bool,
    unit: CapacityUnit,
    height: u32,
) -> Result<String> {
    let err = |e: &dyn std::fmt::Display| chart::error(title, e);
    let height = height.max(self::height(lines));
    let entries = legend(lines);
    let mut lines = merge_ties(lines);
    // Grey first, the reference over them, the highlighted lines on top.
    lines.sort_by_key(|l| l.role);
    let mut sizes: Vec<u64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .filter(|&s| s > 0)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let ticks: Vec<f64> = sizes.iter().map(|&s| chart::log2_blocks(s)).collect();
    let (x0, x1) = match (ticks.first(), ticks.last()) {
        // Room for a cluster of spread markers at the first and last size (`SPREAD_MAX` pixels
        // of the plot's ~296): a margin of at least 0.35 of a doubling.
        (Some(&a), Some(&b)) => {
            let margin = (f64::from(SPREAD_MAX + 2) * (b - a) / 236.0).max(0.35);
            (a - margin, b + margin)
        }
        _ => (0.0, 1.0),
    };
    let values: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .collect();
    let (y0, y1) = chart::value_span(&values, percent.then_some(100.0));
    let note = span_note((y0, y1), percent);
    chart::document(title, (SIZE.0, height), |root| {
        let (left, legend_area) = root.split_horizontally(PLOT_WIDTH);
        let text = |size: u32, colour: &RGBColor| ("sans-serif", size).into_font().color(colour);
        root.draw(&Text::new(title.to_string(), (8, 6), text(17, &BLACK)))
            .map_err(|e| err(&e))?;
        root.draw(&Text::new(
            note.clone(),
            (8, 26),
            text(13, &RGBColor(85, 85, 85)),
        ))
        .map_err(|e| err(&e))?;
        // The plot keeps its place and size whatever the legend's length.
        let (_, below) = left.split_vertically(HEADER);
        let (plot, _) = below.split_vertically(SIZE.1 - HEADER);
        let mut chart = ChartBuilder::on(&plot)
            .margin(8)
            .margin_top(4)
            .x_label_area_size(40)
            .y_label_area_size(58)
            .build_cartesian_2d(
                SizeAxis {
                    range: x0..x1,
                    ticks: ticks.clone(),
                },
                y0..y1,
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
            let l = look(line.role);
            let pts: Vec<(f64, f64)> = line
                .points
                .iter()
                .filter(|p| p.0 > 0)
                .map(|&(x, y)| (chart::log2_blocks(x), y))
                .collect();
            let style = l.colour.stroke_width(l.width);
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
        // The legend, one entry per highlighted line, the reference, and the grey rest.
        let mut y = HEADER as i32 + 6;
        for (entry, role) in &entries {
            let l = look(*role);
            let style = l.colour.stroke_width(l.width.max(2));
            if l.dashed {
                for x in [6, 20] {
                    legend_area
                        .draw(&PathElement::new(vec![(x, y), (x + 8, y)], style))
                        .map_err(|e| err(&e))?;
                }
            } else {
                legend_area
                    .draw(&PathElement::new(vec![(6, y), (34, y)], style))
                    .map_err(|e| err(&e))?;
            }
            if let Some(shape) = l.marker {
                marker(&legend_area, (20, y), shape, l.colour)?;
            }
            for row in wrap(entry) {
                legend_area
                    .draw(&Text::new(row, (40, y - 6), text(LEGEND_FONT, &BLACK)))
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

    fn line(label: &str, role: Role, values: &[f64]) -> Line {
        Line {
            label: label.into(),
            role,
            points: values
                .iter()
                .enumerate()
                .map(|(i, &v)| (100 << i, v))
                .collect(),
        }
    }

    #[test]
    fn highlighted_lines_tied_everywhere_share_one_entry_naming_them_all() {
        let lines = [
            line("opt", Role::Reference, &[1.0, 2.0]),
            line("arc", Role::Highlight(2), &[1.0, 2.0]),
            line("lirs", Role::Highlight(3), &[0.5, 2.0]),
            line("lru", Role::Highlight(0), &[1.0, 2.0]),
            line("clock", Role::Other, &[1.0, 2.0]),
            line("2q", Role::Other, &[0.7, 1.0]),
        ];
        let merged = merge_ties(&lines);
        let labels: Vec<&str> = merged.iter().map(|l| l.label.as_str()).collect();
        // Neither the reference nor a grey line is merged; lirs meets the others at one size only.
        assert_eq!(labels, ["opt", "lru, arc (tied)", "lirs", "clock", "2q"]);
        assert_eq!(merged[1].role, Role::Highlight(0));
        let entries: Vec<String> = legend(&lines).into_iter().map(|e| e.0).collect();
        assert_eq!(
            entries,
            [
                "lru, arc (tied)",
                "lirs",
                "opt (reference)",
                "2 other policies (grey)"
            ]
        );
        let svg = draw(
            "t",
            "hit ratio (%)",
            &lines,
            true,
            CapacityUnit::Blocks,
            SIZE.1,
        )
        .unwrap();
        assert!(svg.contains("\nlru, arc (tied)\n"), "{svg}");
        assert!(svg.contains("\n2 other policies\n"), "{svg}");
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
    fn long_legends_wrap_and_make_the_chart_taller_and_a_row_shares_its_height() {
        assert_eq!(
            wrap("2q, arc, car, clock, fbr (tied)"),
            ["2q, arc, car,", "clock, fbr (tied)"]
        );
        let few: Vec<Line> = (0..3)
            .map(|i| line(&format!("p{i}"), Role::Highlight(i), &[i as f64]))
            .collect();
        assert_eq!(height(&few), SIZE.1);
        let many: Vec<Line> = (0..25)
            .map(|i| line(&format!("p{i}"), Role::Highlight(i), &[i as f64]))
            .collect();
        let tall = height(&many);
        assert!(tall > SIZE.1, "{tall}");
        let svg = draw("t", "y", &many, false, CapacityUnit::Blocks, 0).unwrap();
        assert!(svg.contains(&format!("height=\"{tall}\"")));
        assert!(svg.contains("\np24\n"), "every entry is drawn");
        // A chart beside a taller one takes its height.
        let svg = draw("t", "y", &few, false, CapacityUnit::Blocks, tall).unwrap();
        assert!(svg.contains(&format!("height=\"{tall}\"")));
    }

    #[test]
    fn the_subtitle_says_where_the_value_axis_starts() {
        assert_eq!(
            span_note((60.0, 100.0), true),
            "y axis from 60% to 100% (not from 0)"
        );
        assert_eq!(span_note((0.0, 40_000.0), false), "y axis from 0 to 40k");
    }
}
