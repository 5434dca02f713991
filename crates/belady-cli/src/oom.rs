//! The process's allocator: the system's, except that an allocation that cannot be had ends
//! `belady` with one error line naming its size and exit status 1, instead of Rust's abort
//! (SIGABRT and a core dump). Allocations the core sizes from an input ask through
//! `belady_core::error::try_reserve` and fail as errors naming what they were for.

use std::alloc::{GlobalAlloc, Layout, System};

/// The allocator `main.rs` installs.
pub struct ReportingAlloc;

// SAFETY: every call is forwarded to the system allocator unchanged; only a null result is
// acted on, and then the process ends without unwinding.
unsafe impl GlobalAlloc for ReportingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        checked(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        checked(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        checked(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

fn checked(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() && !belady_core::error::allocation_is_fallible() {
        out_of_memory(size);
    }
    ptr
}

/// Writes the error line without allocating (the heap is what failed) and exits with status 1.
fn out_of_memory(size: usize) -> ! {
    let mut line = [0u8; 128];
    let mut len = 0;
    let mut put = |bytes: &[u8]| {
        let n = bytes.len().min(line.len() - len);
        line[len..len + n].copy_from_slice(&bytes[..n]);
        len += n;
    };
    put(b"belady: error: out of memory: could not allocate ");
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut v = size;
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    put(&digits[i..]);
    put(b" bytes (lower the trace's size or the runs, or raise the memory limit)\n");
    // SAFETY: write(2), unlink(2) and _exit(2) are async-signal-safe and allocate nothing; the
    // pending temporaries' paths are NUL-terminated and never freed (as the signal handler uses
    // them).
    unsafe {
        libc::write(2, line.as_ptr().cast(), len);
        belady_core::outfile::for_each_pending(|path| {
            libc::unlink(path);
        });
        libc::_exit(1)
    }
}
