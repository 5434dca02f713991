//! `belady gen KIND [--PARAM VALUE …] --seed N -o FILE`: synthetic workloads.
//!
//! The subcommands and their options come from the core's generator table, so a parameter is
//! declared once (name, default, help) and serves both `gen KIND --NAME` and `mix` parts.

use anyhow::{Context, Result};
use belady_core::workload::sizes::ObjectSizes;
use belady_core::workload::{self, GenSpec, Level, MixPart, OutFormat, GENERATORS, MIX_KEYS};
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use std::path::PathBuf;

/// The generator chosen and every option given.
pub struct GenArgs {
    kind: String,
    values: Vec<(&'static str, String)>,
    parts: Vec<String>,
    seed: u64,
    output: PathBuf,
    to: Option<String>,
    block_size: u32,
    sizes: Option<String>,
}

fn common(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("seed")
            .long("seed")
            .value_parser(clap::value_parser!(u64))
            .default_value("1")
            .help("Random seed: the same seed and parameters give the same bytes"),
    )
    .arg(
        Arg::new("output")
            .long("output")
            .short('o')
            .required(true)
            .value_parser(clap::value_parser!(PathBuf))
            .help("Output file (written as the trace is generated)"),
    )
    .arg(
        Arg::new("to")
            .long("to")
            .value_parser(["native", "lirs", "events", "oracle-general"])
            .help(
                "Output format: native (default for block-level), lirs or oracle-general (libCacheSim's; built in memory, about 16 bytes per request); events (file-level)",
            ),
    )
    .arg(
        Arg::new("sizes")
            .long("sizes")
            .value_name("SPEC")
            .help(
                "Give each object a size (block-level generators; kept by native and oracle-general): fixed:N, uniform:A-B, pareto:MIN,ALPHA[,MAX] or lognormal:MEDIAN,SIGMA[,MAX], bytes with optional units; drawn per object from --seed",
            ),
    )
    .arg(
        Arg::new("block_size")
            .long("block-size")
            .value_parser(clap::value_parser!(u32).range(1..))
            .default_value("4096")
            .help("Bytes per block recorded in a native file"),
    )
}

impl Args for GenArgs {
    fn augment_args(cmd: Command) -> Command {
        let mut cmd = cmd.subcommand_required(true).arg_required_else_help(true);
        for g in GENERATORS {
            let mut sub = common(Command::new(g.name).about(g.about));
            for p in g.params {
                sub = sub.arg(
                    Arg::new(p.name)
                        .long(p.name)
                        .default_value(p.default)
                        .help(p.about),
                );
            }
            cmd = cmd.subcommand(sub);
        }
        let kinds: Vec<&str> = GENERATORS.iter().map(|g| g.name).collect();
        let keys: Vec<String> = MIX_KEYS
            .iter()
            .map(|(k, d, about)| format!("{k} ({about}; default {d})"))
            .collect();
        cmd.subcommand(
            common(Command::new("mix").about(
                "several generators at once, interleaved in time (all block-level or all file-level)",
            ))
            .arg(
                Arg::new("part")
                    .long("part")
                    .required(true)
                    .action(ArgAction::Append)
                    .help(format!(
                        "A part, KIND[:key=value,…] with KIND one of {} and keys its parameters or {}. Repeatable",
                        kinds.join(", "),
                        keys.join(", ")
                    )),
            ),
        )
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for GenArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let (kind, sub) = m
            .subcommand()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::MissingSubcommand))?;
        let mut values = Vec::new();
        if let Some(g) = GENERATORS.iter().find(|g| g.name == kind) {
            for p in g.params {
                if let Some(v) = sub.get_one::<String>(p.name) {
                    values.push((p.name, v.clone()));
                }
            }
        }
        let parts = sub
            .try_get_many::<String>("part")
            .ok()
            .flatten()
            .map(|v| v.cloned().collect())
            .unwrap_or_default();
        Ok(GenArgs {
            kind: kind.to_string(),
            values,
            parts,
            seed: *sub.get_one::<u64>("seed").expect("seed has a default"),
            output: sub
                .get_one::<PathBuf>("output")
                .expect("output is required")
                .clone(),
            to: sub.get_one::<String>("to").cloned(),
            block_size: *sub.get_one::<u32>("block_size").expect("has a default"),
            sizes: sub.get_one::<String>("sizes").cloned(),
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

pub fn run(args: GenArgs) -> Result<()> {
    let (gen, level, source) = if args.kind == "mix" {
        let parts: Vec<MixPart> = args
            .parts
            .iter()
            .map(|p| MixPart::parse(p))
            .collect::<belady_core::Result<_>>()?;
        let gen = workload::build_mix(&parts, args.seed)?;
        let level = parts[0].spec.info.level;
        let source = format!("gen mix seed={} {}", args.seed, args.parts.join(" "));
        (gen, level, source)
    } else {
        let mut spec = GenSpec::new(&args.kind)?;
        for (k, v) in &args.values {
            spec.set(k, v)?;
        }
        let settings: Vec<String> = spec
            .info
            .params
            .iter()
            .map(|p| {
                let v = spec.values.get(p.name).map_or(p.default, String::as_str);
                format!("{}={v}", p.name)
            })
            .collect();
        let source = format!(
            "gen {} seed={} {}",
            args.kind,
            args.seed,
            settings.join(" ")
        );
        (spec.build(args.seed)?, spec.info.level, source)
    };
    let to = match (args.to.as_deref(), level) {
        (Some("lirs"), _) => OutFormat::Lirs,
        (Some("events"), _) => OutFormat::Events,
        (Some("oracle-general"), _) => OutFormat::OracleGeneral,
        (Some(_), _) | (None, Level::Block) => OutFormat::Native,
        (None, Level::File) => OutFormat::Events,
    };
    let sizes = args
        .sizes
        .as_deref()
        .map(|spec| ObjectSizes::parse(spec, args.seed))
        .transpose()?;
    let source = match &args.sizes {
        Some(spec) => format!("{source} sizes={spec}"),
        None => source,
    };
    let written = workload::write_sized(gen, &args.output, to, &source, args.block_size, sizes)
        .with_context(|| format!("gen {}", args.kind))?;
    let what = if level == Level::File {
        "events"
    } else {
        "references"
    };
    match written.unique {
        Some(u) => eprintln!(
            "wrote {} ({} {what}, {u} unique blocks)",
            args.output.display(),
            written.records
        ),
        None => eprintln!(
            "wrote {} ({} {what})",
            args.output.display(),
            written.records
        ),
    }
    Ok(())
}
