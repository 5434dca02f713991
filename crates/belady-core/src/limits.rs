//! The bounds on every time and rate an input can give (a device parameter, a link, a think
//! time, a trace's timestamp), checked here and nowhere else, so a value past them is refused in
//! one line naming its key and the bound instead of wrapping or saturating in the clock.
//! docs/limits.md lists them.

use crate::error::{Error, Result};

/// Longest single time an option or device parameter may give (one hour): longer than any
/// device's latency or any think time worth simulating, and far from the 64-bit clock's end.
pub const MAX_TIME_NS: u64 = 3_600 * 1_000_000_000;

/// Latest timestamp a trace may carry: 2^64 - 1 ns, about 584 years after its own zero (MSR's
/// Windows file times, counted from 1601, need most of that). The gaps between timestamps
/// become think times, and together they never pass it.
pub const MAX_TIMESTAMP_NS: u64 = u64::MAX;

/// Slowest link (1 kbit/s, 125 bytes per second): a 4 KiB block then crosses it in 33 s.
pub const MIN_LINK_BYTES_PER_S: f64 = 125.0;

/// Fastest link or device bandwidth (1 Pbit/s); anything faster is indistinguishable from
/// infinitely fast at nanosecond resolution for one block.
pub const MAX_BYTES_PER_S: f64 = 1.25e14;

/// Slowest device bandwidth (1 KB/s, as the device models count megabytes per second).
pub const MIN_DEVICE_BYTES_PER_S: f64 = 1e3;

/// How many entries a structure sized "per cached block" gets: the blocks or objects the cache
/// holds (`capacity`), but never more than the trace has (`universe`, its distinct ids). A cache larger than the trace never fills, so entries past the trace's ids would
/// never be used; sizing by the requested capacity alone asks 2^64-block caches for memory they
/// cannot have (and rounds past the largest power of two to zero). Every frequency sketch and
/// filter sized by the cache goes through here (docs/limits.md).
pub fn entries_for(capacity: usize, universe: usize) -> usize {
    capacity.min(universe)
}

/// A unit a time is given in.
#[derive(Clone, Copy, Debug)]
pub enum TimeUnit {
    /// Milliseconds (device parameters).
    Ms,
    /// Microseconds (links, think times, SSD latencies).
    Us,
}

impl TimeUnit {
    fn ns(self) -> f64 {
        match self {
            TimeUnit::Ms => 1e6,
            TimeUnit::Us => 1e3,
        }
    }

    fn name(self) -> &'static str {
        match self {
            TimeUnit::Ms => "milliseconds",
            TimeUnit::Us => "microseconds",
        }
    }
}

/// `value` (in `unit`) as nanoseconds: refused unless finite, 0 or more and at most
/// [`MAX_TIME_NS`].
pub fn time_ns(key: &str, value: f64, unit: TimeUnit) -> Result<u64> {
    let ns = value * unit.ns();
    if value.is_finite() && value >= 0.0 && ns <= MAX_TIME_NS as f64 {
        return Ok(ns.round() as u64);
    }
    Err(Error::config(
        key,
        shown(value),
        format!(
            "expected a time in {}, 0 to {} (one hour)",
            unit.name(),
            MAX_TIME_NS as f64 / unit.ns()
        ),
    ))
}

/// Checks `value` as [`time_ns`] does.
pub fn check_time(key: &str, value: f64, unit: TimeUnit) -> Result<()> {
    time_ns(key, value, unit).map(|_| ())
}

/// Checks a signed coefficient of a time formula (a seek curve's): finite and within one hour
/// either way.
pub fn check_coefficient(key: &str, value: f64, unit: TimeUnit) -> Result<()> {
    check_time(key, value.abs(), unit).map_err(|_| {
        Error::config(
            key,
            shown(value),
            format!(
                "expected {} between -{m} and {m} (one hour)",
                unit.name(),
                m = MAX_TIME_NS as f64 / unit.ns()
            ),
        )
    })
}

/// Checks a bandwidth: `value` counted in units of `unit_bytes_per_s` (named `unit`), between
/// `min_bytes_per_s` and [`MAX_BYTES_PER_S`].
pub fn check_rate(
    key: &str,
    value: f64,
    unit_bytes_per_s: f64,
    unit: &str,
    min_bytes_per_s: f64,
) -> Result<()> {
    let bytes = value * unit_bytes_per_s;
    if value.is_finite() && bytes >= min_bytes_per_s && bytes <= MAX_BYTES_PER_S {
        return Ok(());
    }
    Err(Error::config(
        key,
        shown(value),
        format!(
            "expected a bandwidth of {} to {} {unit}",
            min_bytes_per_s / unit_bytes_per_s,
            MAX_BYTES_PER_S / unit_bytes_per_s
        ),
    ))
}

/// `value` as the user would write it: `1e300`, not three hundred digits.
fn shown(value: f64) -> String {
    let a = value.abs();
    if a != 0.0 && a.is_finite() && !(1e-6..1e15).contains(&a) {
        format!("{value:e}")
    } else {
        value.to_string()
    }
}

/// A trace's timestamp of `value` units of `ns_per_unit` nanoseconds, or `None` when it is not
/// a finite time from 0 to [`MAX_TIMESTAMP_NS`] (the reader then names its line).
pub fn timestamp_ns(value: f64, ns_per_unit: f64) -> Option<u64> {
    let ns = value * ns_per_unit;
    // 2^64 as f64 is the first value past the bound (`as u64` would saturate it silently).
    (value.is_finite() && value >= 0.0 && ns < 18_446_744_073_709_551_616.0).then_some(ns as u64)
}

/// A whole-unit timestamp `value` x `ns_per_unit`, or `None` past [`MAX_TIMESTAMP_NS`] (the
/// largest 64-bit count, so the product must not overflow).
pub fn timestamp_ns_int(value: u64, ns_per_unit: u64) -> Option<u64> {
    value.checked_mul(ns_per_unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_past_an_hour_and_rates_outside_their_range_are_refused_naming_the_key() {
        assert_eq!(time_ns("k", 2.5, TimeUnit::Ms).unwrap(), 2_500_000);
        assert_eq!(time_ns("k", 3.6e6, TimeUnit::Ms).unwrap(), MAX_TIME_NS);
        for bad in [3.6e6 + 1.0, 1e15, f64::INFINITY, f64::NAN, -1.0] {
            let e = time_ns("latency_ms", bad, TimeUnit::Ms)
                .unwrap_err()
                .to_string();
            assert!(e.contains("latency_ms") && e.contains("3600000"), "{e}");
        }
        assert!(check_rate("link_mbps", 1e-3, 1e6 / 8.0, "Mb/s", MIN_LINK_BYTES_PER_S).is_ok());
        for bad in [1e-12, 0.0, -1.0, 1e300, f64::NAN] {
            let e = check_rate("link_mbps", bad, 1e6 / 8.0, "Mb/s", MIN_LINK_BYTES_PER_S)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("link_mbps") && e.contains("0.001 to 1000000000 Mb/s"),
                "{e}"
            );
            assert!(e.len() < 100, "{e}");
        }
        assert_eq!(timestamp_ns(1.5, 1e9), Some(1_500_000_000));
        assert_eq!(timestamp_ns(1e30, 1e9), None);
        assert_eq!(timestamp_ns_int(u64::MAX / 2, 1000), None);
        assert_eq!(timestamp_ns(1.8446744073709552e19, 1.0), None);
        assert_eq!(
            timestamp_ns_int(1_281_663_852_955_146, 100),
            Some(128_166_385_295_514_600)
        );
    }
}
