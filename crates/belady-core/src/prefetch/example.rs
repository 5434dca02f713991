//! The simplified prefetcher of the prefetching study's Table 1 (Butt, Gniady, Hu, SIGMETRICS
//! 2005, section 3), which shows Belady's MIN issuing more disk requests than LRU under
//! prefetching.
//!
//! Read-ahead happens only on a miss, so that it clusters with the demand read. The read covers N
//! blocks including the demand block: N is 3 on a file's first block (a new sequential run) and
//! becomes 8 once the access following a prefetching miss is to a block that miss prefetched;
//! otherwise it stays as it is. Prefetching stops at the first block already cached, at the end of
//! the file, and — enforced by the engine, see [`ReadAhead::stops_at_group_eviction`] — at a block
//! whose insertion would evict the demand block or another block of the same read.

use super::{Desc, Lookup, Plan, ReadAhead, ReadCall};
use rustc_hash::FxHashMap;
use std::ops::Range;

#[derive(Clone, Debug, Default)]
struct State {
    n: u64,
    /// Blocks read ahead by the last prefetching miss, until the next access judges them.
    last_group: Option<Range<u64>>,
    end: u64,
}

/// The study's Table 1 prefetcher.
pub struct ExampleReadAhead {
    block_size: u64,
    files: FxHashMap<Desc, State>,
}

impl ExampleReadAhead {
    /// A prefetcher for `block_size`-byte blocks.
    pub fn new(block_size: u64) -> Self {
        ExampleReadAhead {
            block_size,
            files: FxHashMap::default(),
        }
    }
}

const FIRST: u64 = 3;
const SEQUENTIAL: u64 = 8;

impl ReadAhead for ExampleReadAhead {
    fn name(&self) -> &'static str {
        "example"
    }

    fn reset(&mut self, d: Desc) {
        self.files.insert(
            d,
            State {
                n: FIRST,
                ..State::default()
            },
        );
    }

    fn forget(&mut self, d: Desc) {
        self.files.remove(&d);
    }

    fn begin_read(&mut self, d: Desc, call: &ReadCall) {
        let bs = self.block_size;
        let s = self.files.entry(d).or_insert_with(|| State {
            n: FIRST,
            ..State::default()
        });
        s.end = call.file_size.div_ceil(bs);
    }

    fn after_lookup(
        &mut self,
        d: Desc,
        index: u64,
        lookup: Lookup,
        _cached: &dyn Fn(u64) -> bool,
    ) -> Plan {
        let s = self.files.entry(d).or_insert_with(|| State {
            n: FIRST,
            ..State::default()
        });
        if let Some(group) = s.last_group.take() {
            if group.contains(&index) {
                s.n = SEQUENTIAL;
            }
        }
        if matches!(lookup, Lookup::Hit | Lookup::HitMarked) {
            return Plan::nothing();
        }
        if index == 0 {
            s.n = FIRST;
        }
        let ahead = index + 1..(index + s.n).min(s.end).max(index + 1);
        s.last_group = Some(ahead.clone());
        Plan::read(ahead)
    }

    fn stops_at_first_cached(&self) -> bool {
        true
    }

    fn stops_at_group_eviction(&self) -> bool {
        true
    }
}
