//! Converts an strace log into a file-level trace.
//!
//! The log must come from `strace -f -ttt -T -y` (what `belady record` runs): each line is
//! `[PID] SECONDS.MICROS SYSCALL(ARGS) = RET <DURATION>`, descriptors carry their path (`3</etc/x>`),
//! and calls interrupted by another process are split into `<unfinished ...>` and `<... resumed>`
//! halves. Handled calls: open, openat, read, pread64, readv, preadv, preadv2, write, pwrite64,
//! writev, lseek, close, mmap of a file (recorded as a read of the mapped range: strace cannot see
//! page faults), exit. Only regular files are kept.
//!
//! Files are identified by device and inode (`stat` of the path at conversion time, so convert soon
//! after recording); a file that no longer exists is identified by its path. File sizes are the
//! larger of the size at conversion and the furthest byte the program touched. Descriptor offsets
//! are tracked per process; a descriptor used without a recorded open (inherited across fork or
//! exec) starts at offset 0. Think time is the gap between the end of the previous recorded call,
//! of any process, and the start of this one.

use super::file::{FileEvent, FileEventKind, FileTrace};
use crate::error::{Error, Result};
use rustc_hash::FxHashMap;
use std::io::BufRead;
use std::path::Path;

/// Most bytes one read or write call moves on Linux (`MAX_RW_COUNT`): a larger count in a log
/// is damage, not a call.
pub const MAX_CALL_BYTES: u64 = 0x7fff_f000;

/// Largest file offset a call can reach (`off_t` is signed 64-bit).
pub const MAX_FILE_OFFSET: u64 = i64::MAX as u64;

/// Syscalls `belady record` asks strace to trace.
pub const TRACED_CALLS: &str =
    "open,openat,read,pread64,readv,preadv,preadv2,write,pwrite64,writev,lseek,close,mmap,exit_group";

#[derive(Clone, Copy)]
struct Fd {
    file: Option<u64>,
    offset: u64,
}

/// State of one conversion.
struct Converter {
    name: String,
    ids: FxHashMap<FileKey, u64>,
    extent: FxHashMap<u64, u64>,
    fds: FxHashMap<(u32, u32), Fd>,
    pending: FxHashMap<u32, (String, f64)>,
    t0: Option<f64>,
    last_end: Option<f64>,
    trace: FileTrace,
    times_ns: Vec<u64>,
    /// Path prefixes to keep (all regular files when empty).
    only: Vec<String>,
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum FileKey {
    Inode(u64, u64),
    Path(String),
}

/// Splits a call's argument list at top-level commas, keeping quoted strings and brackets whole.
fn split_args(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quoted, mut escaped, mut start) = (0i32, false, false, 0);
    for (i, c) in args.char_indices() {
        if quoted {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => quoted = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(args[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !args[start..].trim().is_empty() {
        out.push(args[start..].trim());
    }
    out
}

/// `3</tmp/x>` gives (3, Some("/tmp/x")); `3` gives (3, None).
fn fd_arg(arg: &str) -> Option<(i64, Option<&str>)> {
    match arg.find('<') {
        Some(lt) if arg.ends_with('>') => Some((
            arg[..lt].trim().parse().ok()?,
            Some(&arg[lt + 1..arg.len() - 1]),
        )),
        _ => Some((arg.trim().parse().ok()?, None)),
    }
}

fn unquote(arg: &str) -> String {
    let s = arg.trim().trim_end_matches("...");
    let s = s
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(s);
    s.replace("\\\"", "\"").replace("\\\\", "\\")
}

impl Converter {
    fn file_id(&mut self, path: &str) -> Option<u64> {
        use std::os::unix::fs::MetadataExt;
        if !self.only.is_empty() && !self.only.iter().any(|p| path.starts_with(p.as_str())) {
            // Calls on other files vanish, their time becomes think time of the next kept call.
            return None;
        }
        let key = match std::fs::metadata(path) {
            Ok(m) if !m.is_file() => return None,
            Ok(m) => FileKey::Inode(m.dev(), m.ino()),
            Err(_) if path.starts_with('/') => FileKey::Path(path.to_string()),
            Err(_) => return None,
        };
        let next = self.ids.len() as u64 + 1;
        let id = *self.ids.entry(key).or_insert(next);
        self.trace
            .names
            .entry(id)
            .or_insert_with(|| path.to_string());
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let e = self.extent.entry(id).or_insert(0);
        *e = (*e).max(size);
        Some(id)
    }

    /// The descriptor's state, creating it from the path strace printed if it was never opened.
    fn fd(&mut self, pid: u32, arg: &str) -> Option<(u32, Fd)> {
        let (fd, path) = fd_arg(arg)?;
        let fd = u32::try_from(fd).ok()?;
        if let Some(state) = self.fds.get(&(pid, fd)) {
            return Some((fd, *state));
        }
        let file = path.and_then(|p| self.file_id(p));
        let state = Fd { file, offset: 0 };
        self.fds.insert((pid, fd), state);
        Some((fd, state))
    }

    fn push(&mut self, start: f64, end: f64, pid: u32, fd: u32, file: u64, kind: FileEventKind) {
        let t0 = *self.t0.get_or_insert(start);
        let think = self.last_end.map_or(0.0, |e| (start - e).max(0.0));
        self.last_end = Some(end.max(start));
        if let FileEventKind::Read { offset, len } | FileEventKind::Write { offset, len } = kind {
            let e = self.extent.entry(file).or_insert(0);
            *e = (*e).max(offset.saturating_add(len));
        }
        self.trace.events.push(FileEvent {
            think_ns: (think * 1e9).round() as u64,
            pid,
            fd,
            file,
            file_size: 0,
            kind,
        });
        self.times_ns
            .push(((start - t0).max(0.0) * 1e9).round() as u64);
    }

    /// Records one completed call; a call no program could have made (a count or an offset past
    /// what Linux allows) is refused here, so `record` never writes a trace belady then refuses.
    fn call(
        &mut self,
        pid: u32,
        start: f64,
        end: f64,
        name: &str,
        args: &str,
        ret: &str,
    ) -> std::result::Result<(), String> {
        let args = split_args(args);
        let ret_word = ret.split([' ', '<']).next().unwrap_or("");
        // mmap returns an address; everything else a count, a descriptor or -1.
        let ret_num: Option<i64> = ret_word.parse().ok().or_else(|| {
            ret_word
                .strip_prefix("0x")
                .and_then(|h| i64::from_str_radix(h, 16).ok())
        });
        let Some(ret_num) = ret_num.filter(|r| *r >= 0) else {
            return Ok(());
        };
        match name {
            "open" | "openat" => {
                let path_arg = if name == "open" {
                    args.first()
                } else {
                    args.get(1)
                };
                let path = match fd_arg(ret) {
                    Some((_, Some(p))) => p.to_string(),
                    _ => path_arg.map(|a| unquote(a)).unwrap_or_default(),
                };
                let file = self.file_id(&path);
                let fd = ret_num as u32;
                self.fds.insert((pid, fd), Fd { file, offset: 0 });
                if let Some(file) = file {
                    self.push(start, end, pid, fd, file, FileEventKind::Open);
                }
            }
            "read" | "readv" | "write" | "writev" | "pread64" | "preadv" | "preadv2"
            | "pwrite64" => {
                let Some((fd, state)) = args.first().and_then(|a| self.fd(pid, a)) else {
                    return Ok(());
                };
                let Some(file) = state.file else {
                    return Ok(());
                };
                let positional = name.starts_with('p');
                let offset = if positional {
                    // pread64(fd, buf, count, offset) and preadv(fd, iov, iovcnt, offset) alike.
                    match args.get(3).and_then(|a| a.parse::<u64>().ok()) {
                        Some(o) => o,
                        None => return Ok(()),
                    }
                } else {
                    state.offset
                };
                let len = ret_num as u64;
                if len > MAX_CALL_BYTES {
                    return Err(format!(
                        "{name} returned {len} bytes, more than the {MAX_CALL_BYTES} one call can move"
                    ));
                }
                check_end(offset, len)?;
                if !positional {
                    if let Some(s) = self.fds.get_mut(&(pid, fd)) {
                        s.offset += len;
                    }
                }
                if len > 0 {
                    let kind = if name.contains("read") {
                        FileEventKind::Read { offset, len }
                    } else {
                        FileEventKind::Write { offset, len }
                    };
                    self.push(start, end, pid, fd, file, kind);
                }
            }
            "lseek" => {
                let Some((fd, state)) = args.first().and_then(|a| self.fd(pid, a)) else {
                    return Ok(());
                };
                check_end(ret_num as u64, 0)?;
                if let Some(s) = self.fds.get_mut(&(pid, fd)) {
                    s.offset = ret_num as u64;
                }
                if let Some(file) = state.file {
                    self.push(
                        start,
                        end,
                        pid,
                        fd,
                        file,
                        FileEventKind::Seek {
                            offset: ret_num as u64,
                        },
                    );
                }
            }
            "close" => {
                let Some((fd, state)) = args.first().and_then(|a| self.fd(pid, a)) else {
                    return Ok(());
                };
                self.fds.remove(&(pid, fd));
                if let Some(file) = state.file {
                    self.push(start, end, pid, fd, file, FileEventKind::Close);
                }
            }
            "mmap" => {
                let (Some(len), Some(fd_text), Some(off)) = (args.get(1), args.get(4), args.get(5))
                else {
                    return Ok(());
                };
                let (Ok(len), Some(off)) = (len.parse::<u64>(), parse_offset(off)) else {
                    return Ok(());
                };
                let Some((fd, state)) = self.fd(pid, fd_text) else {
                    return Ok(());
                };
                check_end(off, len)?;
                if let (Some(file), true) = (state.file, len > 0) {
                    // A mapping of any size is read in pieces a trace reader accepts (at most
                    // the default max_request_bytes each), not as one request it would refuse.
                    let piece = super::DEFAULT_MAX_REQUEST_BYTES;
                    let mut at = off;
                    while at < off + len {
                        let n = piece.min(off + len - at);
                        let kind = FileEventKind::Read { offset: at, len: n };
                        self.push(start, end, pid, fd, file, kind);
                        at += n;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn line(&mut self, line_no: u64, line: &str) -> Result<()> {
        let line = line.trim_end();
        if line.is_empty() {
            return Ok(());
        }
        let bad = |msg: &str| Error::Parse {
            path: self.name.clone(),
            line: line_no,
            msg: format!(
                "{msg}; expected strace -f -ttt -T -y output, found '{}'",
                line.chars().take(60).collect::<String>()
            ),
        };
        let mut rest = line;
        let mut pid = 0u32;
        let first = rest.split(' ').next().unwrap_or("");
        if !first.contains('.') {
            pid = first
                .parse()
                .map_err(|_| bad("no process id or timestamp"))?;
            rest = rest[first.len()..].trim_start();
        }
        let ts_text = rest.split(' ').next().unwrap_or("");
        let ts: f64 = ts_text
            .parse()
            .map_err(|_| bad("no timestamp (record with -ttt)"))?;
        rest = rest[ts_text.len()..].trim_start();
        if rest.starts_with("+++") {
            if rest.contains("exited") || rest.contains("killed") {
                self.push(ts, ts, pid, 0, 0, FileEventKind::Exit);
            }
            return Ok(());
        }
        if rest.starts_with("---") {
            return Ok(());
        }
        let (start, text) = if let Some(resumed) = rest.strip_prefix("<... ") {
            let Some(close) = resumed.find(" resumed>") else {
                return Err(bad("malformed resumed call"));
            };
            let Some((head, t)) = self.pending.remove(&pid) else {
                return Ok(());
            };
            (
                t,
                format!("{head}{}", &resumed[close + " resumed>".len()..]),
            )
        } else if let Some(head) = rest.strip_suffix("<unfinished ...>") {
            self.pending.insert(pid, (head.to_string(), ts));
            return Ok(());
        } else {
            (ts, rest.to_string())
        };
        let Some(open) = text.find('(') else {
            return Ok(());
        };
        let name = &text[..open];
        let Some(eq) = text.rfind(") = ") else {
            return Ok(());
        };
        let args = &text[open + 1..eq];
        let after = &text[eq + 4..];
        let (ret, dur) = match after.rfind(" <") {
            Some(p) if after.ends_with('>') => (
                &after[..p],
                after[p + 2..after.len() - 1].parse::<f64>().unwrap_or(0.0),
            ),
            _ => (after, 0.0),
        };
        self.call(pid, start, ts.max(start) + dur, name, args, ret.trim())
            .map_err(|msg| Error::Parse {
                path: self.name.clone(),
                line: line_no,
                msg,
            })
    }
}

/// Refuses bytes `offset..offset + len` that reach past the largest file offset.
fn check_end(offset: u64, len: u64) -> std::result::Result<(), String> {
    match offset.checked_add(len) {
        Some(end) if end <= MAX_FILE_OFFSET => Ok(()),
        _ => Err(format!(
            "offset {offset} + {len} bytes reaches past the largest file offset ({MAX_FILE_OFFSET}); the log is damaged"
        )),
    }
}

fn parse_offset(text: &str) -> Option<u64> {
    let t = text.trim();
    match t.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    }
}

/// Converts an strace log; returns the trace and each event's start time in nanoseconds.
pub fn convert(input: impl BufRead, name: &str) -> Result<(FileTrace, Vec<u64>)> {
    convert_only(input, name, &[])
}

/// Like [`convert`], keeping only files whose path starts with one of `only` (all when empty).
pub fn convert_only(
    input: impl BufRead,
    name: &str,
    only: &[String],
) -> Result<(FileTrace, Vec<u64>)> {
    let mut c = Converter {
        name: name.to_string(),
        ids: FxHashMap::default(),
        extent: FxHashMap::default(),
        fds: FxHashMap::default(),
        pending: FxHashMap::default(),
        t0: None,
        last_end: None,
        trace: FileTrace {
            source: name.to_string(),
            ..FileTrace::default()
        },
        times_ns: Vec::new(),
        only: only.to_vec(),
    };
    let mut input = input;
    let mut bytes = Vec::new();
    let mut line_no = 0u64;
    loop {
        bytes.clear();
        let n = input
            .read_until(b'\n', &mut bytes)
            .map_err(|e| Error::io(Path::new(name), e))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        // Decoded per line, so a bad byte is reported with its line, not as a bare I/O error.
        let line = std::str::from_utf8(&bytes).map_err(|e| Error::Parse {
            path: name.to_string(),
            line: line_no,
            msg: format!(
                "byte {} is not UTF-8 (strace escapes what it prints; is this an strace log?)",
                e.valid_up_to() + 1
            ),
        })?;
        c.line(line_no, line.trim_end_matches(['\n', '\r']))?;
    }
    for ev in &mut c.trace.events {
        if ev.kind != FileEventKind::Exit {
            ev.file_size = c.extent.get(&ev.file).copied().unwrap_or(0);
        }
    }
    Ok((c.trace, c.times_ns))
}

/// Converts the strace log at `path`, keeping files under the `only` prefixes (all when empty).
pub fn convert_file(path: &Path, only: &[String]) -> Result<(FileTrace, Vec<u64>)> {
    let input = super::input::open_text(path)?;
    convert_only(input, &path.display().to_string(), only)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_arguments_and_parses_calls() {
        assert_eq!(
            split_args(r#"3</a, b>, "x, \"y\"", 4096"#),
            vec!["3</a, b>", r#""x, \"y\"""#, "4096"]
        );
        assert_eq!(
            split_args("3, [{iov_base=\"a\", iov_len=1}], 1"),
            vec!["3", "[{iov_base=\"a\", iov_len=1}]", "1"]
        );
        assert_eq!(fd_arg("3</tmp/x>"), Some((3, Some("/tmp/x"))));
    }

    #[test]
    fn converts_reads_seeks_and_interleaved_processes() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("data.bin");
        std::fs::write(&f, vec![0u8; 10_000]).unwrap();
        let p = f.display();
        let log = format!(
            "100 1.000000 openat(AT_FDCWD, \"{p}\", O_RDONLY) = 3<{p}> <0.000010>\n\
             100 1.000100 read(3<{p}>, \"\"..., 4096) = 4096 <0.000010>\n\
             100 1.000200 read(3<{p}>, <unfinished ...>\n\
             101 1.000210 read(0</dev/null>, \"\", 10) = 0 <0.000001>\n\
             100 1.000300 <... read resumed>\"\"..., 4096) = 4096 <0.000050>\n\
             100 1.000400 lseek(3<{p}>, 100, SEEK_SET) = 100 <0.000001>\n\
             100 1.000500 pread64(3<{p}>, \"\"..., 300, 2000) = 300 <0.000002>\n\
             100 1.000600 mmap(NULL, 8192, PROT_READ, MAP_PRIVATE, 3<{p}>, 0x1000) = 0x7f00 <0.000002>\n\
             100 1.000700 close(3<{p}>) = 0 <0.000001>\n\
             100 1.000800 +++ exited with 0 +++\n"
        );
        let (t, times) = convert(std::io::Cursor::new(log), "s.log").unwrap();
        let kinds: Vec<FileEventKind> = t.events.iter().map(|e| e.kind.clone()).collect();
        assert_eq!(
            kinds,
            vec![
                FileEventKind::Open,
                FileEventKind::Read {
                    offset: 0,
                    len: 4096
                },
                FileEventKind::Read {
                    offset: 4096,
                    len: 4096
                },
                FileEventKind::Seek { offset: 100 },
                FileEventKind::Read {
                    offset: 2000,
                    len: 300
                },
                FileEventKind::Read {
                    offset: 4096,
                    len: 8192
                },
                FileEventKind::Close,
                FileEventKind::Exit,
            ]
        );
        assert_eq!(
            t.events[1].file_size, 12_288,
            "size covers the mapped range"
        );
        assert_eq!(
            times[2], 200_000,
            "the resumed read started when it was issued"
        );
        // The resumed read ended at 1.00035 s; the lseek started at 1.0004 s.
        assert_eq!(t.events[3].think_ns, 50_000);
        assert_eq!(t.names[&1], p.to_string());
    }

    #[test]
    fn only_keeps_files_under_the_prefixes_and_folds_the_rest_into_think_time() {
        let dir = tempfile::tempdir().unwrap();
        let (keep, other) = (dir.path().join("keep.bin"), dir.path().join("lib.so"));
        std::fs::write(&keep, vec![0u8; 8192]).unwrap();
        std::fs::write(&other, vec![0u8; 8192]).unwrap();
        let (k, o) = (keep.display(), other.display());
        let log = format!(
            "7 2.000000 openat(AT_FDCWD, \"{o}\", O_RDONLY) = 3<{o}> <0.000010>\n\
             7 2.000100 read(3<{o}>, \"\"..., 4096) = 4096 <0.000100>\n\
             7 2.000300 openat(AT_FDCWD, \"{k}\", O_RDONLY) = 4<{k}> <0.000010>\n\
             7 2.000400 read(3<{o}>, \"\"..., 4096) = 4096 <0.000100>\n\
             7 2.001000 read(4<{k}>, \"\"..., 4096) = 4096 <0.000010>\n"
        );
        let only = [keep.display().to_string()];
        let (t, _) = convert_only(std::io::Cursor::new(log.clone()), "o.log", &only).unwrap();
        assert_eq!(t.names.len(), 1);
        assert_eq!(t.events.len(), 2, "{:?}", t.events);
        assert!(t.events.iter().all(|e| e.file == t.events[0].file));
        // The open of keep.bin ended at 2.00031 s; the dropped read of lib.so is think time.
        assert_eq!(t.events[1].think_ns, 690_000);
        let (all, _) = convert(std::io::Cursor::new(log), "o.log").unwrap();
        assert_eq!(all.events.len(), 5);
    }

    #[test]
    fn garbage_is_an_error_with_the_line() {
        let err = convert(std::io::Cursor::new("hello there\n"), "x.log")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("x.log:1: "), "{err}");
    }
}
