//! Writers for formats other tools read, so the same trace can be replayed elsewhere.

use super::dense::{BlockTrace, NEVER};
use std::io::Write;

/// What an object-trace writer did with the trace's times.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimeBase {
    /// Times in seconds as the trace holds them.
    Absolute,
    /// Seconds since this time (ns): the trace's times pass `u32::MAX` seconds, the most the
    /// record's 32-bit clock holds, so they are written relative to its earliest.
    Since(u64),
    /// The trace has no times: each record's time is its index (libCacheSim's virtual time).
    Index,
}

/// How the records' clock is written for `trace` (see [`TimeBase`]).
pub fn time_base(trace: &BlockTrace) -> TimeBase {
    let Some(times) = &trace.times else {
        return TimeBase::Index;
    };
    let max = times.iter().copied().max().unwrap_or(0);
    if max / 1_000_000_000 <= u32::MAX as u64 {
        TimeBase::Absolute
    } else {
        TimeBase::Since(times.iter().copied().min().unwrap_or(0))
    }
}

/// The clock time in seconds of reference `i` under `base`.
fn clock(trace: &BlockTrace, base: TimeBase, i: usize) -> u32 {
    match (base, &trace.times) {
        (TimeBase::Absolute, Some(t)) => (t[i] / 1_000_000_000) as u32,
        (TimeBase::Since(t0), Some(t)) => ((t[i] - t0) / 1_000_000_000) as u32,
        _ => i as u32,
    }
}

/// The object size written for reference `i`: its own when the trace keeps sizes, else 1 (a
/// block trace's references are unit objects, so libCacheSim counts blocks as belady does).
fn object_size(trace: &BlockTrace, i: usize) -> u32 {
    trace.sizes.as_ref().map_or(1, |z| z[i])
}

/// libCacheSim's `oracleGeneral` binary form: per reference a packed little-endian
/// `{u32 clock_time, u64 obj_id, u32 obj_size, i64 next_access_vtime}` (24 bytes). The object
/// size is the reference's own for a trace with sizes, else 1; the clock is the time in seconds
/// (see [`TimeBase`]); the next access is the index of the next reference to the object, `-1`
/// when there is none. Its next-access field makes libCacheSim's `Belady` the true MIN, so the
/// two simulators can be compared on OPT. Returns how the clock was written.
pub fn write_oracle_general(trace: &BlockTrace, out: impl Write) -> std::io::Result<TimeBase> {
    let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
    let (next, _) = trace.next_uses();
    let base = time_base(trace);
    let mut record = [0u8; 24];
    for (i, (&r, &n)) in trace.refs.iter().zip(&next).enumerate() {
        record[0..4].copy_from_slice(&clock(trace, base, i).to_le_bytes());
        record[4..12].copy_from_slice(&trace.originals[r as usize].to_le_bytes());
        record[12..16].copy_from_slice(&object_size(trace, i).to_le_bytes());
        let next_access: i64 = if n == NEVER { -1 } else { n as i64 };
        record[16..24].copy_from_slice(&next_access.to_le_bytes());
        out.write_all(&record)?;
    }
    out.flush()?;
    Ok(base)
}

/// libCacheSim's `lcs` binary form, version 2: the 8 KiB header (markers, version, and the
/// statistics libCacheSim's header starts with: requests, objects, bytes requested, object
/// bytes, first and last time, reads, writes, deletes; the rest 0, as libCacheSim leaves fields
/// it did not fill), then per reference `{u32 clock_time, u64 obj_id, u32 obj_size, u8 op,
/// 24-bit tenant 0, i64 next_access_vtime}` (28 bytes). Sizes, clock and next access are written
/// as by [`write_oracle_general`]; the operation is get (1) for a read and set (3) for a write,
/// so writes survive. Returns how the clock was written.
pub fn write_lcs(trace: &BlockTrace, out: impl Write) -> std::io::Result<TimeBase> {
    use super::lcs::{HEADER_SIZE, MAGIC};
    let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
    let (next, _) = trace.next_uses();
    let base = time_base(trace);
    let n = trace.refs.len();
    let mut seen = vec![false; trace.unique()];
    let (mut req_bytes, mut obj_bytes) = (0u64, 0u64);
    for (i, &r) in trace.refs.iter().enumerate() {
        let size = object_size(trace, i) as u64;
        req_bytes += size;
        if !std::mem::replace(&mut seen[r as usize], true) {
            obj_bytes += size;
        }
    }
    let writes = trace.writes() as u64;
    let mut header = vec![0u8; HEADER_SIZE];
    header[..8].copy_from_slice(&MAGIC);
    header[8..16].copy_from_slice(&2u64.to_le_bytes());
    let stats: [u64; 10] = [
        1, // the statistics' own version
        n as u64,
        trace.unique() as u64,
        req_bytes,
        obj_bytes,
        if n == 0 {
            0
        } else {
            clock(trace, base, 0) as u64
        },
        if n == 0 {
            0
        } else {
            clock(trace, base, n - 1) as u64
        },
        n as u64 - writes,
        writes,
        0,
    ];
    for (k, v) in stats.iter().enumerate() {
        header[16 + 8 * k..24 + 8 * k].copy_from_slice(&v.to_le_bytes());
    }
    header[HEADER_SIZE - 8..].copy_from_slice(&MAGIC);
    out.write_all(&header)?;
    let mut record = [0u8; 28];
    for (i, (&r, &nx)) in trace.refs.iter().zip(&next).enumerate() {
        record[0..4].copy_from_slice(&clock(trace, base, i).to_le_bytes());
        record[4..12].copy_from_slice(&trace.originals[r as usize].to_le_bytes());
        record[12..16].copy_from_slice(&object_size(trace, i).to_le_bytes());
        // libCacheSim's req_op_e: OP_GET = 1, OP_SET = 3; the tenant bytes stay 0.
        let op: u32 = if trace.is_write(i) { 3 } else { 1 };
        record[16..20].copy_from_slice(&op.to_le_bytes());
        let next_access: i64 = if nx == NEVER { -1 } else { nx as i64 };
        record[20..28].copy_from_slice(&next_access.to_le_bytes());
        out.write_all(&record)?;
    }
    out.flush()?;
    Ok(base)
}

/// Block-level text and binary forms a trace can be streamed to, one reference at a time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RefFormat {
    /// One block id per line (`--format lirs` reads it back).
    Lirs,
    /// `start_block num_blocks 0 request_no`, runs of consecutive blocks on one line (`arc`).
    Arc,
    /// `block,op[,time_ns]` with a header line; read back with
    /// `--format csv --header --columns block=0,op=1[,time=2:ns]`.
    Csv,
    /// Back-to-back little-endian 32-bit ids (`u32le`).
    U32Le,
    /// Back-to-back big-endian 32-bit ids (`u32be`).
    U32Be,
}

/// Streams references in a [`RefFormat`]; what a format cannot hold is an error, not a loss.
pub struct RefWriter<W: Write> {
    format: RefFormat,
    out: W,
    /// ARC: the run being collected (start, length); CSV: whether rows carry a time.
    run: Option<(u64, u64)>,
    lines: u64,
    timed: Option<bool>,
}

impl<W: Write> RefWriter<W> {
    /// Starts writing to `out`.
    pub fn new(format: RefFormat, out: W) -> Self {
        RefWriter {
            format,
            out,
            run: None,
            lines: 0,
            timed: None,
        }
    }

    /// Appends one reference; `Err` names what the format cannot represent.
    pub fn push(&mut self, block: u64, op: super::Op, time_ns: Option<u64>) -> std::io::Result<()> {
        let unsupported = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
        let reads_only = |name: &str| {
            if op == super::Op::Write {
                Err(unsupported(format!(
                    "{name} holds reads only; convert with --ops read (or to native or csv)"
                )))
            } else {
                Ok(())
            }
        };
        match self.format {
            RefFormat::Lirs => {
                reads_only("lirs")?;
                writeln!(self.out, "{block}")
            }
            RefFormat::Arc => {
                reads_only("arc")?;
                match &mut self.run {
                    Some((start, len)) if *start + *len == block && *len < u32::MAX as u64 => {
                        *len += 1;
                        Ok(())
                    }
                    _ => {
                        self.flush_run()?;
                        self.run = Some((block, 1));
                        Ok(())
                    }
                }
            }
            RefFormat::Csv => {
                let timed = *self.timed.get_or_insert_with(|| time_ns.is_some());
                if self.lines == 0 {
                    writeln!(self.out, "block,op{}", if timed { ",time_ns" } else { "" })?;
                }
                self.lines += 1;
                let op = if op == super::Op::Write { "W" } else { "R" };
                if timed {
                    writeln!(self.out, "{block},{op},{}", time_ns.unwrap_or(0))
                } else {
                    writeln!(self.out, "{block},{op}")
                }
            }
            RefFormat::U32Le | RefFormat::U32Be => {
                reads_only("u32le/u32be")?;
                let id = u32::try_from(block)
                    .map_err(|_| unsupported(format!("block id {block} does not fit 32 bits")))?;
                if self.format == RefFormat::U32Le {
                    self.out.write_all(&id.to_le_bytes())
                } else {
                    self.out.write_all(&id.to_be_bytes())
                }
            }
        }
    }

    fn flush_run(&mut self) -> std::io::Result<()> {
        if let Some((start, len)) = self.run.take() {
            writeln!(self.out, "{start} {len} 0 {}", self.lines)?;
            self.lines += 1;
        }
        Ok(())
    }

    /// Writes what is pending and flushes.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.flush_run()?;
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{open_requests, Format, Op, ReadOptions};

    #[test]
    fn every_ref_format_reads_back_the_same_references() {
        let refs: Vec<(u64, Op, Option<u64>)> = [5u64, 6, 7, 3, 4, 9, 9, 10]
            .iter()
            .enumerate()
            .map(|(i, &b)| (b, Op::Read, Some(i as u64 * 100)))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        for (target, format) in [
            (RefFormat::Lirs, Format::Lirs),
            (RefFormat::Arc, Format::Arc),
            (RefFormat::U32Le, Format::U32Le),
            (RefFormat::U32Be, Format::U32Be),
            (
                RefFormat::Csv,
                Format::parse("csv", Some("block=0,op=1,time=2:ns"), Some(true)).unwrap(),
            ),
        ] {
            let path = dir.path().join(format!("{target:?}"));
            let mut w = RefWriter::new(target, std::fs::File::create(&path).unwrap());
            for &(b, op, t) in &refs {
                w.push(b, op, t).unwrap();
            }
            w.finish().unwrap();
            let back: Vec<u64> = open_requests(&path, &format, &ReadOptions::default())
                .unwrap()
                .flat_map(|r| {
                    let r = r.unwrap();
                    (0..r.count as u64).map(move |k| r.block + k)
                })
                .collect();
            let want: Vec<u64> = refs.iter().map(|r| r.0).collect();
            assert_eq!(back, want, "{target:?}");
        }
        let mut w = RefWriter::new(RefFormat::U32Le, Vec::new());
        assert!(w.push(1 << 40, Op::Read, None).is_err());
        let mut w = RefWriter::new(RefFormat::Lirs, Vec::new());
        assert!(w.push(1, Op::Write, None).is_err());
    }
}
