//! The seek curve of [`super::HddModel`]: a table of measured points or Ruemmler & Wilkes'
//! two-part formula.

use crate::disk::check;
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// The seek curve: time to move the arm `d` cylinders (0 for `d = 0`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum SeekSpec {
    /// Measured points `[distance_cylinders, ms]`, strictly increasing in distance, linear in
    /// between; distances below the first point take its time, beyond the last point its time.
    Table {
        /// The curve's points.
        points: Vec<(u32, f64)>,
    },
    /// `a + b·sqrt(d)` for `d < boundary`, `c + e·d` from `boundary` on (milliseconds).
    Formula {
        /// Constant of the short-seek branch.
        a_ms: f64,
        /// Coefficient of sqrt(d) in the short-seek branch.
        b_ms: f64,
        /// Constant of the long-seek branch.
        c_ms: f64,
        /// Coefficient of d in the long-seek branch.
        e_ms: f64,
        /// First distance that uses the long-seek branch.
        boundary: u32,
    },
}

impl SeekSpec {
    /// Seek time in ms over `d` cylinders.
    pub fn time_ms(&self, d: u64) -> f64 {
        if d == 0 {
            return 0.0;
        }
        match self {
            SeekSpec::Table { points } => {
                let i = points.partition_point(|&(x, _)| u64::from(x) < d);
                if i == 0 {
                    return points[0].1;
                }
                if i == points.len() {
                    return points[i - 1].1;
                }
                let (x1, y1) = points[i];
                if u64::from(x1) == d {
                    return y1;
                }
                let (x0, y0) = points[i - 1];
                let f = (d - u64::from(x0)) as f64 / f64::from(x1 - x0);
                y0 + f * (y1 - y0)
            }
            SeekSpec::Formula {
                a_ms,
                b_ms,
                c_ms,
                e_ms,
                boundary,
            } => {
                if d < u64::from(*boundary) {
                    a_ms + b_ms * (d as f64).sqrt()
                } else {
                    c_ms + e_ms * d as f64
                }
            }
        }
    }

    /// Mean seek time in ms between two cylinders drawn uniformly and independently from
    /// `cylinders` (distance 0 included, with time 0).
    pub fn mean_random_ms(&self, cylinders: u64) -> f64 {
        let n = cylinders as f64;
        (1..cylinders)
            .map(|d| 2.0 * (n - d as f64) / (n * n) * self.time_ms(d))
            .sum()
    }

    pub(super) fn validate(&self) -> Result<()> {
        match self {
            SeekSpec::Table { points } => {
                check(
                    !points.is_empty(),
                    "seek.points",
                    "[]",
                    "at least one [distance, ms] point",
                )?;
                let mut last = 0u32;
                for (i, &(d, ms)) in points.iter().enumerate() {
                    check(
                        d > last || (i == 0 && d >= 1),
                        &format!("seek.points[{i}]"),
                        format!("[{d}, {ms}]"),
                        "distances of 1 or more, strictly increasing",
                    )?;
                    crate::limits::check_time(
                        &format!("seek.points[{i}]"),
                        ms,
                        crate::limits::TimeUnit::Ms,
                    )?;
                    last = d;
                }
                Ok(())
            }
            SeekSpec::Formula {
                a_ms,
                b_ms,
                c_ms,
                e_ms,
                boundary,
            } => {
                for (key, v) in [
                    ("seek.a_ms", a_ms),
                    ("seek.b_ms", b_ms),
                    ("seek.c_ms", c_ms),
                    ("seek.e_ms", e_ms),
                ] {
                    crate::limits::check_coefficient(key, *v, crate::limits::TimeUnit::Ms)?;
                }
                check(
                    *boundary >= 1,
                    "seek.boundary",
                    boundary,
                    "a distance of 1 cylinder or more",
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::hdd::HddParams;

    #[test]
    fn seek_table_interpolates_linearly_and_clamps() {
        let s = HddParams::cheetah9lp().seek;
        assert_eq!(s.time_ms(0), 0.0);
        assert_eq!(s.time_ms(1), 0.831);
        assert_eq!(s.time_ms(10), 1.448);
        // Halfway between (10, 1.448) and (12, 1.449).
        assert!((s.time_ms(11) - 1.4485).abs() < 1e-12);
        // A quarter of the way from (500, 3.230) to (600, 3.399).
        assert!((s.time_ms(525) - (3.230 + 0.25 * 0.169)).abs() < 1e-12);
        // Beyond the last point (6894 cylinders): the full-stroke time.
        assert_eq!(s.time_ms(6961), 10.627);
        let table = SeekSpec::Table {
            points: vec![(4, 2.0), (8, 4.0)],
        };
        assert_eq!(table.time_ms(1), 2.0);
        assert_eq!(table.time_ms(6), 3.0);
        assert_eq!(table.time_ms(100), 4.0);
    }

    #[test]
    fn seek_formula_branches() {
        let f = SeekSpec::Formula {
            a_ms: 3.24,
            b_ms: 0.4,
            c_ms: 8.0,
            e_ms: 0.008,
            boundary: 383,
        };
        assert!((f.time_ms(100) - 7.24).abs() < 1e-12);
        assert!((f.time_ms(1000) - 16.0).abs() < 1e-12);
        assert_eq!(f.time_ms(0), 0.0);
    }

    #[test]
    fn cheetah_mean_seek_matches_the_published_value() {
        // Reference notes §6.2: 5.47 ms averaged over uniformly random cylinder pairs.
        let m = HddParams::cheetah9lp().seek.mean_random_ms(6962);
        assert!((m - 5.47).abs() < 0.02, "{m}");
    }
}
