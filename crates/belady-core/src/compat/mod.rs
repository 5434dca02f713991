//! Reference simulators' departures from the papers, in one place the engines consult. The
//! `Policy` trait and the engines' own code keep what the papers describe; a compat rule says
//! where and how a reference simulator behaves differently.

pub mod accusim;
pub mod libcachesim;

use crate::cache::cache_model::Capacity;
use crate::error::Result;
use crate::policy::registry::{PolicySpec, PolicyVisitor};

/// What a variant's `build` gives: the variant built, or the visitor back when the spec does not
/// ask for it (the builder then makes the paper's policy).
pub type Variant<V> = std::result::Result<<V as PolicyVisitor>::Output, V>;

/// Declares the reference simulators' variants, each its module under `compat/` (with `OF`, the
/// policy it varies, and `build`), tried in this order before the paper's policy.
macro_rules! variants {
    ($($family:ident :: $module:ident),* $(,)?) => {
        /// Builds the variant `spec` asks for, if any (see [`Variant`]).
        pub(crate) fn build_variant<V: PolicyVisitor>(
            spec: &PolicySpec,
            capacity: &Capacity,
            universe: usize,
            visitor: V,
        ) -> Result<Variant<V>> {
            let mut visitor = visitor;
            $(
                if spec.info.name == $family::$module::OF.name {
                    match $family::$module::build(spec, capacity, universe, visitor)? {
                        Ok(built) => return Ok(Ok(built)),
                        Err(back) => visitor = back,
                    }
                }
            )*
            Ok(Err(visitor))
        }
    };
}

// One line per variant. libCacheSim's byte-based LIRS is asked before AccuSim's LIRS, as the
// size-aware forms are chosen before the count-based ones.
variants! {
    libcachesim::lirs,
    libcachesim::wtinylfu,
    accusim::opt,
    accusim::lrfu,
    accusim::arc,
    accusim::lirs,
    accusim::lruk,
    accusim::mq,
}
