//! Bounds on the optimal misses and missed bytes of a cache of variably sized objects: FOO and
//! PFOO (Berger, Beckmann, Harchol-Balter, "Practical Bounds on Optimal Caching with Variable
//! Object Sizes", SIGMETRICS 2018).
//!
//! With sizes, Belady's rule is a heuristic and the optimum NP-hard. FOO ([`foo`]) casts
//! caching as a min-cost flow: its linear relaxation bounds the optimum from below (FOO-L) and a
//! rounding of it from above (FOO-U). PFOO bounds traces too long for one flow: PFOO-L
//! ([`pfoo_lower`]) relaxes the capacity to a budget over the whole trace, PFOO-U
//! ([`pfoo_upper`]) solves FOO over overlapping segments. The model ([`model`]) is FOO's: a
//! missed object need not be cached. `belady bounds` prints them; docs/bounds.md says how far
//! each goes and what it costs.

pub mod foo;
pub mod model;
pub mod pfoo_lower;
pub mod pfoo_upper;
mod read;
mod simplex;

#[cfg(test)]
mod exhaustive;
#[cfg(test)]
mod tests;

pub use model::{Bound, SizedTrace};
pub use pfoo_upper::DEFAULT_SEGMENT;
pub use read::load;

use crate::cache::cache_model::{CacheModel, Capacity};
use crate::cache::size::CacheSize;
use crate::error::{Error, Result};
use model::Objective;

/// Requests up to which `auto` solves FOO's flow over the whole trace (PFOO beyond): FOO takes
/// about a minute at this length (docs/bounds.md).
pub const FOO_AUTO_LIMIT: usize = 1_000_000;

/// Requests beyond which FOO is refused: its flows take about 400 bytes a request (both
/// objectives at once) and time that grows faster than the trace; PFOO bounds longer traces.
pub const FOO_MAX: usize = 10_000_000;

/// A pair of bounds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Method {
    /// FOO-L and FOO-U: one flow over the whole trace.
    Foo,
    /// PFOO-L and PFOO-U: the practical bounds.
    Pfoo,
}

impl Method {
    /// The name rows print.
    pub fn name(self) -> &'static str {
        match self {
            Method::Foo => "foo",
            Method::Pfoo => "pfoo",
        }
    }

    /// Parses a comma-separated list of `foo`, `pfoo` and `auto` (FOO up to
    /// [`FOO_AUTO_LIMIT`] requests, PFOO beyond) for a trace of `requests`; errors name key
    /// `method`.
    pub fn parse_list(text: &str, requests: usize) -> Result<Vec<Method>> {
        let mut methods = Vec::new();
        for item in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let method = match item.to_ascii_lowercase().as_str() {
                "foo" => Method::Foo,
                "pfoo" => Method::Pfoo,
                "auto" if requests <= FOO_AUTO_LIMIT => Method::Foo,
                "auto" => Method::Pfoo,
                _ => {
                    return Err(Error::config(
                        "method",
                        item,
                        "expected foo, pfoo or auto (a comma-separated list)",
                    ))
                }
            };
            if method == Method::Foo && requests > FOO_MAX {
                return Err(Error::config(
                    "method",
                    item,
                    format!(
                        "FOO solves one flow over the whole trace, which this trace's {requests} requests \
                         make too large (at most {FOO_MAX}); use pfoo"
                    ),
                ));
            }
            if !methods.contains(&method) {
                methods.push(method);
            }
        }
        if methods.is_empty() {
            return Err(Error::config("method", text, "name at least one method"));
        }
        Ok(methods)
    }
}

/// The bounds on both objectives for one cache size.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// On the number of misses.
    pub misses: Bound,
    /// On the bytes missed.
    pub bytes: Bound,
}

/// What a long computation says it is doing (it may be called from several threads).
pub type Progress<'a> = &'a (dyn Fn(String) + Sync);

/// `method`'s bounds for a cache of `capacity` bytes; PFOO-U solves segments of `segment`
/// requests; `progress` hears what is being solved. The two objectives are solved in parallel
/// (rayon); the result does not depend on the threads.
pub fn bounds(
    trace: &SizedTrace,
    capacity: u64,
    method: Method,
    segment: usize,
    progress: Progress,
) -> Bounds {
    let one = |objective: Objective, what: &str| match method {
        Method::Foo => {
            progress(format!("FOO, {what}"));
            foo::foo(trace, capacity, objective)
        }
        Method::Pfoo => {
            progress(format!("PFOO-L, {what}"));
            let lower = pfoo_lower::pfoo_lower(trace, capacity, objective);
            let upper =
                pfoo_upper::pfoo_upper(trace, capacity, objective, segment, &mut |k, of| {
                    progress(format!("PFOO-U, {what}: segment {} of {of}", k + 1))
                });
            Bound { lower, upper }
        }
    };
    let (misses, bytes) = rayon::join(
        || one(Objective::Misses, "misses"),
        || one(Objective::Bytes, "missed bytes"),
    );
    Bounds { misses, bytes }
}

/// One row of `belady bounds`: one method at one cache size.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BoundsRow {
    /// The trace's name.
    pub trace: String,
    /// `foo` or `pfoo`.
    pub method: String,
    /// The cache size as given.
    pub cache_size: String,
    /// The cache size in bytes.
    pub cache_bytes: u64,
    /// Requests in the trace.
    pub requests: u64,
    /// Distinct objects.
    pub objects: u64,
    /// Bytes requested.
    pub bytes_requested: u64,
    /// No schedule misses fewer requests.
    pub lower_misses: u64,
    /// A schedule misses this many requests.
    pub upper_misses: u64,
    /// No schedule misses fewer bytes.
    pub lower_byte_misses: u64,
    /// A schedule misses this many bytes.
    pub upper_byte_misses: u64,
}

/// The cache size `size` in bytes for `trace`: a byte size, or a percent of its byte footprint
/// (as `sim` resolves sizes in the objects model). A plain number, which counts objects there,
/// is refused: the bounds are for byte capacities.
pub fn capacity_bytes(size: &CacheSize, trace: &SizedTrace) -> Result<u64> {
    if let CacheSize::Blocks(_) = size {
        return Err(Error::config(
            "cache_size",
            size,
            "the bounds need a byte capacity (64MiB) or a percent of the byte footprint (1%); \
             a plain number counts objects",
        ));
    }
    let c = Capacity::resolve(
        size,
        CacheModel::Objects,
        trace.objects(),
        1,
        Some(trace.footprint()),
    )?;
    Ok(c.units as u64)
}

/// Every method's row at every size, capacity-major; the rows are computed in parallel
/// (rayon), in the same order for any number of threads.
pub fn rows(
    trace: &SizedTrace,
    source: &str,
    sizes: &[CacheSize],
    methods: &[Method],
    segment: usize,
    progress: Progress,
) -> Result<Vec<BoundsRow>> {
    use rayon::prelude::*;
    let capacities: Vec<u64> = sizes
        .iter()
        .map(|s| capacity_bytes(s, trace))
        .collect::<Result<_>>()?;
    let jobs: Vec<(&CacheSize, u64, Method)> = sizes
        .iter()
        .zip(&capacities)
        .flat_map(|(size, &capacity)| methods.iter().map(move |&m| (size, capacity, m)))
        .collect();
    let rows = jobs
        .par_iter()
        .map(|&(size, capacity, method)| {
            let b = bounds(trace, capacity, method, segment, &|stage| {
                progress(format!("{size}: {stage}"))
            });
            BoundsRow {
                trace: source.to_string(),
                method: method.name().to_string(),
                cache_size: size.to_string(),
                cache_bytes: capacity,
                requests: trace.requests() as u64,
                objects: trace.objects() as u64,
                bytes_requested: trace.bytes_requested(),
                lower_misses: b.misses.lower,
                upper_misses: b.misses.upper,
                lower_byte_misses: b.bytes.lower,
                upper_byte_misses: b.bytes.upper,
            }
        })
        .collect();
    Ok(rows)
}
