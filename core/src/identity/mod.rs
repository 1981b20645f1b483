//! Where a generator's worker identity (its node field values) comes from:
//! given by the caller, read from the environment, taken from a StatefulSet
//! ordinal, leased on this host, or leased from a registry.
//! `docs/identity.md` states the rules.
//!
//! [`env`] reads variables and decides; [`resolve`] is the one place where
//! files, locks and the network are touched, and hands the builder a
//! [`WorkerIdentity`]. The builder itself does no I/O.

pub mod address;
pub mod env;
pub mod resolve;

use crate::error::{Error, Result};
use crate::layout::Layout;

pub use env::{choose_from_env, EnvChoice, Environment, ProcessEnvironment};
pub use resolve::WorkerIdentity;

/// A single node number over all node fields (`POLYFLAKE_NODE_ID`).
pub const ENV_NODE_ID: &str = "POLYFLAKE_NODE_ID";
/// A StatefulSet ordinal, or `hostname` to take the hostname's trailing number.
pub const ENV_ORDINAL: &str = "POLYFLAKE_ORDINAL";
/// The directory of local leases and high-water marks.
pub const ENV_STATE_DIR: &str = "POLYFLAKE_STATE_DIR";
/// A high-water-mark file for an identity given by the environment, in place
/// of the one beside its lock in the state directory.
pub const ENV_STATE_FILE: &str = "POLYFLAKE_STATE_FILE";
/// The low node bits each process of a host leases locally, under a host part
/// from `POLYFLAKE_NODE_ID` or `POLYFLAKE_ORDINAL` (pre-forked workers).
pub const ENV_WORKER_BITS: &str = "POLYFLAKE_WORKER_BITS";

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

/// Reads node values as one number, most significant field first (the
/// inverse of [`split_node_number`]).
pub fn join_node_number(layout: &Layout, nodes: &[u64]) -> u64 {
    layout
        .node_fields()
        .iter()
        .zip(nodes)
        .fold(0u64, |n, (field, &v)| (n << field.bits()) | v)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_numbers_spread_most_significant_field_first() {
        let t = Layout::twitter();
        assert_eq!(split_node_number(&t, 37, "n").unwrap(), [1, 5]);
        assert_eq!(split_node_number(&t, 1023, "n").unwrap(), [31, 31]);
        assert_eq!(
            split_node_number(&t, 1024, "n").unwrap_err().code(),
            "FIELD_OUT_OF_RANGE"
        );
        assert_eq!(join_node_number(&t, &[1, 5]), 37);
        assert_eq!(join_node_number(&t, &[31, 31]), 1023);
    }
}
