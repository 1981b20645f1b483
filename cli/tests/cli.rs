//! The built `polyflake` binary: golden vectors, bad input, colour, identity.

mod common;

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

fn polyflake() -> Command {
    let mut cmd = Command::cargo_bin("polyflake").unwrap();
    cmd.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    for (key, _) in std::env::vars() {
        if key.starts_with("POLYFLAKE_") {
            cmd.env_remove(key);
        }
    }
    cmd
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = polyflake().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn vectors(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vectors")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

const PRESETS: [&str; 5] = ["twitter", "snowflake", "discord", "instagram", "sonyflake"];

fn flag(field: &str) -> String {
    format!("--{}", field.replace('_', "-"))
}

#[test]
fn golden_vectors_through_compose_and_decode() {
    let v = vectors("compose.json");
    let mut checked = 0;
    for case in v["cases"].as_array().unwrap() {
        let layout = case["layout"].as_str().unwrap();
        if !PRESETS.contains(&layout) {
            continue;
        }
        let mut args = vec![
            "compose".to_owned(),
            "--quiet".into(),
            "--layout".into(),
            layout.into(),
            "--timestamp".into(),
            case["timestamp_ms"].as_str().unwrap().into(),
            "--sequence".into(),
            case["sequence"].as_str().unwrap().into(),
        ];
        for (field, value) in case["nodes"].as_object().unwrap() {
            args.push(flag(field));
            args.push(value.as_str().unwrap().into());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out.trim(), case["id"].as_str().unwrap());

        let (code, out, err) = run(&[
            "decode",
            case["id"].as_str().unwrap(),
            "--layout",
            layout,
            "--json",
        ]);
        assert_eq!(code, 0, "{err}");
        let decoded: Value = serde_json::from_str(&out).unwrap();
        common::assert_decoded(&decoded, case);
        let keys: Vec<&String> = decoded.as_object().unwrap().keys().collect();
        assert_eq!(keys.first().map(|k| k.as_str()), Some("id"));
        assert_eq!(keys.last().map(|k| k.as_str()), Some("sequence"));
        checked += 1;
    }
    assert!(checked >= 40, "{checked}");
}

#[test]
fn convert_covers_every_encoding() {
    let v = vectors("encodings.json");
    for case in v["cases"].as_array().unwrap().iter().take(12) {
        for from in v["encodings"].as_array().unwrap() {
            let from = from.as_str().unwrap();
            let (code, out, err) = run(&[
                "convert",
                case[from].as_str().unwrap(),
                "--from",
                from,
                "--to",
                "base58",
            ]);
            assert_eq!(code, 0, "{from}: {err}");
            assert_eq!(out.trim(), case["base58"].as_str().unwrap());
        }
        let (_, out, _) = run(&["convert", case["id"].as_str().unwrap(), "--to", "bytes"]);
        assert_eq!(out.trim(), case["bytes"].as_str().unwrap());
    }
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    let cases: [(&[&str], &str); 8] = [
        (
            &[
                "compose",
                "--layout",
                "twitter",
                "--timestamp",
                "1700000000000",
                "--datacenter-id",
                "32",
                "--machine-id",
                "0",
            ],
            "datacenter_id = 32 is out of range 0..=31",
        ),
        (
            &[
                "compose",
                "--layout",
                "twitter",
                "--timestamp",
                "1700000000000",
                "--machine-id",
                "-1",
                "--datacenter-id",
                "0",
            ],
            "--machine-id",
        ),
        (
            &["compose", "--timestamp", "1000", "--node-id", "1"],
            "before the layout's epoch",
        ),
        (
            &["compose", "--timestamp", "tomorrow", "--node-id", "1"],
            "--timestamp",
        ),
        (&["decode", "12", "--layout", "tweeter"], "unknown preset"),
        (&["decode", "zz", "--from", "hex"], "expected 16 characters"),
        (
            &["convert", "18446744073709551616", "--to", "hex"],
            "overflows 64 bits",
        ),
        (
            &["next", "--layout", "twitter", "--shard-id", "1"],
            "no field \"shard_id\"",
        ),
    ];
    for (args, needle) in cases {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"));
    }
}

#[test]
fn colour_only_when_asked_and_never_with_no_color() {
    let args = [
        "compose",
        "--timestamp",
        "2024-05-01T12:00:00Z",
        "--node-id",
        "7",
        "--sequence",
        "5",
    ];
    let (_, plain, _) = run(&args);
    assert!(!plain.contains('\x1b'));
    assert!(plain.contains("node_id") && plain.contains("2024-05-01T12:00:00.000Z"));
    let coloured = polyflake()
        .args(args)
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap()
        .stdout;
    assert!(String::from_utf8(coloured).unwrap().contains("\x1b[36m"));
    let no_color = polyflake()
        .args(args)
        .env("CLICOLOR_FORCE", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
        .stdout;
    assert!(!String::from_utf8(no_color).unwrap().contains('\x1b'));
}

#[test]
fn layouts_lists_every_preset() {
    let (code, out, _) = run(&["layouts"]);
    assert_eq!(code, 0);
    for name in PRESETS {
        assert!(out.contains(name));
    }
    assert!(
        out.contains("2080-07-10T17:30:30.208Z"),
        "twitter runs out then:\n{out}"
    );
}

fn state_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("polyflake-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn concurrent_next_processes_lease_distinct_identities() {
    let dir = state_dir("concurrent");
    let children: Vec<_> = (0..4)
        .map(|_| {
            polyflake()
                .args(["next", "--count", "20000", "--json"])
                .env("POLYFLAKE_STATE_DIR", &dir)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut all = std::collections::HashSet::new();
    let mut nodes = std::collections::HashSet::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let ids: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(ids.len(), 20000);
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("identity: local lease on node"), "{err}");
        let first: u64 = ids[0].parse().unwrap();
        nodes.insert((first >> 12) & 1023);
        for id in ids {
            assert!(all.insert(id), "duplicate");
        }
    }
    // Processes that overlap in time must hold different node values; ones
    // that ran one after the other may reuse a value, past its mark.
    assert!(!nodes.is_empty());
    assert_eq!(all.len(), 80000);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A `polyflake next` that keeps running (and holding its identity), and
/// the first bytes it wrote.
fn holder(dir: &PathBuf, vars: &[(&str, &str)]) -> (std::process::Child, [u8; 64]) {
    let mut child = polyflake()
        .args(["next", "--count", "100000000"])
        .env("POLYFLAKE_STATE_DIR", dir)
        .envs(vars.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    (child, first)
}

#[test]
fn a_killed_process_frees_its_value_and_its_successor_starts_past_its_mark() {
    let dir = state_dir("killed");
    let (mut holder, _) = holder(&dir, &[]);
    // While it lives, another process gets another value.
    let (_, out, err) = {
        let out = polyflake()
            .args(["next"])
            .env("POLYFLAKE_STATE_DIR", &dir)
            .output()
            .unwrap();
        (
            out.status,
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    assert!(err.contains("local lease on node 1"), "{err}");
    assert_eq!((out.trim().parse::<u64>().unwrap() >> 12) & 1023, 1);
    holder.kill().unwrap();
    holder.wait().unwrap();
    let mark_text = std::fs::read_to_string(dir.join("snowflake/node-0.hwm")).unwrap();
    let mark: i64 = mark_text.lines().nth(1).unwrap().parse().unwrap();
    let out = polyflake()
        .args(["next", "--json"])
        .env("POLYFLAKE_STATE_DIR", &dir)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("local lease on node 0"), "{err}");
    let ids: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
    let id: u64 = ids[0].parse().unwrap();
    let timestamp = (id >> 22) as i64 + 1_288_834_974_657;
    assert!(timestamp > mark, "{timestamp} <= {mark}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn two_processes_with_one_node_id_on_a_host_the_second_is_refused() {
    let dir = state_dir("same-node-id");
    let (mut holder, first) = holder(&dir, &[("POLYFLAKE_NODE_ID", "17")]);
    let next = || {
        let out = polyflake()
            .args(["next"])
            .env("POLYFLAKE_STATE_DIR", &dir)
            .env("POLYFLAKE_NODE_ID", "17")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (code, out, err) = next();
    assert_eq!(code, Some(2), "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("node value 17 of layout snowflake")
            && err.contains(&format!("pid {}", holder.id())),
        "{err}"
    );
    // The contract's code and reason, for scripts.
    assert!(err.trim_end().ends_with("[LEASE_LOST taken_over]"), "{err}");
    holder.kill().unwrap();
    holder.wait().unwrap();
    // Once it is gone, the value is free, and its successor starts past its mark.
    let (code, out, err) = next();
    assert_eq!(code, Some(0), "{err}");
    let last_seen: u64 = String::from_utf8_lossy(&first)
        .lines()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(out.trim().parse::<u64>().unwrap() > last_seen);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_reader_that_stops_ends_the_output_quietly() {
    let dir = state_dir("reader-stops");
    let mut next = polyflake()
        .args(["next", "--count", "10000000"])
        .env("POLYFLAKE_STATE_DIR", &dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 20];
    next.stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(next.stdout.take()); // `| head -1`
    let out = next.wait_with_output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.to_lowercase().contains("pipe"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_missing_argument_is_named() {
    let (code, _, err) = run(&["compose", "--layout", "twitter", "--sequence", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--timestamp"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}
