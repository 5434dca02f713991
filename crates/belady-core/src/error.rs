//! One error type for the whole core; every variant names where the problem is.

use std::path::Path;

/// Everything that can go wrong in belady-core.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be opened, read or written.
    #[error("{path}: {cause}")]
    Io {
        /// The file involved.
        path: String,
        /// The operating system's error. It is already in the message, so it is deliberately not
        /// the error's `source()`: a printed error chain would say it twice.
        cause: std::io::Error,
    },
    /// A text record does not have the expected shape.
    #[error("{path}:{line}: {msg}")]
    Parse {
        /// The trace file.
        path: String,
        /// 1-based line number.
        line: u64,
        /// What was found and what was expected.
        msg: String,
    },
    /// A binary record does not have the expected shape.
    #[error("{path}: record {record} (byte offset {offset}): {msg}")]
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
    #[error("{path}: trace holds no {what}")]
    EmptyTrace {
        /// The trace file.
        path: String,
        /// What was missing, e.g. "read requests".
        what: String,
    },
    /// A configuration value is out of range or malformed.
    #[error("invalid {field} '{value}': {msg}")]
    Config {
        /// The option's name as the user wrote it.
        field: String,
        /// The rejected value.
        value: String,
        /// What is expected instead.
        msg: String,
    },
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
