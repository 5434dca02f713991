//! Reading AccuSim's two forms into located [`Call`]s.

use super::*;
use crate::trace::input::{excerpt, parse_u64, trim_line};
use std::io::BufRead;

/// Streams [`Call`]s from AccuSim's binary form.
pub struct BinaryCalls {
    input: Box<dyn BufRead + Send>,
    path: String,
    record: u64,
    offset: u64,
    done: bool,
}

impl BinaryCalls {
    /// Wraps a decompressed input; `path` is used in error messages.
    pub fn new(input: Box<dyn BufRead + Send>, path: String) -> Self {
        BinaryCalls {
            input,
            path,
            record: 0,
            offset: 0,
            done: false,
        }
    }

    fn words<const N: usize>(&mut self, loc: Loc, what: &str) -> Result<[u32; N]> {
        let mut bytes = [0u8; 64];
        let want = &mut bytes[..N * 4];
        self.input.read_exact(want).map_err(|e| {
            let msg = if e.kind() == std::io::ErrorKind::UnexpectedEof {
                format!("truncated {what} record: expected {} more bytes", N * 4)
            } else {
                format!("unreadable {what} record: {e}")
            };
            located(&self.path, loc, msg)
        })?;
        self.offset += (N * 4) as u64;
        let mut out = [0u32; N];
        for (i, w) in out.iter_mut().enumerate() {
            *w = u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap_or_default());
        }
        Ok(out)
    }

    fn next_call(&mut self) -> Result<Option<(Call, Loc)>> {
        let loc = Loc::Record {
            record: self.record,
            offset: self.offset,
        };
        if self
            .input
            .fill_buf()
            .map_err(|e| Error::io(Path::new(&self.path), e))?
            .is_empty()
        {
            return Ok(None);
        }
        let [header, inode] = self.words::<2>(loc, "record header")?;
        let (ty, pid) = (header & 31, header >> 5);
        let kind = match ty {
            T_OPEN => {
                let [file_size, packed] = self.words::<2>(loc, "open")?;
                let mut name = vec![0u8; (packed & 0xffff) as usize];
                self.input.read_exact(&mut name).map_err(|_| {
                    located(
                        &self.path,
                        loc,
                        "truncated open record: file name cut short".into(),
                    )
                })?;
                self.offset += name.len() as u64;
                CallKind::Open {
                    fd: packed >> 16,
                    file_size,
                    name,
                }
            }
            T_READ | T_WRITE | T_LSEEK | T_PREAD | T_PWRITE => {
                let [_pc, _pcf, _pcall, requested, returned, fd, iotime_us, file_size] =
                    self.words::<8>(loc, "transfer")?;
                let offset = if ty == T_PREAD || ty == T_PWRITE {
                    Some(self.words::<1>(loc, "positional transfer")?[0])
                } else {
                    None
                };
                let t = Transfer {
                    fd,
                    requested,
                    returned,
                    iotime_us,
                    file_size,
                    offset,
                };
                match ty {
                    T_LSEEK => CallKind::Seek {
                        fd,
                        pos: returned,
                        iotime_us,
                        file_size,
                    },
                    T_WRITE | T_PWRITE => CallKind::Write(t),
                    _ => CallKind::Read(t),
                }
            }
            T_CLOSE => CallKind::Close {
                fd: self.words::<1>(loc, "close")?[0],
            },
            T_EXIT => CallKind::Exit,
            other => {
                return Err(located(
                    &self.path,
                    loc,
                    format!(
                        "unknown record type {other}; expected 2 (exit), 3, 4, 5, 6, 7, 13 or 14"
                    ),
                ))
            }
        };
        self.record += 1;
        Ok(Some((Call { pid, inode, kind }, loc)))
    }
}

impl Iterator for BinaryCalls {
    type Item = Result<(Call, Loc)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.next_call().transpose();
        if !matches!(item, Some(Ok(_))) {
            self.done = true;
        }
        item
    }
}

/// Streams [`Call`]s from AccuSim's text form.
pub struct TextCalls {
    input: Box<dyn BufRead + Send>,
    path: String,
    line: u64,
    buf: Vec<u8>,
    done: bool,
}

impl TextCalls {
    /// Wraps a decompressed input; `path` is used in error messages.
    pub fn new(input: Box<dyn BufRead + Send>, path: String) -> Self {
        TextCalls {
            input,
            path,
            line: 0,
            buf: Vec::new(),
            done: false,
        }
    }

    fn parse(line: &[u8]) -> std::result::Result<Call, String> {
        let fields: Vec<&[u8]> = line
            .split(|c| *c == b' ' || *c == b'\t')
            .filter(|f| !f.is_empty())
            .collect();
        let word = String::from_utf8_lossy(fields[0]).to_ascii_lowercase();
        let usage = match word.as_str() {
            "open" => "open PID FD INODE FSIZE NAME",
            "read" => "read PID FD INODE NBYTES IOTIME_US FSIZE",
            "write" => "write PID FD INODE NBYTES IOTIME_US FSIZE",
            "pread" => "pread PID FD INODE OFFSET NBYTES IOTIME_US FSIZE",
            "pwrite" => "pwrite PID FD INODE OFFSET NBYTES IOTIME_US FSIZE",
            "seek" | "lseek" => "seek PID FD INODE NEWPOS",
            "close" => "close PID FD INODE",
            "exit" => "exit PID",
            _ => {
                return Err(format!(
                    "unknown event '{}'; expected open, read, pread, write, pwrite, seek, close or exit",
                    excerpt(fields[0])
                ))
            }
        };
        let arity = usage.split(' ').count();
        let enough = if word == "open" {
            fields.len() >= arity
        } else {
            fields.len() == arity
        };
        if !enough {
            return Err(format!("expected '{usage}', found '{}'", excerpt(line)));
        }
        let num = |i: usize| -> std::result::Result<u32, String> {
            parse_u64(fields[i])
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| {
                    let name = usage.split(' ').nth(i).unwrap_or("field");
                    format!(
                        "{name} '{}' is not a 32-bit unsigned number (expected '{usage}')",
                        excerpt(fields[i])
                    )
                })
        };
        let pid = num(1)?;
        if pid >= 1 << 27 {
            return Err(format!("PID {pid} does not fit AccuSim's 27 bits"));
        }
        if word == "exit" {
            return Ok(Call {
                pid,
                inode: 0,
                kind: CallKind::Exit,
            });
        }
        let (fd, inode) = (num(2)?, num(3)?);
        let kind = match word.as_str() {
            "open" => CallKind::Open {
                fd,
                file_size: num(4)?,
                name: fields[5..].join(&b' '),
            },
            "read" | "write" | "pread" | "pwrite" => {
                let positional = word.starts_with('p');
                let at = if positional { 5 } else { 4 };
                let t = Transfer {
                    fd,
                    requested: num(at)?,
                    returned: num(at)?,
                    iotime_us: num(at + 1)?,
                    file_size: num(at + 2)?,
                    offset: if positional { Some(num(4)?) } else { None },
                };
                if word.ends_with("read") {
                    CallKind::Read(t)
                } else {
                    CallKind::Write(t)
                }
            }
            "seek" | "lseek" => CallKind::Seek {
                fd,
                pos: num(4)?,
                iotime_us: 0,
                file_size: 0,
            },
            _ => CallKind::Close { fd },
        };
        Ok(Call { pid, inode, kind })
    }
}

impl Iterator for TextCalls {
    type Item = Result<(Call, Loc)>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            self.buf.clear();
            match self.input.read_until(b'\n', &mut self.buf) {
                Ok(0) => self.done = true,
                Ok(_) => {
                    self.line += 1;
                    let line = trim_line(&self.buf);
                    if line.is_empty() || line[0] == b'#' {
                        continue;
                    }
                    let loc = Loc::Line(self.line);
                    return Some(match Self::parse(line) {
                        Ok(call) => Ok((call, loc)),
                        Err(msg) => {
                            self.done = true;
                            Err(located(&self.path, loc, msg))
                        }
                    });
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(Error::io(Path::new(&self.path), e)));
                }
            }
        }
        None
    }
}
