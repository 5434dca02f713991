//! Trace model and readers.
//!
//! Two request models: a block-level stream ([`BlockRequest`]) and a file-level event stream
//! ([`file::FileEvent`]), which read-ahead needs because it works on offsets within open files.
//! Every reader streams in constant memory; [`dense::BlockTrace`] then maps block ids to dense
//! indices once so that every simulation over the trace runs on flat arrays.

pub mod accusim;
pub mod binary;
pub mod csv;
pub mod dense;
pub mod events;
pub mod export;
pub mod file;
pub mod ingest;
pub mod input;
pub mod lcs;
pub mod merge;
pub mod native;
pub mod oracle_general;
pub mod strace;
pub mod text;

use crate::error::{Error, Result};
use std::path::Path;

pub use dense::BlockTrace;

/// Direction of a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Data read from the device.
    Read,
    /// Data written to the device.
    Write,
}

/// One block-level request: `count` consecutive blocks starting at `block`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BlockRequest {
    /// First block id (already in units of the trace's block size).
    pub block: u64,
    /// Number of consecutive blocks, at least 1.
    pub count: u32,
    /// Read or write.
    pub op: Op,
    /// Time of the request in nanoseconds, when the trace records it.
    pub time_ns: Option<u64>,
    /// Bytes the request asks for: the object's size in an object trace (oracleGeneral, lcs),
    /// the recorded length in a block trace that records one (MSR, SYSTOR, Tencent, CSV with a
    /// size column, events and AccuSim lengths), else `count * block_size`.
    pub bytes: u64,
}

/// Byte totals of a trace whose references carry object sizes, as libCacheSim counts them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SizeTotals {
    /// Sum of every kept reference's object size.
    pub requested: u64,
    /// Sum over distinct objects of the size each had at its first kept reference: the byte
    /// working set libCacheSim's `cal_working_set_size` computes (it adds an object's size the
    /// first time it sees the object and ignores later sizes).
    pub footprint: u64,
}

/// A boxed stream of block requests, as every block-level reader yields.
pub type RequestStream = Box<dyn Iterator<Item = Result<BlockRequest>> + Send>;

/// Which request directions a simulation keeps.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpFilter {
    /// Reads only (the default: a buffer cache's read hit ratio).
    #[default]
    Read,
    /// Writes only.
    Write,
    /// Reads and writes alike.
    All,
}

impl OpFilter {
    /// Whether a request of direction `op` is kept.
    pub fn keeps(self, op: Op) -> bool {
        match self {
            OpFilter::Read => op == Op::Read,
            OpFilter::Write => op == Op::Write,
            OpFilter::All => true,
        }
    }

    /// Parses `read`, `write` or `all`.
    pub fn parse(s: &str) -> Result<OpFilter> {
        match s {
            "read" | "reads" => Ok(OpFilter::Read),
            "write" | "writes" => Ok(OpFilter::Write),
            "all" | "both" => Ok(OpFilter::All),
            _ => Err(Error::config("ops", s, "expected read, write or all")),
        }
    }

    /// Plural noun used in messages ("read requests").
    pub fn noun(self) -> &'static str {
        match self {
            OpFilter::Read => "read requests",
            OpFilter::Write => "write requests",
            OpFilter::All => "requests",
        }
    }
}

/// A trace format belady can read.
#[derive(Clone, Debug, PartialEq)]
pub enum Format {
    /// One block id per line; `*` lines are markers and skipped (LIRS / CLOCK-Pro traces).
    Lirs,
    /// `start_block num_blocks ignore request_no` per line (ARC paper traces).
    Arc,
    /// Delimited text with a column mapping (see [`csv::CsvSpec`]).
    Csv(Box<csv::CsvSpec>),
    /// Little-endian 32-bit block ids, back to back.
    U32Le,
    /// Big-endian 32-bit block ids, back to back.
    U32Be,
    /// belady's own binary format with dense ids (see [`native`]).
    Native,
    /// AccuSim's binary file-level trace (see [`accusim`]).
    Accusim,
    /// AccuSim's one-event-per-line file-level trace.
    AccusimText,
    /// belady's own one-event-per-line file-level trace (see [`events`]); `belady record` writes it.
    Events,
    /// libCacheSim's oracleGeneral binary records (see [`oracle_general`]).
    OracleGeneral,
    /// libCacheSim's lcs binary trace, versions 1 to 8 (see [`lcs`]).
    Lcs,
}

/// Names accepted by [`Format::parse`], for help texts and errors.
pub const FORMAT_NAMES: &[&str] = &[
    "lirs",
    "arc",
    "csv",
    "cloudphysics",
    "msr",
    "systor",
    "tencent",
    "u32le",
    "u32be",
    "native",
    "accusim",
    "accusim-text",
    "events",
    "oracle-general",
    "lcs",
];

impl Format {
    /// Parses a format name; `columns` (a `--columns` mapping) is required for `csv` and
    /// overrides fields of a CSV preset.
    pub fn parse(name: &str, columns: Option<&str>, header: Option<bool>) -> Result<Format> {
        let preset = match name {
            "lirs" => Some(Format::Lirs),
            "arc" => Some(Format::Arc),
            "u32le" => Some(Format::U32Le),
            "u32be" => Some(Format::U32Be),
            "native" | "belady" => Some(Format::Native),
            "accusim" => Some(Format::Accusim),
            "accusim-text" => Some(Format::AccusimText),
            "events" => Some(Format::Events),
            "oracle-general" | "oracleGeneral" => Some(Format::OracleGeneral),
            "lcs" => Some(Format::Lcs),
            _ => None,
        };
        if let Some(format) = preset {
            if columns.is_some() {
                return Err(Error::config(
                    "columns",
                    columns.unwrap_or_default(),
                    format!("column mappings apply to csv formats, not to '{name}'"),
                ));
            }
            return Ok(format);
        }
        let mut spec = match name {
            "csv" => {
                let Some(cols) = columns else {
                    return Err(Error::config(
                        "format",
                        name,
                        "csv needs --columns, e.g. 'offset=4,size=5,op=3' (or a preset: cloudphysics, msr, systor, tencent)",
                    ));
                };
                csv::CsvSpec::from_columns(cols)?
            }
            _ => {
                let mut spec = csv::CsvSpec::preset(name).ok_or_else(|| {
                    Error::config(
                        "format",
                        name,
                        format!(
                            "unknown trace format{}; expected one of {}",
                            crate::error::did_you_mean(name, FORMAT_NAMES.iter().copied()),
                            FORMAT_NAMES.join(", ")
                        ),
                    )
                })?;
                if let Some(cols) = columns {
                    spec.apply_columns(cols)?;
                }
                spec
            }
        };
        if let Some(h) = header {
            spec.header = h;
        }
        Ok(Format::Csv(Box::new(spec)))
    }

    /// Short name, as shown in results.
    pub fn name(&self) -> &str {
        match self {
            Format::Lirs => "lirs",
            Format::Arc => "arc",
            Format::Csv(spec) => spec.name.as_str(),
            Format::U32Le => "u32le",
            Format::U32Be => "u32be",
            Format::Native => "native",
            Format::Accusim => "accusim",
            Format::AccusimText => "accusim-text",
            Format::Events => "events",
            Format::OracleGeneral => "oracle-general",
            Format::Lcs => "lcs",
        }
    }

    /// Whether the format's requests are objects whose size is the record's (oracleGeneral,
    /// lcs), rather than ranges of fixed-size blocks. A native file keeps sizes when the trace
    /// it was converted from had them; that is known only once its header is read.
    pub fn has_object_sizes(&self) -> bool {
        matches!(self, Format::OracleGeneral | Format::Lcs)
    }

    /// Whether the format records file-level calls (read-ahead can apply) rather than blocks.
    pub fn is_file_level(&self) -> bool {
        matches!(self, Format::Accusim | Format::AccusimText | Format::Events)
    }
}

/// Settings every reader shares.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// Bytes per block, for formats that address bytes or sectors.
    pub block_size: u32,
    /// Largest request one line may make, in bytes (configuration key `max_request_bytes`):
    /// a request expands into one reference per block, so one line must not ask for millions.
    pub max_request_bytes: u64,
}

/// Default of [`ReadOptions::max_request_bytes`]: 1 GiB, far above any request in the MSR,
/// Tencent, SYSTOR, CloudPhysics or ARC traces, and 262,144 references at 4 KiB blocks.
pub const DEFAULT_MAX_REQUEST_BYTES: u64 = 1 << 30;

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions::with_block_size(4096)
    }
}

impl ReadOptions {
    /// Defaults with `block_size`-byte blocks.
    pub fn with_block_size(block_size: u32) -> Self {
        ReadOptions {
            block_size,
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
        }
    }

    /// The request limit in blocks (at least one block).
    pub fn max_request_blocks(&self) -> u64 {
        (self.max_request_bytes / self.block_size.max(1) as u64).max(1)
    }
}

/// Refuses a block size of 0 bytes (every reader and engine divides by it).
pub(crate) fn check_block_size(block_size: u32) -> Result<()> {
    if block_size == 0 {
        return Err(Error::config("block_size", 0, "must be at least 1 byte"));
    }
    Ok(())
}

/// Opens `path` as a stream of block requests in `format`.
pub fn open_requests(path: &Path, format: &Format, opts: &ReadOptions) -> Result<RequestStream> {
    check_block_size(opts.block_size)?;
    match format {
        Format::Accusim => {
            return Ok(Box::new(accusim::AccusimRequests::open_with(
                path,
                true,
                opts.block_size,
                opts.max_request_bytes,
            )?))
        }
        Format::AccusimText => {
            return Ok(Box::new(accusim::AccusimRequests::open_with(
                path,
                false,
                opts.block_size,
                opts.max_request_bytes,
            )?))
        }
        Format::Events => {
            let trace = events::load_with(path, opts.max_request_bytes)?;
            return Ok(file_requests(&trace, opts.block_size));
        }
        _ => {}
    }
    let input = if matches!(format, Format::Lirs | Format::Arc | Format::Csv(_)) {
        input::open_text(path)?
    } else {
        input::open_trace(path)?
    };
    let name = path.display().to_string();
    Ok(match format {
        Format::Lirs => {
            Box::new(text::LirsReader::new(input, name).with_block_size(opts.block_size))
        }
        Format::Arc => Box::new(
            text::ArcReader::new(input, name)
                .with_max_request_blocks(opts.max_request_blocks())
                .with_block_size(opts.block_size),
        ),
        Format::Csv(spec) => Box::new(
            csv::CsvReader::new(input, name, spec, opts.block_size)?
                .with_max_request_blocks(opts.max_request_blocks()),
        ),
        Format::U32Le => {
            Box::new(binary::U32Reader::new(input, name, false).with_block_size(opts.block_size))
        }
        Format::U32Be => {
            Box::new(binary::U32Reader::new(input, name, true).with_block_size(opts.block_size))
        }
        Format::Native => Box::new(native::NativeRequests::open(input, name)?),
        Format::OracleGeneral => {
            Box::new(oracle_general::RecordReader::oracle_general(input, name))
        }
        Format::Lcs => Box::new(lcs::open(input, name)?),
        Format::Accusim | Format::AccusimText | Format::Events => {
            unreachable!("file-level formats returned above")
        }
    })
}

/// Guesses a format from a file's content and name: the native magic first, then the extension.
pub fn detect_format(path: &Path) -> Result<Format> {
    let head = input::peek_decompressed(path, SNIFF_BYTES)?;
    if head.starts_with(native::MAGIC) {
        return Ok(Format::Native);
    }
    if lcs::is_lcs(&head) {
        return Ok(Format::Lcs);
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name
        .trim_end_matches(".gz")
        .trim_end_matches(".xz")
        .trim_end_matches(".zst")
        .trim_end_matches(".bz2");
    if head.starts_with(events::HEADER.as_bytes()) {
        Ok(Format::Events)
    } else if stem.ends_with(".evt") {
        Ok(Format::AccusimText)
    } else if stem.ends_with(".trace") {
        Ok(Format::Lirs)
    } else if stem.ends_with(".lis") {
        Ok(Format::Arc)
    } else if name.contains(".oracleGeneral") {
        // libCacheSim's collections name them NAME.oracleGeneral[.bin|.sampleN][.zst].
        Ok(Format::OracleGeneral)
    } else if let Some(format) = sniff_text(&head) {
        Ok(format)
    } else {
        Err(Error::UnknownFormat {
            path: path.display().to_string(),
            msg: format!(
                "neither its first bytes, its first lines nor its name match a known format; pass --format (one of {})",
                FORMAT_NAMES.join(", ")
            ),
        })
    }
}

/// Bytes of a trace's head that format detection reads.
const SNIFF_BYTES: usize = 4096;

/// Recognises the two plain block formats by their complete first lines: one number (or `*`)
/// per line is LIRS, four numbers per line is ARC.
fn sniff_text(head: &[u8]) -> Option<Format> {
    let complete = &head[..head.iter().rposition(|&c| c == b'\n')? + 1];
    let mut shape = None;
    for line in complete.split(|&c| c == b'\n') {
        let line = input::trim_line(line);
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&[u8]> = line
            .split(|c| *c == b' ' || *c == b'\t')
            .filter(|f| !f.is_empty())
            .collect();
        let this = if line == b"*" {
            Format::Lirs
        } else if fields.iter().all(|f| input::parse_u64(f).is_some()) {
            match fields.len() {
                1 => Format::Lirs,
                4 => Format::Arc,
                _ => return None,
            }
        } else {
            return None;
        };
        match &shape {
            None => shape = Some(this),
            Some(s) if *s == this => {}
            Some(_) => return None,
        }
    }
    shape
}

/// Reads a file-level trace in `format` (accusim, accusim-text or events).
pub fn load_file_trace(path: &Path, format: &Format) -> Result<file::FileTrace> {
    load_file_trace_with(path, format, DEFAULT_MAX_REQUEST_BYTES)
}

/// [`load_file_trace`], refusing a read or write of more than `max_request_bytes`.
pub fn load_file_trace_with(
    path: &Path,
    format: &Format,
    max_request_bytes: u64,
) -> Result<file::FileTrace> {
    match format {
        Format::Accusim => accusim::load_with(path, true, max_request_bytes),
        Format::AccusimText => accusim::load_with(path, false, max_request_bytes),
        Format::Events => events::load_with(path, max_request_bytes),
        other => Err(Error::config(
            "format",
            other.name(),
            "is a block-level format; read-ahead needs a file-level trace (accusim, accusim-text, events)",
        )),
    }
}

/// The demand block references of a file-level trace, for block-level simulation.
fn file_requests(trace: &file::FileTrace, block_size: u32) -> RequestStream {
    let bs = block_size as u64;
    let mut out = Vec::new();
    let mut failed = None;
    for ev in &trace.events {
        let Some((op, first, count)) = ev.blocks(bs) else {
            continue;
        };
        for index in first..first + count {
            match file::file_block_key(ev.file, index) {
                Some(block) => out.push(Ok(BlockRequest {
                    block,
                    count: 1,
                    op,
                    time_ns: None,
                    bytes: ev.bytes_in(index, bs),
                })),
                None => {
                    failed = Some(Error::config(
                        "trace",
                        &trace.source,
                        format!(
                            "file block {index} of file {} is beyond 2^32 blocks per file",
                            ev.file
                        ),
                    ));
                    break;
                }
            }
        }
        if failed.is_some() {
            break;
        }
    }
    out.extend(failed.map(Err));
    Box::new(out.into_iter())
}
