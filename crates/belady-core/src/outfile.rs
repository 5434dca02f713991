//! Output files that appear only when complete, and the check that an output is not an input.
//!
//! Every writer creates a temporary file beside its target and renames it over the target only
//! after the last byte was written and flushed. A failed or killed writer therefore leaves either
//! no file or a hidden `.NAME.tmpXXXXXX` one, never a truncated file under the name the user asked
//! for (which a later `sim` would read as a valid, shorter trace).

use crate::{Error, Result};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A file being written; it takes its final name in [`OutFile::commit`], and vanishes if dropped.
pub struct OutFile {
    inner: Inner,
    path: PathBuf,
    /// Its temporary name in the pending list, so a signal handler can remove it.
    _pending: Option<PendingTemp>,
}

enum Inner {
    /// A hidden temporary file beside the target, renamed over it when complete.
    Temp(tempfile::NamedTempFile),
    /// A target that is not a regular file (`/dev/null`, a FIFO, a terminal): written directly,
    /// since renaming over it would replace the device or pipe with a file.
    Direct(File),
}

impl OutFile {
    /// Starts writing `path`: a temporary file in the same directory (so the rename is atomic).
    /// A symbolic link is followed, so the file it names is replaced, not the link.
    pub fn create(path: &Path) -> Result<OutFile> {
        let target = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
            }
            _ => path.to_path_buf(),
        };
        if std::fs::metadata(&target).is_ok_and(|m| m.is_dir()) {
            // Refused before anything is written: a rename over a directory fails only at the
            // end, after the whole output was made.
            let cause = std::io::Error::other("is a directory; name a file to write");
            return Err(Error::io(path, cause));
        }
        if std::fs::metadata(&target).is_ok_and(|m| !m.is_file()) {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(|e| Error::io(path, e))?;
            return Ok(OutFile {
                inner: Inner::Direct(file),
                path: path.to_path_buf(),
                _pending: None,
            });
        }
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = format!(".{name}.");
        let (tmp, pending) =
            listed_temp(dir, &prefix, ".tmp", 0o666).map_err(|e| Error::io(path, e))?;
        Ok(OutFile {
            _pending: Some(pending),
            inner: Inner::Temp(tmp),
            path: target,
        })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the file is while it is being written (hidden, beside [`OutFile::path`]); `None`
    /// when the target is written directly (a device or a pipe).
    pub fn temp_path(&self) -> Option<&Path> {
        match &self.inner {
            Inner::Temp(t) => Some(t.path()),
            Inner::Direct(_) => None,
        }
    }

    fn file_mut(&mut self) -> &mut File {
        match &mut self.inner {
            Inner::Temp(t) => t.as_file_mut(),
            Inner::Direct(f) => f,
        }
    }

    /// Flushes the file to disk and gives it its final name, replacing any file there.
    pub fn commit(mut self) -> Result<()> {
        let path = self.path.clone();
        self.file_mut().flush().map_err(|e| Error::io(&path, e))?;
        match self.inner {
            Inner::Temp(tmp) => {
                tmp.as_file().sync_all().map_err(|e| Error::io(&path, e))?;
                tmp.persist(&path).map_err(|e| Error::io(&path, e.error))?;
            }
            Inner::Direct(_) => {}
        }
        Ok(())
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file_mut().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file_mut().flush()
    }
}

/// Writes `bytes` to `path` through an [`OutFile`]: the file appears whole or not at all.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = OutFile::create(path)?;
    file.write_all(bytes).map_err(|e| Error::io(path, e))?;
    file.commit()
}

/// Creates a hidden temporary file `PREFIX.XXXXXX.SUFFIX` in `dir`, listed for the signal
/// handler before it exists (a signal between creating the file and listing it would leave it
/// behind; a listed name that is never created is unlinked harmlessly), with permission bits
/// `mode` less the umask. Every temporary file belady names on disk (outputs being written,
/// spools of inputs readable once, `record`'s logs) is made here, so SIGINT, SIGTERM and SIGHUP
/// remove them all; it is removed when the returned file is dropped.
pub fn listed_temp(
    dir: &Path,
    prefix: &str,
    suffix: &str,
    mode: u32,
) -> std::io::Result<(tempfile::NamedTempFile, PendingTemp)> {
    let mut pending = None;
    let tmp = tempfile::Builder::new()
        .prefix(prefix)
        .suffix(suffix)
        .make_in(dir, |candidate| {
            let listed = PendingTemp::new(candidate);
            let mut open = std::fs::OpenOptions::new();
            open.read(true).write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                open.mode(mode);
            }
            #[cfg(not(unix))]
            let _ = mode;
            let file = open.open(candidate)?;
            pending = Some(listed);
            Ok(file)
        })?;
    let pending = pending.expect("make_in returns a file only after the closure made it");
    Ok((tmp, pending))
}

/// A temporary copy of something (an input readable once), removed when dropped and, being
/// listed ([`listed_temp`]), on SIGINT, SIGTERM or SIGHUP.
pub struct TempCopy {
    path: tempfile::TempPath,
    _pending: PendingTemp,
}

impl TempCopy {
    /// Starts a hidden copy `PREFIX.XXXXXX` in `$TMPDIR`, readable by its owner only; returns
    /// the file to write it through.
    pub fn create(prefix: &str) -> Result<(File, TempCopy)> {
        let dir = std::env::temp_dir();
        let (tmp, pending) =
            listed_temp(&dir, prefix, "", 0o600).map_err(|e| Error::io(&dir, e))?;
        let (file, path) = tmp.into_parts();
        Ok((
            file,
            TempCopy {
                path,
                _pending: pending,
            },
        ))
    }
}

impl std::ops::Deref for TempCopy {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

/// Most temporary files listed at once; more are still removed when dropped, only not on a signal.
const PENDING_SLOTS: usize = 256;

/// The temporary files now being written, as NUL-terminated paths: read by a signal handler
/// ([`for_each_pending`]), which may only load atomics and call `unlink`.
static PENDING: [std::sync::atomic::AtomicPtr<std::ffi::c_char>; PENDING_SLOTS] =
    [const { std::sync::atomic::AtomicPtr::new(std::ptr::null_mut()) }; PENDING_SLOTS];

/// A temporary file's place in the pending list, cleared when dropped. The program's signal
/// handler (the CLI installs one for SIGINT, SIGTERM and SIGHUP) removes every listed file, so
/// an interrupted writer leaves no hidden temporary behind.
pub struct PendingTemp {
    slot: Option<usize>,
}

impl PendingTemp {
    /// Lists `path` until the returned value is dropped.
    pub fn new(path: &Path) -> PendingTemp {
        use std::os::unix::ffi::OsStrExt;
        use std::sync::atomic::Ordering;
        let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
            return PendingTemp { slot: None };
        };
        let raw = c.into_raw();
        for (i, cell) in PENDING.iter().enumerate() {
            let free = std::ptr::null_mut();
            if cell
                .compare_exchange(free, raw, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return PendingTemp { slot: Some(i) };
            }
        }
        // SAFETY: `raw` came from `into_raw` above and was never shared.
        drop(unsafe { std::ffi::CString::from_raw(raw) });
        PendingTemp { slot: None }
    }
}

impl Drop for PendingTemp {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            // The path's bytes are left allocated (a few dozen bytes a file): a handler on
            // another thread may hold the pointer it loaded, so freeing it could never be safe.
            PENDING[i].store(std::ptr::null_mut(), std::sync::atomic::Ordering::SeqCst);
        }
    }
}

/// Calls `f` with each listed temporary file's NUL-terminated path; async-signal-safe (atomic
/// loads only), for a handler that removes them before the process dies.
pub fn for_each_pending(mut f: impl FnMut(*const std::ffi::c_char)) {
    for cell in &PENDING {
        let p = cell.load(std::sync::atomic::Ordering::SeqCst);
        if !p.is_null() {
            f(p);
        }
    }
}

/// Refuses an output that is one of the inputs, or a link to one: writing it would destroy the
/// data being read. Compares device and inode (after following links), so hard links, symbolic
/// links and different spellings of one path are all caught.
pub fn refuse_overwrite(output: &Path, inputs: &[&Path]) -> Result<()> {
    refuse_overwrite_as("--output", output, inputs)
}

/// [`refuse_overwrite`] for an output another option names (`--html`, `--svg-dir`): the error
/// names `option`.
pub fn refuse_overwrite_as(option: &str, output: &Path, inputs: &[&Path]) -> Result<()> {
    let Ok(out) = std::fs::metadata(output) else {
        return Ok(()); // a file that does not exist yet is no input
    };
    for input in inputs {
        let Ok(meta) = std::fs::metadata(input) else {
            continue;
        };
        if same_file(&out, &meta) || canonical_eq(output, input) {
            return Err(Error::config(
                option,
                output.display(),
                format!(
                    "is the input {} (or a link to it); write to another file",
                    input.display()
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `a` and `b` name one file, whether or not it exists yet: two outputs of one command
/// that would overwrite each other. Existing files compare by device and inode; otherwise by
/// their folder (links followed) and name.
pub fn same_target(a: &Path, b: &Path) -> bool {
    if let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        return same_file(&ma, &mb) || canonical_eq(a, b);
    }
    let place = |p: &Path| {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some((std::fs::canonicalize(dir).ok()?, p.file_name()?.to_owned()))
    };
    match (place(a), place(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

fn canonical_eq(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn dropped_outfile_leaves_nothing_and_committed_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.txt");
        std::fs::write(&p, "old").unwrap();
        {
            let mut o = OutFile::create(&p).unwrap();
            o.write_all(b"partial").unwrap();
            // dropped without commit: a failed writer
        }
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let mut o = OutFile::create(&p).unwrap();
        o.write_all(b"new").unwrap();
        o.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn devices_are_written_directly_and_links_followed() {
        let mut o = OutFile::create(Path::new("/dev/null")).unwrap();
        assert!(o.temp_path().is_none());
        o.write_all(b"x").unwrap();
        o.commit().unwrap();
        assert!(std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        std::fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut o = OutFile::create(&link).unwrap();
        o.write_all(b"new").unwrap();
        o.commit().unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
    }

    #[test]
    fn output_naming_the_input_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.txt");
        std::fs::write(&input, "1\n").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let hard = dir.path().join("hard.txt");
        std::fs::hard_link(&input, &hard).unwrap();
        let dotted = dir.path().join(".").join("in.txt");
        for out in [&input, &link, &hard, &dotted] {
            let e = refuse_overwrite(out, &[&input]).unwrap_err().to_string();
            assert!(e.contains("is the input"), "{e}");
        }
        let other = dir.path().join("other.txt");
        refuse_overwrite(&other, &[&input]).unwrap();
        std::fs::write(&other, "2\n").unwrap();
        refuse_overwrite(&other, &[&input]).unwrap();
    }
}
