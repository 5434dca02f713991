//! One measured run of `belady calibrate replacement`: a child process joins a memory cgroup,
//! opens the scratch file afresh with read-ahead off (`POSIX_FADV_RANDOM`), and reads the
//! pattern with `pread`, asking `mincore` before each read whether its page is resident (a miss
//! when it is not). Every few reads it counts the file's resident pages (the capacity the kernel
//! holds), and in the fresh-statistics mode it reads the cgroup's memory.stat every 32 reads,
//! which flushes the statistics reclaim decides on.
//!
//! The child is a `fork` of this (threaded) process, so it only makes system calls on memory
//! prepared before the fork and reports through shared memory; it dies with its parent
//! (`PR_SET_PDEATHSIG`), and a stop signal to the parent kills and reaps it before the cgroup
//! is removed ([`crate::on_signal::kill_and_remove_cgroup`]).

use crate::calibrate_cgroup::Cgroup;
use crate::calibrate_replacement_patterns::Step;
use crate::calibrate_scratch::{os_err, Scratch};
use anyhow::{bail, Result};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Reads between two counts of the resident pages (a prime, so that no pattern's period aliases
/// with it).
pub const SAMPLE_EVERY: u64 = 97;

/// Reads between two reads of memory.stat in the fresh-statistics mode.
pub const FLUSH_EVERY: u64 = 32;

/// What one run measured.
#[derive(Clone, Debug, Default)]
pub struct Measured {
    /// Reads issued.
    pub reads: u64,
    /// Reads whose page was not resident before the read.
    pub misses: u64,
    /// The file's resident pages after every [`SAMPLE_EVERY`] reads.
    pub samples: Vec<u32>,
    /// Wall-clock seconds of the reads, pauses included.
    pub seconds: f64,
    /// Pages global reclaim (kswapd, direct reclaim outside cgroups) scanned meanwhile: the
    /// run's pages may have been reclaimed by memory pressure from outside its cgroup.
    pub global_scanned: u64,
}

/// Counters the child publishes.
#[repr(C)]
struct Shared {
    done: AtomicU64,
    misses: AtomicU64,
}

/// An anonymous shared mapping, touched before the fork so that its pages belong to the parent.
struct SharedMem {
    ptr: *mut libc::c_void,
    len: usize,
}

impl SharedMem {
    fn new(len: usize) -> Result<SharedMem> {
        let len = len.max(1);
        // SAFETY: a fresh anonymous mapping.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(os_err("cannot map shared memory for the reader".into()));
        }
        // SAFETY: `len` bytes were just mapped writable.
        unsafe { std::ptr::write_bytes(ptr.cast::<u8>(), 0, len) };
        Ok(SharedMem { ptr, len })
    }
}

impl Drop for SharedMem {
    fn drop(&mut self) {
        // SAFETY: unmapping what `new` mapped.
        unsafe { libc::munmap(self.ptr, self.len) };
    }
}

/// Exit codes of the child, and what they mean.
const EXIT_JOIN: i32 = 10;
const EXIT_OPEN: i32 = 11;
const EXIT_READ: i32 = 12;
const EXIT_MINCORE: i32 = 13;
const EXIT_ORPHAN: i32 = 14;

/// Everything the child uses, prepared before the fork.
struct Job<'a> {
    parent: libc::pid_t,
    procs: CString,
    scratch: CString,
    stat: Option<CString>,
    steps: &'a [Step],
    map: *mut libc::c_void,
    size: u64,
    page: u64,
    /// Buffers in memory shared with the parent (so the child's writes allocate nothing that
    /// would count against the cgroup): the read buffer, memory.stat's, and mincore's vector.
    buf: *mut u8,
    buf_len: usize,
    stat_buf: *mut u8,
    stat_len: usize,
    vec: *mut u8,
    shared: *const Shared,
    samples: *mut u32,
    sample_slots: usize,
}

/// Sum of global reclaim's scans in /proc/vmstat (cgroup limit reclaim is not counted there).
fn global_scanned() -> u64 {
    let text = std::fs::read_to_string("/proc/vmstat").unwrap_or_default();
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(k, _)| matches!(*k, "pgscan_kswapd" | "pgscan_direct" | "pgscan_khugepaged"))
        .filter_map(|(_, v)| v.trim().parse::<u64>().ok())
        .sum()
}

/// Runs `steps` on `scratch` from a child in `cgroup`; `fresh` flushes the statistics every
/// [`FLUSH_EVERY`] reads. `progress(done, total)` is called while it runs.
pub fn measure(
    scratch: &Scratch,
    cgroup: &Cgroup,
    steps: &[Step],
    fresh: bool,
    mut progress: impl FnMut(u64, u64),
) -> Result<Measured> {
    let reads = steps
        .iter()
        .filter(|s| matches!(s, Step::Read { .. }))
        .count() as u64;
    let max_len = steps
        .iter()
        .map(|s| match *s {
            Step::Read { len, .. } => len as usize,
            Step::Pause { .. } => 0,
        })
        .max()
        .unwrap_or(0);
    let pages = scratch.size().div_ceil(scratch.page()) as usize;
    let slots = (reads / SAMPLE_EVERY) as usize + 1;
    let shared = SharedMem::new(std::mem::size_of::<Shared>())?;
    let samples = SharedMem::new(slots * std::mem::size_of::<u32>())?;
    let (buf_len, stat_len) = (max_len.max(1), 64 << 10);
    let buffers = SharedMem::new(buf_len + stat_len + pages)?;
    let base = buffers.ptr.cast::<u8>();
    let cstr = |p: &std::path::Path| CString::new(p.as_os_str().as_bytes());
    let job = Job {
        // SAFETY: getpid has no preconditions.
        parent: unsafe { libc::getpid() },
        procs: cstr(&cgroup.procs())?,
        scratch: cstr(scratch.path())?,
        stat: if fresh {
            Some(cstr(&cgroup.stat())?)
        } else {
            None
        },
        steps,
        map: scratch.map(),
        size: scratch.size(),
        page: scratch.page(),
        buf: base,
        buf_len,
        // SAFETY: offsets inside the `buffers` mapping.
        stat_buf: unsafe { base.add(buf_len) },
        stat_len,
        vec: unsafe { base.add(buf_len + stat_len) },
        shared: shared.ptr.cast::<Shared>(),
        samples: samples.ptr.cast::<u32>(),
        sample_slots: slots,
    };
    // Every page of the file out of the cache (and its shadow entries with it), so the run
    // starts cold and no refault refers to an earlier run.
    scratch.drop_pages()?;
    let scanned_before = global_scanned();
    let started = Instant::now();
    // SAFETY: fork; the child runs `child`, which never returns.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(os_err("cannot fork the reader".into()));
    }
    if pid == 0 {
        // SAFETY: in the child, with `job` prepared before the fork.
        unsafe { child(&job) };
    }
    crate::on_signal::kill_and_remove_cgroup(pid, Some(cgroup.path()));
    // SAFETY: `shared` maps a zeroed `Shared`.
    let counters = unsafe { &*job.shared };
    let mut status = 0;
    loop {
        // SAFETY: waiting for our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r == pid {
            break;
        }
        if r < 0 {
            return Err(os_err("waitpid on the reader".into()));
        }
        progress(counters.done.load(Ordering::Relaxed), reads);
        std::thread::sleep(Duration::from_millis(50));
    }
    crate::on_signal::kill_and_remove_cgroup(0, Some(cgroup.path()));
    let seconds = started.elapsed().as_secs_f64();
    let global = global_scanned().saturating_sub(scanned_before);
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        let why = match libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)) {
            Some(EXIT_JOIN) => format!("it could not join {}", cgroup.procs().display()),
            Some(EXIT_OPEN) => format!("it could not open {}", scratch.path().display()),
            Some(EXIT_READ) => format!("a pread of {} failed", scratch.path().display()),
            Some(EXIT_MINCORE) => "mincore failed".to_string(),
            Some(EXIT_ORPHAN) => "its parent was gone".to_string(),
            Some(code) => format!("it exited with status {code}"),
            None => format!("it was killed by signal {}", libc::WTERMSIG(status)),
        };
        bail!(
            "the reader in {} failed after {} of {reads} reads: {why}",
            cgroup.path().display(),
            counters.done.load(Ordering::Relaxed)
        );
    }
    let done = counters.done.load(Ordering::Relaxed);
    // SAFETY: `samples` maps `slots` u32, of which the child filled `done / SAMPLE_EVERY`.
    let filled = ((done / SAMPLE_EVERY) as usize).min(slots);
    let samples = unsafe { std::slice::from_raw_parts(job.samples, filled) }.to_vec();
    Ok(Measured {
        reads: done,
        misses: counters.misses.load(Ordering::Relaxed),
        samples,
        seconds,
        global_scanned: global,
    })
}

/// The reader: system calls only, on memory prepared before the fork; never returns.
///
/// # Safety
/// Called once, in the child of a fork, with `job` built by [`measure`].
unsafe fn child(job: &Job) -> ! {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        libc::signal(sig, libc::SIG_DFL);
    }
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    if libc::getppid() != job.parent {
        libc::_exit(EXIT_ORPHAN);
    }
    // Writing 0 to cgroup.procs moves the writer.
    let fd = libc::open(job.procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
        libc::_exit(EXIT_JOIN);
    }
    libc::close(fd);
    // A fresh open file: no read-ahead state, no previous read position.
    let rfd = libc::open(job.scratch.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
    if rfd < 0 {
        libc::_exit(EXIT_OPEN);
    }
    libc::posix_fadvise(rfd, 0, 0, libc::POSIX_FADV_RANDOM);
    let sfd = match &job.stat {
        Some(path) => libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC),
        None => -1,
    };
    let shared = &*job.shared;
    let (mut done, mut misses, mut slot) = (0u64, 0u64, 0usize);
    for step in job.steps {
        match *step {
            Step::Pause { ms } => {
                let ts = libc::timespec {
                    tv_sec: (ms / 1000) as libc::time_t,
                    tv_nsec: ((ms % 1000) * 1_000_000) as libc::c_long,
                };
                libc::nanosleep(&ts, std::ptr::null_mut());
            }
            Step::Read { offset, len } => {
                let at = job
                    .map
                    .cast::<u8>()
                    .add((offset / job.page * job.page) as usize);
                let mut v = 0u8;
                if libc::mincore(at.cast(), job.page as usize, &mut v) != 0 {
                    libc::_exit(EXIT_MINCORE);
                }
                if v & 1 == 0 {
                    misses += 1;
                }
                let len = (len as usize).min(job.buf_len);
                let n = libc::pread(rfd, job.buf.cast(), len, offset as libc::off_t);
                if n < len as isize {
                    libc::_exit(EXIT_READ);
                }
                done += 1;
                if sfd >= 0 && done % FLUSH_EVERY == 0 {
                    // Showing memory.stat flushes the cgroup's statistics.
                    libc::pread(sfd, job.stat_buf.cast(), job.stat_len, 0);
                }
                if done % SAMPLE_EVERY == 0 && slot < job.sample_slots {
                    if libc::mincore(job.map, job.size as usize, job.vec) != 0 {
                        libc::_exit(EXIT_MINCORE);
                    }
                    let pages = job.size.div_ceil(job.page) as usize;
                    let vec = std::slice::from_raw_parts(job.vec, pages);
                    let resident = vec.iter().filter(|&&b| b & 1 != 0).count();
                    *job.samples.add(slot) = resident as u32;
                    slot += 1;
                }
                shared.misses.store(misses, Ordering::Relaxed);
                shared.done.store(done, Ordering::Release);
            }
        }
    }
    libc::_exit(0)
}
