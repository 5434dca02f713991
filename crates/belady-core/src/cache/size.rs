//! Cache sizes as users write them: blocks, bytes, or a share of the trace's unique blocks.

use crate::error::{Error, Result};

/// A cache size before it is resolved against a trace.
#[derive(Clone, Debug, PartialEq)]
pub enum CacheSize {
    /// A number of blocks.
    Blocks(u64),
    /// A number of bytes, divided by the block size (rounded down).
    Bytes(u64),
    /// A percentage of the trace's unique blocks (rounded down).
    Percent(f64),
}

impl CacheSize {
    /// Parses `20`, `64MiB`, `1.5GB`, `512K` or `1%`.
    ///
    /// `KiB`/`MiB`/`GiB`/`TiB` and the short `K`/`M`/`G`/`T` are powers of 1024; `KB`/`MB`/`GB`/`TB`
    /// are powers of 1000; `B` is bytes.
    pub fn parse(text: &str) -> Result<CacheSize> {
        Self::parse_as(text, "cache_size")
    }

    /// [`CacheSize::parse`] for another option, named `field` in its errors.
    pub fn parse_as(text: &str, field: &str) -> Result<CacheSize> {
        let t = text.trim();
        let bad = |msg: &str| Error::config(field, text, msg.to_string());
        if let Some(pct) = t.strip_suffix('%') {
            let v: f64 = pct
                .trim()
                .parse()
                .map_err(|_| bad("expected a percentage such as 1% or 0.5%"))?;
            if !(v > 0.0 && v <= 100.0) {
                return Err(bad(
                    "a percentage of unique blocks must be above 0 and at most 100",
                ));
            }
            return Ok(CacheSize::Percent(v));
        }
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let unit = unit.trim();
        if num.is_empty() {
            return Err(bad(
                "expected a number of blocks, a byte size (64MiB) or a percentage (1%)",
            ));
        }
        if unit.is_empty() {
            let blocks: u64 = num.parse().map_err(|e: std::num::ParseIntError| {
                if *e.kind() == std::num::IntErrorKind::PosOverflow {
                    bad(&format!("too large: at most {} blocks", u64::MAX))
                } else {
                    bad("a number of blocks must be a whole number")
                }
            })?;
            if blocks == 0 {
                return Err(bad(if field == "--cache-size" {
                    "a cache needs at least one block"
                } else {
                    "must be at least one block"
                }));
            }
            return Ok(CacheSize::Blocks(blocks));
        }
        let scale: f64 =
            match unit.to_ascii_lowercase().as_str() {
                "b" => 1.0,
                "k" | "kib" => 1024.0,
                "m" | "mib" => 1024f64.powi(2),
                "g" | "gib" => 1024f64.powi(3),
                "t" | "tib" => 1024f64.powi(4),
                "kb" => 1e3,
                "mb" => 1e6,
                "gb" => 1e9,
                "tb" => 1e12,
                _ => return Err(bad(
                    "unknown unit; use B, KiB, MiB, GiB, TiB (or K, M, G, T), KB, MB, GB, TB, or %",
                )),
            };
        let v: f64 = num
            .parse()
            .map_err(|_| bad("expected a number before the unit"))?;
        let bytes = v * scale;
        if bytes.is_finite() && bytes >= u64::MAX as f64 || bytes.is_infinite() {
            return Err(bad(&format!("too large: at most {} bytes", u64::MAX)));
        }
        // `num` is digits and dots, so `bytes` is never NaN.
        if bytes < 1.0 {
            return Err(bad("less than one byte"));
        }
        Ok(CacheSize::Bytes(bytes as u64))
    }

    /// Number of blocks for a trace with `unique` blocks of `block_size` bytes.
    pub fn resolve(&self, unique: usize, block_size: u32) -> Result<usize> {
        let (blocks, why) = match *self {
            CacheSize::Blocks(b) => (b, String::new()),
            CacheSize::Bytes(bytes) => (
                bytes / block_size.max(1) as u64,
                format!(" of {block_size}-byte blocks"),
            ),
            CacheSize::Percent(p) => (
                (unique as f64 * p / 100.0).floor() as u64,
                format!(" of the trace's {unique} unique blocks"),
            ),
        };
        if blocks == 0 {
            return Err(Error::config(
                "cache_size",
                self.to_string(),
                format!("is less than one block{why}"),
            ));
        }
        usize::try_from(blocks)
            .map_err(|_| Error::config("cache_size", self.to_string(), "too large"))
    }

    /// Parses a comma-separated list.
    pub fn parse_list(text: &str) -> Result<Vec<CacheSize>> {
        let sizes: Vec<CacheSize> = text
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(CacheSize::parse)
            .collect::<Result<_>>()?;
        if sizes.is_empty() {
            return Err(Error::config("cache_size", text, "name at least one size"));
        }
        Ok(sizes)
    }
}

impl std::fmt::Display for CacheSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CacheSize::Blocks(b) => write!(f, "{b}"),
            CacheSize::Bytes(b) => write!(f, "{b}B"),
            // "1e-300%", not three hundred zeros.
            CacheSize::Percent(p) => write!(f, "{}%", crate::error::show_f64(*p)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_and_huge_shares_are_shown_in_exponent_form() {
        // Issue 37 probe: `-c 1e-300%` was echoed with 300 zeros.
        let show = |t: &str| CacheSize::parse(t).unwrap().to_string();
        assert_eq!(show("1e-300%"), "1e-300%");
        assert_eq!(show("12.5%"), "12.5%");
        assert_eq!(show("0.001%"), "0.001%");
        assert_eq!(show("100%"), "100%");
    }

    #[test]
    fn errors_name_the_option_that_was_given() {
        // `--max-request 0` used to be reported as `invalid --cache-size '0'`.
        // The core names configuration keys; the CLI and Python phrase them for their users.
        let e = CacheSize::parse_as("0", "max_request")
            .unwrap_err()
            .to_string();
        assert!(e.contains("max_request") && e.contains("'0'"), "{e}");
        let e = CacheSize::parse("0").unwrap_err().to_string();
        assert!(e.contains("cache_size") && e.contains("'0'"), "{e}");
    }

    #[test]
    fn parses_each_form() {
        assert_eq!(CacheSize::parse("20").unwrap(), CacheSize::Blocks(20));
        assert_eq!(
            CacheSize::parse("64MiB").unwrap(),
            CacheSize::Bytes(64 << 20)
        );
        assert_eq!(CacheSize::parse("64K").unwrap(), CacheSize::Bytes(64 << 10));
        assert_eq!(
            CacheSize::parse("1GB").unwrap(),
            CacheSize::Bytes(1_000_000_000)
        );
        assert_eq!(CacheSize::parse("1%").unwrap(), CacheSize::Percent(1.0));
        for bad in ["0", "", "x", "-3", "1.5", "0%", "101%", "3 furlongs", "%"] {
            assert!(CacheSize::parse(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn resolves_against_trace() {
        assert_eq!(
            CacheSize::parse("64MiB")
                .unwrap()
                .resolve(10, 4096)
                .unwrap(),
            16384
        );
        assert_eq!(
            CacheSize::parse("1%").unwrap().resolve(1223, 4096).unwrap(),
            12
        );
        let err = CacheSize::parse("1%")
            .unwrap()
            .resolve(50, 4096)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("less than one block of the trace's 50 unique blocks"),
            "{err}"
        );
        assert!(CacheSize::parse("100B").unwrap().resolve(10, 4096).is_err());
    }
}
