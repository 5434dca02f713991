//! File-level generators: whole-file sequential reading (cscope, glimpse) and random reads in a
//! few large files (TPC-H on MySQL), as the prefetching study's two application groups.

use super::{FileGen, GenSpec, Rng};
use crate::error::{Error, Result};
use crate::trace::file::{FileEvent, FileEventKind};
use rand::seq::SliceRandom;
use rand::Rng as _;
use rand_distr::Distribution;

/// What [`SequentialFiles`] emits next.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Open the next file in the pass order.
    Open,
    /// Read the open file from this offset (or close it at the end).
    Reading(u64),
    /// The process exits.
    Exit,
    /// Nothing more.
    Done,
}

/// Files of log-normal sizes, each opened, read whole in `read-size` calls and closed; every
/// pass reads every file, in the same order (`loop`) or a new one (`shuffle`).
pub struct SequentialFiles {
    rng: Rng,
    sizes: Vec<u64>,
    order: Vec<u32>,
    shuffle: bool,
    pos: usize,
    read_size: u64,
    think_ns: u64,
    left: u64,
    phase: Phase,
    pid: u32,
    offset: u64,
}

/// Microseconds as nanoseconds, rejecting values past 2^64 ns.
fn think(spec: &GenSpec) -> Result<u64> {
    let us = spec.real("think-us", 0.0, 1.8e13)?;
    Ok((us * 1000.0).round() as u64)
}

impl SequentialFiles {
    /// Reads the parameters and draws every file's size.
    pub fn new(spec: &GenSpec, mut rng: Rng) -> Result<Self> {
        let files = spec.count("files", 1)?;
        if files > 1 << 24 {
            return Err(Error::config(
                "sequential-files files",
                files,
                "at most 16,777,216 files",
            ));
        }
        let median = spec.bytes("median-size")?;
        let sigma = spec.real("size-sigma", 0.0, 10.0)?;
        let max = spec.bytes("max-size")?;
        let dist = rand_distr::LogNormal::new((median as f64).ln(), sigma)
            .map_err(|e| Error::config("sequential-files size-sigma", sigma, e.to_string()))?;
        let sizes = (0..files)
            .map(|_| (dist.sample(&mut rng).round() as u64).clamp(1, max))
            .collect();
        let shuffle = spec.choice("order", &["loop", "shuffle"])? == "shuffle";
        let mut order: Vec<u32> = (0..files as u32).collect();
        if shuffle {
            order.shuffle(&mut rng);
        }
        Ok(SequentialFiles {
            rng,
            sizes,
            order,
            shuffle,
            pos: 0,
            read_size: spec.bytes("read-size")?,
            think_ns: think(spec)?,
            left: spec.count("requests", 0)?,
            phase: Phase::Open,
            pid: 1,
            offset: 0,
        })
    }

    fn event(&self, think_ns: u64, kind: FileEventKind) -> FileEvent {
        let index = self.order[self.pos] as usize;
        FileEvent {
            think_ns,
            pid: self.pid,
            fd: 3,
            file: self.offset + 1 + index as u64,
            file_size: self.sizes[index],
            kind,
        }
    }
}

impl Iterator for SequentialFiles {
    type Item = FileEvent;

    fn next(&mut self) -> Option<FileEvent> {
        match self.phase {
            Phase::Done => None,
            Phase::Exit => {
                self.phase = Phase::Done;
                Some(FileEvent {
                    think_ns: 0,
                    pid: self.pid,
                    fd: 0,
                    file: 0,
                    file_size: 0,
                    kind: FileEventKind::Exit,
                })
            }
            Phase::Open if self.left == 0 => {
                self.phase = Phase::Done;
                Some(FileEvent {
                    think_ns: 0,
                    pid: self.pid,
                    fd: 0,
                    file: 0,
                    file_size: 0,
                    kind: FileEventKind::Exit,
                })
            }
            Phase::Open => {
                self.phase = Phase::Reading(0);
                Some(self.event(0, FileEventKind::Open))
            }
            Phase::Reading(offset) => {
                let size = self.sizes[self.order[self.pos] as usize];
                if self.left == 0 || offset >= size {
                    let close = self.event(0, FileEventKind::Close);
                    if self.left == 0 {
                        self.phase = Phase::Exit;
                    } else {
                        self.phase = Phase::Open;
                        self.pos += 1;
                        if self.pos == self.order.len() {
                            self.pos = 0;
                            if self.shuffle {
                                self.order.shuffle(&mut self.rng);
                            }
                        }
                    }
                    return Some(close);
                }
                self.left -= 1;
                let len = self.read_size.min(size - offset);
                self.phase = Phase::Reading(offset + len);
                Some(self.event(self.think_ns, FileEventKind::Read { offset, len }))
            }
        }
    }
}

impl FileGen for SequentialFiles {
    fn files(&self) -> u64 {
        self.sizes.len() as u64
    }

    fn path(&self, file: u64) -> String {
        format!("/gen/sequential/f{:06}", file - self.offset)
    }

    fn relocate(&mut self, pid: u32, offset: u64) {
        self.pid = pid;
        self.offset = offset;
    }
}

/// A few large files opened at the start, read at random `read-size`-aligned offsets (with
/// probability `seq` a read continues where the previous one ended), closed at the end.
pub struct RandomFiles {
    rng: Rng,
    files: u64,
    file_size: u64,
    read_size: u64,
    seq: f64,
    think_ns: u64,
    left: u64,
    /// Calls emitted so far: `files` opens, then reads, then closes.
    step: u64,
    /// Last read's file index and end offset.
    last: Option<(u64, u64)>,
    pid: u32,
    offset: u64,
}

impl RandomFiles {
    /// Reads the parameters.
    pub fn new(spec: &GenSpec, rng: Rng) -> Result<Self> {
        let files = spec.count("files", 1)?;
        if files > 1 << 16 {
            return Err(Error::config(
                "random-files files",
                files,
                "at most 65,536 files (each holds a descriptor)",
            ));
        }
        Ok(RandomFiles {
            rng,
            files,
            file_size: spec.bytes("file-size")?,
            read_size: spec.bytes("read-size")?,
            seq: spec.real("seq", 0.0, 1.0)?,
            think_ns: think(spec)?,
            left: spec.count("requests", 0)?,
            step: 0,
            last: None,
            pid: 1,
            offset: 0,
        })
    }

    fn event(&self, index: u64, think_ns: u64, kind: FileEventKind) -> FileEvent {
        FileEvent {
            think_ns,
            pid: self.pid,
            fd: 3 + index as u32,
            file: self.offset + 1 + index,
            file_size: self.file_size,
            kind,
        }
    }
}

impl Iterator for RandomFiles {
    type Item = FileEvent;

    fn next(&mut self) -> Option<FileEvent> {
        let step = self.step;
        self.step += 1;
        if step < self.files {
            return Some(self.event(step, 0, FileEventKind::Open));
        }
        if self.left > 0 {
            self.left -= 1;
            let (index, offset) = match self.last {
                Some((i, end)) if end < self.file_size && self.rng.random_bool(self.seq) => {
                    (i, end)
                }
                _ => {
                    let slots = self.file_size.div_ceil(self.read_size);
                    (
                        self.rng.random_range(0..self.files),
                        self.rng.random_range(0..slots) * self.read_size,
                    )
                }
            };
            let len = self.read_size.min(self.file_size - offset);
            self.last = Some((index, offset + len));
            // The read position after the opens, kept so the closes follow the last read.
            self.step = self.files;
            return Some(self.event(index, self.think_ns, FileEventKind::Read { offset, len }));
        }
        let close = step - self.files;
        if close < self.files {
            return Some(self.event(close, 0, FileEventKind::Close));
        }
        if close == self.files {
            return Some(FileEvent {
                think_ns: 0,
                pid: self.pid,
                fd: 0,
                file: 0,
                file_size: 0,
                kind: FileEventKind::Exit,
            });
        }
        self.step = step;
        None
    }
}

impl FileGen for RandomFiles {
    fn files(&self) -> u64 {
        self.files
    }

    fn path(&self, file: u64) -> String {
        format!("/gen/random/f{:04}", file - self.offset)
    }

    fn relocate(&mut self, pid: u32, offset: u64) {
        self.pid = pid;
        self.offset = offset;
    }
}
