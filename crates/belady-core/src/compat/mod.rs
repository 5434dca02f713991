//! Reference simulators' departures from the papers, in one place the engines consult. The
//! `Policy` trait and the engines' own code keep what the papers describe; a compat rule says
//! where and how a reference simulator behaves differently.

pub mod accusim;
pub mod bitfaster;
pub mod libcachesim;

use crate::cache::cache_model::Capacity;
use crate::error::Result;
use crate::policy::registry::{PolicyInfo, PolicySpec, PolicyVisitor};
use crate::policy::Policy;

/// A reference simulator's variant of a paper's policy, which the builder makes instead of the
/// paper's type when the spec asks for that simulator's behaviour.
pub trait Variant: Policy + Sized + 'static {
    /// The policy this is a variant of.
    const OF: &'static PolicyInfo;

    /// Whether `spec`, for a level of `capacity`, asks for this variant (an error names a value
    /// that neither the variant nor the paper's type takes).
    fn wanted(spec: &PolicySpec, capacity: &Capacity) -> Result<bool>;

    /// The variant for a level of `capacity` over ids `0..universe`.
    fn make(spec: &PolicySpec, capacity: &Capacity, universe: usize) -> Result<Self>;
}

/// Declares the variants, tried in this order before the paper's policy: `build_variant`.
macro_rules! variants {
    ($($variant:path),* $(,)?) => {
        /// Builds the variant `spec` asks for, if any; otherwise gives the visitor back for the
        /// paper's policy.
        pub(crate) fn build_variant<V: PolicyVisitor>(
            spec: &PolicySpec,
            capacity: &Capacity,
            universe: usize,
            visitor: V,
        ) -> Result<std::result::Result<V::Output, V>> {
            $(
                if spec.info.name == <$variant as Variant>::OF.name
                    && <$variant as Variant>::wanted(spec, capacity)?
                {
                    let variant = <$variant as Variant>::make(spec, capacity, universe)?;
                    return Ok(Ok(visitor.visit(variant)));
                }
            )*
            Ok(Err(visitor))
        }
    };
}

// One line per variant. libCacheSim's byte-based LIRS is asked before AccuSim's LIRS, as the
// size-aware forms are chosen before the count-based ones.
variants! {
    libcachesim::lirs::LibcachesimLirs,
    crate::policy::slru_sized::SlruSizedPolicy,
    libcachesim::wtinylfu::LibcachesimWTinyLfu,
    crate::policy::wtinylfu_climber::AdaptiveWTinyLfu<bitfaster::climber::BitfasterClimber>,
    accusim::opt::AccusimOpt,
    accusim::lrfu::AccusimLrfu,
    accusim::arc::AccusimArc,
    accusim::lirs::AccusimLirs,
    accusim::lruk::AccusimLruK,
    accusim::mq::AccusimMq,
}
