//! The cache model of a run and how a cache size resolves under it.
//!
//! - `blocks`: today's page cache. A request covers the blocks its bytes span; capacity is in
//!   blocks (a byte size is divided by the block size, a percent is a share of the unique
//!   blocks).
//! - `objects`: each request is one object of its size (oracleGeneral, lcs). `64MiB` is a byte
//!   capacity and objects weigh their bytes; a plain `5000` is a count of objects whatever their
//!   sizes (libCacheSim's `ignore_obj_size`); a percent is a share of the byte footprint.
//!
//! Object traces default to `objects`, every other trace to `blocks`. Combinations that make no
//! sense are refused in one line ([`CacheModel::check_run`]).

use crate::cache::admission::{Admission, AdmissionSpec};
use crate::cache::size::CacheSize;
use crate::error::{Error, Result};

/// How a cache counts what it holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CacheModel {
    /// Fixed-size blocks.
    Blocks,
    /// Objects of their own sizes.
    Objects,
}

impl CacheModel {
    /// Parses `blocks` or `objects`; errors name key `cache_model`.
    pub fn parse(text: &str) -> Result<CacheModel> {
        match text.trim().to_ascii_lowercase().as_str() {
            "blocks" | "block" => Ok(CacheModel::Blocks),
            "objects" | "object" => Ok(CacheModel::Objects),
            _ => Err(Error::config(
                "cache_model",
                text,
                "expected blocks or objects",
            )),
        }
    }

    /// The model `text` names, else the default for a trace: objects when its requests carry
    /// object sizes, blocks otherwise.
    pub fn choose(text: Option<&str>, has_object_sizes: bool) -> Result<CacheModel> {
        match text
            .map(str::trim)
            .filter(|t| !t.is_empty() && *t != "auto")
        {
            Some(t) => CacheModel::parse(t),
            None if has_object_sizes => Ok(CacheModel::Objects),
            None => Ok(CacheModel::Blocks),
        }
    }

    /// The name printed in rows.
    pub fn name(self) -> &'static str {
        match self {
            CacheModel::Blocks => "blocks",
            CacheModel::Objects => "objects",
        }
    }

    /// Refuses in one line what the model cannot do: the objects model needs a trace whose
    /// requests carry object sizes, and has no read-ahead, disk, levels or file-level trace.
    pub fn check_run(self, has_object_sizes: bool, file_engine: bool, levels: bool) -> Result<()> {
        if self == CacheModel::Blocks {
            return Ok(());
        }
        let refuse = |msg: &str| Err(Error::config("cache_model", "objects", msg.to_string()));
        if levels {
            return refuse("has one level: levels (a hierarchy) need cache_model = blocks");
        }
        if file_engine {
            return refuse(
                "has no read-ahead, disk, compat rules or file-level trace: they need cache_model = blocks",
            );
        }
        if !has_object_sizes {
            return refuse(
                "needs a trace whose requests carry object sizes (oracleGeneral, lcs); use cache_model = blocks",
            );
        }
        Ok(())
    }
}

/// A cache size resolved for one run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Capacity {
    /// Units the level holds: blocks, objects, or bytes when `weighted`.
    pub units: usize,
    /// Objects weigh their bytes (the objects model with a byte or percent size).
    pub weighted: bool,
    /// About how many blocks or objects the cache holds: `units`, or for a byte capacity the
    /// capacity over the mean object size (footprint over unique objects). Policies size their
    /// history and sections by it; TinyLFU its sketch.
    pub entries: usize,
}

impl Capacity {
    /// Resolves `size` under `model` for a trace of `unique` blocks or objects of
    /// `block_size` bytes (blocks model) and, with object sizes, a byte `footprint`.
    pub fn resolve(
        size: &CacheSize,
        model: CacheModel,
        unique: usize,
        block_size: u32,
        footprint: Option<u64>,
    ) -> Result<Capacity> {
        let counted = |units: usize| Capacity {
            units,
            weighted: false,
            entries: units,
        };
        match (model, size, footprint) {
            (CacheModel::Blocks, _, _) => Ok(counted(size.resolve(unique, block_size)?)),
            (CacheModel::Objects, CacheSize::Blocks(n), _) => {
                let n = usize::try_from(*n)
                    .map_err(|_| Error::config("cache_size", size, "too large"))?;
                Ok(counted(n))
            }
            (CacheModel::Objects, _, None) => Err(Error::config(
                "cache_size",
                size,
                "is a byte capacity, which needs object sizes; this trace has none (a plain number counts objects)",
            )),
            (CacheModel::Objects, CacheSize::Bytes(b), Some(fp)) => {
                Capacity::bytes(size, *b, unique, fp, "")
            }
            (CacheModel::Objects, CacheSize::Percent(p), Some(fp)) => {
                let b = (fp as f64 * p / 100.0).floor() as u64;
                Capacity::bytes(
                    size,
                    b,
                    unique,
                    fp,
                    &format!(" of the trace's {fp}-byte footprint"),
                )
            }
        }
    }

    fn bytes(
        size: &CacheSize,
        bytes: u64,
        unique: usize,
        footprint: u64,
        why: &str,
    ) -> Result<Capacity> {
        if bytes == 0 {
            return Err(Error::config(
                "cache_size",
                size,
                format!("is less than one byte{why}"),
            ));
        }
        let units =
            usize::try_from(bytes).map_err(|_| Error::config("cache_size", size, "too large"))?;
        let mean = (footprint / unique.max(1) as u64).max(1);
        Ok(Capacity {
            units,
            weighted: true,
            entries: ((bytes / mean) as usize).clamp(1, unique.max(1)),
        })
    }
}

/// What a run's level has beyond its policy and size: the cache model and the admission filter.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LevelSetup {
    /// The model as configured; `None` takes the trace's default.
    pub model: Option<String>,
    /// The admission filter, if any.
    pub admission: Option<AdmissionSpec>,
    /// Seed of random admission.
    pub seed: u64,
}

impl LevelSetup {
    /// The filter for a level of `capacity` (`unit_bytes` per unit of weight) over a trace of
    /// `universe` distinct ids, or `None`.
    pub fn admission_for(
        &self,
        capacity: &Capacity,
        universe: usize,
        unit_bytes: u64,
    ) -> Option<Admission> {
        self.admission
            .as_ref()
            .map(|a| a.build(capacity.entries, universe, unit_bytes, self.seed))
    }

    /// The admission filter's name as rows print it.
    pub fn admission_label(&self) -> String {
        self.admission
            .as_ref()
            .map_or_else(|| "none".into(), ToString::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(text: &str, model: CacheModel, fp: Option<u64>) -> Result<Capacity> {
        Capacity::resolve(&CacheSize::parse(text).unwrap(), model, 1000, 4096, fp)
    }

    #[test]
    fn sizes_resolve_in_the_models_units() {
        use CacheModel::*;
        let blocks = resolve("64KiB", Blocks, None).unwrap();
        assert_eq!((blocks.units, blocks.weighted), (16, false));
        let bytes = resolve("64KiB", Objects, Some(1_000_000)).unwrap();
        assert_eq!((bytes.units, bytes.weighted), (65536, true));
        // 1000 objects over 1,000,000 bytes: 1000 bytes each, so 64 KiB holds about 65.
        assert_eq!(bytes.entries, 65);
        let count = resolve("500", Objects, Some(1_000_000)).unwrap();
        assert_eq!(
            (count.units, count.weighted, count.entries),
            (500, false, 500)
        );
        let pct = resolve("10%", Objects, Some(1_000_000)).unwrap();
        assert_eq!((pct.units, pct.weighted, pct.entries), (100_000, true, 100));
        assert_eq!(resolve("10%", Blocks, Some(1_000_000)).unwrap().units, 100);
    }

    #[test]
    fn what_makes_no_sense_is_refused_in_one_line() {
        let e = resolve("64KiB", CacheModel::Objects, None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("cache_size") && e.contains("object sizes"),
            "{e}"
        );
        let e = CacheModel::Objects
            .check_run(true, true, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cache_model") && e.contains("read-ahead"), "{e}");
        let e = CacheModel::Objects
            .check_run(true, false, true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("levels"), "{e}");
        let e = CacheModel::Objects
            .check_run(false, false, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("object sizes"), "{e}");
        assert!(CacheModel::Blocks.check_run(false, true, true).is_ok());
        assert!(CacheModel::parse("pages")
            .unwrap_err()
            .to_string()
            .contains("cache_model"));
        assert_eq!(CacheModel::choose(None, true).unwrap(), CacheModel::Objects);
        assert_eq!(CacheModel::choose(None, false).unwrap(), CacheModel::Blocks);
        assert_eq!(
            CacheModel::choose(Some("blocks"), true).unwrap(),
            CacheModel::Blocks
        );
    }
}
