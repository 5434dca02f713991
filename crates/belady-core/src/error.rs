//! One error type for the whole core; every variant names where the problem is.

use std::path::Path;

/// Everything that can go wrong in belady-core.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be opened, read or written.
    #[error("{}: {cause}", escape_control(path))]
    Io {
        /// The file involved.
        path: String,
        /// The operating system's error. It is already in the message, so it is deliberately not
        /// the error's `source()`: a printed error chain would say it twice.
        cause: std::io::Error,
    },
    /// A text record does not have the expected shape.
    #[error("{}:{line}: {}", escape_control(path), escape_control(msg))]
    Parse {
        /// The trace file.
        path: String,
        /// 1-based line number.
        line: u64,
        /// What was found and what was expected.
        msg: String,
    },
    /// A binary record does not have the expected shape.
    #[error(
        "{}: record {record} (byte offset {offset}): {}",
        escape_control(path),
        escape_control(msg)
    )]
    Record {
        /// The trace file.
        path: String,
        /// 0-based record number.
        record: u64,
        /// Byte offset of the record in the decompressed stream.
        offset: u64,
        /// What was found and what was expected.
        msg: String,
    },
    /// The trace parsed but produced no block reference to simulate.
    #[error("{}: trace holds no {what}", escape_control(path))]
    EmptyTrace {
        /// The trace file.
        path: String,
        /// What was missing, e.g. "read requests".
        what: String,
    },
    /// No `--format` was given and neither the file's content nor its name tells the format.
    #[error("could not detect the format of {path}: {msg}")]
    UnknownFormat {
        /// The trace file.
        path: String,
        /// What was looked at and what to do instead.
        msg: String,
    },
    /// Memory an input asked for could not be had (a `ulimit -v`, or more than the machine has).
    #[error("out of memory: {what} needs {bytes} bytes ({}) more", human_bytes(*bytes))]
    OutOfMemory {
        /// What the memory was for, and for how many items.
        what: String,
        /// Bytes asked for.
        bytes: u64,
    },
    /// A configuration value is out of range or malformed.
    #[error("invalid {field} '{}': {}", escape_control(value), escape_control(msg))]
    Config {
        /// The option's name as the user wrote it.
        field: String,
        /// The rejected value.
        value: String,
        /// What is expected instead.
        msg: String,
    },
}

/// `x` as a person reads it: plain decimals ("12.5", "0.001"), but exponent form for magnitudes
/// plain decimals would spell with dozens of digits ("1e-300", not 300 zeros).
pub fn show_f64(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-6..1e15).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// `text` with every control character (C0, DEL, C1) written as an escape such as `\x1b`, so
/// input quoted in a message cannot move the cursor, retitle the terminal or split the line.
/// Escaping is idempotent: the escapes themselves hold no control character.
pub fn escape_control(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x100 && c.is_control() => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Longest message part [`brief`] keeps.
pub const BRIEF_CHARS: usize = 200;

/// `msg` as one short line: its lines joined, cut to [`BRIEF_CHARS`] characters with `…`. For
/// messages that quote input (a parser's complaint about a kilobyte-long or deeply nested value).
pub fn brief(msg: &str) -> String {
    let joined = msg
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    match joined.char_indices().nth(BRIEF_CHARS) {
        Some((i, _)) => format!("{}…", &joined[..i]),
        None => joined,
    }
}

/// Result alias used across the core.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.display().to_string(),
            cause: source,
        }
    }

    /// A configuration error for `field` holding `value`.
    pub fn config(field: &str, value: impl ToString, msg: impl Into<String>) -> Self {
        Error::Config {
            field: field.to_string(),
            value: value.to_string(),
            msg: msg.into(),
        }
    }
}

impl Error {
    /// This error with the file `from` named `to` instead: a spooled copy of an input readable
    /// once is reported under the name the user gave.
    pub fn renamed(self, from: &str, to: &str) -> Self {
        let swap = |p: String| if p == from { to.to_string() } else { p };
        match self {
            Error::Io { path, cause } => Error::Io {
                path: swap(path),
                cause,
            },
            Error::Parse { path, line, msg } => Error::Parse {
                path: swap(path),
                line,
                msg,
            },
            Error::Record {
                path,
                record,
                offset,
                msg,
            } => Error::Record {
                path: swap(path),
                record,
                offset,
                msg,
            },
            Error::EmptyTrace { path, what } => Error::EmptyTrace {
                path: swap(path),
                what,
            },
            Error::UnknownFormat { path, msg } => Error::UnknownFormat {
                path: swap(path),
                msg,
            },
            Error::Config { field, value, msg } => Error::Config {
                field,
                value: value.replace(from, to),
                msg: msg.replace(from, to),
            },
            Error::OutOfMemory { what, bytes } => Error::OutOfMemory {
                what: what.replace(from, to),
                bytes,
            },
        }
    }
}

/// `bytes` in MiB or GiB, one decimal.
fn human_bytes(bytes: u64) -> String {
    let mib = bytes as f64 / (1u64 << 20) as f64;
    if mib < 1024.0 {
        format!("{mib:.1} MiB")
    } else {
        format!("{:.1} GiB", mib / 1024.0)
    }
}

/// Makes room in `v` for `additional` more items, or an [`Error::OutOfMemory`] naming `what`
/// (for allocations whose size an input decides: the default would abort the process).
pub fn try_reserve<T>(
    v: &mut Vec<T>,
    additional: usize,
    what: impl FnOnce() -> String,
) -> Result<()> {
    FALLIBLE.with(|f| f.set(true));
    let reserved = v.try_reserve_exact(additional);
    FALLIBLE.with(|f| f.set(false));
    reserved.map_err(|_| Error::OutOfMemory {
        what: what(),
        bytes: (additional as u64).saturating_mul(std::mem::size_of::<T>() as u64),
    })
}

thread_local! {
    /// Set while [`try_reserve`] asks for memory on this thread.
    static FALLIBLE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the allocation this thread is making is one whose failure the core reports as an
/// [`Error::OutOfMemory`]: a global allocator that ends the process on other failures (the
/// CLI's) must return null for these instead. Allocates nothing.
pub fn allocation_is_fallible() -> bool {
    FALLIBLE.with(|f| f.get())
}

/// `n` copies of `value`, or an [`Error::OutOfMemory`] naming `what`.
pub fn try_filled<T: Clone>(n: usize, value: T, what: impl FnOnce() -> String) -> Result<Vec<T>> {
    let mut v = Vec::new();
    try_reserve(&mut v, n, what)?;
    v.resize(n, value);
    Ok(v)
}

/// " (did you mean 'X'?)" for the candidate closest to what the user `typed`, or "" when none is
/// close: a typo in a name (`lur`, `linux2`) then costs one glance instead of reading a list.
pub fn did_you_mean<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let typed = typed.trim().to_ascii_lowercase();
    if typed.is_empty() {
        return String::new();
    }
    // Close means clap's own test for options (Jaro-Winkler above 0.7) or one or two edits;
    // the fewest edits wins (`lur` is `lru` transposed, not `lruk`), then the first listed.
    let best = candidates
        .into_iter()
        .map(|c| {
            let lower = c.to_ascii_lowercase();
            let edits = strsim::osa_distance(&typed, &lower);
            (edits, strsim::jaro_winkler(&typed, &lower), c)
        })
        .filter(|&(edits, score, _)| score > 0.7 || edits <= 2.min(typed.len() / 2))
        .min_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)))
        .map(|(_, _, c)| c);
    match best {
        Some(name) => format!(" (did you mean '{name}'?)"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_bytes_in_quoted_input_are_escaped() {
        let e = Error::Parse {
            path: "t.txt".into(),
            line: 3,
            msg: "'\x1b]0;pwned\x07' is not a block number".into(),
        };
        let shown = e.to_string();
        assert_eq!(shown, "t.txt:3: '\\x1b]0;pwned\\x07' is not a block number");
        assert!(!shown.chars().any(char::is_control));
        assert_eq!(escape_control(&shown), shown, "idempotent");
        let c = Error::config("--format", "a\u{9b}b\nc", "bad");
        assert_eq!(c.to_string(), "invalid --format 'a\\x9bb\\nc': bad");
    }

    #[test]
    fn suggests_the_closest_name_only_when_close() {
        assert_eq!(
            did_you_mean("lur", ["lru", "lfu", "arc"]),
            " (did you mean 'lru'?)"
        );
        assert_eq!(
            did_you_mean("linux2", ["none", "linux24", "linux26", "bsd"]),
            " (did you mean 'linux24'?)"
        );
        assert_eq!(
            did_you_mean("lur", ["lru", "lruk", "lru-k"]),
            " (did you mean 'lru'?)"
        );
        assert_eq!(did_you_mean("zzzz", ["lru", "arc"]), "");
        assert_eq!(did_you_mean("", ["lru"]), "");
    }
}
