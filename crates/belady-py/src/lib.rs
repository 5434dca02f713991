//! PyO3 glue: converts Python arguments to the core's types and core errors to Python exceptions.
//! No simulation logic lives here.

use belady_core::sweep::store::Store;
use belady_core::sweep::{run_config, CellConfig, Experiment, Plan};
use belady_core::trace::{detect_format, Format, OpFilter};
use belady_core::{parse_policies, Error, RunConfig};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
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

/// A core error as a Python exception; configuration keys are named as `simulate`'s keyword
/// arguments (`max_request`, `cache_sizes`), never as command-line flags.
fn to_py(e: Error) -> PyErr {
    match e {
        Error::Config { field, value, msg } => ConfigError::new_err(format!(
            "invalid {} '{value}': {msg}",
            belady_core::run::config::keyword_name(&field)
        )),
        // Memory an input asked for: Python's own exception for it, the interpreter lives on.
        Error::OutOfMemory { .. } => pyo3::exceptions::PyMemoryError::new_err(e.to_string()),
        _ => TraceError::new_err(e.to_string()),
    }
}

/// Runs `work` on its own thread and waits for it without holding the GIL, looking for Ctrl-C
/// every 50 ms: a KeyboardInterrupt reaches the caller at once instead of after the whole run
/// (a call that held the thread in Rust ignored Ctrl-C until it ended). The interrupted work
/// cannot be stopped midway: it finishes in the background and its result is dropped; a sweep's
/// runs stored meanwhile stay stored, as after Ctrl-C in `belady sweep`.
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    work: impl FnOnce() -> belady_core::Result<T> + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("belady".into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .map_err(|e| {
            pyo3::exceptions::PyRuntimeError::new_err(format!("cannot start a thread: {e}"))
        })?;
    // Behind a mutex only so that a reference to it may cross into `allow_threads`.
    let rx = std::sync::Mutex::new(rx);
    loop {
        let got = py.allow_threads(|| {
            let rx = rx.lock().unwrap_or_else(|p| p.into_inner());
            rx.recv_timeout(std::time::Duration::from_millis(50))
        });
        match got {
            Ok(result) => return result.map_err(to_py),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(pyo3::exceptions::PyRuntimeError::new_err(
                    "belady's worker thread ended without a result (a panic)",
                ))
            }
        }
    }
}

/// Performs one run configuration (JSON, the keys of `belady sim --print-config`) and returns its
/// rows as JSON (the rows of `belady sim --json`). What `belady.run` and `belady.simulate` call.
#[pyfunction]
#[pyo3(signature = (config, threads=None))]
fn run_json(py: Python<'_>, config: &str, threads: Option<usize>) -> PyResult<String> {
    let config = RunConfig::parse(config, "config").map_err(|e| match e {
        // A bad key or value in the dict: the caller's configuration, not a trace, is wrong.
        Error::Parse { msg, .. } => ConfigError::new_err(format!("invalid config: {msg}")),
        e => to_py(e),
    })?;
    interruptible(py, move || -> belady_core::Result<String> {
        if let Some(n) = threads {
            belady_core::threads::check_threads("threads", n)?;
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.unwrap_or(0))
            .build()
            .map_err(|e| Error::config("threads", threads.unwrap_or(0), e.to_string()))?;
        let out = pool.install(|| belady_core::run(&config))?;
        Ok(out.rows_json(false))
    })
}

/// Reads an experiment (as JSON, the TOML's structure) and its traces; returns the plan as JSON:
/// `{"name": ..., "runs": [{"key": ..., "config": {...}}, ...]}`.
#[pyfunction]
fn plan_json(py: Python<'_>, experiment: &str, base: PathBuf, name: &str) -> PyResult<String> {
    py.allow_threads(|| -> belady_core::Result<String> {
        let exp = Experiment::from_json(experiment, name)?;
        let plan = Plan::new(&exp, &base, name)?;
        let runs: Vec<serde_json::Value> = plan
            .runs
            .iter()
            .map(|(_, c)| serde_json::json!({"key": c.key(), "config": c}))
            .collect();
        Ok(serde_json::json!({"name": plan.name, "runs": runs}).to_string())
    })
    .map_err(to_py)
}

/// Performs one run from its configuration (JSON); returns its row (as `belady sim --json`
/// prints it) as JSON. What a Dask worker calls.
#[pyfunction]
fn run_config_json(py: Python<'_>, config: &str) -> PyResult<String> {
    py.allow_threads(|| -> belady_core::Result<String> {
        let config: CellConfig = serde_json::from_str(config)
            .map_err(|e| Error::config("run configuration", "JSON", e.to_string()))?;
        let row = run_config(&config)?;
        Ok(row.to_string())
    })
    .map_err(to_py)
}

/// Runs an experiment file locally (all cores) into `store`, skipping stored runs.
#[pyfunction]
#[pyo3(signature = (experiment, store, threads=None))]
fn sweep_file(
    py: Python<'_>,
    experiment: PathBuf,
    store: PathBuf,
    threads: Option<usize>,
) -> PyResult<()> {
    interruptible(py, move || -> belady_core::Result<()> {
        if let Some(n) = threads {
            belady_core::threads::check_threads("threads", n)?;
        }
        let exp = Experiment::load(&experiment)?;
        let base = experiment.parent().unwrap_or(std::path::Path::new("."));
        let plan = Plan::new(&exp, base, &experiment.display().to_string())?;
        let store = Store::open(&store)?;
        let todo = plan.pending(&store)?;
        plan.execute(&todo, &store, threads, &mut || {})
    })
}

/// Keys of every run in `store`.
#[pyfunction]
fn store_keys(store: PathBuf) -> PyResult<Vec<String>> {
    let store = Store::open(&store).map_err(to_py)?;
    let mut keys: Vec<String> = store.keys().map_err(to_py)?.into_iter().collect();
    keys.sort();
    Ok(keys)
}

/// Stores one run (configuration and result as JSON) in `store`.
#[pyfunction]
fn store_insert(store: PathBuf, experiment: &str, config: &str, result: &str) -> PyResult<()> {
    let bad = |e: serde_json::Error| to_py(Error::config("stored run", experiment, e.to_string()));
    let config: CellConfig = serde_json::from_str(config).map_err(bad)?;
    let row: serde_json::Value = serde_json::from_str(result).map_err(bad)?;
    let store = Store::open(&store).map_err(to_py)?;
    store.insert(experiment, &config, &row).map_err(to_py)
}

/// Every run in `store` as JSON: `[{"key", "experiment", "config", "result"}, ...]` in a fixed order.
#[pyfunction]
fn store_runs_json(store: PathBuf) -> PyResult<String> {
    let store = Store::open_existing(&store).map_err(to_py)?;
    let runs: Vec<serde_json::Value> = store
        .runs()
        .map_err(to_py)?
        .into_iter()
        .map(|r| {
            serde_json::json!({
                "key": r.config.key(),
                "experiment": r.experiment,
                "config": r.config,
                "result": r.result,
            })
        })
        .collect();
    Ok(serde_json::Value::Array(runs).to_string())
}

/// The metric registry as JSON (`{"metrics": [...], "fields": [...]}`): what the DataFrames'
/// dtypes and `belady.plot`'s labels read.
#[pyfunction]
fn registry_json() -> String {
    belady_core::run::metrics::registry_json()
}

/// Names of every registered policy.
#[pyfunction]
fn policies() -> Vec<&'static str> {
    belady_core::POLICIES.iter().map(|p| p.name).collect()
}

/// Miss-ratio curves of one trace (LRU exactly, any policy by sampling); returns the rows of
/// `belady mrc --json` as JSON.
#[pyfunction]
#[pyo3(signature = (trace, policies, sizes="auto", sample_rate=None, control_rate=1.0, seed=0, adjust=true, format=None, block_size=4096, ops="read", params=Vec::new(), preset="paper", columns=None, header=None, threads=None))]
#[allow(clippy::too_many_arguments)]
fn mrc_json(
    py: Python<'_>,
    trace: PathBuf,
    policies: Vec<String>,
    sizes: &str,
    sample_rate: Option<f64>,
    control_rate: f64,
    seed: u64,
    adjust: bool,
    format: Option<String>,
    block_size: u32,
    ops: &str,
    params: Vec<String>,
    preset: &str,
    columns: Option<String>,
    header: Option<bool>,
    threads: Option<usize>,
) -> PyResult<String> {
    use belady_core::analysis::mrc::{profile, profile_dense, MrcOptions, Sizes};
    let (sizes, ops, preset) = (sizes.to_string(), ops.to_string(), preset.to_string());
    let (rows, warning) = interruptible(
        py,
        move || -> belady_core::Result<(String, Option<String>)> {
            if let Some(n) = threads {
                belady_core::threads::check_threads("threads", n)?;
            }
            let mut specs = parse_policies(
                &policies.join(","),
                &params,
                belady_core::Preset::parse(&preset)?,
            )?;
            for spec in &mut specs {
                // The randomised policies draw from the same seed as the sampler (as `belady mrc`).
                spec.seed = seed;
            }
            let sizes = Sizes::parse(&sizes)?;
            let filter = OpFilter::parse(&ops)?;
            let format = match &format {
                Some(name) => Format::parse(name, columns.as_deref(), header)?,
                None => detect_format(&trace)?,
            };
            let opts = MrcOptions {
                sample_rate,
                seed,
                adjust,
                // Refused as `belady mrc` refuses it: NaN and -1 used to mean "no control".
                control_rate: belady_core::analysis::mrc::control_rate(control_rate)?,
            };
            let read = belady_core::ReadOptions::with_block_size(block_size);
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads.unwrap_or(0))
                .build()
                .map_err(|e| Error::config("threads", threads.unwrap_or(0), e.to_string()))?;
            let source = trace.display().to_string();
            let mrc = if sample_rate.is_none() {
                // As `belady mrc`: without sampling the curves read the dense ids a run reads.
                let mut feed = belady_core::trace::ingest::ingest(&trace, &format, &read, filter)?;
                pool.install(|| profile_dense(&mut feed, &specs, &sizes, &opts, &source))?
            } else {
                let stream = belady_core::trace::open_requests(&trace, &format, &read)?;
                pool.install(|| {
                    profile(stream, filter, &specs, &sizes, &opts, &source, block_size)
                })?
            };
            // The CLI's stderr line about a too small sample, raised below as a Python warning.
            let warning = sample_rate.and_then(|r| mrc.small_sample_warning(r, &source));
            Ok((
                serde_json::to_string(&mrc.rows).expect("rows serialise"),
                warning,
            ))
        },
    )?;
    if let Some(w) = warning {
        // In Python's words: the keyword, not the CLI's option.
        let w = w
            .trim_start_matches("warning: ")
            .replace("--sample-rate", "sample_rate");
        let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
        // Level 2: the warning points at the caller of `belady.mrc`, not into the package.
        PyErr::warn(
            py,
            &category,
            &std::ffi::CString::new(w).unwrap_or_default(),
            2,
        )?;
    }
    Ok(rows)
}

/// The extension module `belady._belady`.
#[pymodule]
fn _belady(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(plan_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_config_json, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_file, m)?)?;
    m.add_function(wrap_pyfunction!(store_keys, m)?)?;
    m.add_function(wrap_pyfunction!(store_insert, m)?)?;
    m.add_function(wrap_pyfunction!(store_runs_json, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(registry_json, m)?)?;
    m.add_function(wrap_pyfunction!(mrc_json, m)?)?;
    m.add("BeladyError", m.py().get_type::<BeladyError>())?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
