//! Ctrl-C in a sweep: it says how many of the experiment's runs are stored and how to resume,
//! exits with 130, and the next run of the same command computes only the others.

mod common;
use common::*;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Rows in the store's runs table (0 while it does not exist yet).
fn stored(store: &str) -> usize {
    let Ok(db) =
        rusqlite::Connection::open_with_flags(store, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return 0;
    };
    db.query_row("SELECT count(*) FROM runs", [], |r| r.get::<_, i64>(0))
        .map_or(0, |n| n as usize)
}

#[test]
fn ctrl_c_says_what_is_stored_and_the_rerun_resumes() {
    let dir = tempfile::tempdir().unwrap();
    // Ten traces: each is its own grid, stored as it finishes, one at a time on one thread.
    let mut toml = String::from(
        "policies = [\"lru\", \"arc\", \"opt\"]\ncache_sizes = [\"1%\", \"2%\", \"5%\", \"10%\", \"20%\"]\n",
    );
    for t in 0..10u64 {
        let text: String = (0..60_000u64)
            .map(|i| format!("{}\n", (i * 7919 + t * 13) % (20_000 + t * 1000)))
            .collect();
        write(dir.path(), &format!("t{t}.lirs"), &text);
        toml.push_str(&format!(
            "[[trace]]\npath = \"t{t}.lirs\"\nformat = \"lirs\"\n"
        ));
    }
    let exp = write(dir.path(), "e.toml", &toml);
    let store = path_in(dir.path(), "r.sqlite");
    let total = 10 * 3 * 5;
    let sweep = [
        "sweep",
        exp.as_str(),
        "--store",
        store.as_str(),
        "--threads",
        "1",
    ];
    let child = Command::new(env!("CARGO_BIN_EXE_belady"))
        .args(sweep)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once some runs, not all, are stored.
    let start = Instant::now();
    while stored(&store) == 0 {
        assert!(start.elapsed() < Duration::from_secs(120), "nothing stored");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill sends a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("belady: interrupted: "))
        .unwrap_or_else(|| panic!("no interrupted line: {err}"));
    let n: usize = line["belady: interrupted: ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        line.contains(&format!(
            "{n} of the experiment's {total} runs are stored in {store}"
        )),
        "{line}"
    );
    assert!(
        line.contains("run the same command again to resume"),
        "{line}"
    );
    assert!(n > 0 && n < total, "interrupted after all runs: {line}");
    // The count is the store's (a run finishing after the count is a later whole row).
    let now = stored(&store);
    assert!(now >= n, "{now} rows, {n} said");
    // Rerunning computes only the runs not stored.
    let again = belady(&sweep);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "{total} runs: {} done now, {now} already in {store}",
            total - now
        )),
        "{err}"
    );
}
