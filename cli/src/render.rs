//! What a person reads: the 64 bits in labelled, coloured segments, and the
//! table of presets; and what a program reads: a decoded ID as JSON.

use polyflake::{Layout, SegmentKind, PRESETS};
use serde_json::{json, Map, Value};

use crate::time::iso;

fn paint(text: &str, code: &str, colour: bool) -> String {
    if colour {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// The ID's bits, one run per segment, and a line per segment below.
pub fn breakdown(layout: &Layout, id: u64, colour: bool) -> polyflake::Result<String> {
    let segments = layout.explain(id)?;
    let mut node_index = 0;
    let codes: Vec<&str> = segments
        .iter()
        .map(|s| match s.kind {
            SegmentKind::Unused => "2",
            SegmentKind::Time => "36",
            SegmentKind::Sequence => "32",
            SegmentKind::Node => {
                node_index += 1;
                if node_index % 2 == 1 {
                    "33"
                } else {
                    "35"
                }
            }
        })
        .collect();
    let bits: Vec<String> = segments
        .iter()
        .zip(&codes)
        .map(|(s, code)| paint(&s.bits(), code, colour))
        .collect();
    let mut text = format!("{}\n", bits.join(" "));
    let width = segments.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for (s, code) in segments.iter().zip(&codes) {
        let range = if s.width() == 1 {
            format!("{}", s.msb)
        } else {
            format!("{}..{}", s.msb, s.lsb)
        };
        let mut value = s.value.to_string();
        if s.kind == SegmentKind::Time {
            let ms = layout.timestamp_of(s.value);
            value = format!("{value} ticks = {ms} ms = {}", iso(ms));
        }
        let name = paint(&format!("{:<width$}", s.name), code, colour);
        text.push_str(&format!(
            "  {name}  bits {range:<7} ({:>2})  {value}\n",
            s.width()
        ));
    }
    Ok(text)
}

/// The presets, with their ranges and the moment each runs out.
pub fn layouts() -> String {
    let mut text = String::new();
    for name in PRESETS {
        let l = Layout::preset(name).expect("presets exist");
        let nodes: Vec<String> = l
            .node_fields()
            .iter()
            .map(|f| format!("{} {} bits (0..={})", f.name(), f.bits(), f.max()))
            .collect();
        text.push_str(&format!(
            "{name}\n  epoch      {} ({})\n  tick       {} ms, {} time bits\n  nodes      {}\n  sequence   {} bits (0..={}){}\n  runs out   {}\n\n",
            l.epoch_ms(),
            iso(l.epoch_ms()),
            l.tick_ms(),
            l.time_bits(),
            nodes.join(", "),
            l.sequence_bits(),
            l.max_sequence(),
            if l.sequence_above_nodes() { ", above the node fields" } else { "" },
            iso(l.max_timestamp_ms()),
        ));
    }
    text
}

/// A decoded ID as one flat JSON object, the ID as a string (`decode --json`, the service).
pub fn decoded(layout: &Layout, id: u64, parts: &polyflake::Parts) -> Value {
    let mut object = Map::new();
    object.insert("id".into(), json!(id.to_string()));
    object.insert("layout".into(), json!(layout.name()));
    object.insert("timestamp_ms".into(), json!(parts.timestamp_ms));
    object.insert("time".into(), json!(iso(parts.timestamp_ms)));
    for (name, value) in parts.fields(layout) {
        object.insert(name.into(), json!(value));
    }
    object.insert("sequence".into(), json!(parts.sequence));
    Value::Object(object)
}
