//! Object sizes for generated traces (`belady gen … --sizes SPEC`): each object gets one size,
//! drawn from a distribution by hashing the seed and the object's id, so the same object has the
//! same size at every request, the draw needs no table however many objects there are, and the
//! same seed gives the same sizes.
//!
//! | spec | sizes |
//! |---|---|
//! | `fixed:N` | every object `N` bytes |
//! | `uniform:A-B` | uniform on `A..=B` bytes |
//! | `pareto:MIN,ALPHA[,MAX]` | Pareto with scale `MIN` and shape `ALPHA` (heavy-tailed: `ALPHA` ≤ 2 has infinite variance), capped at `MAX` |
//! | `lognormal:MEDIAN,SIGMA[,MAX]` | `MEDIAN · e^(SIGMA·Z)`, `Z` standard normal, capped at `MAX` |
//!
//! Byte values accept the units of cache sizes (`4KiB`, `1MB`); `MAX` defaults to
//! 4,294,967,295 bytes, the largest size a trace keeps. Sizes are rounded to whole bytes, at
//! least 1.

use super::BlockGen;
use crate::analysis::mrc::mix64;
use crate::cache::size::CacheSize;
use crate::error::{Error, Result};
use crate::trace::{export, BlockRequest, BlockTrace, OpFilter};
use std::path::Path;

/// A size distribution, as parsed from a `--sizes` spec.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Every object the same size.
    Fixed(u32),
    /// Uniform over an inclusive range.
    Uniform(u32, u32),
    /// Pareto: `min / U^(1/alpha)`, capped at `max`.
    Pareto {
        /// Scale: the smallest size.
        min: f64,
        /// Shape.
        alpha: f64,
        /// Cap.
        max: u32,
    },
    /// Log-normal: `median · e^(sigma · Z)`, capped at `max`.
    Lognormal {
        /// Median size.
        median: f64,
        /// Standard deviation of the log.
        sigma: f64,
        /// Cap.
        max: u32,
    },
}

/// Per-object sizes from a distribution and a seed.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjectSizes {
    /// The spec as given, for messages and the trace's source name.
    pub spec: String,
    /// The distribution.
    pub dist: SizeDist,
    /// Mixed into every object's hash, so another seed gives other sizes.
    key: u64,
}

/// What `--sizes` accepts, for messages.
const FORMS: &str = "fixed:N, uniform:A-B, pareto:MIN,ALPHA[,MAX] or lognormal:MEDIAN,SIGMA[,MAX]";

impl ObjectSizes {
    /// Parses a `--sizes` spec (see the module table); `seed` picks the draw.
    pub fn parse(spec: &str, seed: u64) -> Result<ObjectSizes> {
        let bad = |msg: String| Error::config("--sizes", spec, msg);
        let (kind, args) = spec
            .split_once(':')
            .ok_or_else(|| bad(format!("expected {FORMS}")))?;
        let bytes = |text: &str, what: &str| -> Result<u32> {
            let n = match CacheSize::parse_as(text, "--sizes") {
                Ok(CacheSize::Blocks(n) | CacheSize::Bytes(n)) => n,
                _ => 0,
            };
            if n == 0 || n > u32::MAX as u64 {
                return Err(bad(format!(
                    "{what} '{text}' must be a byte size from 1 to {}",
                    u32::MAX
                )));
            }
            Ok(n as u32)
        };
        let number = |text: &str, what: &str| -> Result<f64> {
            text.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| bad(format!("{what} '{text}' must be a positive number")))
        };
        let fields: Vec<&str> = args.split(',').map(str::trim).collect();
        let dist = match (kind.trim(), fields.as_slice()) {
            ("fixed", [n]) => SizeDist::Fixed(bytes(n, "the size")?),
            ("uniform", [range]) => {
                let (a, b) = range
                    .split_once('-')
                    .ok_or_else(|| bad("expected uniform:A-B".into()))?;
                let (a, b) = (bytes(a, "A")?, bytes(b, "B")?);
                if a > b {
                    return Err(bad(format!("A ({a}) must not exceed B ({b})")));
                }
                SizeDist::Uniform(a, b)
            }
            ("pareto", [min, alpha, rest @ ..]) if rest.len() <= 1 => {
                let min = bytes(min, "MIN")?;
                let max = rest.first().map_or(Ok(u32::MAX), |m| bytes(m, "MAX"))?;
                if max < min {
                    return Err(bad(format!("MAX ({max}) must not be below MIN ({min})")));
                }
                SizeDist::Pareto {
                    min: min as f64,
                    alpha: number(alpha, "ALPHA")?,
                    max,
                }
            }
            ("lognormal", [median, sigma, rest @ ..]) if rest.len() <= 1 => SizeDist::Lognormal {
                median: bytes(median, "MEDIAN")? as f64,
                sigma: number(sigma, "SIGMA")?,
                max: rest.first().map_or(Ok(u32::MAX), |m| bytes(m, "MAX"))?,
            },
            _ => return Err(bad(format!("expected {FORMS}"))),
        };
        Ok(ObjectSizes {
            spec: spec.to_string(),
            dist,
            key: mix64(seed ^ 0x5153_495a_4553_2121),
        })
    }

    /// The size in bytes of object `id` (the same at every call).
    pub fn size_of(&self, id: u64) -> u32 {
        let h1 = mix64(id ^ self.key);
        let h2 = mix64(h1);
        // Uniform draws in (0, 1]: never 0, so logs and powers stay finite.
        let unit = |h: u64| ((h >> 11) + 1) as f64 / (1u64 << 53) as f64;
        let cap = |v: f64, max: u32| v.round().clamp(1.0, max as f64) as u32;
        match self.dist {
            SizeDist::Fixed(n) => n,
            SizeDist::Uniform(a, b) => a + (h1 % (b as u64 - a as u64 + 1)) as u32,
            SizeDist::Pareto { min, alpha, max } => cap(min / unit(h1).powf(1.0 / alpha), max),
            SizeDist::Lognormal { median, sigma, max } => {
                // Box-Muller: one standard normal from two uniforms.
                let z = (-2.0 * unit(h1).ln()).sqrt() * (std::f64::consts::TAU * unit(h2)).cos();
                cap(median * (sigma * z).exp(), max)
            }
        }
    }
}

/// The requests of `gen`, each an object of its size under `sizes` (`None`: no sizes).
fn sized(gen: Box<dyn BlockGen>, sizes: ObjectSizes) -> impl Iterator<Item = BlockRequest> {
    gen.map(move |mut r| {
        r.bytes = sizes.size_of(r.block) as u64;
        r
    })
}

/// Writes `gen` as libCacheSim's oracleGeneral to `path` (objects of their `sizes`, or of size
/// 1 without). The next-access field needs the whole trace, so it is built in memory first:
/// about 16 bytes per request plus the distinct objects' table. Returns the requests and
/// distinct objects written.
pub(crate) fn write_oracle_general(
    gen: Box<dyn BlockGen>,
    path: &Path,
    source: &str,
    block_size: u32,
    sizes: Option<ObjectSizes>,
) -> Result<(u64, usize)> {
    let trace = match sizes {
        Some(s) => BlockTrace::from_sized_requests(
            sized(gen, s).map(Ok),
            OpFilter::All,
            true,
            source.to_string(),
            block_size,
        )?,
        None => BlockTrace::from_requests(
            gen.map(Ok),
            OpFilter::All,
            true,
            source.to_string(),
            block_size,
        )?,
    };
    if trace.write_mask.is_some() {
        return Err(Error::config(
            "--to",
            "oracle-general",
            "holds reads only and this generator writes; use --to native",
        ));
    }
    let mut trace = trace;
    // A generator without times gives every request time 0: the records' clock is then their
    // index, libCacheSim's virtual time.
    if trace
        .times
        .as_ref()
        .is_some_and(|t| t.iter().all(|&t| t == 0))
    {
        trace.times = None;
    }
    let mut file = crate::outfile::OutFile::create(path)?;
    export::write_oracle_general(
        &trace,
        std::io::BufWriter::with_capacity(1 << 20, &mut file),
    )
    .map_err(|e| Error::io(path, e))?;
    file.commit()?;
    Ok((trace.refs.len() as u64, trace.unique()))
}

/// Writes `gen` as a native trace whose references carry their objects' `sizes`. Returns the
/// requests and, with dense ids, the distinct objects.
pub(crate) fn write_native(
    gen: Box<dyn BlockGen>,
    path: &Path,
    source: &str,
    block_size: u32,
    sizes: ObjectSizes,
) -> Result<(u64, Option<usize>, usize)> {
    use crate::trace::native::StreamWriter;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Original ids as they are, as `write` stores them, while the writer's one bit per id
    // (what the byte footprint needs to spot first references) stays within 32 MiB.
    let mut w = if gen.universe() <= 1 << 28 {
        StreamWriter::with_original_ids(dir, source.to_string(), block_size)?
    } else {
        StreamWriter::new(dir, source.to_string(), block_size)?
    };
    for r in sized(gen, sizes) {
        w.push_sized(r.block, r.op, r.time_ns, r.bytes as u32)?;
    }
    let table_bytes = w.table_bytes();
    let mut file = crate::outfile::OutFile::create(path)?;
    let (records, unique) = w
        .finish(std::io::BufWriter::with_capacity(1 << 20, &mut file))
        .map_err(|e| Error::io(path, e))?;
    file.commit()?;
    Ok((records, unique, table_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_spec_draws_stable_sizes_in_its_range() {
        let draw = |spec: &str, seed: u64| -> Vec<u32> {
            let s = ObjectSizes::parse(spec, seed).unwrap();
            (0..20_000u64).map(|id| s.size_of(id)).collect()
        };
        assert!(draw("fixed:4KiB", 1).iter().all(|&z| z == 4096));
        let u = draw("uniform:100-200", 1);
        assert!(u.iter().all(|&z| (100..=200).contains(&z)));
        assert!(u.contains(&100) && u.contains(&200));
        // Pareto(1000, 1.5): P(size > x) = (1000/x)^1.5, so about 3.2% above 10,000.
        let p = draw("pareto:1000,1.5", 1);
        assert!(p.iter().all(|&z| z >= 1000));
        let above = p.iter().filter(|&&z| z > 10_000).count() as f64 / p.len() as f64;
        assert!((0.025..0.04).contains(&above), "{above}");
        let capped = draw("pareto:1000,0.5,64KiB", 1);
        assert!(capped.iter().all(|&z| (1000..=65536).contains(&z)));
        assert!(capped.contains(&65536));
        // Log-normal: the median is the median.
        let mut l = draw("lognormal:4096,1", 1);
        l.sort_unstable();
        let median = l[l.len() / 2] as f64;
        assert!((median / 4096.0 - 1.0).abs() < 0.05, "{median}");
        // The same seed gives the same sizes; another seed others.
        assert_eq!(draw("pareto:1000,1.5", 1), p);
        assert_ne!(draw("pareto:1000,1.5", 2), p);
    }

    #[test]
    fn bad_specs_name_the_option_and_what_was_expected() {
        for (spec, want) in [
            ("zipf:3", "expected fixed:N"),
            ("fixed:0", "the size '0' must be a byte size"),
            ("uniform:9-3", "A (9) must not exceed B (3)"),
            ("pareto:10,-1", "ALPHA '-1' must be a positive number"),
            ("pareto:100,1,10", "MAX (10) must not be below MIN (100)"),
            ("fixed:5GiB", "must be a byte size from 1 to 4294967295"),
            ("lognormal:4096", "expected fixed:N"),
        ] {
            let e = ObjectSizes::parse(spec, 1).unwrap_err().to_string();
            assert!(e.contains("--sizes") && e.contains(want), "{spec}: {e}");
        }
    }
}
