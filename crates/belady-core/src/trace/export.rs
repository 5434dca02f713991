//! Writers for formats other tools read, so the same trace can be replayed elsewhere.

use super::dense::{BlockTrace, NEVER};
use std::io::Write;

/// One original block id per line: the LIRS trace form.
pub fn write_lirs(trace: &BlockTrace, out: impl Write) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
    for &r in &trace.refs {
        writeln!(out, "{}", trace.originals[r as usize])?;
    }
    out.flush()
}

/// libCacheSim's `oracleGeneral` binary form: per reference a packed little-endian
/// `{u32 time, u64 obj_id, u32 obj_size, i64 next_access_vtime}` (24 bytes), object size 1 and
/// next access as the index of the next reference to the object, `-1` when there is none.
/// Its next-access field makes libCacheSim's `Belady` the true MIN, so the two simulators can be
/// compared on OPT.
pub fn write_oracle_general(trace: &BlockTrace, out: impl Write) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
    let (next, _) = trace.next_uses();
    let mut record = [0u8; 24];
    for (i, (&r, &n)) in trace.refs.iter().zip(&next).enumerate() {
        let time = trace
            .times
            .as_ref()
            .map_or(i as u64, |t| t[i] / 1_000_000_000) as u32;
        record[0..4].copy_from_slice(&time.to_le_bytes());
        record[4..12].copy_from_slice(&trace.originals[r as usize].to_le_bytes());
        record[12..16].copy_from_slice(&1u32.to_le_bytes());
        let next_access: i64 = if n == NEVER { -1 } else { n as i64 };
        record[16..24].copy_from_slice(&next_access.to_le_bytes());
        out.write_all(&record)?;
    }
    out.flush()
}
