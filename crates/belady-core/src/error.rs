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
}
