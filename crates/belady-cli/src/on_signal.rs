//! Cleanup when belady is told to stop (SIGTERM, SIGINT, SIGHUP), for every command: a measuring
//! child of `calibrate replacement` is killed and reaped and the memory cgroup it ran in removed
//! ([`kill_and_remove_cgroup`]), each temporary output still being written
//! ([`belady_core::outfile::PendingTemp`]) is removed, a traced program's strace is passed the
//! signal, then the signal ends the process as it would have (same exit status); Ctrl-C in a sweep goes to the sweep instead (see [`interrupt_to`]). Without this, `exit` by signal runs no destructors and leaves hidden
//! `.NAME.XXXXXX.tmp` files of any size beside the outputs.

use std::ffi::{c_char, CString};
use std::sync::atomic::{AtomicI32, AtomicPtr, Ordering};

static CHILD: AtomicI32 = AtomicI32::new(0);
/// A measuring child to kill and reap before its cgroup is removed (0: none).
static MEASURING: AtomicI32 = AtomicI32::new(0);
/// The memory cgroup directory to remove (null: none); a leaked `CString`.
static CGROUP: AtomicPtr<c_char> = AtomicPtr::new(std::ptr::null_mut());
/// Write end of the pipe a running sweep watches for Ctrl-C (0: no sweep is running).
static INTERRUPT_PIPE: AtomicI32 = AtomicI32::new(0);
const SIGNALS: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

/// Installs the handler; call once, first thing.
pub fn install() {
    for sig in SIGNALS {
        // SAFETY: `handler` only calls async-signal-safe functions (kill, unlink, signal, raise)
        // and reads atomics.
        unsafe {
            libc::signal(sig, handler as *const () as libc::sighandler_t);
        }
    }
}

/// Passes the signal on to process `child` (strace, which then detaches from the program).
pub fn forward_to(child: u32) {
    CHILD.store(child as i32, Ordering::SeqCst);
}

/// Sends the next SIGINT to `fd` (a pipe's write end) as one byte instead of ending the process,
/// so that a sweep can say what it stored before it exits; 0 restores the default. A second
/// Ctrl-C ends the process at once.
pub fn interrupt_to(fd: i32) {
    INTERRUPT_PIPE.store(fd, Ordering::SeqCst);
}

/// On a stop signal, kill (SIGKILL) and reap `child` (0: none), then remove the cgroup directory
/// `cgroup` (None: none), before the temporary files go: a cgroup with a live task cannot be
/// removed. Call again with 0 and None once both are gone.
pub fn kill_and_remove_cgroup(child: i32, cgroup: Option<&std::path::Path>) {
    use std::os::unix::ffi::OsStrExt;
    MEASURING.store(child, Ordering::SeqCst);
    let raw = cgroup
        .and_then(|p| CString::new(p.as_os_str().as_bytes()).ok())
        .map_or(std::ptr::null_mut(), CString::into_raw);
    // The previous path is left allocated (a few bytes per measured run): a handler running on
    // another thread may still be reading it.
    CGROUP.store(raw, Ordering::SeqCst);
}

/// Removes every temporary output still being written; for an exit that is not by signal.
pub fn remove_pending() {
    // SAFETY: the listed paths are NUL-terminated and never freed.
    belady_core::outfile::for_each_pending(|path| unsafe {
        libc::unlink(path);
    });
}

extern "C" fn handler(sig: libc::c_int) {
    if sig == libc::SIGINT {
        let fd = INTERRUPT_PIPE.swap(0, Ordering::SeqCst);
        if fd > 0 {
            // SAFETY: write is async-signal-safe; the byte lives in static memory.
            unsafe {
                libc::write(fd, b"i".as_ptr().cast(), 1);
            }
            return;
        }
    }
    let child = CHILD.load(Ordering::SeqCst);
    let measuring = MEASURING.swap(0, Ordering::SeqCst);
    let cgroup = CGROUP.load(Ordering::SeqCst);
    // SAFETY: async-signal-safe calls only; the listed paths are NUL-terminated and never freed.
    unsafe {
        if measuring > 0 {
            libc::kill(measuring, libc::SIGKILL);
            libc::waitpid(measuring, std::ptr::null_mut(), 0);
        }
        if !cgroup.is_null() {
            libc::rmdir(cgroup);
        }
        if child > 0 {
            libc::kill(child, sig);
        }
        belady_core::outfile::for_each_pending(|path| {
            libc::unlink(path);
        });
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}
