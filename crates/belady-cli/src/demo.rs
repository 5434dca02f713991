//! `belady demo`: every policy at several sizes on the shipped sample traces; `belady demo
//! clusterfetch`: ClusterFetch on recorded launches.

use anyhow::{bail, Result};
use belady_core::trace::{Format, OpFilter, ReadOptions};
use belady_core::{
    parse_policies, run_grid, BlockTrace, CacheSize, PreparedTrace, Preset, POLICIES,
};
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub struct DemoArgs {
    /// Directory holding the sample traces (default: the checkout's data/).
    #[arg(long, global = true)]
    data: Option<PathBuf>,
    #[command(subcommand)]
    which: Option<Which>,
}

/// The demonstrations besides the default one.
#[derive(clap::Subcommand)]
enum Which {
    /// ClusterFetch on recorded program launches: cold, warm and assisted launch times under an
    /// HDD and an SSD model.
    Clusterfetch(crate::clusterfetch_demo::DemoArgs),
}

pub fn run(args: DemoArgs) -> Result<()> {
    let dir = args.data.unwrap_or_else(crate::data_dir);
    if let Some(Which::Clusterfetch(cf)) = args.which {
        return crate::clusterfetch_demo::run(cf, &dir);
    }
    let samples = [
        ("scan-hot.trace.gz", "250,500,750,1000,1250"),
        ("zipf-loop.trace.gz", "100,250,500,750,1000"),
    ];
    let all: Vec<&str> = POLICIES.iter().map(|p| p.name).collect();
    let specs = parse_policies(&all.join(","), &[], Preset::Paper)?;
    for (name, sizes) in samples {
        let sizes = CacheSize::parse_list(sizes)?;
        let path = dir.join(name);
        if !path.is_file() {
            bail!(
                "{}: sample trace missing (run from a belady checkout or pass --data DIR)",
                path.display()
            );
        }
        let trace = PreparedTrace::new(BlockTrace::load(
            &path,
            &Format::Lirs,
            &ReadOptions::default(),
            OpFilter::Read,
        )?);
        crate::emit(&format!(
            "\n== {} — {} references, {} unique blocks\n{}",
            name,
            trace.trace.refs.len(),
            trace.unique(),
            crate::table::runs(&run_grid(&specs, &sizes, &trace)?)
        ))?;
    }
    Ok(())
}
