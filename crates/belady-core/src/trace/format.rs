//! The trace formats: one table ([`FORMATS`]) with a row per format, which every question about
//! a format reads: its names (`--format`, results, help texts, errors), how detection recognises
//! it, whether its records carry object sizes or file-level calls, its reader, its file-level
//! loader, and which fast parser [`crate::trace::ingest`] maps it with. Adding a format is its
//! reader plus one row.

use super::oracle_general::Layout;
use super::{
    accusim, binary, csv, events, file, input, lcs, native, oracle_general, text, BlockRequest,
    ReadOptions, RequestStream,
};
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

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

/// How format detection recognises a format: every row's content test first (in table order),
/// then every row's name test; LIRS and ARC text without a telling name are recognised last by
/// the shape of their first lines.
#[derive(Copy, Clone, Debug)]
pub enum Detect {
    /// The decompressed head of the file passes this test.
    Content(fn(&[u8]) -> bool),
    /// The file name, compression suffix removed, ends with this.
    Suffix(&'static str),
    /// The file name contains this (libCacheSim's collections name them
    /// `NAME.oracleGeneral[.bin|.sampleN][.zst]`).
    Contains(&'static str),
}

/// How [`crate::trace::ingest`] maps a format's references to dense ids.
#[derive(Copy, Clone, Debug)]
pub enum Ingest {
    /// A native file: stored dense ids stream as they are; others are renumbered.
    Native,
    /// LIRS and ARC text: cut into pieces parsed in parallel ([`text`]).
    Text,
    /// Fixed-size binary records decoded in place; the function reads the header, if any, and
    /// gives the records' layout and the offset of the first.
    Records(fn(&mut dyn BufRead, &str) -> Result<(Layout, u64)>),
    /// The CSV reader over an input read on its own thread, called statically.
    Csv,
    /// The `u32` reader over an input read on its own thread, called statically.
    U32,
    /// The format's reader through [`open_requests`] (the file-level formats, whose readers hold
    /// the trace anyway).
    Reader,
}

/// What a format name makes.
#[derive(Debug)]
pub enum Kind {
    /// This format, with no settings.
    Fixed(Format),
    /// A CSV mapping: `csv` needs `--columns`; another name is a preset ([`csv::CsvSpec::preset`]).
    Csv,
}

/// A file-level reader: see [`FormatRow::file_events`].
pub type FileEvents =
    fn(&Path, u64, &mut dyn FnMut(&file::FileEvent) -> Result<()>) -> Result<BTreeMap<u64, String>>;

/// Everything belady knows of one trace format.
#[derive(Debug)]
pub struct FormatRow {
    /// Name, as `--format` takes it and results show it.
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// What the name makes.
    pub kind: Kind,
    /// The requests are objects whose size is the record's (oracleGeneral, lcs), rather than
    /// ranges of fixed-size blocks. A native file keeps sizes when the trace it was converted
    /// from had them; that is known only once its header is read.
    pub object_sizes: bool,
    /// The format records file-level calls (read-ahead can apply) rather than blocks.
    pub file_level: bool,
    /// How [`detect_format`] recognises it.
    pub detect: &'static [Detect],
    /// The format's reader: its requests, block by block.
    pub open: fn(&Path, &Format, &ReadOptions) -> Result<RequestStream>,
    /// The file-level reader (file-level formats only): hands each file event to the sink in
    /// order, refusing a read or write of more than the given bytes, and returns the files'
    /// names.
    pub file_events: Option<FileEvents>,
    /// The fast path into dense ids.
    pub ingest: Ingest,
}

/// Declares [`FORMATS`] and [`FORMAT_NAMES`] from the rows.
macro_rules! formats {
    ($(FormatRow { name: $name:literal, $($field:tt)* }),* $(,)?) => {
        /// Every trace format, in the order help texts list them.
        pub static FORMATS: &[FormatRow] = &[$(FormatRow { name: $name, $($field)* }),*];

        /// Names accepted by [`Format::parse`], for help texts and errors.
        pub const FORMAT_NAMES: &[&str] = &[$($name),*];
    };
}

formats! {
    FormatRow {
        name: "lirs",
        aliases: &[],
        kind: Kind::Fixed(Format::Lirs),
        object_sizes: false,
        file_level: false,
        detect: &[Detect::Suffix(".trace")],
        open: open_text,
        file_events: None,
        ingest: Ingest::Text,
    },
    FormatRow {
        name: "arc",
        aliases: &[],
        kind: Kind::Fixed(Format::Arc),
        object_sizes: false,
        file_level: false,
        detect: &[Detect::Suffix(".lis")],
        open: open_text,
        file_events: None,
        ingest: Ingest::Text,
    },
    FormatRow { name: "csv", ..CSV },
    FormatRow { name: "cloudphysics", ..CSV },
    FormatRow { name: "msr", ..CSV },
    FormatRow { name: "systor", ..CSV },
    FormatRow { name: "tencent", ..CSV },
    FormatRow {
        name: "u32le",
        aliases: &[],
        kind: Kind::Fixed(Format::U32Le),
        object_sizes: false,
        file_level: false,
        detect: &[],
        open: |path, _, opts| Ok(Box::new(
            binary::U32Reader::new(input::open_trace(path)?, path.display().to_string(), false)
                .with_block_size(opts.block_size),
        )),
        file_events: None,
        ingest: Ingest::U32,
    },
    FormatRow {
        name: "u32be",
        aliases: &[],
        kind: Kind::Fixed(Format::U32Be),
        object_sizes: false,
        file_level: false,
        detect: &[],
        open: |path, _, opts| Ok(Box::new(
            binary::U32Reader::new(input::open_trace(path)?, path.display().to_string(), true)
                .with_block_size(opts.block_size),
        )),
        file_events: None,
        ingest: Ingest::U32,
    },
    FormatRow {
        name: "native",
        aliases: &["belady"],
        kind: Kind::Fixed(Format::Native),
        object_sizes: false,
        file_level: false,
        detect: &[Detect::Content(|head| head.starts_with(native::MAGIC))],
        open: |path, _, _| {
            let input = input::open_trace(path)?;
            Ok(Box::new(native::NativeRequests::open(input, path.display().to_string())?))
        },
        file_events: None,
        ingest: Ingest::Native,
    },
    FormatRow {
        name: "accusim",
        aliases: &[],
        kind: Kind::Fixed(Format::Accusim),
        object_sizes: false,
        file_level: true,
        detect: &[],
        open: |path, _, opts| Ok(Box::new(accusim::AccusimRequests::open_with(
            path, true, opts.block_size, opts.max_request_bytes,
        )?)),
        file_events: Some(|path, max, sink| accusim::stream(path, true, max, sink)),
        ingest: Ingest::Reader,
    },
    FormatRow {
        name: "accusim-text",
        aliases: &[],
        kind: Kind::Fixed(Format::AccusimText),
        object_sizes: false,
        file_level: true,
        detect: &[Detect::Suffix(".evt")],
        open: |path, _, opts| Ok(Box::new(accusim::AccusimRequests::open_with(
            path, false, opts.block_size, opts.max_request_bytes,
        )?)),
        file_events: Some(|path, max, sink| accusim::stream(path, false, max, sink)),
        ingest: Ingest::Reader,
    },
    FormatRow {
        name: "events",
        aliases: &[],
        kind: Kind::Fixed(Format::Events),
        object_sizes: false,
        file_level: true,
        detect: &[Detect::Content(|head| head.starts_with(events::HEADER.as_bytes()))],
        open: |path, _, opts| {
            let trace = events::load_with(path, opts.max_request_bytes)?;
            Ok(file_requests(&trace, opts.block_size))
        },
        file_events: Some(events::stream),
        ingest: Ingest::Reader,
    },
    FormatRow {
        name: "oracle-general",
        aliases: &["oracleGeneral"],
        kind: Kind::Fixed(Format::OracleGeneral),
        object_sizes: true,
        file_level: false,
        detect: &[Detect::Contains(".oracleGeneral")],
        open: |path, _, _| Ok(Box::new(oracle_general::RecordReader::oracle_general(
            input::open_trace(path)?, path.display().to_string(),
        ))),
        file_events: None,
        ingest: Ingest::Records(|_, _| Ok((Layout::ORACLE_GENERAL, 0))),
    },
    FormatRow {
        name: "lcs",
        aliases: &[],
        kind: Kind::Fixed(Format::Lcs),
        object_sizes: true,
        file_level: false,
        detect: &[Detect::Content(lcs::is_lcs)],
        open: |path, _, _| Ok(Box::new(lcs::open(input::open_trace(path)?, path.display().to_string())?)),
        file_events: None,
        ingest: Ingest::Records(lcs::record_layout),
    },
}

/// The LIRS and ARC reader.
fn open_text(path: &Path, format: &Format, opts: &ReadOptions) -> Result<RequestStream> {
    let input = input::open_trace(path)?;
    let name = path.display().to_string();
    Ok(Box::new(text::TextReader::new(input, name, format, opts)))
}

/// The row of `csv` and of each CSV preset (the name says which mapping).
const CSV: FormatRow = FormatRow {
    name: "csv",
    aliases: &[],
    kind: Kind::Csv,
    object_sizes: false,
    file_level: false,
    detect: &[],
    open: open_csv,
    file_events: None,
    ingest: Ingest::Csv,
};

/// The CSV reader, for `csv` and its presets.
fn open_csv(path: &Path, format: &Format, opts: &ReadOptions) -> Result<RequestStream> {
    let Format::Csv(spec) = format else {
        unreachable!("only CSV rows open CSV")
    };
    let name = path.display().to_string();
    Ok(Box::new(
        csv::CsvReader::new(input::open_text(path)?, name, spec, opts.block_size)?
            .with_max_request_blocks(opts.max_request_blocks()),
    ))
}

impl Format {
    /// Parses a format name; `columns` (a `--columns` mapping) is required for `csv` and
    /// overrides fields of a CSV preset.
    pub fn parse(name: &str, columns: Option<&str>, header: Option<bool>) -> Result<Format> {
        let row = FORMATS
            .iter()
            .find(|r| r.name == name || r.aliases.contains(&name))
            .ok_or_else(|| {
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
        let mut spec = match &row.kind {
            Kind::Fixed(format) => {
                if let Some(columns) = columns {
                    return Err(Error::config(
                        "columns",
                        columns,
                        format!("column mappings apply to csv formats, not to '{name}'"),
                    ));
                }
                return Ok(format.clone());
            }
            Kind::Csv if row.name == "csv" => {
                let Some(cols) = columns else {
                    return Err(Error::config(
                        "format",
                        name,
                        "csv needs --columns, e.g. 'offset=4,size=5,op=3' (or a preset: cloudphysics, msr, systor, tencent)",
                    ));
                };
                csv::CsvSpec::from_columns(cols)?
            }
            Kind::Csv => {
                let mut spec = csv::CsvSpec::preset(row.name).expect("every CSV row is a preset");
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

    /// The format's row in [`FORMATS`] (a CSV mapping's preset, or `csv`).
    pub fn row(&self) -> &'static FormatRow {
        let named = |name: &str| FORMATS.iter().find(|r| r.name == name);
        match self {
            Format::Csv(spec) => named(&spec.name).or_else(|| named("csv")),
            _ => FORMATS
                .iter()
                .find(|r| matches!(&r.kind, Kind::Fixed(f) if f == self)),
        }
        .expect("every format has a row")
    }

    /// Short name, as shown in results.
    pub fn name(&self) -> &str {
        match self {
            Format::Csv(spec) => spec.name.as_str(),
            other => other.row().name,
        }
    }

    /// Whether the format's requests are objects whose size is the record's (oracleGeneral,
    /// lcs), rather than ranges of fixed-size blocks. A native file keeps sizes when the trace
    /// it was converted from had them; that is known only once its header is read.
    pub fn has_object_sizes(&self) -> bool {
        self.row().object_sizes
    }

    /// Whether the format records file-level calls (read-ahead can apply) rather than blocks.
    pub fn is_file_level(&self) -> bool {
        self.row().file_level
    }
}

/// Opens `path` as a stream of block requests in `format`.
pub fn open_requests(path: &Path, format: &Format, opts: &ReadOptions) -> Result<RequestStream> {
    super::check_block_size(opts.block_size)?;
    (format.row().open)(path, format, opts)
}

/// Guesses a format from a file's content and name: the content tests first (the native magic
/// among them), then the names, then the shape of text lines.
pub fn detect_format(path: &Path) -> Result<Format> {
    let head = input::peek_decompressed(path, SNIFF_BYTES)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name
        .trim_end_matches(".gz")
        .trim_end_matches(".xz")
        .trim_end_matches(".zst")
        .trim_end_matches(".bz2");
    let tests = |content: bool| {
        FORMATS.iter().find(|row| {
            row.detect.iter().any(|d| match *d {
                Detect::Content(test) => content && test(&head),
                Detect::Suffix(s) => !content && stem.ends_with(s),
                Detect::Contains(s) => !content && name.contains(s),
            })
        })
    };
    if let Some(Kind::Fixed(format)) = tests(true).or_else(|| tests(false)).map(|r| &r.kind) {
        return Ok(format.clone());
    }
    sniff_text(&head).ok_or_else(|| Error::UnknownFormat {
        path: path.display().to_string(),
        msg: format!(
            "neither its first bytes, its first lines nor its name match a known format; pass --format (one of {})",
            FORMAT_NAMES.join(", ")
        ),
    })
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
    load_file_trace_with(path, format, super::DEFAULT_MAX_REQUEST_BYTES)
}

/// [`load_file_trace`], refusing a read or write of more than `max_request_bytes`.
pub fn load_file_trace_with(
    path: &Path,
    format: &Format,
    max_request_bytes: u64,
) -> Result<file::FileTrace> {
    match format.row().file_events {
        Some(stream) => {
            let mut events = Vec::new();
            let names = stream(path, max_request_bytes, &mut |ev| {
                events.push(ev.clone());
                Ok(())
            })?;
            Ok(file::FileTrace {
                source: path.display().to_string(),
                events,
                names,
            })
        }
        None => Err(Error::config(
            "format",
            format.name(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_to_a_format_named_by_its_row() {
        for row in FORMATS {
            let columns = (row.name == "csv").then_some("offset=1");
            let format = Format::parse(row.name, columns, None).unwrap();
            assert_eq!(format.name(), row.name);
            assert!(std::ptr::eq(format.row(), row), "{}", row.name);
            for alias in row.aliases {
                assert_eq!(Format::parse(alias, None, None).unwrap(), format);
            }
        }
    }
}
