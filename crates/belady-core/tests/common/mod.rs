//! Helpers the trace-based integration tests share: where the shared traces are, loading one,
//! and running a policy over it.

// Each test binary uses only some of these.
#![allow(dead_code)]

use belady_core::engine::file::PreparedFileTrace;
use belady_core::trace::file::{FileEvent, FileEventKind, FileTrace};
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

/// An event of a one-file program: process 1 works on file 1 (`file_size` bytes) through
/// descriptor 3, after `think_us` of computation.
pub fn call(think_us: u64, file_size: u64, kind: FileEventKind) -> FileEvent {
    FileEvent {
        think_ns: think_us * 1000,
        pid: 1,
        fd: 3,
        file: 1,
        file_size,
        kind,
    }
}

/// `events` as a file-level trace of 4 KiB blocks, ready to simulate.
pub fn program(events: Vec<FileEvent>) -> PreparedFileTrace {
    let trace = FileTrace {
        source: "test".into(),
        events,
        ..FileTrace::default()
    };
    PreparedFileTrace::new(trace, 4096).unwrap()
}
