//! Disk models: how long one request takes on a device.
//!
//! A model answers one question, [`DiskModel::service_ns`]: a request of `sectors` 512-byte sectors
//! at `lba` reaches an idle device at absolute time `start_ns`; how long until it completes? The
//! model keeps whatever state the answer depends on (head position, drive cache contents, the last
//! command's kind); rotational position is a pure function of absolute time, so callers must pass
//! real simulated times, never times relative to the request.
//!
//! Three models:
//! * [`hdd::HddModel`]: a zoned mechanical disk with a seek curve, rotation, head and cylinder
//!   switches, command overheads, bus transfer and an optional segmented read-ahead cache
//!   (presets `cheetah9lp`, the study's Seagate ST39102LW as DiskSim models it, and `hdd7200`);
//! * [`ssd::SsdModel`]: command overhead + media latency + size over bandwidth (preset `nvme`);
//! * [`fixed::FixedModel`]: a constant latency (preset `fixed`), for tests.
//!
//! [`load_model`] takes a preset name or a TOML file (see docs/disk.md for the keys); every
//! parameter check lives in [`DiskConfig::validate`].

pub mod fixed;
pub mod hdd;
pub mod queue;
pub mod ssd;

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Bytes per sector; every model addresses 512-byte sectors.
pub const SECTOR_BYTES: u64 = 512;

/// One request as the device sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskAccess {
    /// First sector (512-byte logical block number).
    pub lba: u64,
    /// Number of sectors (at least 1).
    pub sectors: u32,
    /// A write rather than a read.
    pub write: bool,
}

/// A device model. `service_ns` is called once per request, in order of start time, each on an
/// idle device (the caller queues); it returns the time from `start_ns` to completion and updates
/// the model's state as of that completion.
pub trait DiskModel: Send {
    /// The preset or file name the model was built from.
    fn name(&self) -> &str;
    /// Service time of `req` starting at absolute time `start_ns` on an idle device.
    fn service_ns(&mut self, req: &DiskAccess, start_ns: u64) -> u64;
    /// Back to the power-on state (head at cylinder 0, empty drive cache).
    fn reset(&mut self);
    /// Reads served whole from the device's own read cache since the last reset; `None` for a
    /// device without one.
    fn cache_read_hits(&self) -> Option<u64> {
        None
    }
}

/// A device description: which model, with its parameters. In TOML the key `model` selects the
/// variant (`model = "hdd"`, `"ssd"` or `"fixed"`) and the other keys are that model's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "lowercase")]
pub enum DiskConfig {
    /// A zoned mechanical disk.
    Hdd(hdd::HddParams),
    /// A flash device.
    Ssd(ssd::SsdParams),
    /// A constant latency.
    Fixed(fixed::FixedParams),
}

/// The presets `load_model` knows by name.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "cheetah9lp",
        "Seagate Cheetah 9LP ST39102LW (10,045 rpm, 9.1 GB) as DiskSim's validated model",
    ),
    (
        "hdd7200",
        "a 7,200 rpm 3.5\" nearline disk of about 6 TB (synthetic geometry, datasheet-class timing)",
    ),
    ("nvme", "an NVMe flash SSD after MQSim's default configuration"),
    ("fixed", "a constant 1 ms per request (for tests)"),
];

/// Generic model names `load_model` also takes, and the preset each stands for.
pub const PRESET_ALIASES: &[(&str, &str)] = &[("hdd", "hdd7200"), ("ssd", "nvme")];

/// The presets and aliases as help and errors list them: `cheetah9lp, hdd7200, nvme, fixed; hdd
/// means hdd7200, ssd means nvme`.
pub fn preset_list() -> String {
    let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
    let aliases: Vec<String> = PRESET_ALIASES
        .iter()
        .map(|(alias, preset)| format!("{alias} means {preset}"))
        .collect();
    format!("{}; {}", names.join(", "), aliases.join(", "))
}

impl DiskConfig {
    /// The configuration of a named preset, or `None` for an unknown name.
    pub fn preset(name: &str) -> Option<DiskConfig> {
        let lower = name.to_ascii_lowercase();
        // The generic model names stand for their current presets.
        let name = PRESET_ALIASES
            .iter()
            .find(|(alias, _)| *alias == lower)
            .map_or(lower.as_str(), |(_, preset)| preset);
        match name {
            "cheetah9lp" => Some(DiskConfig::Hdd(hdd::HddParams::cheetah9lp())),
            "hdd7200" => Some(DiskConfig::Hdd(hdd::HddParams::hdd7200())),
            "nvme" => Some(DiskConfig::Ssd(ssd::SsdParams::nvme())),
            "fixed" => Some(DiskConfig::Fixed(fixed::FixedParams::default())),
            _ => None,
        }
    }

    /// Parses a TOML description; `origin` names the source in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<DiskConfig> {
        let bad = |msg: String| Error::config("disk model file", origin, msg);
        // Read the table first, then the chosen model's keys from it: serde's internally tagged
        // enums lose the key and line of a bad value, a plain struct keeps them.
        let mut table: toml::Table =
            toml::from_str(text).map_err(|e| bad(one_line(&e, Some(text))))?;
        let model = match table.remove("model") {
            Some(toml::Value::String(m)) => m,
            Some(v) => {
                return Err(bad(format!(
                    "key `model` = {}: expected \"hdd\", \"ssd\" or \"fixed\"",
                    crate::trace::input::excerpt(v.to_string().as_bytes())
                )))
            }
            None => {
                return Err(bad(
                    "missing key `model`: expected \"hdd\", \"ssd\" or \"fixed\"".into(),
                ))
            }
        };
        let rest = toml::Value::Table(table);
        let keyed = |e: toml::de::Error| bad(one_line(&e, None));
        let cfg = match model.as_str() {
            "hdd" => DiskConfig::Hdd(rest.try_into().map_err(keyed)?),
            "ssd" => DiskConfig::Ssd(rest.try_into().map_err(keyed)?),
            "fixed" => DiskConfig::Fixed(rest.try_into().map_err(keyed)?),
            other => {
                return Err(bad(format!(
                    "key `model` = \"{other}\": expected \"hdd\", \"ssd\" or \"fixed\""
                )))
            }
        };
        // Name the key in its file, not as a command-line flag.
        cfg.validate().map_err(|e| match e {
            Error::Config { field, value, msg } => Error::Config {
                field: format!("key `{field}` in {origin}"),
                value,
                msg,
            },
            other => other,
        })?;
        Ok(cfg)
    }

    /// The configuration as TOML (what `from_toml` reads back).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("disk configurations always serialise")
    }

    /// Checks every parameter; the error names the key and what is expected.
    pub fn validate(&self) -> Result<()> {
        match self {
            DiskConfig::Hdd(p) => p.validate(),
            DiskConfig::Ssd(p) => p.validate(),
            DiskConfig::Fixed(p) => p.validate(),
        }
    }

    /// Builds the model (validating first).
    pub fn build(&self, name: &str) -> Result<Box<dyn DiskModel>> {
        self.validate()?;
        Ok(match self {
            DiskConfig::Hdd(p) => Box::new(hdd::HddModel::new(name, p.clone())?),
            DiskConfig::Ssd(p) => Box::new(ssd::SsdModel::new(name, p.clone())),
            DiskConfig::Fixed(p) => Box::new(fixed::FixedModel::new(name, p.clone())),
        })
    }
}

/// A TOML error on one short line: from text, its line and message without the quoted source
/// (kilobytes on one line for a deeply nested value); from a table, the message and the key it
/// names.
fn one_line(e: &toml::de::Error, text: Option<&str>) -> String {
    match (text, e.span()) {
        (Some(text), Some(span)) => {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            format!("line {line}: {}", crate::error::brief(e.message()))
        }
        _ => crate::error::brief(&e.to_string()),
    }
}

/// Resolves a preset name or a TOML file path to a configuration.
pub fn load_config(name_or_path: &str) -> Result<DiskConfig> {
    if let Some(cfg) = DiskConfig::preset(name_or_path) {
        return Ok(cfg);
    }
    let path = Path::new(name_or_path);
    if path.exists() {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        return DiskConfig::from_toml(&text, name_or_path);
    }
    let names = PRESETS
        .iter()
        .map(|p| p.0)
        .chain(PRESET_ALIASES.iter().map(|a| a.0));
    Err(Error::config(
        "disk model",
        name_or_path,
        format!(
            "not a file, and not a preset{}: expected a preset ({}) or the path of a TOML file",
            crate::error::did_you_mean(name_or_path, names),
            preset_list()
        ),
    ))
}

/// Builds a model from a preset name or a TOML file path.
pub fn load_model(name_or_path: &str) -> Result<Box<dyn DiskModel>> {
    let cfg = load_config(name_or_path)?;
    let name = Path::new(name_or_path)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(name_or_path);
    cfg.build(name)
}

/// A parameter check: `ok` or an error naming `key` and what was expected.
pub(crate) fn check(ok: bool, key: &str, value: impl ToString, expected: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::config(key, value, format!("expected {expected}")))
    }
}

/// Milliseconds (as configured) to nanoseconds.
pub(crate) fn ms_to_ns(ms: f64) -> f64 {
    ms * 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_names_stand_for_the_current_presets() {
        assert_eq!(DiskConfig::preset("hdd"), DiskConfig::preset("hdd7200"));
        assert_eq!(DiskConfig::preset("SSD"), DiskConfig::preset("nvme"));
        let err = load_config("tape").unwrap_err().to_string();
        assert!(err.contains("hdd means hdd7200"), "{err}");
    }

    #[test]
    fn presets_load_and_round_trip_through_toml() {
        for (name, _) in PRESETS {
            let cfg = DiskConfig::preset(name).unwrap();
            cfg.validate().unwrap();
            let text = cfg.to_toml();
            let back = DiskConfig::from_toml(&text, name).unwrap();
            assert_eq!(back, cfg, "{name} round trip");
            let mut m = load_model(name).unwrap();
            let t = m.service_ns(
                &DiskAccess {
                    lba: 1000,
                    sectors: 8,
                    write: false,
                },
                0,
            );
            assert!(t > 0, "{name}");
        }
    }

    #[test]
    fn toml_file_loads_by_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mydisk.toml");
        std::fs::write(&path, "model = \"fixed\"\nlatency_ms = 2.5\n").unwrap();
        let mut m = load_model(path.to_str().unwrap()).unwrap();
        assert_eq!(m.name(), "mydisk");
        let req = DiskAccess {
            lba: 0,
            sectors: 8,
            write: false,
        };
        assert_eq!(m.service_ns(&req, 0), 2_500_000);
    }

    #[test]
    fn bad_toml_is_an_error_naming_the_file_and_key() {
        let e = DiskConfig::from_toml("model = \"fixed\"\nlatency_ms = \"fast\"\n", "d.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("d.toml") && e.contains("latency_ms"), "{e}");
        let e = DiskConfig::from_toml("model = \"tape\"\n", "t.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.toml") && e.contains("tape"), "{e}");
        let e = DiskConfig::from_toml("model = \"fixed\"\nlatency_ms = -1.0\n", "n.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("latency_ms"), "{e}");
        let e = DiskConfig::from_toml("model = \"fixed\"\nlatncy_ms = 1.0\n", "u.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("latncy_ms"), "{e}");
        let e = load_config("no-such-disk").unwrap_err().to_string();
        assert!(e.contains("cheetah9lp"), "{e}");
    }

    #[test]
    fn hdd_validation_names_the_bad_key() {
        let mut p = hdd::HddParams::cheetah9lp();
        p.zones[3].sectors_per_track = 0;
        let e = DiskConfig::Hdd(p).validate().unwrap_err().to_string();
        assert!(e.contains("zones[3].sectors_per_track"), "{e}");
        let mut p = hdd::HddParams::cheetah9lp();
        p.zones[2].first_cylinder = 10;
        let e = DiskConfig::Hdd(p).validate().unwrap_err().to_string();
        assert!(e.contains("zones[2].first_cylinder"), "{e}");
        let mut p = hdd::HddParams::cheetah9lp();
        if let hdd::SeekSpec::Table { points } = &mut p.seek {
            points.swap(3, 4);
        }
        let e = DiskConfig::Hdd(p).validate().unwrap_err().to_string();
        assert!(e.contains("seek.points"), "{e}");
    }
}
