//! File events spooled in a compact form, so the file engine can replay a trace once per group
//! of runs without holding it: a few bytes per event (varints) in memory up to [`MEM_BYTES`],
//! then in an anonymous temporary file. Parsing happens once, in the counting pass; each replay
//! decodes blocks of events, and several replays may read one spool at the same time.

use crate::error::{Error, Result};
use crate::trace::file::{FileEvent, FileEventKind};
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Bytes of encoded events per block: one block is decoded and handed to the runs at a time.
const BLOCK_BYTES: usize = if cfg!(test) { 512 } else { 1 << 19 };
/// Bytes a spool keeps in memory before it moves to a temporary file.
pub const MEM_BYTES: usize = if cfg!(test) { 4096 } else { 8 << 20 };

/// Encoded events, readable any number of times.
#[derive(Debug, Default)]
pub struct EventSpool {
    /// Memory bytes, until they move to `file`.
    mem: Vec<u8>,
    file: Option<File>,
    /// Offset, length and event count of each block.
    blocks: Vec<(u64, u32, u32)>,
    /// The block being written.
    cur: Vec<u8>,
    cur_events: u32,
    events: u64,
}

fn spool_err(e: std::io::Error) -> Error {
    Error::io(Path::new("<event spool file>"), e)
}

fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        v |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

impl EventSpool {
    /// An empty spool.
    pub fn new() -> Self {
        EventSpool::default()
    }

    /// Events spooled.
    pub fn len(&self) -> u64 {
        self.events
    }

    /// Whether no event was spooled.
    pub fn is_empty(&self) -> bool {
        self.events == 0
    }

    /// Appends `ev`.
    pub fn push(&mut self, ev: &FileEvent) -> Result<()> {
        let out = &mut self.cur;
        let (tag, a, b) = match ev.kind {
            FileEventKind::Open => (0, None, None),
            FileEventKind::Read { offset, len } => (1, Some(offset), Some(len)),
            FileEventKind::Write { offset, len } => (2, Some(offset), Some(len)),
            FileEventKind::Seek { offset } => (3, Some(offset), None),
            FileEventKind::Close => (4, None, None),
            FileEventKind::Exit => (5, None, None),
        };
        out.push(tag);
        put(out, ev.think_ns);
        put(out, ev.pid as u64);
        put(out, ev.fd as u64);
        put(out, ev.file);
        put(out, ev.file_size);
        for v in [a, b].into_iter().flatten() {
            put(out, v);
        }
        self.cur_events += 1;
        self.events += 1;
        if self.cur.len() >= BLOCK_BYTES {
            self.close_block()?;
        }
        Ok(())
    }

    fn close_block(&mut self) -> Result<()> {
        if self.cur_events == 0 {
            return Ok(());
        }
        let offset = match &self.file {
            Some(_) => self.blocks.last().map_or(0, |&(o, l, _)| o + l as u64),
            None => self.mem.len() as u64,
        };
        self.blocks
            .push((offset, self.cur.len() as u32, self.cur_events));
        match &mut self.file {
            Some(f) => f.write_all(&self.cur).map_err(spool_err)?,
            None => {
                self.mem.extend_from_slice(&self.cur);
                if self.mem.len() > MEM_BYTES {
                    let mut f = tempfile::tempfile().map_err(spool_err)?;
                    f.write_all(&self.mem).map_err(spool_err)?;
                    self.mem = Vec::new();
                    self.file = Some(f);
                }
            }
        }
        self.cur.clear();
        self.cur_events = 0;
        Ok(())
    }

    /// Ends writing: what is buffered becomes readable.
    pub fn finish(&mut self) -> Result<()> {
        self.close_block()?;
        if let Some(f) = &mut self.file {
            f.flush().map_err(spool_err)?;
        }
        self.cur = Vec::new();
        Ok(())
    }

    /// Hands every event to `f`, a block at a time, in order.
    pub fn for_each_chunk(&self, mut f: impl FnMut(&[FileEvent])) -> Result<()> {
        let mut bytes = Vec::new();
        let mut events = Vec::new();
        for &(offset, len, count) in &self.blocks {
            let block: &[u8] = match &self.file {
                Some(file) => {
                    bytes.resize(len as usize, 0);
                    file.read_exact_at(&mut bytes, offset).map_err(spool_err)?;
                    &bytes
                }
                None => &self.mem[offset as usize..offset as usize + len as usize],
            };
            events.clear();
            decode(block, count, &mut events).ok_or_else(|| {
                spool_err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "the spooled events do not decode (the temporary file was changed)",
                ))
            })?;
            f(&events);
        }
        Ok(())
    }
}

fn decode(block: &[u8], count: u32, out: &mut Vec<FileEvent>) -> Option<()> {
    let mut pos = 0;
    for _ in 0..count {
        let tag = *block.get(pos)?;
        pos += 1;
        let think_ns = get(block, &mut pos)?;
        let pid = u32::try_from(get(block, &mut pos)?).ok()?;
        let fd = u32::try_from(get(block, &mut pos)?).ok()?;
        let file = get(block, &mut pos)?;
        let file_size = get(block, &mut pos)?;
        let kind = match tag {
            0 => FileEventKind::Open,
            1 => FileEventKind::Read {
                offset: get(block, &mut pos)?,
                len: get(block, &mut pos)?,
            },
            2 => FileEventKind::Write {
                offset: get(block, &mut pos)?,
                len: get(block, &mut pos)?,
            },
            3 => FileEventKind::Seek {
                offset: get(block, &mut pos)?,
            },
            4 => FileEventKind::Close,
            5 => FileEventKind::Exit,
            _ => return None,
        };
        out.push(FileEvent {
            think_ns,
            pid,
            fd,
            file,
            file_size,
            kind,
        });
    }
    (pos == block.len()).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(n: u64) -> Vec<FileEvent> {
        (0..n)
            .map(|i| FileEvent {
                think_ns: i * 977,
                pid: (i % 3) as u32,
                fd: 3 + (i % 5) as u32,
                file: i % 7 + (i % 2) * (1 << 40),
                file_size: i * 4096 + 17,
                kind: match i % 6 {
                    0 => FileEventKind::Open,
                    1 => FileEventKind::Read {
                        offset: i * 8192,
                        len: u64::MAX - i,
                    },
                    2 => FileEventKind::Write { offset: i, len: 1 },
                    3 => FileEventKind::Seek { offset: i << 30 },
                    4 => FileEventKind::Close,
                    _ => FileEventKind::Exit,
                },
            })
            .collect()
    }

    fn replay(spool: &EventSpool) -> Vec<FileEvent> {
        let mut got = Vec::new();
        spool.for_each_chunk(|c| got.extend_from_slice(c)).unwrap();
        got
    }

    #[test]
    fn events_come_back_as_pushed_from_memory_and_from_the_file() {
        for n in [0, 1, 5, 5000] {
            let want = events(n);
            let mut spool = EventSpool::new();
            for ev in &want {
                spool.push(ev).unwrap();
            }
            spool.finish().unwrap();
            assert_eq!(spool.len(), n);
            assert_eq!(
                spool.file.is_some(),
                n == 5000,
                "5000 events spill under test"
            );
            assert_eq!(replay(&spool), want);
            // A second replay reads the same.
            assert_eq!(replay(&spool), want);
        }
    }
}
