//! `belady convert`: a trace from any readable format to native, and from native (or any
//! block format) to the others, keeping what the target format can hold.

use crate::{FormatArgs, Ops, TraceArgs};
use anyhow::{Context, Result};
use belady_core::outfile::{refuse_overwrite, OutFile};
use belady_core::trace::{
    accusim, events, export, load_file_trace_with, native, open_requests, BlockRequest, BlockTrace,
    Format, OpFilter, RequestStream,
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
    /// libCacheSim's oracleGeneral binary format (object sizes, times in seconds, next-access
    /// times; reads only).
    OracleGeneral,
    /// libCacheSim's lcs binary format, version 2 (oracleGeneral's fields and each request's
    /// operation, so writes are kept).
    Lcs,
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
    /// No progress line on stderr (it shows only on a terminal, after two seconds).
    #[arg(long)]
    quiet: bool,
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

/// Where streamed block references go: a native file (keeping object sizes when the third
/// field says so) or a [`export::RefWriter`].
pub(crate) enum RefSink {
    Native(native::StreamWriter, OutFile, bool),
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
                    false,
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

    /// Keeps each request's object size (object traces) where the target holds sizes (native).
    pub(crate) fn with_sizes(self) -> RefSink {
        match self {
            RefSink::Native(w, file, _) => RefSink::Native(w, file, true),
            text => text,
        }
    }

    /// Appends every block of `req`.
    pub(crate) fn push(&mut self, req: &BlockRequest, out: &Path) -> Result<()> {
        if let RefSink::Native(w, _, true) = self {
            // An object request: one reference, its size checked by the reader (1 to u32::MAX).
            let size = u32::try_from(req.bytes).unwrap_or(u32::MAX);
            w.push_sized(req.block, req.op, req.time_ns, size)?;
            return Ok(());
        }
        for k in 0..req.count as u64 {
            let block = req.block + k;
            match self {
                RefSink::Native(w, _, _) => w.push(block, req.op, req.time_ns)?,
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
            RefSink::Native(w, mut file, _) => {
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
    crate::progress::start("convert", Some(&args.input.trace), args.quiet);
    let out = &args.output;
    refuse_overwrite(out, &[&args.input.trace])?;
    let failed = || format!("{}: write failed", out.display());
    match args.to {
        Target::Accusim | Target::AccusimText => return convert_accusim(&args),
        Target::Events => {
            let format = args.input.format()?;
            if !format.is_file_level() {
                anyhow::bail!(
                    "invalid --format '{}': --to events converts file-level traces (accusim, \
                     accusim-text, events); a block-level trace has no files or offsets to write",
                    format.name()
                );
            }
            let max = args.input.how.max_request_bytes;
            // An events input keeps its TIME column; other inputs have none to keep.
            let (trace, times) = if format == Format::Events {
                events::load_timed_with(&args.input.trace, max)?
            } else {
                (
                    load_file_trace_with(&args.input.trace, &format, max)?,
                    Vec::new(),
                )
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
            crate::note!(
                "wrote {} ({} events, {} files)",
                out.display(),
                trace.events.len(),
                trace.names.len()
            );
            return Ok(());
        }
        Target::OracleGeneral | Target::Lcs => {
            let trace = load_timed(&args.input, args.ops.into())?;
            if args.to == Target::OracleGeneral && trace.write_mask.is_some() {
                anyhow::bail!(
                    "{}: oracle-general holds reads only and this trace has writes; convert with --ops read, or --to lcs (which keeps each request's operation)",
                    args.input.trace.display()
                );
            }
            let mut file = OutFile::create(out)?;
            let base = if args.to == Target::Lcs {
                export::write_lcs(&trace, &mut file)
            } else {
                export::write_oracle_general(&trace, &mut file)
            }
            .with_context(failed)?;
            file.commit()?;
            crate::note!(
                "wrote {} ({} references, {} unique {})",
                out.display(),
                trace.refs.len(),
                trace.unique(),
                if trace.sizes.is_some() {
                    "objects with their sizes"
                } else {
                    "blocks as objects of size 1"
                }
            );
            match base {
                export::TimeBase::Since(t0) => crate::note!(
                    "note: times pass the format's 32-bit seconds, so they are written as seconds since the first request ({} s)",
                    t0 / 1_000_000_000
                ),
                export::TimeBase::Index => {
                    crate::note!("note: the trace has no times; each record's time is its index")
                }
                export::TimeBase::Absolute => {}
            }
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
        object_sizes,
    } = open_request_stream(&args.input.trace, &format, &args.input.how)?;
    let mut sink = RefSink::create(args.to, out, &source, block_size)?;
    if object_sizes {
        sink = sink.with_sizes();
    }
    let mut refs = 0u64;
    let mut bytes = 0u64;
    for req in stream {
        let req = req?;
        if ops.keeps(req.op) {
            sink.push(&req, out)?;
            refs += req.count as u64;
            bytes += req.bytes;
        }
    }
    if object_sizes && args.to != Target::Native {
        crate::note!(
            "note: {} holds no object sizes: each object becomes one block id and its size is dropped ({bytes} bytes over {refs} requests); --to native, oracle-general or lcs keep sizes",
            args.to.to_possible_value().map_or_else(String::new, |v| v.get_name().to_string())
        );
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
        Some(u) => crate::note!(
            "wrote {} ({refs} references, {u} unique blocks)",
            out.display()
        ),
        None => crate::note!("wrote {} ({refs} references)", out.display()),
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
    crate::note!("wrote {} ({records} records)", out.display());
    Ok(())
}

/// The whole trace with its times (when it has any) and object sizes (when it is an object
/// trace), keeping the requests `ops` selects: what the libCacheSim writers need.
fn load_timed(input: &TraceArgs, ops: OpFilter) -> Result<BlockTrace> {
    let format = input.format()?;
    let opened = open_request_stream(&input.trace, &format, &input.how)?;
    let mut timed = false;
    let stream = opened.stream.inspect(|r| {
        timed |= r.as_ref().is_ok_and(|r| r.time_ns.is_some());
    });
    let mut trace = if opened.object_sizes {
        BlockTrace::from_sized_requests(stream, ops, true, opened.source, opened.block_size)?
    } else {
        BlockTrace::from_requests(stream, ops, true, opened.source, opened.block_size)?
    };
    if !timed {
        trace.times = None;
    }
    if trace.refs.is_empty() {
        return Err(belady_core::Error::EmptyTrace {
            path: input.trace.display().to_string(),
            what: ops.noun().to_string(),
        }
        .into());
    }
    Ok(trace)
}
