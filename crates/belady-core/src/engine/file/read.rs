//! The file engine's read call: each demand block looked up and counted, read-ahead asked and
//! its blocks inserted, the queue clustered into requests, and the wait for the synchronous ones.

use super::*;

impl<P: Policy> FileSim<'_, P> {
    /// One demand reference to block `index` of `file`: looks it up, counts it, and queues its
    /// read if it missed. Returns what the lookup found, for the read-ahead engine. `lookahead`:
    /// the reference is made by AccuSim's read-ahead loop
    /// ([`crate::compat::accusim::access_in_readahead_loop`]); `repeat`: it starts in the block
    /// the descriptor's previous read ended in ([`crate::policy::Access::repeat`]).
    pub(super) fn demand(
        &mut self,
        file: u64,
        index: u64,
        lookahead: bool,
        repeat: bool,
    ) -> Lookup {
        let b = self.trace.layout.block(file, index);
        let next = if self.level.policy.needs_oracle() {
            let n = self.trace.oracle().0[self.tick];
            self.next_pos[b as usize] = n;
            if n == dense::NEVER {
                NEVER
            } else {
                n as u64
            }
        } else {
            NEVER
        };
        self.tick += 1;
        let pending = self.io_of[b as usize];
        let resident = self.level.frames().is_resident(b);
        let marked = resident && self.level.take_marker(b);
        let in_flight = resident && self.rules.in_flight(b, pending != NO_IO);
        let lookup = match (resident, marked, in_flight) {
            (false, _, _) => Lookup::Miss,
            (true, true, _) => Lookup::HitMarked,
            (true, false, true) => Lookup::InFlight,
            (true, false, false) => Lookup::Hit,
        };
        if !resident {
            // Read on demand even when no frame can be freed (every one pinned).
            if lookahead {
                crate::compat::accusim::access_in_readahead_loop(&mut self.level, b, next);
            } else {
                self.level.access_repeat(b, next, repeat);
            }
            if self.level.frames().is_resident(b) || self.io_of[b as usize] == NO_IO {
                self.send_down(b, true);
                self.queue(file, index, b, true, true);
            }
        } else if in_flight {
            if self.level.frames().is_unused_prefetch(b) {
                self.io.prefetch_late += 1;
            }
            if self
                .rules
                .in_flight_reuse_hits(self.level.frames().is_unused_prefetch(b))
            {
                self.level.access_repeat(b, next, repeat);
            } else {
                self.level.access_in_flight(b, next, repeat);
            }
            let awaited = if self.rules.late_by_address() {
                self.pending_by_address(file, index)
            } else {
                (pending != QUEUED && pending != NO_IO).then_some(pending)
            };
            if let Some(id) = awaited {
                self.io.late += 1;
                self.awaited.push(id);
            }
        } else {
            if self.level.frames().is_unused_prefetch(b) {
                self.io.prefetch_hits += 1;
            }
            self.level.access_repeat(b, next, repeat);
        }
        lookup
    }

    pub(super) fn read(&mut self, d: Desc, file: u64, offset: u64, len: u64, file_size: u64) {
        let bs = self.cfg.block_size as u64;
        if len == 0 {
            return;
        }
        self.ra.begin_read(
            d,
            &ReadCall {
                offset,
                len,
                file_size,
            },
        );
        self.call_group.clear();
        let stop_at_cached = self.ra.stops_at_first_cached();
        let guard_group = self.ra.stops_at_group_eviction();
        let window_covers_call = self.rules.window_covers_call();
        let (first, last) = (offset / bs, (offset + len - 1) / bs);
        let repeat = self.read_ends.read(d, offset, offset + len, bs);
        self.awaited.clear();
        if self.cluster.open_holds(file, first, last) {
            // Waiting on a block that sits in a plugged queue unplugs it (Linux 2.4's
            // `sync_page` runs the disk task queue): the prefetch is issued now, so the call
            // finds it in flight (late) or, without a device, complete.
            self.unplug();
            self.complete_until(self.now_ns);
        }
        // The next demand block of the call not referenced yet.
        let mut cb = first;
        while cb <= last {
            let index = cb;
            cb += 1;
            let lookup = self.demand(file, index, false, repeat && index == first);
            let (base, blocks) = self.trace.layout.range(file);
            let plan = {
                let frames = self.level.frames();
                let cached = |j: u64| j < blocks as u64 && frames.is_resident(base + j as Block);
                self.ra.after_lookup(d, index, lookup, &cached)
            };
            if window_covers_call {
                if let Some(window_end) = plan.window_end {
                    while cb <= window_end.min(last) {
                        self.demand(file, cb, false, false);
                        cb += 1;
                    }
                }
            }
            // The file's end bounds every plan: the layout holds the largest size the trace shows.
            let end = plan
                .range
                .end
                .min(blocks as u64)
                .min(file_size.div_ceil(bs).max(last + 1));
            for j in plan.range.start..end {
                let pb = self.trace.layout.block(file, j);
                // AccuSim: the read-ahead reaches the call's next demand block (it is always
                // `cb` then) and references it on the spot.
                let reaches_demand = window_covers_call && j >= cb && cb <= last;
                if self.level.frames().is_resident(pb) {
                    if reaches_demand {
                        self.demand(file, j, true, false);
                        cb += 1;
                    }
                    if stop_at_cached {
                        break;
                    }
                    continue;
                }
                if reaches_demand {
                    self.demand(file, j, true, false);
                    cb += 1;
                    continue;
                }
                let mut next_use = self.next_use(pb);
                if next_use == NEVER
                    && self.level.policy.needs_oracle()
                    && self.trace.oracle().1[pb as usize] == dense::NEVER
                {
                    let references = self.trace.references;
                    if let Some(n) = self.rules.unused_prefetch_next_use(pb, references) {
                        next_use = n;
                    }
                }
                if guard_group {
                    let victim = self.level.peek_victim(pb, next_use);
                    if victim.is_some_and(|v| self.call_group.contains(&v)) {
                        break;
                    }
                }
                if self.level.prefetch(pb, next_use) {
                    self.send_down(pb, false);
                    self.io.prefetched_blocks += 1;
                    self.queue(file, j, pb, j <= last, !guard_group);
                    if plan.marker == Some(j) {
                        self.level.set_marker(pb);
                    }
                }
            }
        }
        let mut reqs = self.cluster.end_call();
        if !self.awaited.is_empty() || reqs.iter().any(|r| r.sync) {
            // The program blocks, which unplugs the device queue: what is open goes too.
            reqs.extend(self.cluster.flush());
        }
        // Blocks the client sent down leave first (demote, exclusive placement below).
        self.wait_for_demotions();
        let mut awaited = std::mem::take(&mut self.awaited);
        awaited.extend(self.issue(reqs));
        self.plugged = match self.plugged {
            _ if !self.cluster.has_open() => None,
            Some((closed, since)) if closed == self.cluster.closed_count() => Some((closed, since)),
            _ => Some((self.cluster.closed_count(), self.now_ns)),
        };
        // The call's requests are all submitted before it blocks, so the device sees them together.
        let mut wait_until = self.now_ns;
        for &id in &awaited {
            wait_until = wait_until.max(self.done_of(id));
        }
        self.awaited = awaited;
        self.wait_ns += wait_until - self.now_ns;
        self.now_ns = wait_until;
        self.complete_until(self.now_ns);
    }
}
