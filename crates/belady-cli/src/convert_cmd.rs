//! `belady convert`: a trace from any readable format to native, and from native (or any
//! block format) to the others, keeping what the target format can hold.

use crate::{FormatArgs, Ops, TraceArgs};
use anyhow::{Context, Result};
use belady_core::outfile::{refuse_overwrite, OutFile};
use belady_core::trace::{
    accusim, events, export, load_file_trace, native, open_requests, BlockRequest, Format,
    OpFilter, RequestStream,
};
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

#[derive(Copy, Clone, PartialEq, Eq, ValueEnum)]
pub(crate) enum Target {
    /// belady's native binary format (dense ids).
    Native,
    /// One block id per line.
    Lirs,
    /// `start_block num_blocks 0 request_no` (the ARC traces' form), runs of consecutive blocks.
    Arc,
    /// `block,op[,time_ns]` with a header (read back with --format csv --header
    /// --columns block=0,op=1,time=2:ns).
    Csv,
    /// Back-to-back little-endian 32-bit block ids.
    U32le,
    /// Back-to-back big-endian 32-bit block ids.
    U32be,
    /// libCacheSim's oracleGeneral binary format (with next-access times).
    OracleGeneral,
    /// belady's file-level events text (from a file-level input).
    Events,
    /// AccuSim's binary file-level form (from an AccuSim input only).
    Accusim,
    /// AccuSim's text file-level form (from an AccuSim input only).
    AccusimText,
}

#[derive(Args)]
pub(crate) struct ConvertArgs {
    #[command(flatten)]
    input: TraceArgs,
    /// Output file.
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "native")]
    to: Target,
    /// Which requests to keep (native and csv keep the direction of each).
    #[arg(long, value_enum, default_value = "all")]
    ops: Ops,
}

/// A block-level stream of `path`, with the block size and source name it carries.
pub(crate) fn open_stream(
    path: &Path,
    format: &Format,
    how: &FormatArgs,
) -> Result<(RequestStream, u32, String)> {
    let opened = open_request_stream(path, format, how)?;
    Ok((opened.stream, opened.block_size, opened.source))
}

/// As [`open_stream`], saying also whether the requests are sized objects.
pub(crate) fn open_request_stream(
    path: &Path,
    format: &Format,
    how: &FormatArgs,
) -> Result<OpenedStream> {
    if *format == Format::Native {
        let reqs = native::NativeRequests::open(
            belady_core::trace::input::open_trace(path)?,
            path.display().to_string(),
        )?;
        return Ok(OpenedStream {
            block_size: reqs.block_size(),
            source: reqs.source().to_string(),
            object_sizes: reqs.has_sizes(),
            stream: Box::new(reqs),
        });
    }
    Ok(OpenedStream {
        stream: open_requests(path, format, &how.read_options())?,
        block_size: how.block_size,
        source: path.display().to_string(),
        object_sizes: format.has_object_sizes(),
    })
}

/// A trace opened as a request stream, with what its header or format says about it.
pub(crate) struct OpenedStream {
    /// The requests.
    pub stream: RequestStream,
    /// Bytes per block (a native file's own).
    pub block_size: u32,
    /// The trace's name (a native file keeps its original source's).
    pub source: String,
    /// Whether each request is one object of its own size (oracleGeneral, lcs, or a native
    /// file converted from them).
    pub object_sizes: bool,
}

/// Where streamed block references go: a native file or a [`export::RefWriter`].
pub(crate) enum RefSink {
    Native(native::StreamWriter, OutFile),
    Text(export::RefWriter<std::io::BufWriter<OutFile>>),
}

impl RefSink {
    /// Starts writing `out` (under a temporary name until [`RefSink::finish`]).
    pub(crate) fn create(to: Target, out: &Path, source: &str, block_size: u32) -> Result<RefSink> {
        let file = OutFile::create(out)?;
        let format = match to {
            Target::Native => {
                let dir = match out.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d,
                    _ => Path::new("."),
                };
                return Ok(RefSink::Native(
                    native::StreamWriter::new(dir, source.to_string(), block_size)?,
                    file,
                ));
            }
            Target::Lirs => export::RefFormat::Lirs,
            Target::Arc => export::RefFormat::Arc,
            Target::Csv => export::RefFormat::Csv,
            Target::U32le => export::RefFormat::U32Le,
            Target::U32be => export::RefFormat::U32Be,
            _ => unreachable!("not a streamed block format"),
        };
        Ok(RefSink::Text(export::RefWriter::new(
            format,
            std::io::BufWriter::with_capacity(1 << 20, file),
        )))
    }

    /// Appends every block of `req`.
    pub(crate) fn push(&mut self, req: &BlockRequest, out: &Path) -> Result<()> {
        for k in 0..req.count as u64 {
            let block = req.block + k;
            match self {
                RefSink::Native(w, _) => w.push(block, req.op, req.time_ns)?,
                RefSink::Text(w) => w
                    .push(block, req.op, req.time_ns)
                    .with_context(|| format!("{}: cannot write", out.display()))?,
            }
        }
        Ok(())
    }

    /// Finishes the file and gives it its name; returns the unique blocks when known.
    pub(crate) fn finish(self, out: &Path) -> Result<Option<usize>> {
        let failed = || format!("{}: write failed", out.display());
        match self {
            RefSink::Native(w, mut file) => {
                let (_, unique) = w
                    .finish(std::io::BufWriter::with_capacity(1 << 20, &mut file))
                    .with_context(failed)?;
                file.commit()?;
                Ok(unique)
            }
            RefSink::Text(w) => {
                let file = w
                    .finish()
                    .with_context(failed)?
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .with_context(failed)?;
                file.commit()?;
                Ok(None)
            }
        }
    }
}

pub(crate) fn convert(args: ConvertArgs) -> Result<()> {
    let out = &args.output;
    refuse_overwrite(out, &[&args.input.trace])?;
    let failed = || format!("{}: write failed", out.display());
    match args.to {
        Target::Accusim | Target::AccusimText => return convert_accusim(&args),
        Target::Events => {
            let format = args.input.format()?;
            // An events input keeps its TIME column; other inputs have none to keep.
            let (trace, times) = if format == Format::Events {
                events::load_timed(&args.input.trace)?
            } else {
                (load_file_trace(&args.input.trace, &format)?, Vec::new())
            };
            let mut w = events::Writer::new(std::io::BufWriter::new(OutFile::create(out)?))
                .with_context(failed)?;
            for (i, ev) in trace.events.iter().enumerate() {
                let path = trace.names.get(&ev.file).map_or("?", String::as_str);
                w.push(ev, times.get(i).copied().flatten(), path)
                    .with_context(failed)?;
            }
            w.finish()
                .with_context(failed)?
                .into_inner()
                .map_err(|e| e.into_error())
                .with_context(failed)?
                .commit()?;
            eprintln!(
                "wrote {} ({} events, {} files)",
                out.display(),
                trace.events.len(),
                trace.names.len()
            );
            return Ok(());
        }
        Target::OracleGeneral => {
            let trace = args.input.load(args.ops.into())?;
            let mut file = OutFile::create(out)?;
            export::write_oracle_general(&trace, &mut file).with_context(failed)?;
            file.commit()?;
            eprintln!(
                "wrote {} ({} references, {} unique blocks)",
                out.display(),
                trace.refs.len(),
                trace.unique()
            );
            return Ok(());
        }
        _ => {}
    }
    let format = args.input.format()?;
    let ops = OpFilter::from(args.ops);
    let OpenedStream {
        stream,
        block_size,
        source,
        ..
    } = open_request_stream(&args.input.trace, &format, &args.input.how)?;
    let mut sink = RefSink::create(args.to, out, &source, block_size)?;
    let mut refs = 0u64;
    for req in stream {
        let req = req?;
        if ops.keeps(req.op) {
            sink.push(&req, out)?;
            refs += req.count as u64;
        }
    }
    if refs == 0 {
        // Dropping the sink removes its temporary file; nothing takes the output's name.
        drop(sink);
        return Err(belady_core::Error::EmptyTrace {
            path: args.input.trace.display().to_string(),
            what: ops.noun().to_string(),
        }
        .into());
    }
    let unique = sink.finish(out)?;
    match unique {
        Some(u) => eprintln!(
            "wrote {} ({refs} references, {u} unique blocks)",
            out.display()
        ),
        None => eprintln!("wrote {} ({refs} references)", out.display()),
    }
    Ok(())
}

/// Rewrites an AccuSim trace in its other form, record by record.
fn convert_accusim(args: &ConvertArgs) -> Result<()> {
    let out = &args.output;
    let format = args.input.format()?;
    if !matches!(format, Format::Accusim | Format::AccusimText) {
        anyhow::bail!(
            "--to accusim and accusim-text convert AccuSim traces only: they copy AccuSim's \
             records, so the input must be --format accusim or accusim-text, not {}",
            format.name()
        );
    }
    let binary_out = matches!(args.to, Target::Accusim);
    let mut w = std::io::BufWriter::new(OutFile::create(out)?);
    let mut records = 0u64;
    for item in accusim::calls(&args.input.trace, format == Format::Accusim)? {
        let (call, _) = item?;
        if binary_out {
            accusim::write_binary(&call, &mut w)
        } else {
            accusim::write_text(&call, &mut w)
        }
        .with_context(|| format!("{}: write failed", out.display()))?;
        records += 1;
    }
    w.into_inner()
        .map_err(|e| e.into_error())
        .with_context(|| format!("{}: write failed", out.display()))?
        .commit()?;
    eprintln!("wrote {} ({records} records)", out.display());
    Ok(())
}
