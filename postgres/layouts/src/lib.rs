//! Custom layouts by name: `polyflake.custom_layouts` in `postgresql.conf`
//! defines them once for the server, as JSON, and every function that takes
//! a layout's name takes theirs beside the presets' (next_id too, named in
//! `polyflake.layouts`). The core validates each (`LayoutBuilder::build`);
//! this crate only reads the JSON into its builder.
//!
//! ```text
//! polyflake.custom_layouts = '{"orders": {"epoch_ms": 1704067200000, "time_bits": 41,
//!                              "nodes": [["region", 3], ["shard", 7]], "sequence_bits": 12}}'
//! ```
//!
//! Keys as the bindings' `Layout.custom` takes them: `epoch_ms` and
//! `time_bits` (required), `nodes` (pairs of name and width, in order from the
//! top), `sequence_bits` (12), `tick_ms` (1), `sequence_above_nodes` (false).
//!
//! A crate of its own, outside the pgrx crate, so that `cargo test` runs these
//! rules without PostgreSQL (ADR 0019).

use polyflake_core::{Error, Layout, PRESETS};
use serde_json::{Map, Value};

/// The custom layouts of this server, by name, in the setting's order.
pub type Named = Vec<(String, Layout)>;

fn invalid(why: String) -> Error {
    Error::InvalidLayout(format!("polyflake.custom_layouts: {why}"))
}

/// The layouts `text` defines.
pub fn parse(text: &str) -> Result<Named, Error> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        invalid(format!(
            "not JSON ({e}): {{\"name\": {{\"epoch_ms\": …, \"time_bits\": …}}}}"
        ))
    })?;
    let Value::Object(layouts) = value else {
        return Err(invalid("must be a JSON object of layouts by name".into()));
    };
    layouts
        .iter()
        .map(|(name, spec)| Ok((checked_name(name)?, layout(name, spec)?)))
        .collect()
}

fn checked_name(name: &str) -> Result<String, Error> {
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !valid || name == "custom" {
        return Err(invalid(format!(
            "the name {name:?} must match [a-z][a-z0-9_]* and not be \"custom\""
        )));
    }
    if PRESETS.contains(&name) {
        return Err(invalid(format!("{name:?} is a preset's name")));
    }
    Ok(name.to_owned())
}

const KEYS: [&str; 6] = [
    "epoch_ms",
    "time_bits",
    "nodes",
    "sequence_bits",
    "tick_ms",
    "sequence_above_nodes",
];

fn layout(name: &str, spec: &Value) -> Result<Layout, Error> {
    let Value::Object(spec) = spec else {
        return Err(invalid(format!("{name}: must be an object")));
    };
    if let Some(key) = spec.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(invalid(format!(
            "{name}: unknown key {key:?} (keys: {})",
            KEYS.join(", ")
        )));
    }
    let number = |key: &str| -> Result<Option<u64>, Error> {
        spec.get(key)
            .map(|v| {
                v.as_u64().ok_or_else(|| {
                    invalid(format!("{name}: {key} must be a whole number ≥ 0, not {v}"))
                })
            })
            .transpose()
    };
    let width = |key: &str, value: u64| -> Result<u8, Error> {
        u8::try_from(value)
            .map_err(|_| invalid(format!("{name}: {key} = {value} is wider than 64 bits")))
    };
    let epoch_ms = match spec.get("epoch_ms") {
        Some(v) => v
            .as_i64()
            .ok_or_else(|| invalid(format!("{name}: epoch_ms must be a whole number, not {v}")))?,
        None => return Err(invalid(format!("{name}: epoch_ms is required"))),
    };
    let time_bits =
        number("time_bits")?.ok_or_else(|| invalid(format!("{name}: time_bits is required")))?;
    let mut builder = Layout::custom(epoch_ms, width("time_bits", time_bits)?);
    if let Some(bits) = number("sequence_bits")? {
        builder = builder.sequence_bits(width("sequence_bits", bits)?);
    }
    if let Some(tick_ms) = number("tick_ms")? {
        builder = builder.tick_ms(tick_ms);
    }
    match spec.get("sequence_above_nodes") {
        None => {}
        Some(Value::Bool(above)) => builder = builder.sequence_above_nodes(*above),
        Some(v) => {
            return Err(invalid(format!(
                "{name}: sequence_above_nodes must be true or false, not {v}"
            )))
        }
    }
    for (field, bits) in nodes(name, spec)? {
        builder = builder.node(field, width("nodes", bits)?);
    }
    builder.build().map_err(|e| {
        invalid(format!(
            "{name}: {}",
            e.to_string().trim_start_matches("invalid layout: ")
        ))
    })
}

/// `nodes`: `[["region", 3], ["shard", 7]]`, in order from the top.
fn nodes<'a>(name: &str, spec: &'a Map<String, Value>) -> Result<Vec<(&'a str, u64)>, Error> {
    let Some(nodes) = spec.get("nodes") else {
        return Ok(Vec::new());
    };
    let bad = || {
        invalid(format!(
            "{name}: nodes must be pairs of a name and a width, in order: [[\"shard\", 10]], not {nodes}"
        ))
    };
    nodes
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|pair| match pair.as_array().map(Vec::as_slice) {
            Some([Value::String(field), bits]) => {
                Ok((field.as_str(), bits.as_u64().ok_or_else(bad)?))
            }
            _ => Err(bad()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_definition_reads_into_the_cores_builder() {
        let named = parse(
            r#"{"orders": {"epoch_ms": 1704067200000, "time_bits": 41,
                "nodes": [["region", 3], ["shard", 7]], "sequence_bits": 12}}"#,
        )
        .unwrap();
        let expected = Layout::custom(1_704_067_200_000, 41)
            .node("region", 3)
            .node("shard", 7)
            .sequence_bits(12)
            .build()
            .unwrap();
        assert_eq!(named, vec![("orders".to_owned(), expected)]);
    }

    #[test]
    fn bad_definitions_are_invalid_layouts_that_say_where() {
        for (text, says) in [
            ("not json", "not JSON"),
            ("[]", "JSON object"),
            (r#"{"twitter": {"epoch_ms": 0, "time_bits": 41}}"#, "preset"),
            (
                r#"{"Orders": {"epoch_ms": 0, "time_bits": 41}}"#,
                "must match",
            ),
            (r#"{"o": {"time_bits": 41}}"#, "epoch_ms is required"),
            (r#"{"o": {"epoch_ms": 0}}"#, "time_bits is required"),
            (
                r#"{"o": {"epoch_ms": 0, "time_bits": 41, "seq": 1}}"#,
                "unknown key",
            ),
            (
                r#"{"o": {"epoch_ms": 0, "time_bits": 300}}"#,
                "wider than 64",
            ),
            (r#"{"o": {"epoch_ms": 0, "time_bits": -1}}"#, "whole number"),
            (
                r#"{"o": {"epoch_ms": 0, "time_bits": 41, "nodes": {"a": 1}}}"#,
                "pairs",
            ),
            (
                r#"{"o": {"epoch_ms": 0, "time_bits": 60, "nodes": [["a", 9]]}}"#,
                "more than 64",
            ),
            (
                r#"{"o": {"epoch_ms": 0, "time_bits": 41, "sequence_above_nodes": 1}}"#,
                "true or false",
            ),
        ] {
            let err = parse(text).unwrap_err();
            assert_eq!(err.code(), "INVALID_LAYOUT", "{text}");
            assert!(err.to_string().contains(says), "{text}: {err}");
            assert!(
                err.to_string().contains("polyflake.custom_layouts"),
                "{err}"
            );
        }
    }
}
