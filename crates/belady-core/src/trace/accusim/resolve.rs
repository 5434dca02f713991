//! Turning calls into file events with explicit offsets, as AccuSim keeps descriptors.

use super::*;
use crate::trace::file::FileEventKind;
use rustc_hash::FxHashMap;

#[derive(Clone, Copy)]
struct Descriptor {
    inode: u32,
    offset: u64,
}

/// Turns calls into file events with explicit offsets, keeping per-process descriptor tables.
pub struct Resolver {
    pub(super) path: String,
    open: FxHashMap<(u32, u32), Descriptor>,
    max_request_bytes: u64,
}

impl Resolver {
    /// A resolver for the trace at `path` (used in error messages).
    pub fn new(path: String) -> Self {
        Resolver {
            path,
            open: FxHashMap::default(),
            max_request_bytes: crate::trace::DEFAULT_MAX_REQUEST_BYTES,
        }
    }

    /// Refuses a read or write of more than `max` bytes, naming its call (the
    /// `max_request_bytes` option, as the events reader applies it).
    pub fn with_max_request_bytes(mut self, max: u64) -> Self {
        self.max_request_bytes = max;
        self
    }

    fn descriptor(
        &mut self,
        call: &Call,
        fd: u32,
        loc: Loc,
        out: &mut Vec<FileEvent>,
    ) -> Result<&mut Descriptor> {
        let key = (call.pid, fd);
        let Some(d) = self.open.get(&key).copied() else {
            return Err(located(
                &self.path,
                loc,
                format!("descriptor {fd} of process {} was never opened", call.pid),
            ));
        };
        if d.inode != call.inode {
            // AccuSim rebinds a descriptor that a call names with another inode, resetting its state.
            out.push(FileEvent {
                think_ns: 0,
                pid: call.pid,
                fd,
                file: call.inode as u64,
                file_size: 0,
                kind: FileEventKind::Open,
            });
            self.open.insert(
                key,
                Descriptor {
                    inode: call.inode,
                    offset: 0,
                },
            );
        }
        Ok(self.open.get_mut(&key).expect("descriptor just checked"))
    }

    /// Appends the events `call` stands for to `out`.
    pub fn resolve(
        &mut self,
        call: &Call,
        loc: Loc,
        names: &mut std::collections::BTreeMap<u64, String>,
        out: &mut Vec<FileEvent>,
    ) -> Result<()> {
        let event = |fd: u32, think_us: u32, file_size: u32, kind: FileEventKind| FileEvent {
            think_ns: think_us as u64 * 1000,
            pid: call.pid,
            fd,
            file: call.inode as u64,
            file_size: file_size as u64,
            kind,
        };
        match &call.kind {
            CallKind::Open {
                fd,
                file_size,
                name,
            } => {
                if call.inode == 0 {
                    return Err(located(
                        &self.path,
                        loc,
                        "open of inode 0; inodes must be non-zero".into(),
                    ));
                }
                self.open.insert(
                    (call.pid, *fd),
                    Descriptor {
                        inode: call.inode,
                        offset: 0,
                    },
                );
                names
                    .entry(call.inode as u64)
                    .or_insert_with(|| String::from_utf8_lossy(name).into_owned());
                out.push(event(*fd, 0, *file_size, FileEventKind::Open));
            }
            CallKind::Read(t) | CallKind::Write(t) => {
                let d = self.descriptor(call, t.fd, loc, out)?;
                let offset = match t.offset {
                    Some(o) => o as u64,
                    None => {
                        let o = d.offset;
                        d.offset += t.returned as u64;
                        o
                    }
                };
                let len = t.returned as u64;
                if len > self.max_request_bytes {
                    return Err(located(
                        &self.path,
                        loc,
                        format!(
                            "LEN {len} is above the limit of {} bytes per request (max_request_bytes)",
                            self.max_request_bytes
                        ),
                    ));
                }
                let kind = if matches!(call.kind, CallKind::Read(_)) {
                    FileEventKind::Read { offset, len }
                } else {
                    FileEventKind::Write { offset, len }
                };
                out.push(event(t.fd, t.iotime_us, t.file_size, kind));
            }
            CallKind::Seek {
                fd,
                pos,
                iotime_us,
                file_size,
            } => {
                self.descriptor(call, *fd, loc, out)?.offset = *pos as u64;
                out.push(event(
                    *fd,
                    *iotime_us,
                    *file_size,
                    FileEventKind::Seek {
                        offset: *pos as u64,
                    },
                ));
            }
            CallKind::Close { fd } => {
                self.descriptor(call, *fd, loc, out)?;
                self.open.remove(&(call.pid, *fd));
                out.push(event(*fd, 0, 0, FileEventKind::Close));
            }
            CallKind::Exit => {
                self.open.retain(|(pid, _), _| *pid != call.pid);
                out.push(event(0, 0, 0, FileEventKind::Exit));
            }
        }
        Ok(())
    }
}
