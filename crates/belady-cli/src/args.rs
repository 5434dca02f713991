//! Argument conventions every command shares: one trace given positionally or as `--trace`.

use crate::FormatArgs;
use anyhow::Result;
use belady_core::trace::Format;
use belady_core::{BlockTrace, OpFilter};
use clap::{value_parser, Arg, ArgGroup, ArgMatches, Args, Command, FromArgMatches};
use std::path::PathBuf;

/// How to read a trace; shared by every command that reads one. The trace is accepted both as
/// the positional `TRACE` (`belady stats t.gz`) and as `--trace`/`-t` (`belady sim -t t.gz`),
/// so that no command has its own habit.
#[derive(Clone)]
pub struct TraceArgs {
    /// The trace file, however it was given.
    pub trace: PathBuf,
    /// Its format options.
    pub how: FormatArgs,
}

const POSITIONAL: &str = "trace_file";
const OPTION: &str = "trace";

impl Args for TraceArgs {
    fn augment_args(cmd: Command) -> Command {
        let cmd = cmd
            .arg(
                Arg::new(POSITIONAL)
                    .value_name("TRACE")
                    .value_parser(value_parser!(PathBuf))
                    .help("Trace file (gzip, xz, zstd or bzip2 compressed files are read transparently)"),
            )
            .arg(
                Arg::new(OPTION)
                    .long("trace")
                    .short('t')
                    .value_name("TRACE")
                    .value_parser(value_parser!(PathBuf))
                    .help("The trace file, as an option instead of the positional TRACE"),
            )
            .group(
                ArgGroup::new("trace_input")
                    .args([POSITIONAL, OPTION])
                    .required(true)
                    .multiple(false),
            );
        FormatArgs::augment_args(cmd)
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for TraceArgs {
    fn from_arg_matches(m: &ArgMatches) -> std::result::Result<Self, clap::Error> {
        // `sim --config FILE` takes the trace from the file.
        let from_config = matches!(m.try_get_one::<PathBuf>("config"), Ok(Some(_)));
        let trace = m
            .get_one::<PathBuf>(OPTION)
            .or_else(|| m.get_one::<PathBuf>(POSITIONAL))
            .cloned()
            .or_else(|| from_config.then(PathBuf::new))
            .ok_or_else(|| {
                clap::Error::raw(
                    clap::error::ErrorKind::MissingRequiredArgument,
                    "a trace file is required: give it as TRACE or --trace TRACE\n",
                )
            })?;
        Ok(TraceArgs {
            trace,
            how: FormatArgs::from_arg_matches(m)?,
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> std::result::Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl TraceArgs {
    /// The trace's format: as given, else detected.
    pub fn format(&self) -> Result<Format> {
        self.how.format_of(&self.trace, None)
    }

    /// Loads the trace as block references of the directions `ops` keeps.
    pub fn load(&self, ops: OpFilter) -> Result<BlockTrace> {
        let format = self.format()?;
        Ok(BlockTrace::load(
            &self.trace,
            &format,
            &self.how.read_options()?,
            ops,
        )?)
    }
}
