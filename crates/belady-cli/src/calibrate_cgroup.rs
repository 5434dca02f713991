//! The memory cgroups `belady calibrate replacement` measures in: found (cgroup v2 where its
//! memory controller is enabled, v1 otherwise), created with a limit for one measured run, and
//! removed, also when a stop signal arrives ([`crate::on_signal::kill_and_remove_cgroup`]).

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// Which cgroup interface a hierarchy speaks.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Version {
    /// cgroup v1's memory controller: `memory.limit_in_bytes`.
    V1,
    /// cgroup v2 (unified): `memory.max`.
    V2,
}

/// Where new cgroups go: a directory of a hierarchy with the memory controller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parent {
    /// The hierarchy's interface.
    pub version: Version,
    /// The directory new cgroups are created in.
    pub dir: PathBuf,
}

/// Finds where to create memory cgroups: under cgroup v2's root when the memory controller is
/// enabled for its children, otherwise in cgroup v1's memory hierarchy under the cgroup this
/// process is in (so that a limit set on the session still applies). `mountinfo` and
/// `self_cgroup` are the texts of /proc/self/mountinfo and /proc/self/cgroup; `read` reads a
/// cgroup file.
pub fn find_parent(
    mountinfo: &str,
    self_cgroup: &str,
    read: impl Fn(&Path) -> Option<String>,
) -> Result<Parent> {
    let mut v2_without_memory = None;
    let mut v1 = None;
    for line in mountinfo.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let mut fields = left.split(' ');
        let root = fields.nth(3).map(unescape_mount).unwrap_or_default();
        let mount = fields.next().map(unescape_mount);
        let mut rest = right.split(' ');
        let (fstype, options) = (rest.next(), rest.nth(1).unwrap_or(""));
        match (fstype, mount) {
            (Some("cgroup2"), Some(m)) => {
                let m = PathBuf::from(m);
                let enabled = read(&m.join("cgroup.subtree_control")).unwrap_or_default();
                if enabled.split_whitespace().any(|c| c == "memory") {
                    return Ok(Parent {
                        version: Version::V2,
                        dir: m,
                    });
                }
                v2_without_memory = Some(m);
            }
            (Some("cgroup"), Some(m)) if options.split(',').any(|o| o == "memory") => {
                v1.get_or_insert((PathBuf::from(m), root));
            }
            _ => {}
        }
    }
    if let Some((root, mounted)) = v1 {
        // "4:memory:/a/b": this process's memory cgroup, relative to the hierarchy's root; the
        // mount shows the hierarchy from `mounted` down (a container's mount starts deeper).
        let own = self_cgroup.lines().find_map(|l| {
            let mut f = l.splitn(3, ':');
            let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
            let path = path
                .strip_prefix(mounted.trim_end_matches('/'))
                .unwrap_or(path);
            controllers
                .split(',')
                .any(|c| c == "memory")
                .then(|| path.trim_start_matches('/').to_string())
        });
        let dir = match own {
            Some(p) if !p.is_empty() && read(&root.join(&p).join("cgroup.procs")).is_some() => {
                root.join(p)
            }
            _ => root,
        };
        return Ok(Parent {
            version: Version::V1,
            dir,
        });
    }
    match v2_without_memory {
        Some(m) => bail!(
            "no memory cgroup to measure in: cgroup v2 at {} does not enable the memory controller \
             for its children (not in cgroup.subtree_control) and no cgroup v1 memory hierarchy is \
             mounted; pass --cgroup-parent DIR",
            m.display()
        ),
        None => bail!(
            "no memory cgroup to measure in: neither cgroup v2 nor a cgroup v1 memory hierarchy \
             is mounted"
        ),
    }
}

/// Mount points escape spaces and backslashes as octal (`\040`).
fn unescape_mount(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let code: String = chars.clone().take(3).collect();
            if let Ok(v) = u8::from_str_radix(&code, 8) {
                out.push(v as char);
                chars.nth(2);
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// This machine's parent: from `--cgroup-parent` (its interface told by its files) or found.
pub fn parent(given: Option<&Path>) -> Result<Parent> {
    if let Some(dir) = given {
        let version = if dir.join("cgroup.controllers").exists() {
            Version::V2
        } else if dir.join("memory.limit_in_bytes").exists() {
            Version::V1
        } else {
            bail!(
                "--cgroup-parent {}: not a memory cgroup (no cgroup.controllers, no \
                 memory.limit_in_bytes)",
                dir.display()
            );
        };
        return Ok(Parent {
            version,
            dir: dir.to_path_buf(),
        });
    }
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo")
        .context("cannot read /proc/self/mountinfo")?;
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    find_parent(&mountinfo, &own, |p| std::fs::read_to_string(p).ok())
}

/// A memory cgroup this process created for one run; removed when dropped.
pub struct Cgroup {
    path: PathBuf,
    version: Version,
}

static CREATED: AtomicU32 = AtomicU32::new(0);

impl Cgroup {
    /// Creates a new cgroup under `parent` limited to `limit` bytes (the kernel rounds it down to
    /// whole pages). It is listed for removal on a stop signal before it exists.
    pub fn create(parent: &Parent, limit: u64) -> Result<Cgroup> {
        let n = CREATED.fetch_add(1, Ordering::SeqCst);
        let path = parent
            .dir
            .join(format!("belady-calibrate-{}-{n}", std::process::id()));
        crate::on_signal::kill_and_remove_cgroup(0, Some(&path));
        if let Err(e) = std::fs::create_dir(&path) {
            crate::on_signal::kill_and_remove_cgroup(0, None);
            return Err(anyhow::Error::new(e).context(format!(
                "cannot create the memory cgroup {}",
                path.display()
            )));
        }
        let cg = Cgroup {
            path,
            version: parent.version,
        };
        let file = match cg.version {
            Version::V1 => "memory.limit_in_bytes",
            Version::V2 => "memory.max",
        };
        std::fs::write(cg.path.join(file), limit.to_string())
            .with_context(|| format!("cannot set {}", cg.path.join(file).display()))?;
        Ok(cg)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file a process writes its pid (or 0, itself) to, to join.
    pub fn procs(&self) -> PathBuf {
        self.path.join("cgroup.procs")
    }

    /// The statistics file; reading it flushes the cgroup's statistics.
    pub fn stat(&self) -> PathBuf {
        self.path.join("memory.stat")
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // The last task left when its process was reaped; the kernel may still be tearing it
        // down for a moment.
        for _ in 0..100 {
            match std::fs::remove_dir(&self.path) {
                Ok(()) => break,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
            }
        }
        crate::on_signal::kill_and_remove_cgroup(0, None);
    }
}

/// Whether the running kernel has the multi-generational LRU on (`/sys/kernel/mm/lru_gen/enabled`
/// nonzero): `Some(false)` when the file says 0x0000, `None` when there is no such file (a
/// kernel built without `CONFIG_LRU_GEN`).
pub fn lru_gen_enabled() -> Option<bool> {
    let text = std::fs::read_to_string("/sys/kernel/mm/lru_gen/enabled").ok()?;
    let v = u64::from_str_radix(text.trim().trim_start_matches("0x"), 16).unwrap_or(0);
    Some(v != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1_ONLY: &str = "\
35 25 0:30 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755
36 35 0:31 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
38 35 0:33 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
45 35 0:40 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";

    fn files(present: &'static [(&'static str, &'static str)]) -> impl Fn(&Path) -> Option<String> {
        move |p: &Path| {
            present
                .iter()
                .find(|(k, _)| Path::new(k) == p)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn v1_under_this_process_cgroup_when_v2_has_no_memory() {
        let own = "4:memory:/session/abc\n0::/\n";
        let read = files(&[
            ("/sys/fs/cgroup/unified/cgroup.subtree_control", "hugetlb\n"),
            ("/sys/fs/cgroup/memory/session/abc/cgroup.procs", "1\n"),
        ]);
        assert_eq!(
            find_parent(V1_ONLY, own, read).unwrap(),
            Parent {
                version: Version::V1,
                dir: "/sys/fs/cgroup/memory/session/abc".into()
            }
        );
        // At the root of the hierarchy, or in a cgroup that is not there: the root.
        let p = find_parent(V1_ONLY, "4:memory:/\n", files(&[])).unwrap();
        assert_eq!(p.dir, PathBuf::from("/sys/fs/cgroup/memory"));
    }

    #[test]
    fn v2_when_its_memory_controller_is_enabled() {
        let info = "30 1 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";
        let read = files(&[(
            "/sys/fs/cgroup/cgroup.subtree_control",
            "cpu io memory pids\n",
        )]);
        assert_eq!(
            find_parent(info, "0::/user.slice\n", read).unwrap(),
            Parent {
                version: Version::V2,
                dir: "/sys/fs/cgroup".into()
            }
        );
        // v2 preferred over v1 when both could serve.
        let both = format!("{V1_ONLY}{info}");
        let read = files(&[("/sys/fs/cgroup/cgroup.subtree_control", "memory\n")]);
        assert_eq!(find_parent(&both, "", read).unwrap().version, Version::V2);
    }

    #[test]
    fn no_memory_controller_is_one_line_naming_what_was_found() {
        let info = "30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        let err = find_parent(info, "", files(&[])).unwrap_err().to_string();
        assert!(
            err.contains("/sys/fs/cgroup does not enable the memory controller"),
            "{err}"
        );
        assert!(!err.contains('\n'));
        let err = find_parent("", "", files(&[])).unwrap_err().to_string();
        assert!(err.contains("neither cgroup v2 nor"), "{err}");
    }

    #[test]
    fn mount_points_with_escaped_spaces() {
        assert_eq!(unescape_mount("/mnt/a\\040b"), "/mnt/a b");
        assert_eq!(unescape_mount("/plain"), "/plain");
    }
}
