//! One configuration (issue 17, item 3): `sim --print-config` prints the run the flags describe,
//! and `sim --config` on that file prints the same bytes as the flags did, on every engine.

use std::path::Path;
mod common;
use common::{belady, ok};

/// `belady ARGS`, which must succeed; its stdout.
fn stdout_of(args: &[&str]) -> String {
    ok(&belady(args))
}

/// A LIRS trace of runs of consecutive blocks (so read-ahead has something to find) with reuse.
fn trace(dir: &Path) -> String {
    let text: String = (0..3000u32)
        .map(|i| format!("{}\n", (i / 40) % 25 * 40 + i % 40 + (i % 7) * 3))
        .collect();
    let path = dir.join("t.trace");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn a_printed_config_runs_to_the_same_bytes_on_every_engine() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(dir.path());
    let flag_sets: [&[&str]; 4] = [
        &["-p", "lru,arc,opt", "-c", "50,10%"],
        &[
            "-p",
            "lru,lirs",
            "-c",
            "100",
            "--prefetch",
            "none,linux24",
            "--disk",
            "cheetah9lp",
            "--scheduler",
            "clook",
        ],
        &[
            "--levels",
            "client:lru:50,storage:mq:150",
            "--placement",
            "access,eviction",
            "--disk",
            "hdd7200",
        ],
        &[
            "--levels",
            "client:lru:50,storage:lru:150",
            "--prefetch",
            "ondemand",
        ],
    ];
    let config = dir.path().join("run.json");
    let config = config.to_str().unwrap();
    for flags in flag_sets {
        let base: Vec<&str> = ["sim", "-t", t.as_str(), "-f", "lirs"]
            .into_iter()
            .chain(flags.iter().copied())
            .collect();
        for output in [&["--json"][..], &[]] {
            let with = |extra: &[&str]| -> Vec<String> {
                base.iter()
                    .chain(extra)
                    .chain(output)
                    .map(|s| s.to_string())
                    .collect()
            };
            let args = with(&[]);
            let rows = stdout_of(&args.iter().map(String::as_str).collect::<Vec<_>>());
            let print = with(&["--print-config"]);
            let printed = stdout_of(&print.iter().map(String::as_str).collect::<Vec<_>>());
            std::fs::write(config, &printed).unwrap();
            let mut from_file = vec!["sim", "--config", config];
            from_file.extend(output);
            assert_eq!(stdout_of(&from_file), rows, "{flags:?} {output:?}");
            // The file's configuration prints back as it was written.
            assert_eq!(
                stdout_of(&["sim", "--config", config, "--print-config"]),
                printed
            );
        }
    }
}

#[test]
fn a_config_file_alone_describes_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(dir.path());
    let toml = dir.path().join("run.toml");
    std::fs::write(
        &toml,
        format!(
            "trace = \"{t}\"\nformat = \"lirs\"\npolicies = [\"lru\"]\ncache_sizes = [\"50\"]\n"
        ),
    )
    .unwrap();
    let toml = toml.to_str().unwrap();
    assert_eq!(
        stdout_of(&["sim", "--config", toml, "--json"]),
        stdout_of(&["sim", &t, "-f", "lirs", "-c", "50", "--json"])
    );
    // Run options beside the file are refused, naming them; the trace too (clap's conflict).
    let out = belady(&["sim", "--config", toml, "-c", "10", "--prefetch", "linux24"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("--cache-size") && err.contains("--prefetch") && err.lines().count() == 1,
        "{err}"
    );
    let out = belady(&["sim", &t, "--config", toml]);
    assert!(!out.status.success());
    // A bad key: one line naming the file, the line and the key.
    std::fs::write(
        dir.path().join("bad.json"),
        "{\n  \"trace\": \"x\",\n  \"polices\": []\n}\n",
    )
    .unwrap();
    let bad = dir.path().join("bad.json");
    let out = belady(&["sim", "--config", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("{}:3:", bad.display())) && err.contains("unknown field `polices`"),
        "{err}"
    );
    // Core errors name keys: from a file the CLI names the file, the line and the key (it
    // named flags the file's author never wrote, issue 37).
    std::fs::write(
        dir.path().join("q.json"),
        format!("{{\"trace\": \"{t}\", \"format\": \"lirs\", \"cache_sizes\": [\"5\"], \"cf_queue\": 3}}"),
    )
    .unwrap();
    let out = belady(&[
        "sim",
        "--config",
        dir.path().join("q.json").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("q.json:1: invalid `cf_queue` 'given'") && !err.contains("--"),
        "{err}"
    );
}
