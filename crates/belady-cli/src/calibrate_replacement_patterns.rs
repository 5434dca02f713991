//! The access patterns `belady calibrate replacement` runs in a memory cgroup: each a family
//! with parameters in units of the cgroup's limit in pages (C), so one spec scales from 16 MiB
//! to 128 MiB, and a seed for the random ones. A spec is `NAME` or `NAME:key=value,...`
//! (`scan-hot:hot=0.8`); [`Spec::label`] spells every parameter, so a saved run regenerates the
//! same reads.

use crate::calibrate_patterns::splitmix;
use anyhow::{bail, Result};

/// One step of a pattern: a `pread` of `len` bytes at `offset`, or a pause.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Read `len` bytes at byte `offset`.
    Read {
        /// Byte offset.
        offset: u64,
        /// Bytes.
        len: u32,
    },
    /// Sleep this many milliseconds (the settle time of a phase change).
    Pause {
        /// Milliseconds.
        ms: u32,
    },
}

/// A pattern family, its parameters (name, default, what it means) and what it exercises.
struct Family {
    name: &'static str,
    params: &'static [(&'static str, f64, &'static str)],
    about: &'static str,
}

const FAMILIES: &[Family] = &[
    Family {
        name: "loop",
        params: &[
            ("size", 1.1, "pages in the loop, x C"),
            ("passes", 8.0, "times the loop is read"),
        ],
        about: "a cyclic loop just over the capacity: every page read once per pass",
    },
    Family {
        name: "scan-hot",
        params: &[
            ("hot", 0.5, "hot set, x C pages, read at random"),
            ("share", 0.5, "share of the reads that go to the hot set"),
            ("length", 10.0, "reads, x C"),
        ],
        about: "a sequential scan of pages read once, beside a hot set read at random",
    },
    Family {
        name: "zipf",
        params: &[
            ("alpha", 0.9, "Zipf exponent"),
            ("universe", 4.0, "distinct pages, x C"),
            ("length", 10.0, "reads, x C"),
        ],
        about: "pages drawn from a Zipf distribution",
    },
    Family {
        name: "phase",
        params: &[
            ("hot", 0.6, "each phase's hot set, x C pages"),
            ("length", 6.0, "reads per phase, x C"),
            ("settle", 3.0, "seconds of pause at the switch"),
        ],
        about: "a hot set read at random, a pause, then another hot set",
    },
    Family {
        name: "hot-twice",
        params: &[
            (
                "hot",
                0.3,
                "hot set, x C pages, read twice in order each period",
            ),
            ("scan", 0.85, "pages read once after it each period, x C"),
            ("periods", 8.0, "periods"),
        ],
        about: "a hot set read twice per period, then a scan",
    },
    Family {
        name: "half",
        params: &[
            ("hot", 0.5, "hot set, x C pages"),
            ("share", 0.5, "share of the pages chosen from the hot set"),
            ("length", 5.0, "pages read, x C (each in two halves)"),
        ],
        about: "reads of half a page: each page read twice in a row, beside a scan",
    },
];

/// The patterns measured when none is given: the issue-36 set.
pub const DEFAULT_PATTERNS: &[&str] = &[
    "loop",
    "scan-hot:hot=0.5",
    "scan-hot:hot=0.8",
    "zipf",
    "phase",
    "hot-twice:hot=0.3",
    "hot-twice:hot=0.6",
    "half",
];

/// The families, their parameters and the default set, for `--help`.
pub fn families_help() -> String {
    let mut out =
        String::from("Patterns (NAME:key=value,...; sizes in units of C, the limit in pages):\n");
    for f in FAMILIES {
        out.push_str(&format!("  {}: {}\n", f.name, f.about));
        for (k, v, about) in f.params {
            out.push_str(&format!("      {k}={v}: {about}\n"));
        }
    }
    out.push_str(&format!("Default: {}.\n", DEFAULT_PATTERNS.join(", ")));
    out.push_str("Needs root (it creates memory cgroups) and a disk-backed file system.");
    out
}

/// A parsed pattern spec: its family and every parameter's value.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    family: &'static str,
    values: Vec<(&'static str, f64)>,
}

impl Spec {
    /// Parses `NAME[:key=value,...]`.
    pub fn parse(text: &str) -> Result<Spec> {
        let (name, args) = text.split_once(':').unwrap_or((text, ""));
        let Some(family) = FAMILIES.iter().find(|f| f.name == name) else {
            let names: Vec<&str> = FAMILIES.iter().map(|f| f.name).collect();
            bail!(
                "unknown pattern '{name}' in '{text}': expected one of {}",
                names.join(", ")
            );
        };
        let mut values: Vec<(&'static str, f64)> =
            family.params.iter().map(|(k, v, _)| (*k, *v)).collect();
        for arg in args.split(',').filter(|a| !a.is_empty()) {
            let Some((key, value)) = arg.split_once('=') else {
                bail!("pattern '{text}': expected key=value, found '{arg}'");
            };
            let Some(slot) = values.iter_mut().find(|(k, _)| *k == key) else {
                let keys: Vec<&str> = family.params.iter().map(|p| p.0).collect();
                bail!(
                    "pattern '{text}': {name} has no parameter '{key}' (it has {})",
                    keys.join(", ")
                );
            };
            match value.parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => slot.1 = v,
                _ => bail!("pattern '{text}': {key} '{value}' is not a positive number"),
            }
        }
        let spec = Spec {
            family: family.name,
            values,
        };
        if (spec.family == "scan-hot" || spec.family == "half") && spec.get("share") > 1.0 {
            bail!("pattern '{text}': share must be at most 1");
        }
        Ok(spec)
    }

    /// The spec with every parameter spelled out (what a saved run records).
    pub fn label(&self) -> String {
        let args: Vec<String> = self
            .values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{}:{}", self.family, args.join(","))
    }

    /// The family's name.
    pub fn family(&self) -> &'static str {
        self.family
    }

    fn get(&self, key: &str) -> f64 {
        self.values
            .iter()
            .find(|(k, _)| *k == key)
            .map(|p| p.1)
            .expect("declared parameter")
    }

    /// `key` × `c`, at least one.
    fn pages(&self, key: &str, c: u64) -> u64 {
        ((self.get(key) * c as f64).round() as u64).max(1)
    }

    /// Pages of the file the pattern reads, for a capacity of `c` pages.
    pub fn footprint(&self, c: u64) -> u64 {
        match self.family {
            "loop" => self.pages("size", c),
            "zipf" => self.pages("universe", c),
            "phase" => 2 * self.pages("hot", c),
            // A scan takes new pages from the rest of the file: it needs the hot set and room to
            // scan past a cache's worth (it wraps around the file's end).
            _ => self.pages("hot", c) + 2 * c,
        }
    }

    /// The steps for a cgroup of `c` pages of `page` bytes over a file of `file_pages` pages.
    pub fn steps(&self, c: u64, file_pages: u64, page: u64, seed: u64) -> Result<Vec<Step>> {
        let need = self.footprint(c);
        if need > file_pages {
            bail!(
                "pattern {} needs {need} pages at this limit, the scratch file holds {file_pages} \
                 (a larger --size)",
                self.label()
            );
        }
        let mut rng = seed ^ 0x36_36_36;
        let mut uniform = |n: u64| splitmix(&mut rng) % n;
        let read = |p: u64| Step::Read {
            offset: p * page,
            len: page as u32,
        };
        let mut out = Vec::new();
        match self.family {
            "loop" => {
                let n = self.pages("size", c);
                for _ in 0..self.get("passes").round() as u64 {
                    out.extend((0..n).map(read));
                }
            }
            "scan-hot" | "half" => {
                let hot = self.pages("hot", c);
                let share = (self.get("share") * (1u64 << 32) as f64) as u64;
                let mut scan = Scan::new(hot, file_pages);
                for _ in 0..self.pages("length", c) {
                    let p = if uniform(1 << 32) < share {
                        uniform(hot)
                    } else {
                        scan.next()
                    };
                    if self.family == "half" {
                        let half = (page / 2) as u32;
                        out.push(Step::Read {
                            offset: p * page,
                            len: half,
                        });
                        out.push(Step::Read {
                            offset: p * page + half as u64,
                            len: half,
                        });
                    } else {
                        out.push(read(p));
                    }
                }
            }
            "zipf" => {
                let n = self.pages("universe", c) as usize;
                let alpha = self.get("alpha");
                let mut cdf = Vec::with_capacity(n);
                let mut total = 0.0;
                for k in 0..n {
                    total += 1.0 / ((k + 1) as f64).powf(alpha);
                    cdf.push(total);
                }
                // Ranks land on pages in a shuffled order, so hot pages are spread over the file.
                let mut pages: Vec<u64> = (0..n as u64).collect();
                for i in (1..n).rev() {
                    pages.swap(i, uniform(i as u64 + 1) as usize);
                }
                for _ in 0..self.pages("length", c) {
                    let u = (uniform(1 << 53) as f64 / (1u64 << 53) as f64) * total;
                    let rank = cdf.partition_point(|&x| x < u).min(n - 1);
                    out.push(read(pages[rank]));
                }
            }
            "phase" => {
                let hot = self.pages("hot", c);
                let length = self.pages("length", c);
                out.extend((0..length).map(|_| read(uniform(hot))));
                out.push(Step::Pause {
                    ms: (self.get("settle") * 1000.0).round() as u32,
                });
                out.extend((0..length).map(|_| read(hot + uniform(hot))));
            }
            "hot-twice" => {
                let hot = self.pages("hot", c);
                let scan_len = self.pages("scan", c);
                let mut scan = Scan::new(hot, file_pages);
                for _ in 0..self.get("periods").round() as u64 {
                    for _ in 0..2 {
                        out.extend((0..hot).map(read));
                    }
                    out.extend((0..scan_len).map(|_| read(scan.next())));
                }
            }
            other => unreachable!("family {other} is parsed"),
        }
        Ok(out)
    }
}

/// Pages read once, in order, from `start` to the end of the file and round again.
struct Scan {
    next: u64,
    start: u64,
    end: u64,
}

impl Scan {
    fn new(start: u64, end: u64) -> Scan {
        Scan {
            next: start,
            start,
            end,
        }
    }

    fn next(&mut self) -> u64 {
        let p = self.next;
        self.next = if p + 1 >= self.end { self.start } else { p + 1 };
        p
    }
}

/// The page each read starts in, for the block model: `Step::Pause` leaves nothing.
pub fn pages(steps: &[Step], page: u64) -> Vec<u32> {
    steps
        .iter()
        .filter_map(|s| match *s {
            Step::Read { offset, .. } => Some((offset / page) as u32),
            Step::Pause { .. } => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PINNED: [&str; 8] = [
        "loop 88fb137c9c760945",
        "scan-hot:hot=0.5 79933f5c92c012de",
        "scan-hot:hot=0.8 7d011b1bc08a6f0f",
        "zipf 57e55dbc1370166c",
        "phase 0d0f18c93932b3a0",
        "hot-twice:hot=0.3 dab5f122e0a57415",
        "hot-twice:hot=0.6 e660a16dd76f0005",
        "half 4c0f2f05a8b51ebb",
    ];

    #[test]
    fn every_default_pattern_parses_and_stays_in_the_file() {
        for text in DEFAULT_PATTERNS {
            let spec = Spec::parse(text).unwrap();
            assert_eq!(Spec::parse(&spec.label()).unwrap(), spec, "{text}");
            for c in [4096, 32768] {
                let file = 8 * c;
                let steps = spec.steps(c, file, 4096, 1).unwrap();
                assert!(steps.len() as u64 >= 4 * c, "{text}: {}", steps.len());
                for s in &steps {
                    if let Step::Read { offset, len } = *s {
                        assert!(offset + len as u64 <= file * 4096, "{text}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_patterns_read_what_they_say() {
        let c = 1000;
        let loop_ = Spec::parse("loop")
            .unwrap()
            .steps(c, 8000, 4096, 1)
            .unwrap();
        assert_eq!(loop_.len(), 8 * 1100);
        assert_eq!(loop_[1100], loop_[0]);
        // Half-page reads: each page twice in a row, in two halves.
        let half = Spec::parse("half")
            .unwrap()
            .steps(c, 8000, 4096, 1)
            .unwrap();
        let p = pages(&half, 4096);
        assert!(p.chunks(2).all(|w| w[0] == w[1]));
        assert_eq!(half.len(), 2 * 5000);
        // The phase change pauses once, for its settle time, between two disjoint hot sets.
        let phase = Spec::parse("phase:settle=2").unwrap();
        let steps = phase.steps(c, 8000, 4096, 1).unwrap();
        let at = steps
            .iter()
            .position(|s| matches!(s, Step::Pause { .. }))
            .unwrap();
        assert_eq!(steps[at], Step::Pause { ms: 2000 });
        let (a, b) = (pages(&steps[..at], 4096), pages(&steps[at + 1..], 4096));
        assert!(a.iter().all(|&p| p < 600) && b.iter().all(|&p| (600..1200).contains(&p)));
        // hot-twice: the hot set in order, twice, then the scan's new pages.
        let twice = Spec::parse("hot-twice:hot=0.1,scan=0.5,periods=2").unwrap();
        let p = pages(&twice.steps(c, 8000, 4096, 1).unwrap(), 4096);
        assert_eq!(p.len(), 2 * (200 + 500));
        assert_eq!(&p[..100], &p[100..200]);
        assert_eq!(p[200], 100);
        assert_eq!(p[900], 600, "the second period's scan goes on");
        // Zipf: the hottest page takes a share near 1 / H(4000, 0.9) = 0.074.
        let z = pages(
            &Spec::parse("zipf")
                .unwrap()
                .steps(c, 8000, 4096, 1)
                .unwrap(),
            4096,
        );
        let mut counts = std::collections::HashMap::new();
        z.iter()
            .for_each(|&p| *counts.entry(p).or_insert(0u32) += 1);
        let top = *counts.values().max().unwrap() as f64 / z.len() as f64;
        assert!((0.065..0.085).contains(&top), "{top}");
    }

    #[test]
    fn seeds_and_machines_give_the_same_reads() {
        let spec = Spec::parse("scan-hot").unwrap();
        let a = spec.steps(4096, 40000, 4096, 7).unwrap();
        assert_eq!(a, spec.steps(4096, 40000, 4096, 7).unwrap());
        assert_ne!(a, spec.steps(4096, 40000, 4096, 8).unwrap());
        // Pinned: saved runs (the fixtures under tests/data) regenerate their reads from the
        // spec and seed, so a change to any generator must show here first (FNV-1a of the page
        // sequence at C = 4096 over a 32768-page file, seed 1).
        let fnv = |pages: &[u32]| {
            pages.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &p| {
                (h ^ p as u64).wrapping_mul(0x0100_0000_01b3)
            })
        };
        let got: Vec<String> = DEFAULT_PATTERNS
            .iter()
            .map(|t| {
                let steps = Spec::parse(t).unwrap().steps(4096, 32768, 4096, 1).unwrap();
                format!("{t} {:016x}", fnv(&pages(&steps, 4096)))
            })
            .collect();
        assert_eq!(got, PINNED, "{got:#?}");
    }

    #[test]
    fn bad_specs_are_one_line_errors() {
        for (text, want) in [
            ("lop", "unknown pattern 'lop'"),
            ("loop:size", "expected key=value"),
            ("loop:sise=2", "has no parameter 'sise'"),
            ("zipf:alpha=-1", "is not a positive number"),
            ("scan-hot:share=2", "share must be at most 1"),
        ] {
            let err = Spec::parse(text).unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
        let err = Spec::parse("zipf:universe=20")
            .unwrap()
            .steps(1000, 8000, 4096, 1)
            .unwrap_err()
            .to_string();
        assert!(err.contains("needs 20000 pages"), "{err}");
    }
}
