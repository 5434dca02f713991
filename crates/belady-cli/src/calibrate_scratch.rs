//! The scratch file both calibrations read (`belady calibrate` and `calibrate replacement`):
//! written once with real blocks, mapped for `mincore`, removed on drop and on a stop signal;
//! and the facts about the file system and kernel their outputs record.

use anyhow::{bail, Context, Result};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::calibrate_patterns::splitmix;

/// Refuses a scratch file larger than the room left on `dir`'s file system, before a byte of it
/// is written (filling the disk would take minutes and starve everything else on it).
pub(crate) fn check_free_space(dir: &Path, size: u64, given: &str) -> Result<()> {
    let c = CString::new(dir.as_os_str().as_bytes())?;
    // SAFETY: `c` is a valid C string and `st` a writable statvfs.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Err(os_err(format!("statvfs {}", dir.display())));
    }
    let free = (st.f_bavail as u64).saturating_mul(st.f_frsize as u64);
    if size > free {
        bail!(
            "invalid --size '{given}': the scratch file needs {size} bytes, more than the {free} bytes free on {} (a smaller --size, or another --dir)",
            dir.display()
        );
    }
    Ok(())
}

/// `statfs` magic and a name for messages.
pub(crate) fn fs_type(dir: &Path) -> Result<(i64, String)> {
    let c = CString::new(dir.as_os_str().as_bytes())?;
    // SAFETY: `c` is a valid C string and `st` a writable statfs.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return Err(std::io::Error::last_os_error())
            .with_context(|| format!("statfs {}", dir.display()));
    }
    let magic = st.f_type as i64;
    let name = match magic {
        0xEF53 => "ext4".to_string(),
        0x5846_5342 => "xfs".into(),
        0x9123_683E => "btrfs".into(),
        0x0102_1994 => "tmpfs".into(),
        0x8584_58f6 => "ramfs".into(),
        0x794c_7630 => "overlayfs".into(),
        0x6969 => "nfs".into(),
        0x2fc1_2fc1 => "zfs".into(),
        0xF2F5_2010 => "f2fs".into(),
        m => format!("file system 0x{m:x}"),
    };
    Ok((magic, name))
}

pub(crate) fn kernel_release() -> String {
    // SAFETY: `u` is a writable utsname; the release field is NUL-terminated by the kernel.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return "unknown".into();
    }
    let bytes: Vec<u8> = u
        .release
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    format!("Linux {}", String::from_utf8_lossy(&bytes))
}

/// The current UTC date and time, `YYYY-MM-DD HH:MM UTC`.
pub(crate) fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = ((secs / 86400) as i64, secs % 86400);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The scratch file: written once, mapped for `mincore`, removed on drop and on SIGINT, SIGTERM
/// and SIGHUP (listed as pending, as every temporary output is).
pub(crate) struct Scratch {
    _pending: belady_core::outfile::PendingTemp,
    path: PathBuf,
    fd: libc::c_int,
    map: *mut libc::c_void,
    size: u64,
    page: u64,
}

pub(crate) fn os_err(what: String) -> anyhow::Error {
    anyhow::Error::new(std::io::Error::last_os_error()).context(what)
}

impl Scratch {
    pub(crate) fn create(dir: &Path, size: u64) -> Result<Scratch> {
        let path = dir.join(format!(".belady-calibrate-{}.tmp", std::process::id()));
        let c = CString::new(path.as_os_str().as_bytes())?;
        // Listed before the file exists, so a signal during creation removes it too.
        let pending = belady_core::outfile::PendingTemp::new(&path);
        // SAFETY: `c` is a valid path.
        let fd = unsafe {
            libc::open(
                c.as_ptr(),
                libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
                0o600 as libc::c_uint,
            )
        };
        let mut s = Scratch {
            _pending: pending,
            path,
            fd,
            map: std::ptr::null_mut(),
            size,
            page: unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64,
        };
        if fd < 0 {
            return Err(os_err(format!("cannot create {}", s.path.display())));
        }
        s.fill()?;
        // SAFETY: mapping `size` bytes of a file that is `size` bytes long, read-only.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size as usize,
                libc::PROT_READ,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(os_err(format!("cannot map {}", s.path.display())));
        }
        s.map = map;
        Ok(s)
    }

    /// Writes non-zero data (real blocks, not a sparse file) and syncs it, so that its pages
    /// are clean and DONTNEED can drop them.
    fn fill(&mut self) -> Result<()> {
        let mut block = vec![0u8; 1 << 20];
        let mut state = 0x5eed;
        for chunk in block.chunks_mut(8) {
            chunk.copy_from_slice(&splitmix(&mut state).to_le_bytes());
        }
        let mut done = 0u64;
        while done < self.size {
            let n = (self.size - done).min(block.len() as u64) as usize;
            // SAFETY: `block` holds at least `n` bytes.
            let w = unsafe { libc::pwrite(self.fd, block.as_ptr().cast(), n, done as libc::off_t) };
            if w < 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::ENOSPC) || e.raw_os_error() == Some(libc::EDQUOT)
                {
                    bail!(
                        "no space left on {}: the scratch file needs {} bytes (a smaller --size, or another --dir)",
                        self.path.parent().unwrap_or(Path::new(".")).display(),
                        self.size
                    );
                }
                return Err(
                    anyhow::Error::new(e).context(format!("cannot write {}", self.path.display()))
                );
            }
            done += w as u64;
        }
        // SAFETY: a valid descriptor.
        if unsafe { libc::fsync(self.fd) } != 0 {
            return Err(os_err(format!("cannot sync {}", self.path.display())));
        }
        Ok(())
    }

    /// Resident pages now (mincore counts a page once its read has completed).
    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The read-only shared mapping of the whole file (for `mincore`).
    pub(crate) fn map(&self) -> *mut libc::c_void {
        self.map
    }

    /// The file's size in bytes (whole pages).
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// The page size.
    pub(crate) fn page(&self) -> u64 {
        self.page
    }

    pub(crate) fn resident(&self) -> Result<u64> {
        let pages = self.size.div_ceil(self.page) as usize;
        let mut vec = vec![0u8; pages];
        // SAFETY: `map` maps `size` bytes and `vec` has one byte per page.
        if unsafe { libc::mincore(self.map, self.size as usize, vec.as_mut_ptr()) } != 0 {
            return Err(os_err(format!("mincore on {}", self.path.display())));
        }
        Ok(vec.iter().filter(|&&v| v & 1 != 0).count() as u64)
    }

    /// Polls until the residency stops changing (read-ahead I/O done), at most two seconds.
    fn settled(&self) -> Result<u64> {
        let until = Instant::now() + Duration::from_secs(2);
        let mut last = self.resident()?;
        let mut same = 0;
        while same < 5 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
            let now = self.resident()?;
            same = if now == last { same + 1 } else { 0 };
            last = now;
        }
        Ok(last)
    }

    /// Drops every page of the file and checks that none stayed.
    pub(crate) fn drop_pages(&self) -> Result<()> {
        for _ in 0..20 {
            // SAFETY: a valid descriptor.
            let rc = unsafe { libc::posix_fadvise(self.fd, 0, 0, libc::POSIX_FADV_DONTNEED) };
            if rc != 0 {
                return Err(anyhow::Error::new(std::io::Error::from_raw_os_error(rc))
                    .context(format!("posix_fadvise DONTNEED on {}", self.path.display())));
            }
            if self.resident()? == 0 {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        bail!(
            "POSIX_FADV_DONTNEED was not honoured on {}: {} of {} pages still resident, so the \
             reads would not start cold",
            self.path.display(),
            self.resident()?,
            self.size / self.page
        )
    }

    /// Reads `reads` cold through a fresh descriptor; resident pages after each read, and once
    /// settled.
    pub(crate) fn run(&self, reads: &[(u64, u64)]) -> Result<(Vec<u64>, u64)> {
        self.drop_pages()?;
        let c = CString::new(self.path.as_os_str().as_bytes())?;
        // SAFETY: `c` is a valid path.
        let fd = unsafe { libc::open(c.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(os_err(format!("cannot open {}", self.path.display())));
        }
        let result = (|| {
            let mut buf = vec![0u8; reads.iter().map(|r| r.1).max().unwrap_or(0) as usize];
            let mut after = Vec::with_capacity(reads.len());
            for &(off, len) in reads {
                let want = len.min(self.size.saturating_sub(off)) as usize;
                // SAFETY: `buf` holds at least `len` bytes.
                let n = unsafe {
                    libc::pread(
                        fd,
                        buf.as_mut_ptr().cast(),
                        len as usize,
                        off as libc::off_t,
                    )
                };
                if n < 0 || (n as usize) < want {
                    return Err(os_err(format!(
                        "pread of {len} bytes at {off} from {}",
                        self.path.display()
                    )));
                }
                after.push(self.resident()?);
            }
            Ok((after, self.settled()?))
        })();
        // SAFETY: closing the descriptor opened above.
        unsafe { libc::close(fd) };
        result
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // SAFETY: unmapping what was mapped and closing what was opened.
        unsafe {
            if !self.map.is_null() {
                libc::munmap(self.map, self.size as usize);
            }
            if self.fd >= 0 {
                libc::close(self.fd);
            }
        }
        if self.fd >= 0 {
            // Only a file this run created is removed.
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
