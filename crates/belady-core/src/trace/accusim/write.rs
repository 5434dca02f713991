//! Writing [`Call`]s in AccuSim's binary or text form.

use super::*;
use std::io::Write;

/// Writes one call in the binary form.
pub fn write_binary(call: &Call, out: &mut impl Write) -> std::io::Result<()> {
    let mut words: Vec<u32> = Vec::with_capacity(11);
    let header = |ty: u32| ty | call.pid << 5;
    let mut name: &[u8] = &[];
    match &call.kind {
        CallKind::Open {
            fd,
            file_size,
            name: n,
        } => {
            words.extend([
                header(T_OPEN),
                call.inode,
                *file_size,
                (n.len() as u32 & 0xffff) | fd << 16,
            ]);
            name = n;
        }
        CallKind::Read(t) | CallKind::Write(t) => {
            let write = matches!(call.kind, CallKind::Write(_));
            let ty = match (write, t.offset.is_some()) {
                (false, false) => T_READ,
                (false, true) => T_PREAD,
                (true, false) => T_WRITE,
                (true, true) => T_PWRITE,
            };
            words.extend([
                header(ty),
                call.inode,
                0,
                0,
                0,
                t.requested,
                t.returned,
                t.fd,
                t.iotime_us,
                t.file_size,
            ]);
            words.extend(t.offset);
        }
        CallKind::Seek {
            fd,
            pos,
            iotime_us,
            file_size,
        } => words.extend([
            header(T_LSEEK),
            call.inode,
            0,
            0,
            0,
            *pos,
            *pos,
            *fd,
            *iotime_us,
            *file_size,
        ]),
        CallKind::Close { fd } => words.extend([header(T_CLOSE), call.inode, *fd]),
        CallKind::Exit => words.extend([header(T_EXIT), call.inode]),
    }
    for w in words {
        out.write_all(&w.to_le_bytes())?;
    }
    out.write_all(name)
}

/// Writes one call as a text line.
pub fn write_text(call: &Call, out: &mut impl Write) -> std::io::Result<()> {
    let (pid, inode) = (call.pid, call.inode);
    match &call.kind {
        CallKind::Open {
            fd,
            file_size,
            name,
        } => {
            writeln!(
                out,
                "open {pid} {fd} {inode} {file_size} {}",
                String::from_utf8_lossy(name)
            )
        }
        CallKind::Read(t) | CallKind::Write(t) => {
            let verb = if matches!(call.kind, CallKind::Read(_)) {
                "read"
            } else {
                "write"
            };
            match t.offset {
                Some(off) => writeln!(
                    out,
                    "p{verb} {pid} {} {inode} {off} {} {} {}",
                    t.fd, t.returned, t.iotime_us, t.file_size
                ),
                None => writeln!(
                    out,
                    "{verb} {pid} {} {inode} {} {} {}",
                    t.fd, t.returned, t.iotime_us, t.file_size
                ),
            }
        }
        CallKind::Seek { fd, pos, .. } => writeln!(out, "seek {pid} {fd} {inode} {pos}"),
        CallKind::Close { fd } => writeln!(out, "close {pid} {fd} {inode}"),
        CallKind::Exit => writeln!(out, "exit {pid}"),
    }
}
