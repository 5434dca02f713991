//! What the CLI's charts share (`belady mrc --html` and `belady report`): the SVG document they
//! are drawn on, the log2 cache-size axis, the palettes and markers, and the error they fail with.
//!
//! Drawn with plotters' SVG backend, so text stays text: a page needs no fonts of its own and
//! the bytes are the same on every machine.

use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::ops::Range;

/// The cache-size axis' description.
pub const SIZE_AXIS: &str = "cache size (blocks, log2 scale)";

/// Where a cache of `blocks` sits on the log2 size axis.
pub fn log2_blocks(blocks: u64) -> f64 {
    (blocks as f64).log2()
}

/// The cache size (in blocks, rounded) at `x` on the log2 size axis.
pub fn blocks_at(x: f64) -> f64 {
    x.exp2().round()
}

/// The cache-size axis: log2 of the size, with a tick at each simulated size (plotters' own
/// log axis puts ticks at powers of ten, which match no simulated size).
pub struct SizeAxis {
    /// The log2 sizes the axis spans.
    pub range: Range<f64>,
    /// The log2 sizes that get a tick.
    pub ticks: Vec<f64>,
}

impl Ranged for SizeAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let share = (value - self.range.start) / (self.range.end - self.range.start);
        limit.0 + (share * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        self.ticks.clone()
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

/// The error a chart named `title` fails with.
pub fn error(title: &str, e: &dyn std::fmt::Display) -> anyhow::Error {
    anyhow!("cannot draw chart {title:?}: {e}")
}

/// An SVG document of `size` pixels on white, with `draw` filling it in; its text.
pub fn document(
    title: &str,
    size: (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<()>,
) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| error(title, &e))?;
        draw(&root)?;
        root.present().map_err(|e| error(title, &e))?;
    }
    Ok(svg)
}

/// The report's highlighted lines (`belady report`, issue 39): twelve colours that read on white
/// and differ from one another and from the greys: black and brown first (the baselines LRU and
/// FIFO take them), then Okabe & Ito's blue, vermillion, bluish green, reddish purple, orange and
/// sky blue, then Tableau's purple, red, cyan and a dark olive.
pub const HIGHLIGHT: [RGBColor; 12] = [
    RGBColor(0, 0, 0),
    RGBColor(140, 86, 75),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(148, 103, 189),
    RGBColor(214, 39, 40),
    RGBColor(23, 190, 207),
    RGBColor(128, 128, 0),
];

/// The reference line's colour (OPT in the report, the compulsory-miss floor in `mrc`).
pub const GREY: RGBColor = RGBColor(119, 119, 119);
/// The colour of the lines a chart does not highlight: light, so they show the spread of the
/// policies without competing with the highlighted ones.
pub const OTHER: RGBColor = RGBColor(208, 208, 208);
/// How many marker shapes there are (see `marker`): one per colour of `HIGHLIGHT`.
pub const MARKERS: usize = 12;

/// How a line is drawn.
pub struct Look {
    /// The line's and its marker's colour.
    pub colour: RGBColor,
    /// The marker shape (see `marker`), if any.
    pub marker: Option<usize>,
    /// Dashed rather than solid.
    pub dashed: bool,
    /// Stroke width in pixels.
    pub width: u32,
}

/// What a line is in a chart that highlights a few lines.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// Not highlighted: thin, light grey, no markers, one legend entry for all of them.
    Other,
    /// The reference (OPT): grey, dashed, no markers.
    Reference,
    /// Highlighted, in palette slot `n`: its own colour and marker.
    Highlight(usize),
}

/// How a line of `role` is drawn: highlighted slot `n` takes `HIGHLIGHT[n]` and marker `n` (modulo
/// twelve: no two of the palette's slots share a colour or a marker; slots past it are dashed).
pub fn look(role: Role) -> Look {
    match role {
        Role::Other => Look {
            colour: OTHER,
            marker: None,
            dashed: false,
            width: 1,
        },
        Role::Reference => Look {
            colour: GREY,
            marker: None,
            dashed: true,
            width: 2,
        },
        Role::Highlight(i) => Look {
            colour: HIGHLIGHT[i % HIGHLIGHT.len()],
            marker: Some(i % MARKERS),
            dashed: i >= HIGHLIGHT.len(),
            width: 2,
        },
    }
}

/// A "nice" step (1, 2 or 5 times a power of ten) of at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let power = 10f64.powf(raw.log10().floor());
    let m = raw / power;
    let f = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    f * power
}

/// The value axis for `values`: spanning the data (with a little room, rounded to a nice step)
/// rather than starting at 0, unless the data come near 0; never below 0 for data that are not,
/// nor above `cap` (100 for percentages, 1 for ratios).
pub fn value_span(values: &[f64], cap: Option<f64>) -> (f64, f64) {
    let finite = || values.iter().copied().filter(|v| v.is_finite());
    let lo = finite().fold(f64::INFINITY, f64::min);
    let hi = finite().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || (lo == 0.0 && hi == 0.0) {
        return (0.0, cap.unwrap_or(1.0));
    }
    let span = if hi > lo {
        hi - lo
    } else {
        hi.abs().max(lo.abs()) * 0.1
    };
    let step = nice_step(span / 5.0);
    let mut y0 = ((lo - span * 0.05) / step).floor() * step;
    let mut y1 = ((hi + span * 0.05) / step).ceil() * step;
    if lo >= 0.0 && y0 < 0.0 {
        y0 = 0.0;
    }
    if let Some(cap) = cap {
        if hi <= cap {
            y1 = y1.min(cap);
        }
    }
    if y1 <= y0 {
        y1 = y0 + step;
    }
    (y0, y1)
}

/// Draws marker `shape` at `at` on `area` (backend pixels).
pub fn marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    shape: usize,
    colour: RGBColor,
) -> Result<()> {
    let fill = colour.filled();
    let (x, y) = at;
    let r = match shape {
        0 => area.draw(&Circle::new(at, 3, fill)),
        1 => area.draw(&Rectangle::new([(x - 3, y - 3), (x + 3, y + 3)], fill)),
        2 => area.draw(&Polygon::new(
            vec![(x, y - 4), (x + 4, y + 3), (x - 4, y + 3)],
            fill,
        )),
        3 => area.draw(&Polygon::new(
            vec![(x, y - 4), (x + 4, y), (x, y + 4), (x - 4, y)],
            fill,
        )),
        4 => area.draw(&Cross::new(at, 4, colour.stroke_width(2))),
        5 => area.draw(&Circle::new(at, 3, colour.stroke_width(2))),
        6 => area.draw(&Polygon::new(
            vec![(x, y + 4), (x + 4, y - 3), (x - 4, y - 3)],
            fill,
        )),
        7 => area.draw(&PathElement::new(
            vec![(x - 5, y), (x + 5, y), (x, y), (x, y - 5), (x, y + 5)],
            colour.stroke_width(2),
        )),
        8 => area.draw(&Rectangle::new(
            [(x - 3, y - 3), (x + 3, y + 3)],
            colour.stroke_width(2),
        )),
        9 => area.draw(&PathElement::new(
            vec![(x, y - 4), (x + 4, y + 3), (x - 4, y + 3), (x, y - 4)],
            colour.stroke_width(2),
        )),
        10 => area.draw(&PathElement::new(
            vec![
                (x, y - 5),
                (x + 4, y),
                (x, y + 5),
                (x - 4, y),
                (x, y - 5),
                (x, y - 5),
            ],
            colour.stroke_width(2),
        )),
        _ => area.draw(&PathElement::new(
            vec![
                (x, y - 5),
                (x, y + 5),
                (x, y),
                (x - 4, y - 3),
                (x + 4, y + 3),
                (x, y),
                (x - 4, y + 3),
                (x + 4, y - 3),
            ],
            colour.stroke_width(2),
        )),
    };
    r.map_err(|e| anyhow!("cannot draw a chart: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_axis_maps_blocks_there_and_back() {
        for blocks in [1u64, 3, 64, 1000, 1 << 20, 123_456_789] {
            assert_eq!(blocks_at(log2_blocks(blocks)), blocks as f64, "{blocks}");
        }
        assert_eq!(log2_blocks(1024), 10.0);
    }

    #[test]
    fn highlighted_slots_differ_in_colour_and_marker_and_the_rest_are_grey() {
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..24 {
            let l = look(Role::Highlight(i));
            let c = l.colour;
            assert!(c != GREY && c != OTHER, "slot {i}");
            assert!(
                seen.insert((c.0, c.1, c.2, l.marker, l.dashed)),
                "slot {i} repeats"
            );
        }
        // Within the palette, colours alone and markers alone tell the slots apart.
        let colours: std::collections::BTreeSet<_> =
            HIGHLIGHT.iter().map(|c| (c.0, c.1, c.2)).collect();
        assert_eq!(colours.len(), HIGHLIGHT.len());
        let markers: std::collections::BTreeSet<_> = (0..HIGHLIGHT.len())
            .map(|i| look(Role::Highlight(i)).marker)
            .collect();
        assert_eq!(markers.len(), HIGHLIGHT.len());
        let other = look(Role::Other);
        assert_eq!((other.colour, other.marker), (OTHER, None));
        let reference = look(Role::Reference);
        assert_eq!(
            (reference.colour, reference.marker, reference.dashed),
            (GREY, None, true)
        );
    }

    #[test]
    fn value_axes_span_the_data_and_start_at_zero_only_near_it() {
        // Hit ratios crowded near the top: the axis spans them, capped at 100%.
        let (lo, hi) = value_span(&[62.3, 75.0, 97.8], Some(100.0));
        assert!(
            lo > 50.0 && lo <= 62.3 && (97.8..=100.0).contains(&hi),
            "{lo} {hi}"
        );
        // Data reaching down near 0 keep the axis from 0.
        assert_eq!(value_span(&[3.0, 60.0], Some(100.0)).0, 0.0);
        // Counts far from 0.
        let (lo, hi) = value_span(&[12_000.0, 40_000.0], None);
        assert!(
            (5_000.0..=12_000.0).contains(&lo) && hi >= 40_000.0,
            "{lo} {hi}"
        );
        // One value, and nothing but zeros, still give an axis of some height.
        let (lo, hi) = value_span(&[50.0, 50.0], Some(100.0));
        assert!(lo < 50.0 && hi > 50.0, "{lo} {hi}");
        assert_eq!(value_span(&[0.0], Some(100.0)), (0.0, 100.0));
    }

    #[test]
    fn drawing_fills_a_white_document_of_the_size_asked() {
        let svg = document("t", (40, 30), |_| Ok(())).unwrap();
        assert!(
            svg.starts_with("<svg")
                && svg.contains("width=\"40\"")
                && svg.contains("height=\"30\""),
            "{svg}"
        );
        assert!(svg.contains("#FFFFFF"), "{svg}");
        let err = document("t", (40, 30), |_| Err(anyhow!("boom"))).unwrap_err();
        assert_eq!(err.to_string(), "boom");
    }
}
