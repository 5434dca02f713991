//! The file engine's disk side: the address of a block, requests queued and issued (to the
//! device's queue, or served by the levels below a hierarchy's client), completions, and when
//! the application's waits end.

use super::*;

impl<P: Policy> FileSim<'_, P> {
    /// Issues the open request now: the program needs one of its blocks, blocks on I/O, or the
    /// unplug timer fired.
    pub(super) fn unplug(&mut self) {
        let reqs = self.cluster.flush();
        let sync = self.issue(reqs);
        debug_assert!(sync.is_empty(), "only prefetch-only requests stay open");
        self.plugged = None;
    }

    /// With a device, issues the open request at its unplug deadline if that comes by `t` (the
    /// program computes until `t`). Without one nothing waits on time, so the request stays open
    /// until a call needs it or stops extending it.
    pub(super) fn unplug_by_timer(&mut self, t: u64) {
        let Some((_, since)) = self.plugged else {
            return;
        };
        let due = since.saturating_add(self.cfg.unplug_delay_ns);
        if self.disk.is_none() || due > t {
            return;
        }
        let now = self.now_ns;
        self.now_ns = due.max(now);
        self.complete_until(self.now_ns);
        self.unplug();
        self.now_ns = now;
    }

    /// Issues what is still queued and completes every request; returns the program's run time
    /// (the device may finish later).
    pub(super) fn drain(&mut self) -> u64 {
        let rest = self.cluster.flush();
        self.issue(rest);
        let exec_ns = self.now_ns;
        self.complete_until(u64::MAX);
        exec_ns
    }

    /// The device address of the request's first block, and its length in sectors.
    pub(super) fn disk_access(&self, r: &DiskRequest) -> DiskAccess {
        let spb = self.sectors_per_block();
        let (first, count) = (r.first_index, r.blocks.len() as u64);
        let skipped = self.rules.blocks_not_sent(first, count);
        let (first, count) = (first + skipped, count - skipped);
        DiskAccess {
            lba: self.lba_of(r.file, first),
            sectors: (count * spb).min(u32::MAX as u64) as u32,
            write: false,
        }
    }

    pub(super) fn sectors_per_block(&self) -> u64 {
        (self.cfg.block_size as u64 / SECTOR_BYTES).max(1)
    }

    /// The device address of block `index` of `file`.
    pub(super) fn lba_of(&self, file: u64, index: u64) -> u64 {
        let spb = self.sectors_per_block();
        if let Some(lba) = self.rules.device_address(file, index, spb) {
            lba
        } else if self.cfg.placement == Placement::Scattered {
            cf::scattered_start(self.trace.names().get(&file), file) + index * spb
        } else {
            let (base, _) = self.trace.layout.range(file);
            (base as u64 + index) * spb
        }
    }

    pub(super) fn next_use(&self, b: Block) -> u64 {
        if !self.level.policy.needs_oracle() {
            return NEVER;
        }
        match self.next_pos[b as usize] {
            dense::NEVER => NEVER,
            n => n as u64,
        }
    }

    /// Lets the device start what it would start before `t`, then completes every request done
    /// by `t`. Decisions at `t` itself wait: the program may still submit requests at `t`.
    pub(super) fn complete_until(&mut self, t: u64) {
        self.dispatch_before(t);
        while let Some(&Reverse((done, req))) = self.completions.peek() {
            if done > t {
                break;
            }
            self.completions.pop();
            let r = self
                .requests
                .get_mut(req)
                .expect("a request completes before it is retired");
            debug_assert!(!r.completed, "request {req} completes twice");
            r.completed = true;
            for &b in &r.blocks {
                if self.io_of[b as usize] == req {
                    self.io_of[b as usize] = NO_IO;
                    self.level.set_pinned(b, false);
                }
            }
            self.mark_done(req);
        }
        self.requests.retire();
    }

    /// AccuSim marks the blocks a request sent as done when it completes.
    pub(super) fn mark_done(&mut self, req: u32) {
        let r = self.requests.get(req).expect("not retired yet");
        self.rules.request_done(&r.blocks[r.skips_first as usize..]);
    }

    /// The newest pending request that AccuSim's address test matches with block `index` of
    /// `file` (`late_by_address`).
    pub(super) fn pending_by_address(&mut self, file: u64, index: u64) -> Option<u32> {
        let s = Rules::sector(file, index) as u64;
        self.requests
            .live()
            .rev()
            .find(|&(_, r)| {
                let n = (r.blocks.len() - r.skips_first as usize) as u64;
                !r.completed && r.sector as u64 <= s && s < r.sector as u64 + n
            })
            .map(|(id, _)| id)
    }

    /// Notes the completion times of requests the device has just started.
    pub(super) fn record_dispatches(&mut self) {
        let mut dispatched = std::mem::take(&mut self.dispatched);
        for d in dispatched.drain(..) {
            #[cfg(test)]
            self.service_log.push(d);
            // The data then travels up the links to the client (nothing without levels below).
            let done_ns = d.done_ns + self.link_up_ns(d.id);
            if let Some(r) = self.requests.get_mut(d.id) {
                r.done_ns = done_ns;
            }
            self.responses_ns.push(d.done_ns - d.arrival_ns);
            self.completions.push(Reverse((done_ns, d.id)));
        }
        self.dispatched = dispatched;
    }

    /// When request `id` completes, letting the device run until it has started it. Only valid
    /// while the program is blocked: no request can arrive before the answer.
    pub(super) fn done_of(&mut self, id: u32) -> u64 {
        self.promote(id);
        // A retired request completed before now, which no wait goes back to.
        let done_ns = |s: &Self| s.requests.get(id).map_or(0, |r| r.done_ns);
        while done_ns(self) == NOT_STARTED {
            debug_assert!(self.disk.is_some(), "only device requests wait to start");
            let d = self
                .dispatch_next()
                .expect("a request not started is waiting");
            self.dispatched.push(d);
            self.record_dispatches();
        }
        done_ns(self)
    }

    pub(super) fn queue(&mut self, file: u64, index: u64, b: Block, demand: bool, pin: bool) {
        self.io_of[b as usize] = QUEUED;
        self.rules.queued(b);
        if pin && self.rules.pins_in_flight() {
            self.level.set_pinned(b, true);
        }
        self.call_group.push(b);
        self.cluster.push(QueuedBlock {
            file,
            index,
            block: b,
            demand,
        });
    }

    /// Submits `reqs` at the current time and returns the synchronous ones' ids.
    pub(super) fn issue(&mut self, reqs: Vec<DiskRequest>) -> Vec<u32> {
        let mut sync = Vec::new();
        for r in reqs {
            let id = self.requests.next_id();
            let n = r.blocks.len() as u64;
            // With levels below, only the blocks that missed them all go to the device.
            let disk_blocks = match &self.below {
                Some(_) => r
                    .blocks
                    .iter()
                    .filter(|&&b| self.from_disk[b as usize])
                    .count() as u64,
                None => n,
            };
            if let Some(below) = &mut self.below {
                below.note_request(&r.blocks, r.sync);
            }
            // Links down to the deepest level the request reaches, and back (0 untimed).
            let (down_ns, up_ns) = self.link_delays(&r.blocks);
            if disk_blocks == 0 {
                if r.sync {
                    sync.push(id);
                }
                self.serve_from_below(id, r, down_ns + up_ns);
                continue;
            }
            let n = disk_blocks;
            self.io.disk_requests += 1;
            if r.sync {
                self.io.sync_requests += 1;
                self.io.sync_blocks += n;
            } else {
                self.io.async_requests += 1;
                self.io.async_blocks += n;
            }
            if self.cfg.log_requests {
                self.io.request_log.push(LoggedRequest {
                    event: self.events,
                    sync: r.sync,
                    file: r.file,
                    first: r.first_index,
                    blocks: n,
                    issued_ns: self.now_ns,
                });
            }
            for &b in &r.blocks {
                if self.io_of[b as usize] == QUEUED {
                    self.io_of[b as usize] = id;
                }
            }
            if r.sync {
                sync.push(id);
            }
            self.cf_observe(&r);
            let access = self.disk.is_some().then(|| {
                let mut a = self.disk_access(&r);
                if disk_blocks < r.blocks.len() as u64 {
                    a.sectors = (disk_blocks * self.sectors_per_block()) as u32;
                }
                a
            });
            let done_ns = match (&mut self.disk, access) {
                (Some(disk), Some(access)) => {
                    disk.submit(id, access, self.now_ns + down_ns);
                    self.note_link_up(id, up_ns);
                    NOT_STARTED
                }
                _ => {
                    self.completions.push(Reverse((self.now_ns, id)));
                    self.now_ns
                }
            };
            let skipped = self.rules.blocks_not_sent(r.first_index, n);
            self.requests.push(Request {
                done_ns,
                completed: false,
                background: false,
                sector: Rules::sector(r.file, r.first_index + skipped),
                skips_first: skipped == 1,
                blocks: r.blocks,
            });
        }
        sync
    }

    /// A request every block of which a level below holds: it completes without the device,
    /// after `links_ns` on the links (0 untimed).
    pub(super) fn serve_from_below(&mut self, id: u32, r: DiskRequest, links_ns: u64) {
        for &b in &r.blocks {
            if self.io_of[b as usize] == QUEUED {
                self.io_of[b as usize] = id;
            }
        }
        let done_ns = self.now_ns + links_ns;
        self.completions.push(Reverse((done_ns, id)));
        self.requests.push(Request {
            done_ns,
            completed: false,
            background: false,
            sector: u32::MAX,
            skips_first: false,
            blocks: r.blocks,
        });
    }
}
