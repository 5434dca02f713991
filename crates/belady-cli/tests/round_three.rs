//! Regression tests for issue #37, "Nothing lost, nothing wrong, round three": capacities near
//! 2^64 and far past the trace, native size totals, spools on signals, chart files linked to the
//! store, concurrent sweeps, read-only exports, the file-size limit, and messages.

mod common;

use common::*;

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `belady ARGS` in `dir` with resource limit `resource` (RLIMIT_AS, RLIMIT_FSIZE) at `bytes`.
fn belady_limited(
    dir: &Path,
    resource: libc::__rlimit_resource_t,
    bytes: u64,
    args: &[&str],
) -> std::process::Output {
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_belady"));
    cmd.args(args).current_dir(dir).stdin(Stdio::null());
    // SAFETY: setrlimit is async-signal-safe; the child only sets its own limit.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setrlimit(resource, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        })
    }
    .output()
    .unwrap()
}

/// `belady ARGS` in `dir` with its address space capped at `bytes`.
fn belady_capped(dir: &Path, bytes: u64, args: &[&str]) -> std::process::Output {
    belady_limited(dir, libc::RLIMIT_AS, bytes, args)
}

/// A FIFO at `path`.
fn make_fifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo reads the NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A lirs trace of 5,000 references over 1,000 blocks (`7 i mod 1000`, so every block five times).
fn small_trace(dir: &Path) -> String {
    let text: String = (0..5000).map(|i| format!("{}\n", (i * 7) % 1000)).collect();
    write(dir, "z.lirs", &text)
}

/// Every way a frequency sketch is built, at capacities of 2^62, 2^64 - 1 and 40 TiB on a trace
/// of 1,000 blocks: no panic (the sketch width once wrapped to zero: index out of bounds,
/// remainder by zero), no 64 GiB allocation (the run is capped at 4 GiB of address space), and
/// the rows of a cache that never evicts: every block missed once.
#[test]
fn sketches_are_sized_by_the_trace_not_the_capacity() {
    let dir = tempfile::tempdir().unwrap();
    let trace = small_trace(dir.path());
    let cap = 4u64 << 30;
    for size in ["4611686018427387904", "18446744073709551615", "40TiB"] {
        let runs: [&[&str]; 6] = [
            &["-p", "lru", "--admission", "tinylfu"],
            &["-p", "wtinylfu"],
            &["-p", "wtinylfu", "--preset", "libcachesim"],
            &[
                "-p",
                "lru,wtinylfu",
                "--admission",
                "tinylfu",
                "--prefetch",
                "linux6",
            ],
            &["-p", "wtinylfu", "--disk", "hdd"],
            &[
                "-p",
                "arc,wtinylfu",
                "--admission",
                "tinylfu",
                "--prefetch",
                "none,linux24",
            ],
        ];
        for extra in runs {
            let args = [
                &["sim", "-t", &trace, "-f", "lirs", "-c", size, "--json"][..],
                extra,
            ]
            .concat();
            let out = belady_capped(dir.path(), cap, &args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{args:?}: {err}");
            let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
            assert!(!rows.is_empty());
            // The same runs with the cache exactly the trace's 1,000 blocks: no eviction either,
            // so every counter but the capacity is the same.
            let exact = [
                &["sim", "-t", &trace, "-f", "lirs", "-c", "1000", "--json"][..],
                extra,
            ]
            .concat();
            let want = json_rows(&belady(&exact));
            assert_eq!(rows.len(), want.len());
            for (mut r, mut w) in rows.into_iter().zip(want) {
                assert_eq!(r["evictions"].as_u64(), Some(0), "{args:?}: {r}");
                for row in [&mut r, &mut w] {
                    let row = row.as_object_mut().unwrap();
                    for key in ["cache_blocks", "cache_bytes", "cache_size", "capacity"] {
                        row.remove(key);
                    }
                }
                assert_eq!(r, w, "{args:?}");
            }
        }
        // A hierarchy whose levels filter or sketch, and the MRC.
        let levels = format!("client:lru:100,storage:wtinylfu:{size}");
        let args = [
            "sim", "-t", &trace, "-f", "lirs", "--levels", &levels, "--json",
        ];
        let out = belady_capped(dir.path(), cap, &args);
        if size == "18446744073709551615" {
            // 100 + 2^64-1 blocks: no row could report the total.
            assert_error(&out, "add up to more than 2^64-1 blocks");
        } else {
            assert!(
                out.status.success(),
                "levels at {size}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let out = belady_capped(
            dir.path(),
            cap,
            &[
                "mrc",
                "-t",
                &trace,
                "-f",
                "lirs",
                "--policy",
                "wtinylfu",
                "-c",
                &format!("100,{size}"),
            ],
        );
        assert!(
            out.status.success(),
            "mrc at {size}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A sweep with one such size among valid ones stores every run instead of panicking with none.
#[test]
fn a_sweep_with_a_2_to_the_64_size_stores_every_run() {
    let dir = tempfile::tempdir().unwrap();
    small_trace(dir.path());
    let exp = write(
        dir.path(),
        "e.toml",
        "policies = [\"wtinylfu\", \"lru\"]\nsizes = [\"100\", \"18446744073709551615\"]\n\
         admission = \"tinylfu\"\n[[trace]]\npath = \"z.lirs\"\nformat = \"lirs\"\n",
    );
    let store = path_in(dir.path(), "s.sqlite");
    let out = belady(&["sweep", &exp, "--store", &store, "--quiet"]);
    ok(&out);
    let csv = ok(&belady(&["results", "export", "--store", &store]));
    assert_eq!(csv.lines().count(), 1 + 4, "{csv}");
}

/// Writes a native trace with object sizes (`gen --sizes`) and returns its path and the offset
/// of its footprint word in the header.
fn sized_native(dir: &Path) -> (String, usize) {
    let path = path_in(dir, "s.native");
    ok(&belady(&[
        "gen",
        "zipf",
        "--requests",
        "20000",
        "--blocks",
        "2000",
        "--sizes",
        "pareto:1KiB,1.2,1MiB",
        "-o",
        &path,
    ]));
    let bytes = std::fs::read(&path).unwrap();
    // Header (40 bytes), source name (u32 length + bytes), then requested and footprint.
    let len = u32::from_le_bytes(bytes[40..44].try_into().unwrap()) as usize;
    (path, 44 + len + 8)
}

/// CRC-32 (IEEE, reflected), as the native format's checksum.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// A native header whose footprint was rewritten (checksum recomputed) is refused by every
/// command that reads it, naming the file and the totals' offset; `-c 50%` once sized the cache
/// from the header while OPT, `stats` and `mrc` used the true footprint.
#[test]
fn a_rewritten_native_footprint_is_refused_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let (path, at) = sized_native(dir.path());
    let mut bytes = std::fs::read(&path).unwrap();
    let footprint = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    for fake in [footprint * 4, footprint / 2, footprint + 1] {
        bytes[at..at + 8].copy_from_slice(&fake.to_le_bytes());
        let end = bytes.len() - 4;
        let crc = crc32(&bytes[..end]);
        bytes[end..].copy_from_slice(&crc.to_le_bytes());
        let bad = path_in(dir.path(), "bad.native");
        std::fs::write(&bad, &bytes).unwrap();
        let needles = ["bad.native", "inconsistent header", "size totals"];
        for args in [
            &["sim", &bad, "-p", "lru", "-c", "50%"][..],
            &[
                "sim",
                &bad,
                "-p",
                "lru,opt",
                "-c",
                "50%",
                "--cache-model",
                "objects",
            ],
            &["sim", &bad, "-p", "lru", "-c", "100", "--ops", "read"],
            &["stats", &bad],
            &["mrc", &bad, "--policy", "lru", "-c", "10%"],
        ] {
            let out = belady(args);
            assert_error_all(&out, &needles);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(&format!("byte offset {}", at - 8)),
                "{args:?}: {err}"
            );
        }
    }
    // The untouched file reads.
    ok(&belady(&["sim", &path, "-p", "lru", "-c", "50%"]));
}

/// The spool of an input readable once (`.belady-spool-*` in `$TMPDIR`, a whole decompressed
/// copy of the trace) is removed when `sim` or `sweep` is told to stop by SIGINT, SIGTERM or
/// SIGHUP, and the process still dies of the signal.
#[test]
fn signals_remove_the_input_spool() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // Long enough that the runs last well beyond the moment the spool is complete.
    let text: String = (0..1_500_000)
        .map(|i| format!("{}\n", (i * 7) % 20_000))
        .collect();
    let exp_dir = dir.path().join("e");
    std::fs::create_dir(&exp_dir).unwrap();
    for signal in [
        ("INT", libc::SIGINT),
        ("TERM", libc::SIGTERM),
        ("HUP", libc::SIGHUP),
    ] {
        let fifo = dir.path().join(format!("in-{}", signal.0));
        make_fifo(&fifo);
        let fifo_s = fifo.display().to_string();
        std::fs::write(
            exp_dir.join("e.toml"),
            format!(
                "policies = [\"lru\", \"arc\", \"lirs\"]\nsizes = [\"1000\", \"5000\"]\n\
                 [[trace]]\npath = \"{fifo_s}\"\nformat = \"lirs\"\n"
            ),
        )
        .unwrap();
        let store = path_in(dir.path(), "s.sqlite");
        let exp = exp_dir.join("e.toml").display().to_string();
        let commands: [Vec<&str>; 2] = [
            vec![
                "sim",
                "-t",
                &fifo_s,
                "-f",
                "lirs",
                "-p",
                "lru,arc,lirs,opt",
                "-c",
                "1000",
                "--prefetch",
                "none,linux6,linux24",
            ],
            vec![
                "sweep",
                &exp,
                "--store",
                &store,
                "--quiet",
                "--threads",
                "1",
            ],
        ];
        for args in commands {
            let feed = {
                let (fifo, text) = (fifo.clone(), text.clone());
                std::thread::spawn(move || {
                    use std::io::Write;
                    // The reader may die before it has read everything: a broken pipe is fine.
                    if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&fifo) {
                        let _ = f.write_all(text.as_bytes());
                    }
                })
            };
            let mut child = Command::new(env!("CARGO_BIN_EXE_belady"))
                .args(&args)
                .env("TMPDIR", &tmp)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            // Wait until the spool holds the whole trace (it is complete before any run starts).
            let start = Instant::now();
            let mut seen = false;
            while start.elapsed() < Duration::from_secs(120) {
                let spooled = names(&tmp).iter().any(|n| {
                    n.starts_with(".belady-spool-")
                        && std::fs::metadata(tmp.join(n))
                            .is_ok_and(|m| m.len() == text.len() as u64)
                });
                if spooled {
                    seen = true;
                    break;
                }
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            assert!(seen, "{args:?}: no complete spool appeared while it ran");
            // SAFETY: kill sends a signal to our own child.
            assert_eq!(unsafe { libc::kill(child.id() as i32, signal.1) }, 0);
            let status = child.wait().unwrap();
            feed.join().unwrap();
            if args[0] == "sweep" && signal.0 == "INT" && status.code().is_some() {
                // Ctrl-C in a sweep whose runs have started says what it stored and exits 130.
                assert_eq!(status.code(), Some(130), "{args:?}");
            } else {
                assert_eq!(
                    status.signal(),
                    Some(signal.1),
                    "{args:?} did not die of SIG{}",
                    signal.0
                );
            }
            assert!(
                names(&tmp).is_empty(),
                "{args:?} after SIG{} left {:?}",
                signal.0,
                names(&tmp)
            );
        }
        std::fs::remove_file(&fifo).unwrap();
    }
}

/// A one-trace experiment over `trace` (in `dir`) with `policies` and `sizes`; its path.
fn experiment(dir: &Path, trace: &str, policies: &str, sizes: &str) -> String {
    write(
        dir,
        "e.toml",
        &format!(
            "policies = [{policies}]\nsizes = [{sizes}]\n[[trace]]\npath = \"{trace}\"\nformat = \"lirs\"\n"
        ),
    )
}

/// A store swept from [`small_trace`] in `dir` with `policies` and `sizes` (TOML lists' items).
fn swept_store(dir: &Path, policies: &str, sizes: &str) -> String {
    small_trace(dir);
    let exp = experiment(dir, "z.lirs", policies, sizes);
    let store = path_in(dir, "s.sqlite");
    ok(&belady(&["sweep", &exp, "--store", &store, "--quiet"]));
    store
}

/// `report --svg-dir` refuses a chart file that is a link to the store it reads (the `-o` page
/// was checked, the charts were not), leaving the store intact.
#[test]
fn a_chart_file_linked_to_the_store_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = swept_store(dir.path(), "\"lru\", \"arc\"", "\"100\", \"500\"");
    let svgs = dir.path().join("charts");
    let page = path_in(dir.path(), "r.html");
    let svg_dir = svgs.display().to_string();
    ok(&belady(&[
        "report",
        "--store",
        &store,
        "-o",
        &page,
        "--svg-dir",
        &svg_dir,
    ]));
    let charts = names(&svgs);
    assert!(!charts.is_empty());
    let before = std::fs::read(&store).unwrap();
    for victim in [&charts[0], charts.last().unwrap()] {
        let link = svgs.join(victim);
        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(&store, &link).unwrap();
        let out = belady(&[
            "report",
            "--store",
            &store,
            "-o",
            &page,
            "--svg-dir",
            &svg_dir,
        ]);
        assert_error_all(&out, &["--svg-dir", "s.sqlite", "is the input"]);
        assert_eq!(
            std::fs::read(&store).unwrap(),
            before,
            "the store is unchanged"
        );
        std::fs::remove_file(&link).unwrap();
    }
}

/// `results export` and `report` read the store without creating `-wal` or `-shm` files beside
/// it (docs/limits.md: it is opened immutable).
#[test]
fn reading_a_store_creates_nothing_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    small_trace(dir.path());
    let exp = experiment(dir.path(), "z.lirs", "\"lru\"", "\"100\"");
    let store_dir = dir.path().join("store");
    std::fs::create_dir(&store_dir).unwrap();
    let store = path_in(&store_dir, "s.sqlite");
    ok(&belady(&["sweep", &exp, "--store", &store, "--quiet"]));
    assert_eq!(names(&store_dir), ["s.sqlite"]);
    // While an export waits to write (its output a FIFO nobody reads yet), the store is open:
    // a read-write connection would have made its -wal and -shm files by then.
    let fifo = dir.path().join("fifo");
    make_fifo(&fifo);
    let fifo_s = fifo.display().to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(["results", "export", "--store", &store, "-o", &fifo_s])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let while_open = names(&store_dir);
    let drained = std::fs::read_to_string(&fifo).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(while_open, ["s.sqlite"], "while the export runs");
    assert_eq!(drained.lines().count(), 2, "{drained}");
    let out = path_in(dir.path(), "out.csv");
    for args in [
        &["results", "export", "--store", &store][..],
        &[
            "results", "export", "--store", &store, "--format", "json", "-o", &out,
        ],
        &[
            "results", "export", "--store", &store, "--format", "parquet", "-o", &out,
        ],
        &[
            "report",
            "--store",
            &store,
            "-o",
            &path_in(dir.path(), "r.html"),
        ],
    ] {
        ok(&belady(args));
        assert_eq!(names(&store_dir), ["s.sqlite"], "{args:?}");
    }
}

/// An export stopped by the file-size limit says which output could not be written and the
/// limit, not that the store is unusable ("not a usable results store: disk I/O error").
#[test]
fn an_export_past_the_file_size_limit_names_the_output_and_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let store = swept_store(
        dir.path(),
        "\"lru\", \"arc\", \"lirs\", \"fifo\", \"clock\", \"2q\"",
        "\"10\", \"20\", \"50\", \"100\", \"200\", \"500\"",
    );
    let work = dir.path().join("out");
    std::fs::create_dir(&work).unwrap();
    for format in ["csv", "json", "parquet"] {
        // 8 KiB: each export of 36 runs is larger.
        let out = belady_limited(
            &work,
            libc::RLIMIT_FSIZE,
            8 << 10,
            &[
                "results", "export", "--store", &store, "--format", format, "-o", "x.out",
            ],
        );
        let err = assert_error_all(&out, &["x.out", "file-size limit", "8192 bytes"]);
        assert!(!err.contains("results store"), "{format}: {err}");
        assert!(names(&work).is_empty(), "{format} left {:?}", names(&work));
    }
}

/// Two sweeps on one store: the second waits for the runs the first claimed instead of exiting
/// 0 at once, and when the first is killed with `kill -9` it takes them over, so its exit 0
/// means every run is stored.
#[test]
fn a_second_sweep_exits_0_only_when_every_run_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..2_000_000u64)
        .map(|i| format!("{}\n", (i * 7919) % 50_000))
        .collect();
    write(dir.path(), "big.lirs", &text);
    let exp = experiment(
        dir.path(),
        "big.lirs",
        "\"lru\", \"arc\", \"lirs\", \"opt\", \"clock-pro\", \"car\"",
        "\"1000\", \"5000\", \"20000\"",
    );
    let store = path_in(dir.path(), "s.sqlite");
    let sweep = || {
        Command::new(env!("CARGO_BIN_EXE_belady"))
            .args([
                "sweep",
                &exp,
                "--store",
                &store,
                "--quiet",
                "--threads",
                "1",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut first = sweep();
    // Wait until the first has claimed its runs.
    let db = dir.path().join("s.sqlite");
    let start = Instant::now();
    loop {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the first sweep never claimed its 18 runs"
        );
        let n =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .and_then(|c| {
                    c.query_row("SELECT COUNT(*) FROM claims", [], |r| r.get::<_, i64>(0))
                })
                .unwrap_or(0);
        if n == 18 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut second = sweep();
    std::thread::sleep(Duration::from_millis(800));
    assert!(
        second.try_wait().unwrap().is_none(),
        "the second sweep returned while the first held every run"
    );
    first.kill().unwrap(); // SIGKILL: no handler runs, its claims stay
    first.wait().unwrap();
    let out = second.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = ok(&belady(&["results", "export", "--store", &store]));
    assert_eq!(
        csv.lines().count(),
        1 + 18,
        "exit 0 means every run is stored"
    );
}

/// `convert` of a trace with writes to oracle-general gives its advice without a run of spaces
/// ("convert with        --ops read"), and `gen --help` has none inside its sentences.
#[test]
fn advice_and_help_have_no_runs_of_spaces() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(
        dir.path(),
        "t.csv",
        "block,op,time_ns\n1,R,1000000000\n2,W,3000000000\n1,R,7000000000\n",
    );
    let lcs = path_in(dir.path(), "w.lcs");
    let fmt = [
        "-f",
        "csv",
        "--header",
        "--columns",
        "block=0,op=1,time=2:ns",
    ];
    ok(&belady(
        &[&["convert", &csv][..], &fmt, &["--to", "lcs", "-o", &lcs]].concat(),
    ));
    let og = path_in(dir.path(), "w.og");
    let err = assert_error(
        &belady(&["convert", &lcs, "--to", "oracle-general", "-o", &og]),
        "convert with --ops read, or --to lcs",
    );
    assert!(!err.contains("  "), "{err}");
    let help = ok(&belady(&["gen", "zipf", "--help"]));
    for phrase in [
        "lirs or oracle-general (libCacheSim's",
        "kept by native and oracle-general)",
    ] {
        assert!(help.contains(phrase), "{phrase:?} in {help}");
    }
    // Every command's help: past the options' column, no sentence holds a run of spaces.
    for cmd in [
        &["sim"][..],
        &["convert"],
        &["gen", "zipf"],
        &["gen", "sequential-files"],
        &["mrc"],
        &["sweep"],
        &["results", "export"],
        &["report"],
        &["stats"],
        &["merge"],
        &["record"],
        &["disk"],
        &["distances"],
        &["calibrate"],
        &["demo"],
    ] {
        let help = ok(&belady(&[cmd, &["--help"]].concat()));
        for line in help.lines() {
            let text = line.trim_start();
            // An option's line: its names, then two or more spaces, then its help.
            let text = if text.starts_with('-') {
                text.split_once("  ").map_or("", |(_, h)| h.trim_start())
            } else {
                text
            };
            assert!(!text.contains("   "), "{cmd:?} --help: {line:?}");
        }
    }
}

/// `report --policies` takes a policy as sweeps do: `LRU` and `segmented-lru` are `lru` and
/// `slru`.
#[test]
fn report_takes_policy_names_as_sweeps_do() {
    let dir = tempfile::tempdir().unwrap();
    let store = swept_store(dir.path(), "\"LRU\", \"slru\", \"arc\"", "\"100\", \"500\"");
    let page = path_in(dir.path(), "r.html");
    for names in ["LRU", "lru,Segmented-LRU", "Arc,SLRU"] {
        ok(&belady(&[
            "report",
            "--store",
            &store,
            "-o",
            &page,
            "--policies",
            names,
        ]));
    }
    assert_error(
        &belady(&[
            "report",
            "--store",
            &store,
            "-o",
            &page,
            "--policies",
            "lirs",
        ]),
        "no run in the store has policy 'lirs'",
    );
}

/// `--seed`'s help and docs/output.md name every policy that draws from the seed (the
/// catalogue's list, checked against the policies' behaviour in `policy::conformance`).
#[test]
fn the_seed_help_names_every_seeded_policy() {
    let help = ok(&belady(&["sim", "--help"]));
    let line = help
        .lines()
        .skip_while(|l| !l.contains("--seed"))
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/output.md"))
        .unwrap();
    let para = doc
        .split("\n\n")
        .find(|p| p.starts_with("`--seed`"))
        .expect("docs/output.md has the --seed paragraph");
    for name in belady_core::policy::catalog::SEEDED {
        assert!(line.contains(name), "{name} in: {line}");
        assert!(para.contains(&format!("`{name}`")), "{name} in: {para}");
    }
}
