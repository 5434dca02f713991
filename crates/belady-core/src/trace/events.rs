//! belady's text format for file-level traces: one event per line, easy to write by hand.
//!
//! ```text
//! # comments and blank lines are ignored
//! file  FILE SIZE PATH                       declares file FILE (a number) of SIZE bytes
//! open  TIME THINK PID FD FILE
//! read  TIME THINK PID FD FILE OFFSET LEN
//! write TIME THINK PID FD FILE OFFSET LEN
//! seek  TIME THINK PID FD FILE OFFSET
//! close TIME THINK PID FD FILE
//! exit  TIME THINK PID
//! ```
//! TIME is when the call started, in microseconds from the start of the trace (`-` if unknown);
//! THINK is the computation time before the call, in microseconds (decimals allowed). Offsets are
//! explicit, so no descriptor state is needed to read the file. A file must be declared before
//! its first use; PATH is the rest of the line and may hold spaces.

use super::file::{FileEvent, FileEventKind, FileTrace};
use super::input::{excerpt, open_text, parse_u64, trim_line};
use crate::error::{Error, Result};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;

/// Each event's verb, usage and number of fields.
const VERBS: [(&str, &str, usize); 7] = [
    ("file", "file FILE SIZE PATH", 4),
    ("open", "open TIME THINK PID FD FILE", 6),
    ("read", "read TIME THINK PID FD FILE OFFSET LEN", 8),
    ("write", "write TIME THINK PID FD FILE OFFSET LEN", 8),
    ("seek", "seek TIME THINK PID FD FILE OFFSET", 7),
    ("close", "close TIME THINK PID FD FILE", 6),
    ("exit", "exit TIME THINK PID", 4),
];
/// Fields a line of any event but `file` has at most (a `file` line's PATH may hold more).
const MAX_FIELDS: usize = 8;

/// First line `belady record` writes; readers accept files without it.
pub const HEADER: &str = "# belady file-level trace v1";

fn parse_us(text: &[u8], what: &str) -> std::result::Result<u64, String> {
    let too_large = || {
        format!(
            "{what} '{}' is past the latest belady accepts (2^64 ns, about 584 years)",
            excerpt(text)
        )
    };
    if let Some(v) = parse_u64(text) {
        return crate::limits::timestamp_ns_int(v, 1000).ok_or_else(too_large);
    }
    let number = std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0);
    if number.is_some_and(|v| crate::limits::timestamp_ns(v, 1000.0).is_none()) {
        return Err(too_large());
    }
    number.map(|v| (v * 1000.0).round() as u64).ok_or_else(|| {
        format!(
            "{what} '{}' is not a non-negative number of microseconds",
            excerpt(text)
        )
    })
}

/// Reads a whole events file into a [`FileTrace`].
pub fn load(path: &Path) -> Result<FileTrace> {
    load_with(path, super::DEFAULT_MAX_REQUEST_BYTES)
}

/// [`load`], refusing a read or write of more than `max_request_bytes` (its line is named).
pub fn load_with(path: &Path, max_request_bytes: u64) -> Result<FileTrace> {
    let input = open_text(path)?;
    read_with(input, &path.display().to_string(), max_request_bytes)
}

/// Reads a whole events file and each event's TIME (`None` where it is `-`), so a rewrite can
/// keep every field.
pub fn load_timed(path: &Path) -> Result<(FileTrace, Vec<Option<u64>>)> {
    load_timed_with(path, super::DEFAULT_MAX_REQUEST_BYTES)
}

/// [`load_timed`], refusing a read or write of more than `max_request_bytes`.
pub fn load_timed_with(
    path: &Path,
    max_request_bytes: u64,
) -> Result<(FileTrace, Vec<Option<u64>>)> {
    let input = open_text(path)?;
    read_timed_with(input, &path.display().to_string(), max_request_bytes)
}

/// Reads events from a decompressed stream; `name` is used in error messages.
pub fn read(input: impl BufRead, name: &str) -> Result<FileTrace> {
    read_with(input, name, super::DEFAULT_MAX_REQUEST_BYTES)
}

/// [`read`] with a limit on the bytes one read or write may ask for.
pub fn read_with(input: impl BufRead, name: &str, max_request_bytes: u64) -> Result<FileTrace> {
    Ok(read_timed_with(input, name, max_request_bytes)?.0)
}

/// [`read`], also returning each event's TIME in nanoseconds (`None` where it is `-`).
pub fn read_timed(input: impl BufRead, name: &str) -> Result<(FileTrace, Vec<Option<u64>>)> {
    read_timed_with(input, name, super::DEFAULT_MAX_REQUEST_BYTES)
}

/// [`read_timed`] with a limit on the bytes one read or write may ask for.
fn read_timed_with(
    input: impl BufRead,
    name: &str,
    max_request_bytes: u64,
) -> Result<(FileTrace, Vec<Option<u64>>)> {
    let mut reader = EventReader::new(input, name, max_request_bytes);
    let mut times = Vec::new();
    let mut events = Vec::new();
    while let Some((ev, time_ns)) = reader.next_event()? {
        times.push(time_ns);
        events.push(ev);
    }
    let trace = FileTrace {
        source: name.to_string(),
        events,
        names: reader.into_names(),
    };
    Ok((trace, times))
}

/// Reads an events file one event at a time, in memory bounded by its files (their sizes and
/// names), not by its length.
pub struct EventReader<R: BufRead> {
    input: R,
    name: String,
    max_request_bytes: u64,
    names: BTreeMap<u64, String>,
    sizes: FxHashMap<u64, u64>,
    buf: Vec<u8>,
    line_no: u64,
}

impl<R: BufRead> EventReader<R> {
    /// A reader of `input`; `name` is used in error messages.
    pub fn new(input: R, name: &str, max_request_bytes: u64) -> Self {
        EventReader {
            input,
            name: name.to_string(),
            max_request_bytes,
            names: BTreeMap::new(),
            sizes: FxHashMap::default(),
            buf: Vec::new(),
            line_no: 0,
        }
    }

    /// Each file's name as declared so far.
    pub fn into_names(self) -> BTreeMap<u64, String> {
        self.names
    }

    /// The next event and its TIME in nanoseconds (`None` where it is `-`); `None` at the end.
    pub fn next_event(&mut self) -> Result<Option<(FileEvent, Option<u64>)>> {
        let name = self.name.as_str();
        let max_request_bytes = self.max_request_bytes;
        let sizes = &mut self.sizes;
        let names = &mut self.names;
        let buf = &mut self.buf;
        let input = &mut self.input;
        loop {
            buf.clear();
            if input
                .read_until(b'\n', buf)
                .map_err(|e| Error::io(Path::new(name), e))?
                == 0
            {
                return Ok(None);
            }
            self.line_no += 1;
            let line_no = self.line_no;
            let line = trim_line(buf);
            if line.is_empty() || line[0] == b'#' {
                continue;
            }
            let fail = |msg: String| Error::Parse {
                path: name.to_string(),
                line: line_no,
                msg,
            };
            // The first fields in place (no allocation per line) and how many there are.
            let mut fields: [&[u8]; MAX_FIELDS] = [&[]; MAX_FIELDS];
            let mut count = 0;
            for f in line
                .split(|c| *c == b' ' || *c == b'\t')
                .filter(|f| !f.is_empty())
            {
                if count < MAX_FIELDS {
                    fields[count] = f;
                }
                count += 1;
            }
            let Some(&(verb, usage, arity)) = VERBS
                .iter()
                .find(|(v, _, _)| fields[0].eq_ignore_ascii_case(v.as_bytes()))
            else {
                return Err(fail(format!(
                    "unknown event '{}'; expected file, open, read, write, seek, close or exit",
                    excerpt(fields[0])
                )));
            };
            let ok = if verb == "file" {
                count >= arity
            } else {
                count == arity
            };
            if !ok {
                return Err(fail(format!(
                    "expected '{usage}', found '{}'",
                    excerpt(line)
                )));
            }
            let num = |i: usize| -> Result<u64> {
                parse_u64(fields[i]).ok_or_else(|| {
                    let field = usage.split(' ').nth(i).unwrap_or("field");
                    fail(format!(
                        "{field} '{}' is not a non-negative integer (expected '{usage}')",
                        excerpt(fields[i])
                    ))
                })
            };
            if verb == "file" {
                let (file, size) = (num(1)?, num(2)?);
                // PATH starts after the third field. Found by walking the fields, not by searching
                // for SIZE's text, which can occur earlier ('file 10 0 g': the 0 inside 10).
                let mut start = 0;
                for _ in 0..3 {
                    while start < line.len() && matches!(line[start], b' ' | b'\t') {
                        start += 1;
                    }
                    while start < line.len() && !matches!(line[start], b' ' | b'\t') {
                        start += 1;
                    }
                }
                let path = String::from_utf8_lossy(trim_line(&line[start..])).into_owned();
                // A new SIZE for a declared file is legal (the writer emits one whenever a file's
                // size changes, e.g. between AccuSim records); a new PATH would silently merge two
                // different files, so it is refused.
                if let Some(old) = names.get(&file) {
                    if *old != path {
                        return Err(fail(format!(
                            "file {file} was declared as '{}'; it is redeclared as '{}'",
                            excerpt(old.as_bytes()),
                            excerpt(path.as_bytes())
                        )));
                    }
                }
                sizes.insert(file, size);
                names.insert(file, path);
                continue;
            }
            let time_ns = if fields[1] != b"-" {
                Some(parse_us(fields[1], "TIME").map_err(fail)?)
            } else {
                None
            };
            let think_ns = parse_us(fields[2], "THINK").map_err(fail)?;
            let pid =
                u32::try_from(num(3)?).map_err(|_| fail("PID does not fit 32 bits".into()))?;
            let (fd, file) = if verb == "exit" {
                (0, 0)
            } else {
                let fd =
                    u32::try_from(num(4)?).map_err(|_| fail("FD does not fit 32 bits".into()))?;
                let file = num(5)?;
                if !sizes.contains_key(&file) {
                    return Err(fail(format!(
                        "file {file} is used before its 'file {file} SIZE PATH' line"
                    )));
                }
                (fd, file)
            };
            let kind = match verb {
                "open" => FileEventKind::Open,
                "read" => FileEventKind::Read {
                    offset: num(6)?,
                    len: num(7)?,
                },
                "write" => FileEventKind::Write {
                    offset: num(6)?,
                    len: num(7)?,
                },
                "seek" => FileEventKind::Seek { offset: num(6)? },
                "close" => FileEventKind::Close,
                _ => FileEventKind::Exit,
            };
            if let FileEventKind::Read { offset, len } | FileEventKind::Write { offset, len } = kind
            {
                if offset.checked_add(len).is_none() {
                    return Err(fail("OFFSET + LEN overflows 64 bits".into()));
                }
                if len > max_request_bytes {
                    return Err(fail(format!(
                        "LEN {len} is above the limit of {max_request_bytes} bytes per request (max_request_bytes)"
                    )));
                }
            }
            if let FileEventKind::Read { offset, len } = kind {
                // A read cannot return bytes a file does not have (a write may extend it): a read
                // past SIZE is a damaged or hand-edited trace, refused rather than silently clamped.
                let size = sizes[&file];
                if offset + len > size {
                    return Err(fail(format!(
                        "read of bytes {offset}..{} goes past the end of file {file} ({size} bytes, as declared)",
                        offset + len
                    )));
                }
            }
            let ev = FileEvent {
                think_ns,
                pid,
                fd,
                file,
                file_size: sizes.get(&file).copied().unwrap_or(0),
                kind,
            };
            return Ok(Some((ev, time_ns)));
        }
    }
}

/// Writes `trace` in this format; `times_ns` gives each event's start time when known.
pub fn write(
    trace: &FileTrace,
    times_ns: Option<&[u64]>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let mut w = Writer::new(out)?;
    for (i, ev) in trace.events.iter().enumerate() {
        let path = trace.names.get(&ev.file).map_or("?", String::as_str);
        w.push(ev, times_ns.map(|t| t[i]), path)?;
    }
    Ok(())
}

/// Writes events one at a time, declaring each file (or a new size of it) before its first use,
/// so a generator can stream a trace of any length.
pub struct Writer<W: Write> {
    out: W,
    declared: FxHashMap<u64, u64>,
}

fn us(ns: u64) -> String {
    if ns % 1000 == 0 {
        format!("{}", ns / 1000)
    } else {
        format!("{}.{:03}", ns / 1000, ns % 1000)
    }
}

impl<W: Write> Writer<W> {
    /// Starts a trace with the [`HEADER`] line.
    pub fn new(mut out: W) -> std::io::Result<Self> {
        writeln!(out, "{HEADER}")?;
        Ok(Writer {
            out,
            declared: FxHashMap::default(),
        })
    }

    /// Writes `ev`, started at `time_ns` when known; `path` names its file if not yet declared.
    pub fn push(
        &mut self,
        ev: &FileEvent,
        time_ns: Option<u64>,
        path: &str,
    ) -> std::io::Result<()> {
        let out = &mut self.out;
        if ev.kind != FileEventKind::Exit && self.declared.get(&ev.file) != Some(&ev.file_size) {
            writeln!(out, "file {} {} {path}", ev.file, ev.file_size)?;
            self.declared.insert(ev.file, ev.file_size);
        }
        let time = time_ns.map_or("-".to_string(), us);
        let head = format!("{time} {} {}", us(ev.think_ns), ev.pid);
        let (fd, file) = (ev.fd, ev.file);
        match ev.kind {
            FileEventKind::Open => writeln!(out, "open {head} {fd} {file}"),
            FileEventKind::Read { offset, len } => {
                writeln!(out, "read {head} {fd} {file} {offset} {len}")
            }
            FileEventKind::Write { offset, len } => {
                writeln!(out, "write {head} {fd} {file} {offset} {len}")
            }
            FileEventKind::Seek { offset } => writeln!(out, "seek {head} {fd} {file} {offset}"),
            FileEventKind::Close => writeln!(out, "close {head} {fd} {file}"),
            FileEventKind::Exit => writeln!(out, "exit {head}"),
        }
    }

    /// Flushes and returns the output.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_verbs_arity_is_its_usage() {
        for (verb, usage, arity) in VERBS {
            assert_eq!(usage.split(' ').count(), arity, "{verb}");
            assert!(usage.starts_with(verb) && arity <= MAX_FIELDS);
        }
    }

    const SAMPLE: &str = "# hand-written\nfile 7 40960 /data/my file.db\nopen - 0 1 3 7\nread 10 2.5 1 3 7 0 8192\nseek - 0 1 3 7 100\nread - 100 1 3 7 100 10\nclose - 0 1 3 7\nexit - 0 1\n";

    #[test]
    fn reads_and_round_trips() {
        let t = read(std::io::Cursor::new(SAMPLE), "s.bev").unwrap();
        assert_eq!(t.events.len(), 6);
        assert_eq!(t.names[&7], "/data/my file.db");
        assert_eq!(
            t.events[1].kind,
            FileEventKind::Read {
                offset: 0,
                len: 8192
            }
        );
        assert_eq!(t.events[1].think_ns, 2500);
        assert_eq!(t.events[1].file_size, 40960);
        let mut out = Vec::new();
        write(&t, None, &mut out).unwrap();
        let again = read(std::io::Cursor::new(out), "again").unwrap();
        assert_eq!(again.events, t.events);
        assert_eq!(again.names, t.names);
    }

    #[test]
    fn errors_name_the_line() {
        let err = |text: &str| {
            read(std::io::Cursor::new(text.to_string()), "e.bev")
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("read - 0 1 3 7 0 10\n"),
            "e.bev:1: file 7 is used before its 'file 7 SIZE PATH' line"
        );
        assert!(err("file 1 10 x\nread - 0 1 3 1 0\n")
            .contains("e.bev:2: expected 'read TIME THINK PID FD FILE OFFSET LEN'"));
        assert!(err("mmap 1\n").contains("unknown event 'mmap'"));
        // SIZE's digits inside FILE's do not shift where PATH starts.
        let t = read(std::io::Cursor::new("file 10 0 g h\nfile 10 5 g h\n"), "p").unwrap();
        assert_eq!(t.names[&10], "g h");
        assert!(err("file 1 10 x\nopen - -3 1 3 1\n").contains("THINK '-3'"));
    }
}
