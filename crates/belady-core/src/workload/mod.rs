//! Synthetic workloads that expose each replacement policy's weak spot.
//!
//! Every generator is deterministic for a seed and streams: it keeps state bounded by its
//! parameters (block counts, file counts), never by the number of requests, so a trace of any
//! length can be written as it is generated. Block-level generators yield [`BlockRequest`]s of
//! one block; file-level generators yield [`FileEvent`]s with think times, so read-ahead and the
//! disk clock apply to them. [`GENERATORS`] lists them with their parameters and defaults, which
//! the command line turns into options and `mix` parts take as `KIND:key=value,…`.

mod files;
mod indexed_db;
mod mix;
mod random;
mod scan;
pub mod sizes;
mod temporal;

use crate::cache::size::CacheSize;
use crate::error::{Error, Result};
use crate::outfile::OutFile;
use crate::trace::dense::BlockTrace;
use crate::trace::events;
use crate::trace::file::{FileEvent, FileTrace};
use crate::trace::native::StreamWriter;
use crate::trace::{BlockRequest, OpFilter};
use rand::SeedableRng;
use std::collections::BTreeMap;
use std::path::Path;

pub use mix::{MixPart, MIX_KEYS};

/// The random number generator every generator uses: PCG, portable and fast.
pub(crate) type Rng = rand_pcg::Pcg64;

/// A generator's random number generator for `seed`.
pub(crate) fn rng(seed: u64) -> Rng {
    Rng::seed_from_u64(seed)
}

/// Whether a generator emits block references or file-level calls.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Block ids, one reference per request.
    Block,
    /// open/read/close calls on files, with think times.
    File,
}

/// One named parameter of a generator.
#[derive(Debug)]
pub struct Param {
    /// Option name (`--NAME` on the command line, `NAME=` in a mix part).
    pub name: &'static str,
    /// Value used when the parameter is not given.
    pub default: &'static str,
    /// One-line description.
    pub about: &'static str,
}

/// A registered generator.
#[derive(Debug)]
pub struct GeneratorInfo {
    /// Name as given to `belady gen`.
    pub name: &'static str,
    /// One-line description.
    pub about: &'static str,
    /// What it emits.
    pub level: Level,
    /// Its parameters.
    pub params: &'static [Param],
}

const REQUESTS: Param = Param {
    name: "requests",
    default: "100000",
    about: "number of block references (file-level generators: read calls)",
};

/// Every generator except `mix`, which combines these.
pub const GENERATORS: &[GeneratorInfo] = &[
    GeneratorInfo {
        name: "indexed-db",
        about: "LRU-K paper's example: B-tree leaf and record pages referenced alternately, a random customer each time",
        level: Level::Block,
        params: &[
            REQUESTS,
            Param { name: "leaves", default: "100", about: "B-tree leaf pages" },
            Param { name: "records", default: "10000", about: "record pages" },
            Param { name: "leaf-prob", default: "auto", about: "probability that a reference goes to a given leaf page; auto: what record-prob leaves, or 1/(2 leaves) (the paper's .005) when both are auto" },
            Param { name: "record-prob", default: "auto", about: "probability that a reference goes to a given record page; auto: what leaf-prob leaves, or 1/(2 records) (the paper's .00005) when both are auto" },
            Param { name: "root", default: "false", about: "also reference the B-tree root page before each leaf" },
        ],
    },
    GeneratorInfo {
        name: "scan",
        about: "scan.c: sequential scans over a region, cyclic (the same region again) or use-once (always new blocks), optionally interleaved with a hot set",
        level: Level::Block,
        params: &[
            REQUESTS,
            Param { name: "region", default: "5000", about: "blocks per scan pass" },
            Param { name: "mode", default: "cyclic", about: "cyclic (every pass rescans the region) or use-once (every pass scans new blocks)" },
            Param { name: "hot", default: "0", about: "hot working-set blocks referenced uniformly between scan blocks (0: none)" },
            Param { name: "hot-share", default: "0.5", about: "fraction of references going to the hot set when there is one" },
        ],
    },
    GeneratorInfo {
        name: "loop",
        about: "the blocks 0 … blocks-1 referenced in order, over and over",
        level: Level::Block,
        params: &[
            REQUESTS,
            Param { name: "blocks", default: "1000", about: "blocks in the loop" },
        ],
    },
    GeneratorInfo {
        name: "zipf",
        about: "independent references with Zipf popularity: block r-1 has rank r and probability proportional to 1/r^alpha",
        level: Level::Block,
        params: &[
            REQUESTS,
            Param { name: "blocks", default: "10000", about: "distinct blocks (ranks)" },
            Param { name: "alpha", default: "0.9", about: "Zipf exponent (0 is uniform)" },
        ],
    },
    GeneratorInfo {
        name: "uniform",
        about: "independent references, every block equally likely",
        level: Level::Block,
        params: &[
            REQUESTS,
            Param { name: "blocks", default: "10000", about: "distinct blocks" },
        ],
    },
    GeneratorInfo {
        name: "temporal",
        about: "temporally clustered references (LRU-friendly): most re-reference a block used a few references ago",
        level: Level::Block,
        params: &[
            REQUESTS,
            Param { name: "blocks", default: "10000", about: "distinct blocks new references are drawn from (uniformly)" },
            Param { name: "reuse", default: "0.8", about: "probability that a reference repeats a recent one" },
            Param { name: "mean-distance", default: "32", about: "mean distance back, in references, of a repeated reference (geometric)" },
            Param { name: "window", default: "4096", about: "furthest a repeated reference looks back" },
        ],
    },
    GeneratorInfo {
        name: "sequential-files",
        about: "cscope/glimpse-like: many files read whole and sequentially, pass after pass, sizes log-normal",
        level: Level::File,
        params: &[
            REQUESTS,
            Param { name: "files", default: "500", about: "number of files" },
            Param { name: "median-size", default: "16KiB", about: "median file size (log-normal)" },
            Param { name: "size-sigma", default: "1.5", about: "standard deviation of the log of the file size" },
            Param { name: "max-size", default: "64MiB", about: "largest file size (larger draws are cut)" },
            Param { name: "read-size", default: "8KiB", about: "bytes per read call" },
            Param { name: "order", default: "loop", about: "loop (every pass reads the files in the same order) or shuffle (a new order per pass)" },
            Param { name: "think-us", default: "200", about: "computation before each read call, in microseconds" },
        ],
    },
    GeneratorInfo {
        name: "random-files",
        about: "tpc-h-like: reads at random block-aligned offsets within a few large files",
        level: Level::File,
        params: &[
            REQUESTS,
            Param { name: "files", default: "4", about: "number of files, opened at the start" },
            Param { name: "file-size", default: "256MiB", about: "size of each file" },
            Param { name: "read-size", default: "4KiB", about: "bytes per read call (offsets are multiples of it)" },
            Param { name: "seq", default: "0.03", about: "probability that a read continues where the previous one ended" },
            Param { name: "think-us", default: "100", about: "computation before each read call, in microseconds" },
        ],
    },
];

/// Looks up a generator by name.
pub fn info(name: &str) -> Result<&'static GeneratorInfo> {
    GENERATORS.iter().find(|g| g.name == name).ok_or_else(|| {
        let names: Vec<&str> = GENERATORS.iter().map(|g| g.name).collect();
        Error::config(
            "generator",
            name,
            format!(
                "unknown generator; expected one of {}, mix",
                names.join(", ")
            ),
        )
    })
}

/// A generator with its parameter values.
#[derive(Clone, Debug)]
pub struct GenSpec {
    /// The generator.
    pub info: &'static GeneratorInfo,
    /// Values given, by parameter name; the rest take their defaults.
    pub values: BTreeMap<&'static str, String>,
}

impl GenSpec {
    /// The generator `name` with every parameter at its default.
    pub fn new(name: &str) -> Result<GenSpec> {
        Ok(GenSpec {
            info: info(name)?,
            values: BTreeMap::new(),
        })
    }

    /// Sets parameter `key` to `value` (checked when the generator is built).
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let param = self
            .info
            .params
            .iter()
            .find(|p| p.name == key)
            .ok_or_else(|| {
                let names: Vec<&str> = self.info.params.iter().map(|p| p.name).collect();
                Error::config(
                    key,
                    value,
                    format!(
                        "{} has no parameter '{key}'; expected one of {}",
                        self.info.name,
                        names.join(", ")
                    ),
                )
            })?;
        self.values.insert(param.name, value.trim().to_string());
        Ok(())
    }

    fn raw(&self, key: &'static str) -> &str {
        self.values.get(key).map(String::as_str).unwrap_or_else(|| {
            self.info
                .params
                .iter()
                .find(|p| p.name == key)
                .map(|p| p.default)
                .expect("generators read only their own parameters")
        })
    }

    fn bad(&self, key: &str, msg: &str) -> Error {
        Error::config(&format!("{} {key}", self.info.name), self.raw_any(key), msg)
    }

    fn raw_any(&self, key: &str) -> String {
        self.values.get(key).cloned().unwrap_or_else(|| {
            self.info
                .params
                .iter()
                .find(|p| p.name == key)
                .map_or(String::new(), |p| p.default.to_string())
        })
    }

    /// A whole number of at least `min`.
    pub(crate) fn count(&self, key: &'static str, min: u64) -> Result<u64> {
        let v: u64 = self
            .raw(key)
            .parse()
            .map_err(|_| self.bad(key, "expected a whole number"))?;
        if v < min {
            return Err(self.bad(key, &format!("must be at least {min}")));
        }
        Ok(v)
    }

    /// A number in `[lo, hi]`.
    pub(crate) fn real(&self, key: &'static str, lo: f64, hi: f64) -> Result<f64> {
        let v: f64 = self
            .raw(key)
            .parse()
            .map_err(|_| self.bad(key, "expected a number"))?;
        if !(v >= lo && v <= hi) {
            return Err(self.bad(key, &format!("must be between {lo} and {hi}")));
        }
        Ok(v)
    }

    /// A number in `[lo, hi]`, or `None` for `auto`.
    pub(crate) fn real_or_auto(&self, key: &'static str, lo: f64, hi: f64) -> Result<Option<f64>> {
        if self.raw(key) == "auto" {
            return Ok(None);
        }
        self.real(key, lo, hi).map(Some)
    }

    /// A byte size (`8192`, `8KiB`, `1MB`) of at least one byte.
    pub(crate) fn bytes(&self, key: &'static str) -> Result<u64> {
        let raw = self.raw(key);
        if let Ok(v) = raw.parse::<u64>() {
            return if v == 0 {
                Err(self.bad(key, "must be at least one byte"))
            } else {
                Ok(v)
            };
        }
        match CacheSize::parse(raw) {
            Ok(CacheSize::Bytes(b)) => Ok(b),
            _ => Err(self.bad(key, "expected a byte size such as 8192, 8KiB or 1MB")),
        }
    }

    /// `true` or `false`.
    pub(crate) fn flag(&self, key: &'static str) -> Result<bool> {
        match self.raw(key) {
            "true" | "yes" | "1" => Ok(true),
            "false" | "no" | "0" => Ok(false),
            _ => Err(self.bad(key, "expected true or false")),
        }
    }

    /// One of `choices`.
    pub(crate) fn choice(
        &self,
        key: &'static str,
        choices: &[&'static str],
    ) -> Result<&'static str> {
        let raw = self.raw(key);
        choices
            .iter()
            .find(|c| **c == raw)
            .copied()
            .ok_or_else(|| self.bad(key, &format!("expected one of {}", choices.join(", "))))
    }

    /// Builds the generator, seeded with `seed`.
    pub fn build(&self, seed: u64) -> Result<Generator> {
        let rng = rng(seed);
        Ok(match self.info.name {
            "indexed-db" => Generator::Block(Box::new(indexed_db::IndexedDb::new(self, rng)?)),
            "scan" => Generator::Block(Box::new(scan::Scan::new(self, rng)?)),
            "loop" => Generator::Block(Box::new(scan::Loop::new(self)?)),
            "zipf" => Generator::Block(Box::new(random::Zipf::new(self, rng)?)),
            "uniform" => Generator::Block(Box::new(random::Uniform::new(self, rng)?)),
            "temporal" => Generator::Block(Box::new(temporal::Temporal::new(self, rng)?)),
            "sequential-files" => {
                Generator::File(Box::new(files::SequentialFiles::new(self, rng)?))
            }
            "random-files" => Generator::File(Box::new(files::RandomFiles::new(self, rng)?)),
            other => unreachable!("generator {other} is registered but not built"),
        })
    }
}

/// A block-level generator: one block per request, no timestamps.
pub trait BlockGen: Iterator<Item = BlockRequest> + Send {
    /// Block ids it uses are below this (so a mix can keep generators apart).
    fn universe(&self) -> u64;
}

/// A file-level generator: open/read/close calls with think times.
pub trait FileGen: Iterator<Item = FileEvent> + Send {
    /// File ids it uses are in `1..=files()`.
    fn files(&self) -> u64;
    /// The path shown for `file`.
    fn path(&self, file: u64) -> String;
    /// Runs its calls as process `pid` with file ids shifted by `offset` (used by `mix`).
    fn relocate(&mut self, pid: u32, offset: u64);
}

/// A built generator.
pub enum Generator {
    /// Emits block references.
    Block(Box<dyn BlockGen>),
    /// Emits file-level calls.
    File(Box<dyn FileGen>),
}

/// Builds a `mix` of `parts` seeded with `seed`: parts interleaved in time (see `mix`).
pub fn build_mix(parts: &[MixPart], seed: u64) -> Result<Generator> {
    mix::build(parts, seed)
}

/// What `belady gen` writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OutFormat {
    /// belady's native binary format (block-level generators).
    Native,
    /// One block id per line (block-level generators).
    Lirs,
    /// belady's file-level events text (file-level generators).
    Events,
    /// libCacheSim's oracleGeneral binary records (block-level generators; built in memory for
    /// the next-access field).
    OracleGeneral,
}

/// What was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// Block references, or file-level events.
    pub records: u64,
    /// Distinct blocks, when the writer tracks them (native output with an id table).
    pub unique: Option<usize>,
    /// Bytes the native writer held for its id table at the end, its largest: 0 when it
    /// stored the generator's ids as they are.
    pub table_bytes: usize,
}

/// Streams `gen` to `path` in `to` as it generates; `source` names the trace in native files.
pub fn write(
    gen: Generator,
    path: &Path,
    to: OutFormat,
    source: &str,
    block_size: u32,
) -> Result<Written> {
    use std::io::Write;
    let io = |e: std::io::Error| Error::io(path, e);
    match (gen, to) {
        (Generator::Block(gen), OutFormat::Native) => {
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            // Generator ids are small already: stored as they are, they need no table, so a
            // use-once scan or a wide uniform trace streams in constant memory.
            let mut w = if gen.universe() <= u32::MAX as u64 {
                StreamWriter::with_original_ids(dir, source.to_string(), block_size)?
            } else {
                StreamWriter::new(dir, source.to_string(), block_size)?
            };
            for r in gen {
                w.push(r.block, r.op, r.time_ns)?;
            }
            let table_bytes = w.table_bytes();
            let mut file = OutFile::create(path)?;
            let (records, unique) = w
                .finish(std::io::BufWriter::with_capacity(1 << 20, &mut file))
                .map_err(io)?;
            file.commit()?;
            Ok(Written {
                records,
                unique,
                table_bytes,
            })
        }
        (Generator::Block(gen), OutFormat::Lirs) => {
            let file = OutFile::create(path)?;
            let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
            let mut records = 0;
            for r in gen {
                writeln!(out, "{}", r.block).map_err(io)?;
                records += 1;
            }
            out.into_inner().map_err(|e| io(e.into_error()))?.commit()?;
            Ok(Written {
                records,
                unique: None,
                table_bytes: 0,
            })
        }
        (Generator::File(mut gen), OutFormat::Events) => {
            let file = OutFile::create(path)?;
            let mut w = events::Writer::new(std::io::BufWriter::with_capacity(1 << 20, file))
                .map_err(io)?;
            let mut records = 0;
            while let Some(ev) = gen.next() {
                w.push(&ev, None, &gen.path(ev.file)).map_err(io)?;
                records += 1;
            }
            w.finish()
                .map_err(io)?
                .into_inner()
                .map_err(|e| io(e.into_error()))?
                .commit()?;
            Ok(Written {
                records,
                unique: None,
                table_bytes: 0,
            })
        }
        (Generator::Block(gen), OutFormat::OracleGeneral) => {
            let (records, unique) =
                sizes::write_oracle_general(gen, path, source, block_size, None)?;
            Ok(Written {
                records,
                unique: Some(unique),
                table_bytes: 0,
            })
        }
        (Generator::Block(_), OutFormat::Events) => Err(Error::config(
            "--to",
            "events",
            "is a file-level format; this generator emits blocks (use native or lirs)",
        )),
        (Generator::File(_), _) => Err(Error::config(
            "--to",
            match to {
                OutFormat::Native => "native",
                OutFormat::OracleGeneral => "oracle-general",
                _ => "lirs",
            },
            "this generator emits file-level calls; write them as events (convert them to blocks with `belady convert`)",
        )),
    }
}

/// As [`write()`], each request being an object of its size under `sizes` (`belady gen
/// --sizes`), kept by the formats that hold sizes (native, oracle-general); `None` is [`write()`].
pub fn write_sized(
    gen: Generator,
    path: &Path,
    to: OutFormat,
    source: &str,
    block_size: u32,
    sizes: Option<sizes::ObjectSizes>,
) -> Result<Written> {
    let Some(object_sizes) = sizes else {
        return write(gen, path, to, source, block_size);
    };
    match (gen, to) {
        (Generator::Block(gen), OutFormat::Native) => {
            let (records, unique, table_bytes) =
                sizes::write_native(gen, path, source, block_size, object_sizes)?;
            Ok(Written {
                records,
                unique,
                table_bytes,
            })
        }
        (Generator::Block(gen), OutFormat::OracleGeneral) => {
            let (records, unique) =
                sizes::write_oracle_general(gen, path, source, block_size, Some(object_sizes))?;
            Ok(Written {
                records,
                unique: Some(unique),
                table_bytes: 0,
            })
        }
        (Generator::Block(_), _) => Err(Error::config(
            "--sizes",
            &object_sizes.spec,
            "only native and oracle-general keep object sizes; pass --to native or --to oracle-general",
        )),
        (Generator::File(_), _) => Err(Error::config(
            "--sizes",
            &object_sizes.spec,
            "applies to block-level generators; this one emits file-level calls",
        )),
    }
}

/// A block generator's whole output as a [`BlockTrace`] (for tests and demos of modest size).
pub fn block_trace(gen: Box<dyn BlockGen>, source: &str) -> Result<BlockTrace> {
    BlockTrace::from_requests(gen.map(Ok), OpFilter::All, false, source.to_string(), 4096)
}

/// A file generator's whole output as a [`FileTrace`] (for tests and demos of modest size).
pub fn file_trace(mut gen: Box<dyn FileGen>, source: &str) -> FileTrace {
    let mut trace = FileTrace {
        source: source.to_string(),
        ..FileTrace::default()
    };
    while let Some(ev) = gen.next() {
        if ev.kind != crate::trace::file::FileEventKind::Exit {
            trace
                .names
                .entry(ev.file)
                .or_insert_with(|| gen.path(ev.file));
        }
        trace.events.push(ev);
    }
    trace
}

/// One block reference of `block` (a read, untimed): what block generators yield.
pub(crate) fn read(block: u64) -> BlockRequest {
    BlockRequest {
        block,
        count: 1,
        op: crate::trace::Op::Read,
        time_ns: None,
        bytes: 4096,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_builds_and_bad_values_name_the_parameter() {
        for g in GENERATORS {
            let spec = GenSpec::new(g.name).unwrap();
            assert!(spec.build(1).is_ok(), "{} with defaults", g.name);
        }
        let mut spec = GenSpec::new("zipf").unwrap();
        spec.set("alpha", "-1").unwrap();
        let e = spec.build(1).err().unwrap().to_string();
        assert!(e.contains("zipf alpha") && e.contains("-1"), "{e}");
        let e = spec.set("beta", "1").unwrap_err().to_string();
        assert!(e.contains("no parameter 'beta'"), "{e}");
        assert!(GenSpec::new("nope").is_err());
    }
}
