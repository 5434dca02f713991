//! Opening trace files with transparent decompression chosen by magic bytes.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

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

/// Bytes read from trace files (as stored, before decompression) since the process started.
static TRACE_BYTES_READ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Bytes read from trace files so far (as stored: compressed bytes for a compressed file), for a
/// progress display; it only grows, and a trace read twice counts twice.
pub fn trace_bytes_read() -> u64 {
    TRACE_BYTES_READ.load(std::sync::atomic::Ordering::Relaxed)
}

/// A trace file whose reads add to [`TRACE_BYTES_READ`] (one atomic add per 256 KiB buffer).
struct Counted(File);

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        TRACE_BYTES_READ.fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

/// Longest text line a reader accepts (1 MiB): a file without line breaks (say `/dev/zero`)
/// must end in an error naming the line, not fill memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Inputs that can be read only once (FIFOs, `<(...)`, devices) whose head was read to detect
/// their format: the next [`open_trace`] of the same path continues the same stream instead of
/// opening the path again (which would block, or read different bytes).
static PEEKED: Mutex<Vec<(PathBuf, Box<dyn BufRead + Send>)>> = Mutex::new(Vec::new());

/// Opens `path` for buffered reading, decompressing gzip, xz, zstd or bzip2 transparently.
pub fn open_trace(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    {
        let mut peeked = PEEKED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = peeked.iter().position(|(p, _)| p == path) {
            return Ok(peeked.swap_remove(i).1);
        }
    }
    let file = Counted(File::open(path).map_err(|e| Error::io(path, e))?);
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

/// Opens a text trace like [`open_trace`], with every line capped at [`MAX_LINE_BYTES`].
pub fn open_text(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    Ok(Box::new(LineCap::new(open_trace(path)?)))
}

/// A text input whose lines may be at most [`MAX_LINE_BYTES`] long: a longer one fails as a
/// read error naming the line, before the reader's line buffer grows further.
pub struct LineCap<R> {
    inner: R,
    /// Complete lines before the current one.
    lines: u64,
    /// Bytes of the current line seen so far.
    run: usize,
    /// Bytes at the front of the inner buffer already counted.
    scanned: usize,
}

impl<R: BufRead> LineCap<R> {
    /// Caps the lines of `inner`.
    pub fn new(inner: R) -> Self {
        LineCap {
            inner,
            lines: 0,
            run: 0,
            scanned: 0,
        }
    }
}

impl<R: BufRead> BufRead for LineCap<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        let buf = self.inner.fill_buf()?;
        let fresh = &buf[self.scanned.min(buf.len())..];
        let mut start = 0;
        for i in memchr::memchr_iter(b'\n', fresh) {
            self.run += i - start;
            if self.run > MAX_LINE_BYTES {
                break;
            }
            self.lines += 1;
            self.run = 0;
            start = i + 1;
        }
        if self.run <= MAX_LINE_BYTES {
            self.run += fresh.len() - start;
        }
        if self.run > MAX_LINE_BYTES {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "line {} has no line break within {MAX_LINE_BYTES} bytes (the limit of a text line)",
                    self.lines + 1
                ),
            ));
        }
        self.scanned = buf.len();
        Ok(buf)
    }

    fn consume(&mut self, amt: usize) {
        self.scanned = self.scanned.saturating_sub(amt);
        self.inner.consume(amt);
    }
}

impl<R: BufRead> Read for LineCap<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let buf = self.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// Returns up to `n` leading bytes without consuming them.
fn peek<R: BufRead>(reader: &mut R, n: usize) -> std::io::Result<Vec<u8>> {
    let buf = reader.fill_buf()?;
    Ok(buf[..buf.len().min(n)].to_vec())
}

/// Reads the first `n` decompressed bytes of a trace, for format detection. An input that is
/// not a regular file is read only once: the stream is kept, head included, for the next
/// [`open_trace`] of `path`.
pub fn peek_decompressed(path: &Path, n: usize) -> Result<Vec<u8>> {
    let mut reader = open_trace(path)?;
    let mut out = Vec::with_capacity(n);
    reader
        .by_ref()
        .take(n as u64)
        .read_to_end(&mut out)
        .map_err(|e| Error::io(path, e))?;
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if !regular {
        let rest = std::io::Cursor::new(out.clone()).chain(reader);
        let again: Box<dyn BufRead + Send> = Box::new(BufReader::with_capacity(READ_BUFFER, rest));
        let mut peeked = PEEKED.lock().unwrap_or_else(|e| e.into_inner());
        peeked.retain(|(p, _)| p != path);
        peeked.push((path.to_path_buf(), again));
    }
    Ok(out)
}

/// Whether `path` can be read only once (a FIFO, `<(...)`, `/dev/stdin`, a device): anything but a
/// regular file.
pub fn read_once(path: &Path) -> bool {
    !std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Copies an input that can be read only once ([`read_once`]) whole, decompressed, into a
/// temporary file in `$TMPDIR` (removed when the returned path is dropped), so every run over it
/// reads the same bytes; `None` for a regular file, which is read in place. Callers name the
/// input by `path` in results and errors ([`crate::Error::renamed`]).
pub fn spool_read_once(path: &Path) -> Result<Option<crate::outfile::TempCopy>> {
    if !read_once(path) {
        return Ok(None);
    }
    let mut reader = open_trace(path)?;
    // Listed for the signal handler: an interrupted run leaves no copy of the trace behind.
    let (file, spool) = crate::outfile::TempCopy::create(".belady-spool-")?;
    let mut out = std::io::BufWriter::with_capacity(READ_BUFFER, file);
    loop {
        let n = {
            let buf = reader.fill_buf().map_err(|e| Error::io(path, e))?;
            if buf.is_empty() {
                break;
            }
            out.write_all(buf).map_err(|e| Error::io(&spool, e))?;
            buf.len()
        };
        reader.consume(n);
    }
    out.flush().map_err(|e| Error::io(&spool, e))?;
    Ok(Some(spool))
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
