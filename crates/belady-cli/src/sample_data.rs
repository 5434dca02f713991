//! The shipped sample traces (`data/`), compiled into the binary so that an installed `belady
//! demo` runs from any directory, with or without the checkout it was built from.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Each sample file: its path under `data/` and its bytes.
const FILES: &[(&str, &[u8])] = &[
    (
        "scan-hot.trace.gz",
        include_bytes!("../../../data/scan-hot.trace.gz"),
    ),
    (
        "zipf-loop.trace.gz",
        include_bytes!("../../../data/zipf-loop.trace.gz"),
    ),
    (
        "launch/gcc-headers.1.bev.gz",
        include_bytes!("../../../data/launch/gcc-headers.1.bev.gz"),
    ),
    (
        "launch/gcc-headers.2.bev.gz",
        include_bytes!("../../../data/launch/gcc-headers.2.bev.gz"),
    ),
    (
        "launch/python-imports.1.bev.gz",
        include_bytes!("../../../data/launch/python-imports.1.bev.gz"),
    ),
    (
        "launch/python-imports.2.bev.gz",
        include_bytes!("../../../data/launch/python-imports.2.bev.gz"),
    ),
];

/// Writes the samples under `dir` (as `data/` lays them out), rewriting a file only when its
/// content differs; each file is written beside its place and renamed in, so a demo running
/// at the same time never reads half a file.
pub fn unpack(dir: &Path) -> Result<()> {
    for (name, bytes) in FILES {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|have| have == *bytes) {
            continue;
        }
        let parent = path.parent().unwrap_or(dir);
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
        belady_core::outfile::write_atomic(&path, bytes)?;
    }
    Ok(())
}

/// Where the built-in samples are unpacked: one directory per belady version in the system's
/// temporary directory.
pub fn default_dir() -> PathBuf {
    std::env::temp_dir().join(format!("belady-{}-data", env!("CARGO_PKG_VERSION")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpacks_every_sample_and_repairs_a_damaged_one() {
        let dir = tempfile::tempdir().unwrap();
        unpack(dir.path()).unwrap();
        for (name, bytes) in FILES {
            assert_eq!(std::fs::read(dir.path().join(name)).unwrap(), *bytes);
        }
        let first = dir.path().join(FILES[0].0);
        std::fs::write(&first, b"damaged").unwrap();
        unpack(dir.path()).unwrap();
        assert_eq!(std::fs::read(&first).unwrap(), FILES[0].1);
    }
}
