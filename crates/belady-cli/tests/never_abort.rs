//! Regression tests for issue #27's "never a panic, abort or hang" and "no unbounded memory":
//! hostile native headers, times and rates beyond their bounds, inputs readable once with
//! several runs, small file-size limits, and memory that follows what a trace uses.

mod common;

use common::*;

use std::path::Path;

/// A lirs trace of 2000 references over 301 blocks (a fixed pseudo-random walk).
fn lirs(dir: &Path, name: &str) -> String {
    let mut x: u64 = 7;
    let text: String = (0..2000)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            format!("{}\n", (x >> 33) % 301)
        })
        .collect();
    write(dir, name, &text)
}

/// CRC-32 (IEEE), as the native format's trailer holds it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// A native copy of `lirs` at `dir/name` with `edit` applied to its bytes (checksum excluded)
/// and the checksum made right again, so only the edited field is wrong.
fn native_edited(dir: &Path, name: &str, edit: impl Fn(&mut Vec<u8>)) -> String {
    let src = lirs(dir, "src.lirs");
    let good = path_in(dir, "good.bldy");
    ok(&belady(&["convert", "-t", &src, "-f", "lirs", "-o", &good]));
    let mut bytes = std::fs::read(&good).unwrap();
    bytes.truncate(bytes.len() - 4);
    edit(&mut bytes);
    let crc = crc32(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    let out = dir.join(name);
    std::fs::write(&out, bytes).unwrap();
    out.display().to_string()
}

/// Offset of the id table: after the 40-byte header, the source name's length and bytes.
fn table_offset(bytes: &[u8]) -> usize {
    44 + u32::from_le_bytes(bytes[40..44].try_into().unwrap()) as usize
}

#[test]
fn a_native_header_with_block_size_zero_is_refused_on_every_engine() {
    let dir = tempfile::tempdir().unwrap();
    let t = native_edited(dir.path(), "bs0.bldy", |b| b[16..20].fill(0));
    for extra in [&[][..], &["--prefetch", "linux6"], &["-p", "opt"]] {
        let r = run_sim(&t, "native", &[&["-c", "50"], extra].concat());
        assert_error_all(&r, &["bs0.bldy", "block size 0"]);
    }
    let r = belady(&["stats", "-t", &t]);
    assert_error_all(&r, &["bs0.bldy", "block size 0"]);
}

#[test]
fn a_native_block_size_other_than_the_runs_is_refused_on_the_file_engine() {
    let dir = tempfile::tempdir().unwrap();
    let huge = native_edited(dir.path(), "huge.bldy", |b| b[16..20].fill(0xff));
    let r = run_sim(&huge, "native", &["-c", "50", "--prefetch", "linux6"]);
    assert_error_all(&r, &["holds 4294967295-byte blocks", "--block-size"]);
    // A legitimately converted 512-byte trace: refused without --block-size 512 (before, its
    // blocks were merged eight to one silently), and the same numbers as its text with it.
    let src = lirs(dir.path(), "t.lirs");
    let small = path_in(dir.path(), "t512.bldy");
    ok(&belady(&[
        "convert",
        "-t",
        &src,
        "-f",
        "lirs",
        "--block-size",
        "512",
        "-o",
        &small,
    ]));
    let r = run_sim(&small, "native", &["-c", "50", "--prefetch", "linux6"]);
    assert_error_all(&r, &["512-byte blocks", "--block-size 512"]);
    let args = ["-c", "50", "--prefetch", "linux6", "--block-size", "512"];
    let from_native = ok(&run_sim(&small, "native", &args));
    let from_text = ok(&run_sim(&src, "lirs", &args));
    let table = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(table(&from_native), table(&from_text));
    // The other way round (a 4096-byte trace run in 512-byte blocks) indexed out of bounds.
    let t = native_edited(dir.path(), "t.bldy", |_| {});
    let r = run_sim(&t, "native", &args);
    assert_error_all(&r, &["4096-byte blocks", "--block-size 4096"]);
}

#[test]
fn a_native_id_table_naming_a_block_twice_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = native_edited(dir.path(), "dup.bldy", |b| {
        let at = table_offset(b);
        let first: [u8; 8] = b[at..at + 8].try_into().unwrap();
        b[at + 8..at + 16].copy_from_slice(&first);
    });
    for extra in [&[][..], &["--prefetch", "linux6"]] {
        let r = run_sim(&t, "native", &[&["-c", "50"], extra].concat());
        assert_error_all(&r, &["dup.bldy", "lists block", "twice"]);
    }
}

/// Runs `belady args` with `feed` written into the FIFO `fifo` by another thread (or on the
/// child's stdin when `fifo` is `None`); kills the child after 60 s, so a hang fails the test.
/// The child's `$TMPDIR` is `tmp` (created), so what it leaves there can be checked.
fn with_fifo(args: &[&str], fifo: Option<&Path>, feed: &str, tmp: &Path) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(args)
        .env("TMPDIR", {
            std::fs::create_dir_all(tmp).unwrap();
            tmp
        })
        .stdin(if fifo.is_some() {
            Stdio::null()
        } else {
            Stdio::piped()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let text = feed.to_string();
    let writer = match fifo {
        Some(p) => {
            let p = p.to_path_buf();
            std::thread::spawn(move || {
                // Opening blocks until the reader opens; the write fails if it never reads all.
                let _ = std::fs::OpenOptions::new()
                    .write(true)
                    .open(p)
                    .and_then(|mut f| f.write_all(text.as_bytes()));
            })
        }
        None => {
            let mut stdin = child.stdin.take().unwrap();
            std::thread::spawn(move || {
                let _ = stdin.write_all(text.as_bytes());
            })
        }
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("belady {args:?} hung on a read-once input");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    // A writer still blocked on open (the input was never opened) is released by opening the
    // FIFO for reading once.
    if let Some(p) = fifo {
        if !writer.is_finished() {
            let _ = std::fs::File::open(p);
        }
    }
    writer.join().unwrap();
    out
}

fn mkfifo(dir: &Path, name: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    let c = std::ffi::CString::new(p.display().to_string()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    p
}

#[test]
fn a_fifo_or_stdin_trace_is_read_once_for_every_engine_and_disk() {
    let dir = tempfile::tempdir().unwrap();
    let src = lirs(dir.path(), "t.lirs");
    let text = std::fs::read_to_string(&src).unwrap();
    let fifo = mkfifo(dir.path(), "f");
    let f = fifo.display().to_string();
    let tmp = dir.path().join("tmp");
    let grids: [&[&str]; 3] = [
        &["--prefetch", "linux6,none"],
        &["--prefetch", "linux6", "--disk", "hdd,nvme"],
        &["-p", "lru,opt", "--prefetch", "none,linux6"],
    ];
    for grid in grids {
        let common = [&["-c", "50", "-f", "lirs", "--json"][..], grid].concat();
        let want = json_rows(&belady(&[&["sim", "-t", &src][..], &common].concat()));
        for (input, fifo) in [(f.as_str(), Some(fifo.as_path())), ("/dev/stdin", None)] {
            let got = json_rows(&with_fifo(
                &[&["sim", "-t", input][..], &common].concat(),
                fifo,
                &text,
                &tmp,
            ));
            assert_eq!(got.len(), want.len(), "{grid:?} over {input}");
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g["trace"], input, "{grid:?}: runs name the input given");
                for key in ["policy", "hits", "misses", "prefetch", "io"] {
                    assert_eq!(g[key], w[key], "{grid:?} over {input}: {key}");
                }
            }
        }
    }
    // The spooled copies are gone.
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "left in $TMPDIR"
    );
}

#[test]
fn a_bad_line_in_a_spooled_fifo_names_the_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = mkfifo(dir.path(), "f");
    let f = fifo.display().to_string();
    let r = with_fifo(
        &[
            "sim",
            "-t",
            &f,
            "-f",
            "lirs",
            "-c",
            "5",
            "--prefetch",
            "linux6,none",
        ],
        Some(&fifo),
        "1\n2\nthree\n",
        &dir.path().join("tmp"),
    );
    assert_error_all(&r, &[&format!("{f}:3")]);
}

#[test]
fn a_sweep_over_a_fifo_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let src = lirs(dir.path(), "t.lirs");
    let text = std::fs::read_to_string(&src).unwrap();
    let fifo = mkfifo(dir.path(), "f");
    let exp = write(
        dir.path(),
        "e.toml",
        "policies = [\"lru\", \"opt\"]\nsizes = [\"10\", \"30\"]\nprefetch = [\"none\", \"linux6\"]\n\
         [[trace]]\npath = \"f\"\nformat = \"lirs\"\n",
    );
    let store = path_in(dir.path(), "s.sqlite");
    let r = with_fifo(
        &["sweep", &exp, "--store", &store, "--quiet"],
        Some(&fifo),
        &text,
        &dir.path().join("tmp"),
    );
    ok(&r);
    let rows = json_rows(&belady(&[
        "results", "export", "--store", &store, "--format", "json",
    ]));
    assert_eq!(rows.len(), 8, "2 policies x 2 sizes x 2 engines");
}

#[test]
fn a_small_file_size_limit_is_one_error_line_and_leaves_nothing_behind() {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..300_000).map(|i| format!("{}\n", i % 5000)).collect();
    let src = write(dir.path(), "big.lirs", &text);
    let work = dir.path().join("out");
    std::fs::create_dir(&work).unwrap();
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "convert", "-t", &src, "-f", "lirs", "--to", "csv", "-o", "o.csv",
            ],
            "o.csv",
        ),
        (
            &[
                "gen",
                "loop",
                "--blocks",
                "100",
                "--requests",
                "200000",
                "-o",
                "g.bldy",
            ],
            "spill file",
        ),
        (
            &[
                "gen",
                "loop",
                "--blocks",
                "100",
                "--requests",
                "200000",
                "--to",
                "lirs",
                "-o",
                "g.lirs",
            ],
            "g.lirs",
        ),
        (&["merge", &src, &src, "-o", "m.lirs"], "spill file"),
        (
            &["mrc", "-t", &src, "-f", "lirs", "--html", "m.html"],
            "m.html",
        ),
        (
            &["calibrate", "--dir", ".", "--size", "16MiB"],
            "belady-calibrate",
        ),
    ];
    for (args, names) in cases {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_belady"));
        cmd.args(args)
            .current_dir(&work)
            .env("TMPDIR", &work)
            .process_group(0)
            .stdin(std::process::Stdio::null());
        // 16 KiB: every output above is larger.
        let limit = libc::rlimit {
            rlim_cur: 16 << 10,
            rlim_max: 16 << 10,
        };
        // SAFETY: setrlimit is async-signal-safe; the child only sets its own limit.
        let out = unsafe {
            cmd.pre_exec(move || {
                if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) == 0 {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            })
        }
        .output()
        .unwrap();
        eprintln!("case {args:?}");
        assert_eq!(out.status.signal(), None, "{args:?} was killed by a signal");
        assert_error_all(&out, &["File too large", names]);
        let left: Vec<_> = std::fs::read_dir(&work)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
}

/// Runs `belady args` and returns its own peak resident memory in KiB (`wait4`, so other
/// tests' children do not count).
// The child is reaped by `wait4` (for its own rusage), which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn max_rss_kib(args: &[&str]) -> i64 {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{args:?} failed"
    );
    usage.ru_maxrss
}

#[test]
fn sim_memory_does_not_grow_with_the_number_of_finished_runs() {
    let dir = tempfile::tempdir().unwrap();
    // 10,000 references to distinct blocks: every run's cache fills.
    let text: String = (0..10_000u64)
        .map(|i| format!("{}\n", i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 24))
        .collect();
    let t = write(dir.path(), "u.lirs", &text);
    let sizes = |n: u64| {
        (1..=n)
            .map(|i| (i * 100).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let run = |n: u64| {
        max_rss_kib(&[
            "sim",
            "-t",
            &t,
            "-f",
            "lirs",
            "-p",
            "lru,arc,lirs",
            "-c",
            &sizes(n),
            "--threads",
            "2",
        ])
    };
    let (few, many) = (run(8), run(128));
    // 360 more finished runs kept their caches before (about 60 MiB more here); now only rows.
    assert!(
        many < few + 16 * 1024,
        "8 sizes: {few} KiB, 128 sizes: {many} KiB"
    );
    // A native trace through a FIFO: the block engine reads it once per group of runs, so it is
    // spooled rather than every run kept live at once.
    let native = path_in(dir.path(), "u.bldy");
    ok(&belady(&["convert", "-t", &t, "-f", "lirs", "-o", &native]));
    let bytes = std::fs::read(&native).unwrap();
    let fifo = mkfifo(dir.path(), "f");
    let f = fifo.display().to_string();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .open(&fifo)
            .and_then(|mut w| w.write_all(&bytes));
    });
    let piped = max_rss_kib(&[
        "sim",
        "-t",
        &f,
        "-p",
        "lru,arc,lirs",
        "-c",
        &sizes(128),
        "--threads",
        "2",
    ]);
    writer.join().unwrap();
    assert!(
        piped < few + 16 * 1024,
        "8 sizes: {few} KiB, 128 sizes from a FIFO: {piped} KiB"
    );
}

#[test]
fn times_and_rates_past_their_bounds_are_refused_naming_the_key_and_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let t = lirs(dir.path(), "t.lirs");
    let disk = write(
        dir.path(),
        "d.toml",
        "model = \"fixed\"\nlatency_ms = 1e15\n",
    );
    // Before: a panic ("a request not started is waiting").
    let r = run_sim(
        &t,
        "lirs",
        &["-c", "50", "--prefetch", "linux6", "--disk", &disk],
    );
    assert_error_all(&r, &["latency_ms", "d.toml", "3600000 (one hour)"]);
    let slow = write(
        dir.path(),
        "p.toml",
        "model = \"fixed\"\nlatency_ms = 1\nper_sector_ms = -1\n",
    );
    let r = run_sim(
        &t,
        "lirs",
        &["-c", "50", "--prefetch", "linux6", "--disk", &slow],
    );
    assert_error_all(&r, &["per_sector_ms", "p.toml", "0 to 3600000"]);
    let levels = ["--levels", "c:lru:50,s:lru:100", "--disk", "hdd"];
    for (flag, value, bound) in [
        // Before: a panic.
        ("--link-latency-us", "1e300", "3600000000 (one hour)"),
        // Before: faster than 1 Mb/s (the transfer time wrapped).
        ("--link-mbps", "1e-12", "0.001 to 1000000000 Mb/s"),
        // Before: 18446744073.7 s (saturated).
        ("--think-us", "1e300", "3600000000 (one hour)"),
    ] {
        let r = run_sim(&t, "lirs", &[&levels[..], &[flag, value]].concat());
        assert_error_all(&r, &[&format!("{flag} '{value}'"), bound]);
    }
    // A timestamp past 2^64 ns: before, stored as u64::MAX.
    let systor = write(
        dir.path(),
        "sy.csv",
        "Timestamp,Response,IOType,LUN,Offset,Size\n1e30,0.0001,R,0,4096,4096\n",
    );
    let r = run_sim(&systor, "systor", &["-c", "5"]);
    assert_error_all(&r, &["sy.csv:2", "timestamp '1e30'", "2^64 ns"]);
    let events = write(
        dir.path(),
        "e.events",
        "file 1 8192 /a\nopen - 0 1 3 1\nread - 1e30 1 3 1 0 4096\n",
    );
    let r = run_sim(&events, "events", &["-c", "5"]);
    assert_error_all(&r, &["e.events:3", "THINK '1e30'", "2^64 ns"]);
}

/// Runs `belady args` with its address space limited to `limit` bytes (`ulimit -v`).
fn under_memory_limit(args: &[&str], limit: u64) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_belady"));
    cmd.args(args);
    let lim = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: setrlimit is async-signal-safe; the child only lowers its own limit.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_AS, &lim) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        })
    }
    .output()
    .unwrap()
}

#[test]
fn files_declared_far_larger_than_what_the_trace_reads_are_refused_not_allocated() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    // A 1 TiB file read once: before, about 3.6 GB per run (an abort under a 2 GiB limit).
    let ev = write(
        dir.path(),
        "big.events",
        "file 1 1099511627776 /big\nopen - 0 1 3 1\nread - 0 1 3 1 0 4096\n",
    );
    let r = under_memory_limit(&["sim", "-t", &ev, "-f", "events", "-c", "10"], 2 << 30);
    assert_eq!(
        r.status.signal(),
        None,
        "killed: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert_error_all(
        &r,
        &[
            "big.events",
            "268435456 blocks",
            "declare the files' real sizes",
        ],
    );
    // What `record` makes of a program that seeks 1 TiB into a file and reads there.
    let data = write(dir.path(), "data.bin", "x");
    let log = write(
        dir.path(),
        "s.log",
        &format!(
            "7 1.000000 openat(AT_FDCWD, \"{data}\", O_RDONLY) = 3<{data}> <0.000010>\n\
             7 1.000100 lseek(3<{data}>, 1099511627776, SEEK_SET) = 1099511627776 <0.000001>\n\
             7 1.000200 read(3<{data}>, \"\"..., 4096) = 4096 <0.000010>\n\
             7 1.000300 pread64(3<{data}>, \"\"..., 4096, 1125899906842624) = 4096 <0.000010>\n\
             7 1.000400 close(3<{data}>) = 0 <0.000001>\n"
        ),
    );
    let rec = path_in(dir.path(), "rec.events");
    ok(&belady(&["record", "--from-strace", &log, "-o", &rec]));
    for extra in [&[][..], &["--prefetch", "linux6"], &["-p", "opt"]] {
        let r = under_memory_limit(
            &[&["sim", "-t", &rec, "-f", "events", "-c", "10"][..], extra].concat(),
            2 << 30,
        );
        assert_eq!(
            r.status.signal(),
            None,
            "killed: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        assert_error_all(&r, &["rec.events", "declare the files' real sizes"]);
    }
    // Files a little larger than what is read stay legal (read-ahead reaches up to their ends).
    let ok_ev = write(
        dir.path(),
        "ok.events",
        "file 1 1073741824 /one-gib\nopen - 0 1 3 1\nread - 0 1 3 1 0 4096\n",
    );
    ok(&run_sim(
        &ok_ev,
        "events",
        &["-c", "10", "--prefetch", "linux6"],
    ));
}

#[test]
fn opt_under_any_memory_limit_finishes_or_says_what_memory_it_lacked() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let t = path_in(dir.path(), "u.bldy");
    ok(&belady(&[
        "gen",
        "uniform",
        "--blocks",
        "1000",
        "--requests",
        "2000000",
        "-o",
        &t,
    ]));
    let args = ["sim", "-t", &t, "-p", "opt", "-c", "100", "--threads", "1"];
    let want = ok(&belady(&args));
    let mut refused = Vec::new();
    // From too little to start through enough: before, a band of limits aborted (SIGABRT) on
    // the references' or the next-use array's allocation.
    for mib in (28..=72).step_by(4) {
        let r = under_memory_limit(&args, mib << 20);
        let err = String::from_utf8_lossy(&r.stderr).into_owned();
        assert_eq!(r.status.signal(), None, "{mib} MiB: killed: {err}");
        if r.status.success() {
            assert_eq!(String::from_utf8_lossy(&r.stdout), want, "{mib} MiB");
        } else {
            assert_eq!(err.trim_end().lines().count(), 1, "{mib} MiB: {err}");
            assert!(err.starts_with("belady: error: "), "{mib} MiB: {err}");
            refused.push(err);
        }
    }
    assert!(
        refused.iter().any(|e| e.contains(
            "out of memory: OPT's next-use array for 2000000 references needs 8000000 bytes"
        )),
        "no limit reached OPT's array: {refused:?}"
    );
}
