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

/// Okabe & Ito (2008), "Color Universal Design": black, orange, sky blue, bluish green, yellow,
/// blue, vermillion, reddish purple (distinguishable under the common colour-vision deficiencies).
pub const OKABE_ITO: [RGBColor; 8] = [
    RGBColor(0, 0, 0),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 158, 115),
    RGBColor(240, 228, 66),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(204, 121, 167),
];

/// Matplotlib's "tab10" (Tableau 10) line colours, which the miss-ratio curves cycle through.
pub const TAB10: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The reference line's colour (OPT in the report).
const GREY: RGBColor = RGBColor(119, 119, 119);
/// How many marker shapes there are (see `marker`).
const MARKERS: usize = 6;

/// How a line is drawn.
pub struct Look {
    /// The line's and its marker's colour.
    pub colour: RGBColor,
    /// The marker shape (see `marker`), if any.
    pub marker: Option<usize>,
    /// Dashed rather than solid.
    pub dashed: bool,
}

/// Line `index` (counting lines that are not the reference; `None` for the reference) in the
/// Okabe–Ito palette: each with its own marker, dashed beyond the palette's eight colours; the
/// reference is a grey dashed line without markers.
pub fn look(index: Option<usize>) -> Look {
    let Some(i) = index else {
        return Look {
            colour: GREY,
            marker: None,
            dashed: true,
        };
    };
    Look {
        colour: OKABE_ITO[i % OKABE_ITO.len()],
        marker: Some(i % MARKERS),
        dashed: i >= OKABE_ITO.len(),
    }
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
        _ => area.draw(&Circle::new(at, 3, colour.stroke_width(2))),
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
    fn lines_past_the_palette_are_dashed_and_the_reference_is_grey() {
        let first = look(Some(0));
        assert_eq!(
            (first.colour, first.marker, first.dashed),
            (OKABE_ITO[0], Some(0), false)
        );
        let ninth = look(Some(8));
        assert_eq!(
            (ninth.colour, ninth.marker, ninth.dashed),
            (OKABE_ITO[0], Some(2), true)
        );
        let reference = look(None);
        assert_eq!(
            (reference.colour, reference.marker, reference.dashed),
            (GREY, None, true)
        );
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
