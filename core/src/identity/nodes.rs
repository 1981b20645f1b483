//! One node number over a layout's node fields, and an identity with where
//! it came from.

use crate::error::{Error, Result};
use crate::id::layout::Layout;

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
