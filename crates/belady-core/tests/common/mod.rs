//! Helpers the trace-based integration tests share: where the shared traces are, loading one,
//! and running a policy over it.

// Each test binary uses only some of these.
#![allow(dead_code)]

use belady_core::{
    run_one, BlockTrace, Format, OpFilter, PolicySpec, PreparedTrace, Preset, ReadOptions,
};
use std::path::PathBuf;

/// The shared traces folder: BELADY_TRACES, else `../shared/traces` beside the checkout.
pub fn traces() -> PathBuf {
    std::env::var_os("BELADY_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"))
}

/// `rel` (under the traces folder) read in `format` and prepared, or `None` with a message when
/// it is absent.
pub fn trace(rel: &str, format: Format) -> Option<PreparedTrace> {
    let path = traces().join(rel);
    if !path.exists() {
        eprintln!("skipping: {} not found (set BELADY_TRACES)", path.display());
        return None;
    }
    let t = BlockTrace::load(&path, &format, &ReadOptions::default(), OpFilter::Read)
        .expect("shared trace loads");
    Some(PreparedTrace::new(t))
}

/// `lirs/<name>` prepared for simulation, or `None` when it is absent.
pub fn lirs_trace(name: &str) -> Option<PreparedTrace> {
    trace(&format!("lirs/{name}"), Format::Lirs)
}

/// The policy `policy` with `preset` and `params` set.
pub fn spec(policy: &str, preset: Preset, params: &[(&str, &str)]) -> PolicySpec {
    let mut spec = PolicySpec::parse(policy).unwrap();
    spec.preset = preset;
    for (k, v) in params {
        spec.set(k, v).unwrap();
    }
    spec
}

/// Hits of `policy` (with `preset` and `params`) at each size.
pub fn hits_at(
    trace: &PreparedTrace,
    policy: &str,
    preset: Preset,
    params: &[(&str, &str)],
    sizes: &[usize],
) -> Vec<u64> {
    let spec = spec(policy, preset, params);
    sizes
        .iter()
        .map(|&c| run_one(&spec, trace, c).unwrap().hits)
        .collect()
}
