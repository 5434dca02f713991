//! Cleanup when belady is told to stop (SIGTERM, SIGINT, SIGHUP), for every command: each
//! temporary output still being written ([`belady_core::outfile::PendingTemp`]) is removed, a
//! traced program's strace is passed the signal, then the signal ends the process as it would
//! have (same exit status). Without this, `exit` by signal runs no destructors and leaves hidden
//! `.NAME.XXXXXX.tmp` files of any size beside the outputs.

use std::sync::atomic::{AtomicI32, Ordering};

static CHILD: AtomicI32 = AtomicI32::new(0);
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

extern "C" fn handler(sig: libc::c_int) {
    let child = CHILD.load(Ordering::SeqCst);
    // SAFETY: async-signal-safe calls only; the listed paths are NUL-terminated and never freed.
    unsafe {
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
