//! Runs every golden vector in `tests/vectors/` against the core. The bindings
//! run the same files.

use std::path::PathBuf;

use polyflake::{BackwardsPolicy, Encoding, Generator, Layout, ManualClock};
use serde_json::Value;

fn load(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vectors")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_str()
        .expect("64-bit values are decimal strings")
        .parse()
        .unwrap()
}

fn i(v: &Value) -> i64 {
    v.as_str()
        .expect("timestamps are decimal strings")
        .parse()
        .unwrap()
}

fn build_spec(spec: &Value) -> polyflake::Result<Layout> {
    let mut builder = Layout::custom(
        i(&spec["epoch_ms"]),
        spec["time_bits"].as_u64().unwrap() as u8,
    )
    .tick_ms(spec["tick_ms"].as_u64().unwrap())
    .sequence_bits(spec["sequence_bits"].as_u64().unwrap() as u8)
    .sequence_above_nodes(spec["sequence_above_nodes"].as_bool().unwrap());
    for node in spec["nodes"].as_array().unwrap() {
        builder = builder.node(
            node["name"].as_str().unwrap(),
            node["bits"].as_u64().unwrap() as u8,
        );
    }
    builder.build()
}

fn layout(name: &Value) -> Layout {
    let name = name.as_str().unwrap();
    Layout::preset(name)
        .unwrap_or_else(|_| build_spec(&load("layouts.json")["custom"][name]).unwrap())
}

fn named_nodes(nodes: &Value) -> Vec<(&str, u64)> {
    nodes
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.as_str(), u(v)))
        .collect()
}

#[test]
fn layouts_match_their_definitions() {
    let v = load("layouts.json");
    let check = |layout: &Layout, def: &Value| {
        assert_eq!(layout.epoch_ms(), i(&def["epoch_ms"]));
        assert_eq!(layout.tick_ms(), def["tick_ms"].as_u64().unwrap());
        assert_eq!(
            u64::from(layout.time_bits()),
            def["time_bits"].as_u64().unwrap()
        );
        assert_eq!(
            u64::from(layout.sequence_bits()),
            def["sequence_bits"].as_u64().unwrap()
        );
        assert_eq!(
            layout.sequence_above_nodes(),
            def["sequence_above_nodes"].as_bool().unwrap()
        );
        assert_eq!(
            u64::from(layout.unused_bits()),
            def["unused_bits"].as_u64().unwrap()
        );
        assert_eq!(layout.max_timestamp_ms(), i(&def["max_timestamp_ms"]));
        let names: Vec<&str> = layout.node_fields().iter().map(|f| f.name()).collect();
        let expected: Vec<&str> = def["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, expected);
    };
    for def in v["presets"].as_array().unwrap() {
        let layout = Layout::preset(def["name"].as_str().unwrap()).unwrap();
        check(&layout, def);
        assert_eq!(build_spec(def).unwrap().node_fields(), layout.node_fields());
    }
    for (name, def) in v["custom"].as_object().unwrap() {
        check(&layout(&Value::String(name.clone())), def);
    }
    for case in v["invalid"].as_array().unwrap() {
        let err = build_spec(&case["spec"]).expect_err(case["why"].as_str().unwrap());
        assert_eq!(err.code(), case["error"], "{}", case["why"]);
    }
    for name in v["unknown_presets"].as_array().unwrap() {
        assert_eq!(
            Layout::preset(name.as_str().unwrap()).unwrap_err().code(),
            "INVALID_LAYOUT"
        );
    }
}

#[test]
fn compose_decode_explain() {
    let v = load("compose.json");
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() > 50);
    for case in cases {
        let layout = layout(&case["layout"]);
        let id = u(&case["id"]);
        let ts = i(&case["timestamp_ms"]);
        let seq = u(&case["sequence"]);
        let nodes = named_nodes(&case["nodes"]);
        assert_eq!(
            layout.compose_named(ts, seq, nodes.clone()).unwrap(),
            id,
            "{case}"
        );
        let parts = layout.decode(id).unwrap();
        assert_eq!(parts.timestamp_ms, ts, "{case}");
        assert_eq!(parts.sequence, seq, "{case}");
        for (name, value) in &nodes {
            assert_eq!(parts.get(&layout, name), Some(*value), "{case}");
        }
        assert_eq!(parts.nodes().len(), nodes.len());
        let segments = layout.explain(id).unwrap();
        let expected = case["explain"].as_array().unwrap();
        assert_eq!(segments.len(), expected.len(), "{case}");
        for (s, e) in segments.iter().zip(expected) {
            assert_eq!(s.name, e["name"].as_str().unwrap());
            assert_eq!(u64::from(s.msb), e["msb"].as_u64().unwrap());
            assert_eq!(u64::from(s.lsb), e["lsb"].as_u64().unwrap());
            assert_eq!(u64::from(s.width()), e["width"].as_u64().unwrap());
            assert_eq!(s.value, u(&e["value"]));
            assert_eq!(s.bits(), e["bits"].as_str().unwrap());
        }
    }
    for case in v["floor"].as_array().unwrap() {
        let layout = layout(&case["layout"]);
        let id = layout
            .compose_named(
                i(&case["timestamp_ms"]),
                u(&case["sequence"]),
                named_nodes(&case["nodes"]),
            )
            .unwrap();
        assert_eq!(id, u(&case["id"]));
        assert_eq!(
            layout.decode(id).unwrap().timestamp_ms,
            i(&case["decoded_timestamp_ms"])
        );
    }
    for case in v["min_max"].as_array().unwrap() {
        let layout = layout(&case["layout"]);
        let ts = i(&case["timestamp_ms"]);
        assert_eq!(layout.min_id(ts).unwrap(), u(&case["min"]), "{case}");
        assert_eq!(layout.max_id(ts).unwrap(), u(&case["max"]), "{case}");
    }
}

#[test]
fn errors_carry_their_codes() {
    let v = load("errors.json");
    for case in v["cases"].as_array().unwrap() {
        let layout = layout(&case["layout"]);
        let result = match case["op"].as_str().unwrap() {
            "compose" => layout.compose_named(
                i(&case["timestamp_ms"]),
                u(&case["sequence"]),
                named_nodes(&case["nodes"]),
            ),
            "decode" => layout.decode(u(&case["id"])).map(|p| p.sequence),
            "min_id" => layout.min_id(i(&case["timestamp_ms"])),
            "max_id" => layout.max_id(i(&case["timestamp_ms"])),
            op => panic!("unknown op {op}"),
        };
        let err = result.expect_err(&case.to_string());
        assert_eq!(err.code(), case["error"], "{case}");
        if let (Some(field), polyflake::Error::FieldOutOfRange { field: got, .. }) =
            (case["field"].as_str(), &err)
        {
            assert_eq!(got, field, "{case}");
        }
        if let Some(kind) = case["kind"].as_str() {
            assert_eq!(err.argument_kind().map(|k| k.name()), Some(kind), "{case}");
        }
    }
}

fn input_bytes(encoding: Encoding, text: &str) -> Vec<u8> {
    if encoding.is_binary() {
        (0..text.len() / 2)
            .map(|k| u8::from_str_radix(&text[2 * k..2 * k + 2], 16).unwrap())
            .collect()
    } else {
        text.as_bytes().to_vec()
    }
}

#[test]
fn encodings() {
    let v = load("encodings.json");
    let names = v["encodings"].as_array().unwrap();
    assert_eq!(names.len(), Encoding::ALL.len());
    for case in v["cases"].as_array().unwrap() {
        let id = u(&case["id"]);
        for name in names {
            let encoding = Encoding::from_name(name.as_str().unwrap()).unwrap();
            let expected = case[encoding.name()].as_str().unwrap();
            assert_eq!(encoding.encode(id).to_string(), expected, "{encoding} {id}");
            assert_eq!(
                encoding.parse(input_bytes(encoding, expected)).unwrap(),
                id,
                "{encoding} {id}"
            );
        }
    }
    for case in v["parse_ok"].as_array().unwrap() {
        let encoding = Encoding::from_name(case["encoding"].as_str().unwrap()).unwrap();
        let text = case["text"].as_str().unwrap();
        assert_eq!(
            encoding.parse(input_bytes(encoding, text)).unwrap(),
            u(&case["id"]),
            "{case}"
        );
    }
    for case in v["parse_errors"].as_array().unwrap() {
        let encoding = Encoding::from_name(case["encoding"].as_str().unwrap()).unwrap();
        let text = case["text"].as_str().unwrap();
        let err = encoding
            .parse(input_bytes(encoding, text))
            .expect_err(&case.to_string());
        assert_eq!(err.code(), case["error"], "{case}");
    }
}

#[test]
fn generator_scenarios() {
    let v = load("generator.json");
    for scenario in v["scenarios"].as_array().unwrap() {
        let name = scenario["name"].as_str().unwrap();
        let policy = match scenario["policy"].as_str().unwrap() {
            "fail" => BackwardsPolicy::Fail,
            "wait" => BackwardsPolicy::Wait {
                max_ms: scenario["max_wait_ms"].as_u64().unwrap(),
            },
            "logical" => BackwardsPolicy::Logical,
            other => panic!("unknown policy {other}"),
        };
        let clock = ManualClock::new(i(&scenario["start_ms"]));
        let mut builder = Generator::builder(layout(&scenario["layout"]))
            .clock(clock.clone())
            .on_clock_backwards(policy);
        for (field, value) in named_nodes(&scenario["nodes"]) {
            builder = builder.node(field, value);
        }
        let generator = builder.build().unwrap();
        for step in scenario["steps"].as_array().unwrap() {
            match step["op"].as_str().unwrap() {
                "set" => clock.set(i(&step["ms"])),
                "clock" => assert_eq!(polyflake::Clock::now_ms(&clock), i(&step["ms"]), "{name}"),
                "next" => match (generator.next_id(), step.get("id")) {
                    (Ok(id), Some(expected)) => assert_eq!(id, u(expected), "{name}"),
                    (Err(e), None) => assert_eq!(e.code(), step["error"], "{name}"),
                    (got, _) => panic!("{name}: {step} but got {got:?}"),
                },
                "next_ids" => {
                    let expected: Vec<u64> =
                        step["ids"].as_array().unwrap().iter().map(u).collect();
                    assert_eq!(
                        generator.next_ids(expected.len()).unwrap(),
                        expected,
                        "{name}"
                    );
                }
                op => panic!("unknown op {op}"),
            }
        }
    }
}
