//! PyO3 glue: converts Python arguments to the core's types and core errors to Python exceptions.
//! No simulation logic lives here.

use belady_core::trace::{detect_format, Format, OpFilter, ReadOptions};
use belady_core::{parse_policies, run_grid, BlockTrace, CacheSize, Error, PreparedTrace, Preset};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

create_exception!(
    _belady,
    BeladyError,
    PyValueError,
    "Base class of belady's errors."
);
create_exception!(
    _belady,
    ConfigError,
    BeladyError,
    "A configuration value is invalid."
);
create_exception!(
    _belady,
    TraceError,
    BeladyError,
    "A trace could not be read."
);

fn to_py(e: Error) -> PyErr {
    match e {
        Error::Config { .. } => ConfigError::new_err(e.to_string()),
        _ => TraceError::new_err(e.to_string()),
    }
}

/// Runs every policy at every cache size over one trace; returns one dict per run.
#[pyfunction]
#[pyo3(signature = (trace, policies, cache_sizes, format=None, block_size=4096, ops="read", params=Vec::new(), preset="paper", columns=None, header=None))]
#[allow(clippy::too_many_arguments)]
fn simulate<'py>(
    py: Python<'py>,
    trace: PathBuf,
    policies: Vec<String>,
    cache_sizes: Vec<String>,
    format: Option<String>,
    block_size: u32,
    ops: &str,
    params: Vec<String>,
    preset: &str,
    columns: Option<String>,
    header: Option<bool>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let results = py
        .allow_threads(|| -> belady_core::Result<_> {
            let specs = parse_policies(&policies.join(","), &params, Preset::parse(preset)?)?;
            let sizes = CacheSize::parse_list(&cache_sizes.join(","))?;
            let filter = OpFilter::parse(ops)?;
            let format = match &format {
                Some(name) => Format::parse(name, columns.as_deref(), header)?,
                None => detect_format(&trace)?,
            };
            let loaded = BlockTrace::load(&trace, &format, &ReadOptions { block_size }, filter)?;
            let prepared = PreparedTrace::new(loaded);
            Ok((
                run_grid(&specs, &sizes, &prepared)?,
                format.name().to_string(),
                filter,
            ))
        })
        .map_err(to_py)?;
    let (runs, format_name, filter) = results;
    runs.iter()
        .map(|r| {
            let d = PyDict::new(py);
            d.set_item("trace", &r.trace)?;
            d.set_item("policy", &r.policy)?;
            d.set_item("cache_blocks", r.cache_blocks)?;
            d.set_item("block_size", r.block_size)?;
            d.set_item("unique_blocks", r.unique_blocks)?;
            d.set_item("requests", r.requests)?;
            d.set_item("hits", r.hits)?;
            d.set_item("misses", r.misses)?;
            d.set_item("hit_ratio", r.hit_ratio)?;
            d.set_item("evictions", r.evictions)?;
            d.set_item("format", &format_name)?;
            d.set_item("ops", filter.noun().split(' ').next().unwrap_or("all"))?;
            Ok(d)
        })
        .collect()
}

/// Names of every registered policy.
#[pyfunction]
fn policies() -> Vec<&'static str> {
    belady_core::POLICIES.iter().map(|p| p.name).collect()
}

/// The extension module `belady._belady`.
#[pymodule]
fn _belady(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add("BeladyError", m.py().get_type::<BeladyError>())?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
