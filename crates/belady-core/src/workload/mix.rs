//! `mix`: several generators running at once, interleaved by time.
//!
//! Block-level parts each issue references at their own `rate` (per second, evenly spaced) from
//! their `start` (seconds); the mix emits them in time order (ties: the earlier part first)
//! with their timestamps, and shifts each part's block ids past the previous parts' so they never
//! collide. File-level parts run as separate processes (pid = part number, from 1) whose clocks
//! advance by their think times; the mix emits their calls in clock order, each call's think time
//! becoming the gap since the previous call of the mix, and file ids are shifted apart likewise.
//! Parts must all be block-level or all file-level.

use super::{BlockGen, FileGen, GenSpec, Generator, Level};
use crate::error::{Error, Result};
use crate::trace::file::FileEvent;
use crate::trace::BlockRequest;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Keys a mix part takes besides its generator's parameters.
pub const MIX_KEYS: &[(&str, &str, &str)] = &[
    (
        "rate",
        "1000",
        "references per second of a block-level part (evenly spaced)",
    ),
    ("start", "0", "seconds before the part's first request"),
];

/// One generator of a mix with its timing.
#[derive(Clone, Debug)]
pub struct MixPart {
    /// The generator and its parameters.
    pub spec: GenSpec,
    /// References per second (block-level parts).
    pub rate: f64,
    /// Seconds before the first request.
    pub start_s: f64,
    rate_given: bool,
}

impl MixPart {
    /// Parses `KIND[:key=value,…]`, e.g. `zipf:alpha=1.2,blocks=500,rate=2000,start=1.5`.
    pub fn parse(text: &str) -> Result<MixPart> {
        let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
        let mut part = MixPart {
            spec: GenSpec::new(kind.trim())?,
            rate: 1000.0,
            start_s: 0.0,
            rate_given: false,
        };
        for item in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) = item.split_once('=').ok_or_else(|| {
                Error::config(
                    "--part",
                    text,
                    format!("'{item}' is not key=value (expected KIND:key=value,…)"),
                )
            })?;
            let (key, value) = (key.trim(), value.trim());
            let number = |lo: f64| -> Result<f64> {
                value
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= lo && *v < 1e9)
                    .ok_or_else(|| {
                        Error::config(
                            "--part",
                            text,
                            format!("{key} '{value}' must be a number of at least {lo}"),
                        )
                    })
            };
            match key {
                "rate" => {
                    part.rate = number(1e-6)?;
                    part.rate_given = true;
                }
                "start" => part.start_s = number(0.0)?,
                _ => part.spec.set(key, value)?,
            }
        }
        Ok(part)
    }
}

/// A seed for part `i` that differs from every other part's, derived from the mix's seed.
fn part_seed(seed: u64, i: usize) -> u64 {
    seed ^ (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Builds the mix described in the module documentation.
pub fn build(parts: &[MixPart], seed: u64) -> Result<Generator> {
    if parts.is_empty() {
        return Err(Error::config(
            "mix",
            "",
            "needs at least one --part KIND[:key=value,…]",
        ));
    }
    let level = parts[0].spec.info.level;
    if let Some(p) = parts.iter().find(|p| p.spec.info.level != level) {
        return Err(Error::config(
            "--part",
            p.spec.info.name,
            "a mix takes block-level or file-level generators, not both",
        ));
    }
    let ns = |s: f64| (s * 1e9).round() as u64;
    if level == Level::File {
        if let Some(p) = parts.iter().find(|p| p.rate_given) {
            return Err(Error::config(
                "--part",
                p.spec.info.name,
                "rate applies to block-level parts; file-level parts run at their think times",
            ));
        }
        let mut mix = FileMix {
            parts: Vec::new(),
            heap: BinaryHeap::new(),
            now_ns: 0,
        };
        let mut offset = 0;
        for (i, p) in parts.iter().enumerate() {
            let Generator::File(mut gen) = p.spec.build(part_seed(seed, i))? else {
                unreachable!("levels checked above")
            };
            gen.relocate(i as u32 + 1, offset);
            offset += gen.files();
            mix.parts.push(FilePart {
                gen,
                clock_ns: ns(p.start_s),
                pending: None,
                offset,
            });
            mix.refill(i);
        }
        return Ok(Generator::File(Box::new(mix)));
    }
    let mut mix = BlockMix {
        parts: Vec::new(),
        heap: BinaryHeap::new(),
    };
    let mut offset = 0u64;
    for (i, p) in parts.iter().enumerate() {
        let Generator::Block(gen) = p.spec.build(part_seed(seed, i))? else {
            unreachable!("levels checked above")
        };
        let universe = gen.universe();
        let start_ns = ns(p.start_s);
        mix.parts.push(BlockPart {
            gen,
            offset,
            start_ns,
            period_ns: 1e9 / p.rate,
            emitted: 0,
        });
        mix.heap.push(Reverse((start_ns, i)));
        offset = offset
            .checked_add(universe)
            .ok_or_else(|| Error::config("mix", p.spec.info.name, "block ids overflow 64 bits"))?;
    }
    Ok(Generator::Block(Box::new(mix)))
}

struct BlockPart {
    gen: Box<dyn BlockGen>,
    offset: u64,
    start_ns: u64,
    period_ns: f64,
    emitted: u64,
}

impl BlockPart {
    fn time_of(&self, k: u64) -> u64 {
        self.start_ns
            .saturating_add((k as f64 * self.period_ns).round() as u64)
    }
}

/// Block-level parts merged by their request times.
struct BlockMix {
    parts: Vec<BlockPart>,
    /// Each live part's next request time, smallest first (ties: lower part index).
    heap: BinaryHeap<Reverse<(u64, usize)>>,
}

impl Iterator for BlockMix {
    type Item = BlockRequest;

    fn next(&mut self) -> Option<BlockRequest> {
        while let Some(Reverse((time, i))) = self.heap.pop() {
            let part = &mut self.parts[i];
            let Some(mut req) = part.gen.next() else {
                continue;
            };
            req.block += part.offset;
            req.time_ns = Some(time);
            part.emitted += 1;
            self.heap.push(Reverse((part.time_of(part.emitted), i)));
            return Some(req);
        }
        None
    }
}

impl BlockGen for BlockMix {
    fn universe(&self) -> u64 {
        self.parts.last().map_or(0, |p| p.offset + p.gen.universe())
    }
}

struct FilePart {
    gen: Box<dyn FileGen>,
    clock_ns: u64,
    pending: Option<FileEvent>,
    /// File ids of this part are at most this.
    offset: u64,
}

/// File-level parts as concurrent processes, merged by their clocks.
struct FileMix {
    parts: Vec<FilePart>,
    heap: BinaryHeap<Reverse<(u64, usize)>>,
    now_ns: u64,
}

impl FileMix {
    /// Fetches part `i`'s next call and schedules it at the part's clock plus its think time.
    fn refill(&mut self, i: usize) {
        let part = &mut self.parts[i];
        part.pending = part.gen.next();
        if let Some(ev) = &part.pending {
            self.heap
                .push(Reverse((part.clock_ns.saturating_add(ev.think_ns), i)));
        }
    }
}

impl Iterator for FileMix {
    type Item = FileEvent;

    fn next(&mut self) -> Option<FileEvent> {
        let Reverse((time, i)) = self.heap.pop()?;
        let mut ev = self.parts[i].pending.take()?;
        ev.think_ns = time - self.now_ns;
        self.now_ns = time;
        self.parts[i].clock_ns = time;
        self.refill(i);
        Some(ev)
    }
}

impl FileGen for FileMix {
    fn files(&self) -> u64 {
        self.parts.last().map_or(0, |p| p.offset)
    }

    fn path(&self, file: u64) -> String {
        self.parts
            .iter()
            .find(|p| file <= p.offset)
            .map_or_else(|| format!("/gen/f{file}"), |p| p.gen.path(file))
    }

    fn relocate(&mut self, pid: u32, offset: u64) {
        let mut base = offset;
        for (i, p) in self.parts.iter_mut().enumerate() {
            let files = p.gen.files();
            p.gen.relocate(pid + i as u32, base);
            base += files;
            p.offset = base;
        }
    }
}
