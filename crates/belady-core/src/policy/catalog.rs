//! What a policy's catalogue entry holds: its name, aliases, description and parameters with
//! their defaults per preset. Each policy's file declares its own entry (`INFO`) beside its
//! builder (`build`); [`super::POLICIES`] lists them (see [`super::registry`]).

/// A tunable parameter of a policy.
#[derive(Debug, PartialEq)]
pub struct ParamInfo {
    /// Key, as in `--param POLICY.KEY=VALUE`.
    pub name: &'static str,
    /// Default value (the policy's own paper), as text.
    pub default: &'static str,
    /// Value under the `study` preset (the prefetching study's Table 4), when it differs.
    pub study: Option<&'static str>,
    /// Value under the `accusim` preset (what the study's simulator does), when it differs from the
    /// study value.
    pub accusim: Option<&'static str>,
    /// One line on what it does.
    pub about: &'static str,
}

/// Description of a registered policy.
#[derive(Debug, PartialEq)]
pub struct PolicyInfo {
    /// Canonical name.
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// One line on what it is.
    pub about: &'static str,
    /// Its parameters.
    pub params: &'static [ParamInfo],
}

/// The policies that draw from `--seed` (key `seed`, [`super::registry::PolicySpec::seed`]):
/// their misses change with it. `--seed`'s help and docs/output.md list these;
/// `policy::conformance` checks the list against every policy's misses under several seeds.
pub const SEEDED: &[&str] = &["lhd", "hyperbolic", "lecar", "cacheus"];
