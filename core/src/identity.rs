//! Where a generator's worker identity (its node field values) comes from:
//! given by the caller, read from the environment, taken from a StatefulSet
//! ordinal, or leased on this host. `docs/identity.md` states the rules.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::layout::{Layout, MAX_NODE_FIELDS};

/// A single node number over all node fields (`POLYFLAKE_NODE_ID`).
pub const ENV_NODE_ID: &str = "POLYFLAKE_NODE_ID";
/// A StatefulSet ordinal, or `hostname` to take the hostname's trailing number.
pub const ENV_ORDINAL: &str = "POLYFLAKE_ORDINAL";
/// The directory of local leases and high-water marks.
pub const ENV_STATE_DIR: &str = "POLYFLAKE_STATE_DIR";
/// A high-water-mark file for an identity given by the environment.
pub const ENV_STATE_FILE: &str = "POLYFLAKE_STATE_FILE";
/// Comma-separated etcd endpoints: selects the etcd lease.
pub const ENV_ETCD_ENDPOINTS: &str = "POLYFLAKE_ETCD_ENDPOINTS";

/// How many distinct identities a layout has: 2^(all node bits).
pub fn node_space(layout: &Layout) -> u128 {
    1u128
        << layout
            .node_fields()
            .iter()
            .map(|f| u32::from(f.bits()))
            .sum::<u32>()
}

/// Spreads one node number over the layout's node fields, most significant
/// field first (`twitter`: 37 -> datacenter 1, machine 5).
pub fn split_node_number(layout: &Layout, number: u64, name: &str) -> Result<Vec<u64>> {
    let space = node_space(layout);
    if u128::from(number) >= space {
        return Err(Error::FieldOutOfRange {
            field: name.to_owned(),
            value: number,
            max: (space - 1) as u64,
        });
    }
    let mut rest = number;
    let mut values = vec![0; layout.node_fields().len()];
    for (slot, field) in values.iter_mut().zip(layout.node_fields()).rev() {
        *slot = rest & field.max();
        rest >>= field.bits();
    }
    Ok(values)
}

/// The environment variable of one node field: `machine_id` -> `POLYFLAKE_MACHINE_ID`.
pub fn field_variable(field: &str) -> String {
    format!("POLYFLAKE_{}", field.to_ascii_uppercase())
}

/// An identity and where it came from (said on stderr by the CLI).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Node field values in layout order.
    pub nodes: Vec<u64>,
    /// Where they came from, for people: `POLYFLAKE_NODE_ID=37`.
    pub source: String,
}

/// What the environment asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvChoice {
    /// Node values from variables (or an ordinal).
    Fixed(Identity),
    /// Lease a node value in this state directory.
    LocalLease(PathBuf),
    /// Lease a node value from etcd at these endpoints, under this prefix.
    Etcd {
        /// Endpoint URLs.
        endpoints: Vec<String>,
        /// Key prefix (`POLYFLAKE_ETCD_PREFIX`, default `/polyflake`).
        prefix: String,
    },
}

fn parse_number(variable: &str, text: &str) -> Result<u64> {
    let trimmed = text.trim();
    if trimmed.is_empty() || !trimmed.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::InvalidArgument(format!(
            "{variable}={text:?} is not a non-negative whole number"
        )));
    }
    trimmed
        .parse()
        .map_err(|_| Error::InvalidArgument(format!("{variable}={text:?} does not fit 64 bits")))
}

/// The trailing ordinal of a StatefulSet pod's hostname: `idgen-3` -> 3.
pub fn hostname_ordinal(hostname: &str) -> Result<u64> {
    let short = hostname.split('.').next().unwrap_or_default();
    let digits = short.rsplit('-').next().unwrap_or_default();
    if short == digits || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::InvalidArgument(format!(
            "hostname {hostname:?} does not end in -<ordinal> as a StatefulSet pod's does"
        )));
    }
    parse_number("the hostname's ordinal", digits)
}

/// Applies the selection rules to an environment (`get` reads one variable).
pub fn choose_from_env(layout: &Layout, get: impl Fn(&str) -> Option<String>) -> Result<EnvChoice> {
    let set = |name: &str| get(name).filter(|v| !v.is_empty());
    if let Some(endpoints) = set(ENV_ETCD_ENDPOINTS) {
        let endpoints: Vec<String> = endpoints
            .split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(str::to_owned)
            .collect();
        if endpoints.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "{ENV_ETCD_ENDPOINTS} names no endpoint"
            )));
        }
        let prefix = set("POLYFLAKE_ETCD_PREFIX").unwrap_or_else(|| "/polyflake".to_owned());
        return Ok(EnvChoice::Etcd { endpoints, prefix });
    }
    let field_vars: Vec<String> = layout
        .node_fields()
        .iter()
        .map(|f| field_variable(f.name()))
        .collect();
    let given_fields: Vec<&String> = field_vars.iter().filter(|v| set(v).is_some()).collect();
    let mut chosen = Vec::new();
    if set(ENV_NODE_ID).is_some() {
        chosen.push(ENV_NODE_ID.to_owned());
    }
    if !given_fields.is_empty() {
        chosen.push(
            given_fields
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        );
    }
    if set(ENV_ORDINAL).is_some() {
        chosen.push(ENV_ORDINAL.to_owned());
    }
    if chosen.len() > 1 {
        return Err(Error::InvalidArgument(format!(
            "the worker identity is given more than one way ({}); set only one",
            chosen.join(" and ")
        )));
    }
    if let Some(text) = set(ENV_NODE_ID) {
        let number = parse_number(ENV_NODE_ID, &text)?;
        return Ok(EnvChoice::Fixed(Identity {
            nodes: split_node_number(layout, number, ENV_NODE_ID)?,
            source: format!("{ENV_NODE_ID}={number}"),
        }));
    }
    if !given_fields.is_empty() {
        let mut nodes = Vec::with_capacity(MAX_NODE_FIELDS);
        for (field, variable) in layout.node_fields().iter().zip(&field_vars) {
            let text = set(variable).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{variable} is not set, but {} is: set every node field of layout {}",
                    given_fields[0],
                    layout.name()
                ))
            })?;
            let value = parse_number(variable, &text)?;
            if value > field.max() {
                return Err(Error::FieldOutOfRange {
                    field: variable.clone(),
                    value,
                    max: field.max(),
                });
            }
            nodes.push(value);
        }
        let source = field_vars
            .iter()
            .zip(&nodes)
            .map(|(v, n)| format!("{v}={n}"))
            .collect::<Vec<_>>()
            .join(" ");
        return Ok(EnvChoice::Fixed(Identity { nodes, source }));
    }
    if let Some(text) = set(ENV_ORDINAL) {
        let (ordinal, from) = if text.trim() == "hostname" {
            let host = set("HOSTNAME")
                .or_else(|| {
                    std::fs::read_to_string("/etc/hostname")
                        .ok()
                        .map(|h| h.trim().to_owned())
                })
                .ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "{ENV_ORDINAL}=hostname but no hostname is known"
                    ))
                })?;
            (hostname_ordinal(&host)?, format!("hostname {host}"))
        } else {
            (
                parse_number(ENV_ORDINAL, &text)?,
                format!("{ENV_ORDINAL}={}", text.trim()),
            )
        };
        return Ok(EnvChoice::Fixed(Identity {
            nodes: split_node_number(layout, ordinal, "StatefulSet ordinal")?,
            source: format!("StatefulSet ordinal {ordinal} ({from})"),
        }));
    }
    Ok(EnvChoice::LocalLease(state_dir(&get)))
}

/// `POLYFLAKE_STATE_DIR`, else `$XDG_STATE_HOME/polyflake`, else
/// `~/.local/state/polyflake`, else a directory under the system temp dir.
pub fn state_dir(get: &impl Fn(&str) -> Option<String>) -> PathBuf {
    let set = |name: &str| get(name).filter(|v| !v.is_empty());
    if let Some(dir) = set(ENV_STATE_DIR) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = set("XDG_STATE_HOME") {
        return PathBuf::from(dir).join("polyflake");
    }
    if let Some(home) = set("HOME") {
        return PathBuf::from(home).join(".local/state/polyflake");
    }
    std::env::temp_dir().join("polyflake-state")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn node_numbers_spread_most_significant_field_first() {
        let t = Layout::twitter();
        assert_eq!(split_node_number(&t, 37, "n").unwrap(), [1, 5]);
        assert_eq!(split_node_number(&t, 1023, "n").unwrap(), [31, 31]);
        assert_eq!(
            split_node_number(&t, 1024, "n").unwrap_err().code(),
            "FIELD_OUT_OF_RANGE"
        );
    }

    #[test]
    fn environment_rules() {
        let t = Layout::twitter();
        let fixed = |pairs: &[(&str, &str)]| match choose_from_env(&t, env(pairs)) {
            Ok(EnvChoice::Fixed(identity)) => Ok(identity.nodes),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e),
        };
        assert_eq!(fixed(&[("POLYFLAKE_NODE_ID", "37")]).unwrap(), [1, 5]);
        assert_eq!(
            fixed(&[
                ("POLYFLAKE_DATACENTER_ID", "2"),
                ("POLYFLAKE_MACHINE_ID", "9")
            ])
            .unwrap(),
            [2, 9]
        );
        assert_eq!(fixed(&[("POLYFLAKE_ORDINAL", "33")]).unwrap(), [1, 1]);
        let message = |pairs: &[(&str, &str)]| fixed(pairs).unwrap_err().to_string();
        assert!(message(&[("POLYFLAKE_NODE_ID", "x7")]).contains("POLYFLAKE_NODE_ID"));
        assert!(message(&[("POLYFLAKE_NODE_ID", "-1")]).contains("POLYFLAKE_NODE_ID"));
        assert!(message(&[("POLYFLAKE_DATACENTER_ID", "2")])
            .contains("POLYFLAKE_MACHINE_ID is not set"));
        assert!(message(&[
            ("POLYFLAKE_DATACENTER_ID", "40"),
            ("POLYFLAKE_MACHINE_ID", "1")
        ])
        .contains("POLYFLAKE_DATACENTER_ID = 40"));
        assert!(
            message(&[("POLYFLAKE_NODE_ID", "1"), ("POLYFLAKE_ORDINAL", "2")])
                .contains("more than one")
        );
        assert!(message(&[("POLYFLAKE_ORDINAL", "1024")]).contains("1023"));
        assert!(matches!(
            choose_from_env(&t, env(&[("POLYFLAKE_STATE_DIR", "/x")])).unwrap(),
            EnvChoice::LocalLease(dir) if dir == std::path::Path::new("/x")
        ));
        assert!(matches!(
            choose_from_env(&t, env(&[("POLYFLAKE_ETCD_ENDPOINTS", "http://127.0.0.1:2379, ")])).unwrap(),
            EnvChoice::Etcd { endpoints, prefix } if endpoints.len() == 1 && prefix == "/polyflake"
        ));
    }

    #[test]
    fn hostname_ordinals() {
        assert_eq!(hostname_ordinal("idgen-3").unwrap(), 3);
        assert_eq!(hostname_ordinal("idgen-12.idgen.default.svc").unwrap(), 12);
        for bad in ["idgen", "idgen-", "idgen-x3", "3", ""] {
            assert_eq!(
                hostname_ordinal(bad).unwrap_err().code(),
                "INVALID_ARGUMENT",
                "{bad}"
            );
        }
    }
}
