//! Miss-ratio curves: a policy's miss ratio at every cache size from one pass over a trace.
//!
//! - LRU exactly ([`exact`]): Mattson's stack algorithm gives the hits at every size at once,
//!   in O(log n) per reference and memory proportional to the distinct blocks.
//! - Any policy, LRU included, approximately ([`sampled`]): the references to a hash-chosen `R`
//!   share of the blocks are kept (SHARDS spatial sampling) and each policy is simulated on
//!   them with the cache scaled by `R` (miniature simulation); the sample is collected in the
//!   same single pass over the trace, and every policy and size runs over it in parallel.
//!
//! See docs/mrc.md for the method, its measured error and how to choose `R`.

pub mod exact;
pub mod sampled;
pub mod stack;

pub use exact::{LruCurve, LruStack};
pub use sampled::{mix64, Sample, SampleCollector, Sampler};

use crate::cache::cache_model::{CacheModel, Capacity, LevelSetup};
use crate::cache::size::CacheSize;
use crate::engine::block::{run_block_grid_with, BlockSource};
use crate::engine::{run_block_cells, PreparedTrace};
use crate::error::{Error, Result};
use crate::policy::registry::PolicySpec;
use crate::trace::{BlockRequest, OpFilter};

/// How a row was computed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Exact: LRU's stack algorithm, or a full simulation (sample rate 1).
    Exact,
    /// Miniature simulation of a spatial sample, scaled back.
    Sampled,
}

impl Method {
    /// `exact` or `sampled`.
    pub fn name(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Sampled => "sampled",
        }
    }
}

/// One point of a miss-ratio curve.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MrcRow {
    /// Policy label (name and any overridden parameters).
    pub policy: String,
    /// Cache size in blocks or counted objects (of the full trace, not the miniature); absent
    /// for a byte capacity, which `cache_bytes` gives (a row once said 0 here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_blocks: Option<u64>,
    /// A byte capacity of the objects model (its rows are full simulations), else absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_bytes: Option<u64>,
    /// Misses over references (estimated when sampled).
    pub miss_ratio: f64,
    /// Hits (estimated for the whole trace when sampled).
    pub hits: u64,
    /// References in the whole trace.
    pub requests: u64,
    /// How the row was computed.
    pub method: Method,
    /// Share of the blocks simulated (1 when exact).
    pub sample_rate: f64,
}

/// Which cache sizes to report.
#[derive(Clone, Debug, PartialEq)]
pub enum Sizes {
    /// These sizes (blocks, bytes or shares of the unique blocks), in this order.
    List(Vec<CacheSize>),
    /// About 100 log-spaced sizes up to the unique blocks, plus LRU's knee points.
    Auto,
}

impl Sizes {
    /// Parses `auto` or a comma-separated size list, as `sim -c` parses it.
    pub fn parse(text: &str) -> Result<Sizes> {
        if text.trim() == "auto" {
            Ok(Sizes::Auto)
        } else {
            Ok(Sizes::List(CacheSize::parse_list(text)?))
        }
    }

    /// These sizes under `model`: those a cache counts (blocks, or objects whatever their
    /// sizes), which the one-pass methods measure, and those the objects model weighs (a byte
    /// size, a share of the byte footprint), which only a full simulation measures: the same
    /// reading as `sim -c` under the same model.
    pub fn split(&self, model: CacheModel) -> (Sizes, Vec<CacheSize>) {
        match (self, model) {
            (Sizes::List(list), CacheModel::Objects) => {
                let (weighed, counted): (Vec<CacheSize>, Vec<CacheSize>) = list
                    .iter()
                    .cloned()
                    .partition(|s| !matches!(s, CacheSize::Blocks(_)));
                (Sizes::List(counted), weighed)
            }
            _ => (self.clone(), Vec::new()),
        }
    }
}

/// The rows of byte capacities in the objects model: each policy simulated in full at each
/// size by the engine `belady sim` runs (so `mrc -c 1MiB` gives `sim -c 1MiB`'s miss ratios),
/// policy-major, sizes ascending.
pub fn weighed_rows(
    source: &BlockSource,
    specs: &[PolicySpec],
    sizes: &[CacheSize],
    seed: u64,
) -> Result<Vec<MrcRow>> {
    if sizes.is_empty() {
        return Ok(Vec::new());
    }
    let setup = LevelSetup {
        model: Some(CacheModel::Objects),
        admission: None,
        seed,
    };
    let grid = run_block_grid_with(source, specs, sizes, &setup)?;
    let mut rows: Vec<MrcRow> = grid
        .runs
        .iter()
        .map(|r| MrcRow {
            policy: r.policy.clone(),
            cache_blocks: None,
            cache_bytes: r.cache_bytes,
            miss_ratio: if r.requests == 0 {
                0.0
            } else {
                r.misses as f64 / r.requests as f64
            },
            hits: r.hits,
            requests: r.requests,
            method: Method::Exact,
            sample_rate: 1.0,
        })
        .collect();
    // Policy-major as the grid gives them; each policy's sizes ascending.
    for chunk in rows.chunks_mut(sizes.len()) {
        chunk.sort_by_key(|r| r.cache_bytes);
    }
    Ok(rows)
}

impl Mrc {
    /// Adds rows of full simulations at byte capacities ([`weighed_rows`], policy-major over
    /// the same policies), each policy's after its counted rows.
    pub fn add_weighed(&mut self, rows: Vec<MrcRow>, policies: usize) {
        if rows.is_empty() || policies == 0 {
            return;
        }
        let per = rows.len() / policies;
        let counted = std::mem::take(&mut self.rows);
        let per_counted = counted.len() / policies;
        let mut counted = counted.into_iter();
        let mut weighed = rows.into_iter();
        for _ in 0..policies {
            self.rows.extend(counted.by_ref().take(per_counted));
            self.rows.extend(weighed.by_ref().take(per));
        }
    }
}

/// How the curve is measured.
#[derive(Clone, Debug)]
pub struct MrcOptions {
    /// Simulate every policy on this share of the blocks; `None`: LRU exactly, and other
    /// policies fully simulated at every size (sample rate 1, memory grows with the trace).
    pub sample_rate: Option<f64>,
    /// Chooses which blocks are sampled at a given rate.
    pub seed: u64,
    /// Apply the SHARDS-adj correction to sampled miss ratios.
    pub adjust: bool,
    /// With sampling: also measure LRU on this (larger, nested) share of the blocks, 1 for
    /// exactly, and correct every sampled curve by the error the sample makes on LRU (a control
    /// variate); `None`: no correction, memory bounded by the sample alone.
    pub control_rate: Option<f64>,
}

/// The control share as [`MrcOptions::control_rate`] takes it: 0 for no control, up to 1
/// (exact LRU); anything else (negative, above 1, NaN) is refused naming `--control-rate`, for the
/// CLI and the Python API alike.
pub fn control_rate(rate: f64) -> Result<Option<f64>> {
    if !(0.0..=1.0).contains(&rate) {
        return Err(Error::config(
            "--control-rate",
            crate::error::show_f64(rate),
            "must be between 0 (no control) and 1 (exact LRU)",
        ));
    }
    Ok((rate > 0.0).then_some(rate))
}

impl Default for MrcOptions {
    fn default() -> Self {
        MrcOptions {
            sample_rate: None,
            seed: 0,
            adjust: true,
            control_rate: Some(1.0),
        }
    }
}

/// The curves of one trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Mrc {
    /// One row per policy and size, policy-major, sizes ascending.
    pub rows: Vec<MrcRow>,
    /// References in the trace.
    pub references: u64,
    /// Distinct blocks (estimated from the sample when nothing was exact).
    pub unique_blocks: u64,
    /// Whether `unique_blocks` is an estimate.
    pub unique_estimated: bool,
    /// The sizes reported, ascending.
    pub sizes: Vec<u64>,
    /// The compulsory-miss floor, `unique_blocks / references`: every block's first reference
    /// misses at any size, so no row's miss ratio is below it.
    pub floor: f64,
    /// Sampled rows whose estimate fell below `floor` and were raised to it (a sign that the
    /// sample is too small for the trace).
    pub raised_to_floor: usize,
}

/// How many blocks a sample should hold for its curves to mean much (docs/mrc.md, "Choosing R").
pub const MIN_SAMPLED_BLOCKS: f64 = 2000.0;

impl Mrc {
    /// The sample rate this trace needs for about [`MIN_SAMPLED_BLOCKS`] sampled blocks, when
    /// `rate` samples fewer: `Some(needed)` (1 or more means the trace is too small to sample).
    pub fn rate_needed(&self, rate: f64) -> Option<f64> {
        let needed = MIN_SAMPLED_BLOCKS / self.unique_blocks.max(1) as f64;
        (rate < 1.0 && rate < needed).then_some(needed)
    }

    /// One line for the user when `rate` samples too few of the trace's blocks for its curves
    /// to mean much: how many it sampled, and the rate the trace needs (or that it needs none).
    pub fn small_sample_warning(&self, rate: f64, source: &str) -> Option<String> {
        let needed = self.rate_needed(rate)?;
        let about = if self.unique_estimated { "about " } else { "" };
        let sampled = (rate * self.unique_blocks as f64).round() as u64;
        let advice = if needed >= 0.5 {
            // At half the blocks or more, sampling saves little: the exact curves are the answer.
            "leave out --sample-rate for exact curves".to_string()
        } else {
            // Rounded up at two significant digits, so the advice is enough.
            let digits = 10f64.powi(1 - needed.log10().floor() as i32);
            let r = (needed * digits).ceil() / digits;
            format!("use --sample-rate {r} or more")
        };
        let raised = match self.raised_to_floor {
            0 => String::new(),
            n => format!(
                "; {n} point{} fell below the compulsory-miss floor {:.4} and were raised to it",
                if n == 1 { "" } else { "s" },
                self.floor
            ),
        };
        Some(format!(
            "warning: --sample-rate {rate} samples about {sampled} of the {about}{} blocks of \
             {source}, too few for a curve (aim for {} or more: {advice}){raised}",
            self.unique_blocks, MIN_SAMPLED_BLOCKS as u64
        ))
    }
}

/// Accumulates what the curves need, one reference at a time.
pub struct Profiler {
    specs: Vec<PolicySpec>,
    exact: Option<LruStack>,
    sample: Option<SampleCollector>,
    /// LRU on the control share of the blocks (sampling runs only).
    control: Option<(Sampler, LruStack)>,
    adjust: bool,
    references: u64,
}

/// Whether `spec` gets the exact stack algorithm (plain LRU without sampling).
fn is_exact(spec: &PolicySpec, opts: &MrcOptions) -> bool {
    opts.sample_rate.is_none() && spec.info.name == "lru"
}

impl Profiler {
    /// A profiler for `specs`.
    pub fn new(specs: &[PolicySpec], opts: &MrcOptions) -> Result<Profiler> {
        if specs.is_empty() {
            return Err(Error::config("--policy", "", "name at least one policy"));
        }
        let exact = specs.iter().any(|s| is_exact(s, opts));
        let simulated = specs.iter().any(|s| !is_exact(s, opts));
        let sample = if simulated {
            let rate = opts.sample_rate.unwrap_or(1.0);
            Some(SampleCollector::new(Sampler::new(rate, opts.seed)?))
        } else {
            None
        };
        let control = match (opts.sample_rate, opts.control_rate) {
            (Some(r), Some(c)) if r < 1.0 => {
                if c < r {
                    return Err(Error::config(
                        "--control-rate",
                        crate::error::show_f64(c),
                        format!(
                            "must be at least the sample rate {} (or 0 for no control)",
                            crate::error::show_f64(r)
                        ),
                    ));
                }
                // The same seed nests the sample inside the control share.
                Some((Sampler::new(c, opts.seed)?, LruStack::new()))
            }
            _ => None,
        };
        Ok(Profiler {
            specs: specs.to_vec(),
            exact: exact.then(LruStack::new),
            sample,
            control,
            adjust: opts.adjust,
            references: 0,
        })
    }

    /// Counts one block reference.
    #[inline]
    pub fn reference(&mut self, block: u64) -> Result<()> {
        self.references += 1;
        if let Some(e) = &mut self.exact {
            e.access(block);
        }
        if let Some(s) = &mut self.sample {
            s.reference(block)?;
        }
        if let Some((sampler, stack)) = &mut self.control {
            if sampler.keeps(block) {
                stack.access(block);
            }
        }
        Ok(())
    }

    /// References counted so far.
    pub fn references(&self) -> u64 {
        self.references
    }

    /// Every request `filter` keeps, one reference per block.
    pub fn requests(
        &mut self,
        stream: impl Iterator<Item = Result<BlockRequest>>,
        filter: OpFilter,
    ) -> Result<()> {
        for req in stream {
            let req = req?;
            if filter.keeps(req.op) {
                for k in 0..req.count as u64 {
                    self.reference(req.block.wrapping_add(k))?;
                }
            }
        }
        Ok(())
    }

    /// Counts a chunk of dense ids (one reference each), as [`Profiler::reference`] would each.
    /// Only without sampling: a sample is chosen by hashing the trace's own ids, which dense ids
    /// are not (the exact stack and a whole-trace "sample" give the same curves for any
    /// numbering).
    pub fn dense_ids(&mut self, ids: &[u32]) -> Result<()> {
        let partial = self
            .sample
            .as_ref()
            .map(|s| s.sampler())
            .filter(|s| !s.keeps_all());
        if let Some(sampler) = partial.or(self.control.as_ref().map(|(s, _)| s)) {
            let rate = sampler.rate();
            return Err(Error::config(
                "--sample-rate",
                crate::error::show_f64(rate),
                "a sample must be drawn from the trace's own block ids, not dense ids",
            ));
        }
        self.references += ids.len() as u64;
        if let Some(e) = &mut self.exact {
            e.access_all(ids);
        }
        if let Some(s) = &mut self.sample {
            for &id in ids {
                s.reference(id as u64)?;
            }
        }
        Ok(())
    }

    /// The curves at `sizes`; `source` and `block_size` resolve byte sizes and name the trace.
    /// Runs the miniature simulations in the current rayon pool; the rows are the same for any
    /// thread count.
    pub fn finish(self, sizes: &Sizes, source: &str, block_size: u32) -> Result<Mrc> {
        if self.references == 0 {
            return Err(Error::EmptyTrace {
                path: source.to_string(),
                what: "block references".to_string(),
            });
        }
        let curve = self.exact.as_ref().map(LruStack::curve);
        let sample = self
            .sample
            .map(|s| s.finish(source.to_string(), block_size));
        if let Some(s) = &sample {
            Sampler::check_nonempty(
                s.sampler.rate(),
                s.trace.refs.len() as u64,
                self.references,
                source,
            )?;
        }
        let control = self.control.as_ref().map(|(sampler, stack)| Control {
            sampler: *sampler,
            curve: stack.curve(),
        });
        let (unique, estimated) = match (&curve, &sample) {
            (Some(c), _) => (c.unique, false),
            (None, _) if control.is_some() => {
                let c = control.as_ref().expect("checked");
                if c.sampler.keeps_all() {
                    (c.curve.unique, false)
                } else {
                    let u = (c.curve.unique as f64 / c.sampler.rate()).round() as u64;
                    (u.max(1), true)
                }
            }
            (None, Some(s)) if s.sampler.keeps_all() => (s.trace.unique() as u64, false),
            (None, Some(s)) => (s.estimated_unique().max(1), true),
            (None, None) => unreachable!("a profiler measures something"),
        };
        let sizes = match sizes {
            Sizes::List(list) => {
                // Counted sizes ([`Sizes::split`]) resolve alike under both models, through
                // the function `sim` resolves them with.
                let mut v: Vec<u64> = list
                    .iter()
                    .map(|c| {
                        Capacity::resolve(c, CacheModel::Blocks, unique as usize, block_size, None)
                            .map(|c| c.units as u64)
                    })
                    .collect::<Result<_>>()?;
                v.sort_unstable();
                v.dedup();
                v
            }
            Sizes::Auto => auto_sizes(unique, curve.as_ref(), sample.as_ref()),
        };
        let n = self.references;
        // Every block's first reference misses at any size: no estimate may go below that.
        let floor = (unique as f64 / n as f64).min(1.0);
        let mut raised_to_floor = 0;
        // The sample's own LRU curve, to compare with the control's.
        let sample_lru = control.as_ref().and(sample.as_ref()).map(|s| {
            let mut stack = LruStack::new();
            s.trace.refs.iter().for_each(|&b| {
                stack.access(b as u64);
            });
            stack.curve()
        });
        let mut rows = Vec::with_capacity(self.specs.len() * sizes.len());
        let prepared = sample.as_ref().map(|s| PreparedTrace::new(s.trace.clone()));
        // Every (policy, miniature size) once, through the one grid runner, then looked up in
        // order.
        let mut jobs: Vec<(usize, usize)> = Vec::new();
        if let Some(s) = &sample {
            for (i, spec) in self.specs.iter().enumerate() {
                if !(curve.is_some() && spec.info.name == "lru") {
                    jobs.extend(sizes.iter().map(|&c| (i, s.scaled(c))));
                }
            }
            jobs.sort_unstable();
            jobs.dedup();
        }
        let results: Vec<u64> = match &prepared {
            Some(p) => {
                let cells: Vec<(&PolicySpec, usize)> =
                    jobs.iter().map(|&(i, c)| (&self.specs[i], c)).collect();
                run_block_cells(&cells, p)?
                    .iter()
                    .map(|s| s.misses)
                    .collect()
            }
            None => Vec::new(),
        };
        for (i, spec) in self.specs.iter().enumerate() {
            for &c in &sizes {
                let row = match (&curve, &sample) {
                    // A stack exists only without --sample-rate, and then serves every LRU row.
                    (Some(curve), _) if spec.info.name == "lru" => {
                        let hits = curve.hits(c);
                        MrcRow {
                            policy: spec.label(),
                            cache_blocks: Some(c),
                            cache_bytes: None,
                            miss_ratio: curve.miss_ratio(c),
                            hits,
                            requests: n,
                            method: Method::Exact,
                            sample_rate: 1.0,
                        }
                    }
                    (_, Some(s)) => {
                        let k = jobs
                            .binary_search(&(i, s.scaled(c)))
                            .expect("every simulated size was run");
                        let misses = results[k];
                        let full = s.sampler.keeps_all();
                        let mut mr = if full {
                            misses as f64 / n as f64
                        } else {
                            s.miss_ratio(misses, self.adjust)
                        };
                        if let (Some(ctrl), Some(lru)) = (&control, &sample_lru) {
                            // Control variate: the sample's error on LRU at this size, taken
                            // off every policy's estimate (the same blocks shape both).
                            let k = s.scaled(c) as u64;
                            let lru_sampled =
                                s.miss_ratio(lru.references - lru.hits(k), self.adjust);
                            mr = (mr + ctrl.miss_ratio(c, n, self.adjust) - lru_sampled)
                                .clamp(0.0, 1.0);
                        }
                        if mr < floor {
                            mr = floor;
                            raised_to_floor += 1;
                        }
                        MrcRow {
                            policy: spec.label(),
                            cache_blocks: Some(c),
                            cache_bytes: None,
                            miss_ratio: mr,
                            hits: if full {
                                n - misses
                            } else {
                                n - ((mr * n as f64).round() as u64).min(n)
                            },
                            requests: n,
                            method: if full { Method::Exact } else { Method::Sampled },
                            sample_rate: s.sampler.rate(),
                        }
                    }
                    (Some(_), None) => unreachable!("non-LRU policies always have a sample"),
                    (None, None) => unreachable!("a profiler measures something"),
                };
                rows.push(row);
            }
        }
        Ok(Mrc {
            rows,
            references: n,
            unique_blocks: unique,
            unique_estimated: estimated,
            sizes,
            floor,
            raised_to_floor,
        })
    }
}

/// LRU measured on a larger share of the blocks than the sample, for the control variate.
struct Control {
    sampler: Sampler,
    curve: LruCurve,
}

impl Control {
    /// LRU's miss ratio with `blocks` blocks over `n` references: exact at rate 1, else from
    /// the control share's stack at the scaled size (as a miniature LRU cache).
    fn miss_ratio(&self, blocks: u64, n: u64, adjust: bool) -> f64 {
        if self.sampler.keeps_all() {
            return self.curve.miss_ratio(blocks);
        }
        let r = self.sampler.rate();
        let k = ((blocks as f64 * r).round() as u64).max(1);
        let misses = (self.curve.references - self.curve.hits(k)) as f64;
        let total = if adjust {
            r * n as f64
        } else {
            self.curve.references as f64
        };
        if total <= 0.0 {
            1.0
        } else {
            (misses / total).clamp(0.0, 1.0)
        }
    }
}

/// About 100 log-spaced sizes from the smallest meaningful one (1, or `1 / R` when only a
/// sample was taken) up to the unique blocks, plus the knee points of LRU's curve: the sizes
/// where one more block gains the most hits (at least 0.2% of the references each, at most 8).
fn auto_sizes(unique: u64, curve: Option<&LruCurve>, sample: Option<&Sample>) -> Vec<u64> {
    let low = match (curve, sample) {
        (None, Some(s)) if !s.sampler.keeps_all() => (1.0 / s.sampler.rate()).round() as u64,
        _ => 1,
    }
    .clamp(1, unique.max(1));
    let high = unique.max(1);
    let steps = 99;
    let ratio = (high as f64 / low as f64).ln();
    // Log-spaced, but at least one block apart, so small sizes are not all rounded together.
    let mut sizes: Vec<u64> = Vec::with_capacity(steps + 10);
    for i in 0..=steps {
        let c = ((low as f64) * (ratio * i as f64 / steps as f64).exp()).round() as u64;
        let c = c.max(sizes.last().map_or(low, |&p| p + 1)).min(high);
        sizes.push(c);
    }
    // Knees: big single-size gains of LRU, exact or from the sample's own stack.
    let mut gains: Vec<(u64, u64)> = match (curve, sample) {
        (Some(c), _) => c.gains().collect(),
        (None, Some(s)) => {
            let mut stack = LruStack::new();
            s.trace.refs.iter().for_each(|&b| {
                stack.access(b as u64);
            });
            let r = s.sampler.rate();
            stack
                .curve()
                .gains()
                .map(|(c, g)| {
                    // A sampled distance d stands for about (d + 0.5) / R - 0.5 full distances.
                    let d = (c - 1) as f64;
                    (((d + 0.5) / r - 0.5).round() as u64 + 1, g)
                })
                .collect()
        }
        (None, None) => Vec::new(),
    };
    let total = match (curve, sample) {
        (Some(c), _) => c.references,
        (None, Some(s)) => s.trace.refs.len() as u64,
        (None, None) => 0,
    };
    gains.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    sizes.extend(
        gains
            .iter()
            .take(8)
            .filter(|&&(c, g)| g as f64 >= 0.002 * total as f64 && c >= low && c <= high)
            .map(|&(c, _)| c),
    );
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// The curves of a trace read as dense ids (see [`crate::trace::ingest`]): what
/// [`profile`] gives for the same trace without sampling, faster, since the ids come in chunks
/// and need no mapping. `source` names the trace in errors and rows.
pub fn profile_dense(
    feed: &mut crate::trace::ingest::Ingested,
    specs: &[PolicySpec],
    sizes: &Sizes,
    opts: &MrcOptions,
    source: &str,
) -> Result<Mrc> {
    let mut p = Profiler::new(specs, opts)?;
    while let Some(ids) = feed.next_chunk()? {
        p.dense_ids(ids)?;
    }
    p.finish(sizes, source, feed.block_size)
}

/// The curves of a request stream: one pass for every policy and size.
pub fn profile(
    stream: impl Iterator<Item = Result<BlockRequest>>,
    filter: OpFilter,
    specs: &[PolicySpec],
    sizes: &Sizes,
    opts: &MrcOptions,
    source: &str,
    block_size: u32,
) -> Result<Mrc> {
    let mut p = Profiler::new(specs, opts)?;
    p.requests(stream, filter)?;
    p.finish(sizes, source, block_size)
}

#[cfg(test)]
mod tests;
