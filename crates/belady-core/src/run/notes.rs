//! Notes a result row carries when one of its numbers would otherwise look wrong: derived from the
//! row alone, printed under `sim`'s table and kept in the row's `note` key
//! ([`crate::run::Outcome::rows`]), so every consumer (JSON, the store, Python) sees the same words.

use crate::run::rows::RunResult;

/// The note on `opt` weighing objects by their sizes.
pub const SIZED_OPT: &str = "opt with a byte capacity: Belady's rule (evict what is next used \
furthest ahead) is optimal only when every object has one size; once sizes differ it is a heuristic, \
and a size-aware policy (gdsf, lhd) can beat it. Bounds on the optimum: docs/policies.md, \
\"Objects of different sizes\"";

/// The note `r` carries, if any: `opt` in the objects model with a byte capacity (objects
/// weighed by their sizes, where Belady's rule is no longer the optimum).
pub fn row_note(r: &RunResult) -> Option<&'static str> {
    let opt = r.policy == "opt" || r.policy.starts_with("opt(");
    (opt && r.cache_model == "objects" && r.cache_bytes.is_some()).then_some(SIZED_OPT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(policy: &str, model: &str, bytes: Option<u64>) -> RunResult {
        let mut r: RunResult = serde_json::from_value(serde_json::json!({
            "trace": "t", "policy": policy, "cache_blocks": 0, "block_size": 1,
            "unique_blocks": 1, "requests": 1, "hits": 0, "misses": 1, "hit_ratio": 0.0,
            "evictions": 0,
        }))
        .unwrap();
        r.cache_model = model.into();
        r.cache_bytes = bytes;
        r
    }

    #[test]
    fn only_opt_weighing_sizes_carries_the_note() {
        assert_eq!(row_note(&row("opt", "objects", Some(64))), Some(SIZED_OPT));
        assert_eq!(
            row_note(&row("opt(ties=first)", "objects", Some(64))),
            Some(SIZED_OPT)
        );
        // Counted objects, blocks, or another policy: Belady's rule is the optimum, or no claim.
        assert_eq!(row_note(&row("opt", "objects", None)), None);
        assert_eq!(row_note(&row("opt", "blocks", Some(4096))), None);
        assert_eq!(row_note(&row("gdsf", "objects", Some(64))), None);
        assert_eq!(row_note(&row("optx", "objects", Some(64))), None);
    }
}
