//! `belady distances`: reuse and eviction (idle) distance histograms below a client cache, the
//! eviction-based placement paper's Figure 2. Kept apart from other trace statistics so that it
//! can be offered as `belady stats --distances` through [`run`].

use crate::table::aligned;
use crate::{emit, Ops, TraceArgs};
use anyhow::Result;
use belady_core::analysis::distances::{placement_distances, DistanceReport};
use belady_core::{parse_policies, CacheSize, OpFilter, PolicySpec, PreparedTrace, Preset};
use clap::Args;

/// Options of `belady distances`.
#[derive(Args)]
pub struct DistancesArgs {
    #[command(flatten)]
    input: TraceArgs,
    /// Client cache size: blocks (500), bytes (64MiB) or a share of the unique blocks (1%);
    /// comma-separated for several.
    #[arg(long, short = 'c')]
    client_size: String,
    /// Client replacement policy.
    #[arg(long, default_value = "lru")]
    client_policy: String,
    /// Policy parameter, POLICY.KEY=VALUE (repeatable).
    #[arg(long = "param")]
    params: Vec<String>,
    /// Parameter defaults: paper, study or accusim.
    #[arg(long, default_value = "paper")]
    preset: String,
    /// Which requests to count.
    #[arg(long, value_enum, default_value = "read")]
    ops: Ops,
    /// Print a JSON array, one object per client size.
    #[arg(long)]
    json: bool,
}

/// Runs `belady distances`.
pub fn run(args: DistancesArgs) -> Result<()> {
    let preset = Preset::parse(&args.preset)?;
    let specs = parse_policies(&args.client_policy, &args.params, preset)?;
    let [spec] = specs.as_slice() else {
        anyhow::bail!(
            "invalid --client-policy '{}': name one policy",
            args.client_policy
        );
    };
    let ops = OpFilter::from(args.ops);
    let trace = PreparedTrace::new(args.input.load(ops)?);
    distances_for(&trace, spec, &args.client_size, args.json)
}

/// `belady stats --distances`: the same analysis with the paper's defaults for the client.
pub fn report(trace: &PreparedTrace, client_policy: &str, sizes: &str, json: bool) -> Result<()> {
    let specs = parse_policies(client_policy, &[], Preset::Paper)?;
    let [spec] = specs.as_slice() else {
        anyhow::bail!("invalid --client-policy '{client_policy}': name one policy");
    };
    distances_for(trace, spec, sizes, json)
}

fn distances_for(trace: &PreparedTrace, spec: &PolicySpec, sizes: &str, json: bool) -> Result<()> {
    let sizes = CacheSize::parse_list(sizes)?;
    let reports: Vec<DistanceReport> = sizes
        .iter()
        .map(|s| {
            let blocks = s.resolve(trace.unique(), trace.trace.block_size)?;
            placement_distances(trace, spec, blocks)
        })
        .collect::<belady_core::Result<_>>()?;
    if json {
        return emit(&format!("{}\n", serde_json::to_string_pretty(&reports)?));
    }
    emit(&reports.iter().map(text).collect::<Vec<_>>().join("\n"))
}

/// One report as text: a header, then one row per log2 bucket.
pub fn text(r: &DistanceReport) -> String {
    let mut out = format!(
        "trace {}: client {} of {} blocks; {} of {} references reach the storage, {} for the first time\n\
         idle distance in storage references: access-based placement = reuse distance, \
         eviction-based placement = distance from the client's eviction\n",
        r.trace,
        r.client_policy,
        r.client_blocks,
        r.storage_references,
        r.requests,
        r.first_references
    );
    let rows: Vec<Vec<String>> = r
        .buckets
        .iter()
        .map(|b| {
            vec![
                format!("{}-{}", b.low, b.high),
                b.access.to_string(),
                b.eviction.to_string(),
            ]
        })
        .collect();
    out.push_str(&aligned(&["distance", "access", "eviction"], &rows));
    out.push_str(&format!(
        "mean: access {:.1}, eviction {:.1}\n",
        r.mean_access, r.mean_eviction
    ));
    out
}
