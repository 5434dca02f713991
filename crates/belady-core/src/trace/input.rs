//! Opening trace files with transparent decompression chosen by magic bytes.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Compression detected at the start of a file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (one or more members).
    Gzip,
    /// xz / LZMA2.
    Xz,
    /// Zstandard.
    Zstd,
    /// bzip2.
    Bzip2,
}

impl Compression {
    /// Recognises a compressed stream by its first bytes.
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(b"BZh") {
            Compression::Bzip2
        } else {
            Compression::None
        }
    }
}

const READ_BUFFER: usize = 1 << 18;

/// Longest text line a reader accepts (1 MiB): a file without line breaks (say `/dev/zero`)
/// must end in an error naming the line, not fill memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Opens `path` for buffered reading, decompressing gzip, xz, zstd or bzip2 transparently.
pub fn open_trace(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut raw = BufReader::with_capacity(READ_BUFFER, file);
    let head = peek(&mut raw, 6).map_err(|e| Error::io(path, e))?;
    let reader: Box<dyn BufRead + Send> = match Compression::sniff(&head) {
        Compression::None => Box::new(raw),
        Compression::Gzip => Box::new(BufReader::with_capacity(
            READ_BUFFER,
            flate2::bufread::MultiGzDecoder::new(raw),
        )),
        Compression::Xz => Box::new(BufReader::with_capacity(
            READ_BUFFER,
            xz2::bufread::XzDecoder::new_multi_decoder(raw),
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            READ_BUFFER,
            zstd::stream::read::Decoder::with_buffer(raw).map_err(|e| Error::io(path, e))?,
        )),
        Compression::Bzip2 => Box::new(BufReader::with_capacity(
            READ_BUFFER,
            bzip2::bufread::MultiBzDecoder::new(raw),
        )),
    };
    Ok(reader)
}

/// Returns up to `n` leading bytes without consuming them.
fn peek<R: BufRead>(reader: &mut R, n: usize) -> std::io::Result<Vec<u8>> {
    let buf = reader.fill_buf()?;
    Ok(buf[..buf.len().min(n)].to_vec())
}

/// Reads the first `n` decompressed bytes of a trace, for format detection.
pub fn peek_decompressed(path: &Path, n: usize) -> Result<Vec<u8>> {
    let mut reader = open_trace(path)?;
    let mut out = Vec::with_capacity(n);
    reader
        .by_ref()
        .take(n as u64)
        .read_to_end(&mut out)
        .map_err(|e| Error::io(path, e))?;
    Ok(out)
}

/// Parses an unsigned decimal integer from ASCII bytes, rejecting anything else.
pub fn parse_u64(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() || bytes.len() > 20 {
        return None;
    }
    let mut value: u64 = 0;
    for &c in bytes {
        let digit = c.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(digit as u64)?;
    }
    Some(value)
}

/// Strips trailing `\n` / `\r\n` and surrounding spaces or tabs.
pub fn trim_line(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\n' | b'\r' | b' ' | b'\t') {
        end -= 1;
    }
    let mut start = 0;
    while start < end && matches!(line[start], b' ' | b'\t') {
        start += 1;
    }
    &line[start..end]
}

/// Shows at most 60 bytes of a bad line in an error message.
pub fn excerpt(line: &[u8]) -> String {
    let shown = &line[..line.len().min(60)];
    let mut s = String::from_utf8_lossy(shown).into_owned();
    if line.len() > 60 {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_u64_accepts_digits_only() {
        assert_eq!(parse_u64(b"0"), Some(0));
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b""), None);
        assert_eq!(parse_u64(b"12a"), None);
        assert_eq!(parse_u64(b"-1"), None);
    }

    #[test]
    fn trim_line_handles_crlf() {
        assert_eq!(trim_line(b" 42\r\n"), b"42");
        assert_eq!(trim_line(b"\r\n"), b"");
    }

    #[test]
    fn sniff_recognises_each_codec() {
        assert_eq!(Compression::sniff(&[0x1f, 0x8b, 8]), Compression::Gzip);
        assert_eq!(Compression::sniff(b"\xfd7zXZ\x00"), Compression::Xz);
        assert_eq!(
            Compression::sniff(&[0x28, 0xb5, 0x2f, 0xfd]),
            Compression::Zstd
        );
        assert_eq!(Compression::sniff(b"BZh9"), Compression::Bzip2);
        assert_eq!(Compression::sniff(b"1 2 3"), Compression::None);
    }
}
