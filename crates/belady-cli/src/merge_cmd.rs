//! `belady merge A B --scale-to A -o OUT`: two traces interleaved by time, ids kept apart.

use crate::{open_request_stream, open_stream, FormatArgs, RefSink, Target};
use anyhow::Result;
use belady_core::trace::merge::{merge, ScaleTo};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Copy, Clone, ValueEnum)]
enum Scale {
    /// Scale B's timeline onto A's duration.
    #[value(name = "A", alias = "a")]
    A,
    /// Scale A's timeline onto B's duration.
    #[value(name = "B", alias = "b")]
    B,
    /// Keep both timelines as they are.
    None,
}

#[derive(Args)]
pub struct MergeArgs {
    /// First trace (its block ids are kept).
    a: PathBuf,
    /// Second trace (its block ids are shifted past A's).
    b: PathBuf,
    #[command(flatten)]
    how: FormatArgs,
    /// Format of B when it differs from --format (default: guessed).
    #[arg(long)]
    format_b: Option<String>,
    /// Which trace's duration the other's timeline is scaled onto. Traces without timestamps
    /// use the block reference index as time.
    #[arg(long, value_enum, default_value = "A")]
    scale_to: Scale,
    /// Added to B's block ids (default: A's largest id + 1).
    #[arg(long)]
    offset: Option<u64>,
    /// Output file.
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Output format: native, lirs, arc, csv, u32le, u32be.
    #[arg(long, value_enum, default_value = "native")]
    to: Target,
}

pub fn run(args: MergeArgs) -> Result<()> {
    if !matches!(
        args.to,
        Target::Native | Target::Lirs | Target::Arc | Target::Csv | Target::U32le | Target::U32be
    ) {
        anyhow::bail!("merge writes native, lirs, arc, csv, u32le or u32be");
    }
    let fa = args.how.format_of(&args.a, None)?;
    let fb = match &args.format_b {
        Some(name) => args.how.format_of(&args.b, Some(name))?,
        None if args.how.format.is_some() => fa.clone(),
        None => args.how.format_of(&args.b, None)?,
    };
    let first = open_request_stream(&args.a, &fa, &args.how)?;
    let block_size = first.block_size;
    // Object sizes survive when both traces have them and the output holds them (native).
    let sized = [
        first.object_sizes,
        open_request_stream(&args.b, &fb, &args.how)?.object_sizes,
    ];
    drop(first);
    let open_a = || Ok(open_stream(&args.a, &fa, &args.how).map_err(to_core)?.0);
    let open_b = || Ok(open_stream(&args.b, &fb, &args.how).map_err(to_core)?.0);
    let source = format!("merge {} {}", args.a.display(), args.b.display());
    belady_core::outfile::refuse_overwrite(&args.output, &[&args.a, &args.b])?;
    let mut sink = RefSink::create(args.to, &args.output, &source, block_size)?;
    if sized == [true, true] && args.to == Target::Native {
        sink = sink.with_sizes();
    } else if sized.contains(&true) {
        eprintln!(
            "note: object sizes are dropped: {}",
            if args.to == Target::Native {
                "only one of the traces has them"
            } else {
                "the output format holds none (merge to native keeps them)"
            }
        );
    }
    let scale = match args.scale_to {
        Scale::A => ScaleTo::A,
        Scale::B => ScaleTo::B,
        Scale::None => ScaleTo::None,
    };
    let out = &args.output;
    let mut failure = None;
    let summary = merge(&open_a, &open_b, scale, args.offset, |req| {
        sink.push(req, out).map_err(|e| {
            let msg = format!("{e:#}");
            failure = Some(e);
            belady_core::Error::config("merge output", out.display(), msg)
        })
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let summary = summary?;
    let refs = summary.a.references + summary.b.references;
    if refs == 0 {
        anyhow::bail!("both traces are empty: nothing to merge");
    }
    sink.finish(out)?;
    eprintln!(
        "wrote {} ({} + {} references, B's ids shifted by {}{})",
        out.display(),
        summary.a.references,
        summary.b.references,
        summary.offset,
        if summary.timed { ", timed" } else { "" }
    );
    Ok(())
}

/// The CLI's error back as a core error, for the merge's stream openers.
fn to_core(e: anyhow::Error) -> belady_core::Error {
    match e.downcast::<belady_core::Error>() {
        Ok(core) => core,
        Err(other) => belady_core::Error::config("trace", "", format!("{other:#}")),
    }
}
