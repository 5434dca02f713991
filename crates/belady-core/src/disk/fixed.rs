//! A device that takes the same time for every request, plus an optional per-sector cost.
//! Meant for tests of the event engine, where round numbers make expected times easy to state.

use super::{ms_to_ns, DiskAccess, DiskModel};
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// Parameters of [`FixedModel`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedParams {
    /// Time of every request, in milliseconds.
    pub latency_ms: f64,
    /// Extra time per 512-byte sector, in milliseconds (0 by default).
    #[serde(default)]
    pub per_sector_ms: f64,
}

impl Default for FixedParams {
    fn default() -> Self {
        FixedParams {
            latency_ms: 1.0,
            per_sector_ms: 0.0,
        }
    }
}

impl FixedParams {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        use crate::limits::{check_time, TimeUnit};
        check_time("latency_ms", self.latency_ms, TimeUnit::Ms)?;
        check_time("per_sector_ms", self.per_sector_ms, TimeUnit::Ms)
    }
}

/// A constant-latency device.
pub struct FixedModel {
    name: String,
    params: FixedParams,
}

impl FixedModel {
    /// A model with these parameters (validate them first).
    pub fn new(name: &str, params: FixedParams) -> Self {
        FixedModel {
            name: name.to_string(),
            params,
        }
    }
}

impl DiskModel for FixedModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn service_ns(&mut self, req: &DiskAccess, _start_ns: u64) -> u64 {
        let ms = self.params.latency_ms + self.params.per_sector_ms * f64::from(req.sectors);
        ms_to_ns(ms).round() as u64
    }

    fn reset(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_whatever_the_address_and_time() {
        let mut m = FixedModel::new("fixed", FixedParams::default());
        for (lba, t) in [(0, 0), (123_456, 5_000_000), (7, 1)] {
            let req = DiskAccess {
                lba,
                sectors: 8,
                write: lba % 2 == 1,
            };
            assert_eq!(m.service_ns(&req, t), 1_000_000);
        }
        let mut m = FixedModel::new(
            "f",
            FixedParams {
                latency_ms: 0.5,
                per_sector_ms: 0.01,
            },
        );
        let req = DiskAccess {
            lba: 0,
            sectors: 100,
            write: false,
        };
        assert_eq!(m.service_ns(&req, 0), 1_500_000);
    }
}
