//! `polyflake serve` as a real process: the API against the golden vectors,
//! bad input on every endpoint, replicas on a real etcd, and SIGTERM.
#![cfg(feature = "serve")]

mod common;
#[path = "../../etcd/tests/support/mod.rs"]
mod support;

use std::collections::HashSet;
use std::io::Read;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use common::Server;

// Stopping by signal needs the etcd tests' support, which only this crate includes.
impl Server {
    /// SIGTERM, then the exit status.
    fn stop(self) -> std::process::ExitStatus {
        self.stop_with_log().0
    }

    /// SIGTERM, then the exit status and what it wrote to stderr after its first line.
    fn stop_with_log(mut self) -> (std::process::ExitStatus, String) {
        support::signal(self.child.id(), "TERM");
        let deadline = Instant::now() + Duration::from_secs(15);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "no exit within 15 s of SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut log = String::new();
        self.stderr.read_to_string(&mut log).unwrap();
        (status, log)
    }
}

fn vectors(name: &str) -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/");
    serde_json::from_str(&std::fs::read_to_string(format!("{path}{name}")).unwrap()).unwrap()
}

/// The service's log lines naming the node values it issues under, in order.
fn issuing_as(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains("issuing as")).collect()
}

/// How those lines spell the node values of a `twitter` ID.
fn logged_nodes(id: u64) -> String {
    let parts = polyflake::Layout::twitter().decode(id).unwrap();
    format!(
        "datacenter_id={} machine_id={}",
        parts.nodes()[0],
        parts.nodes()[1]
    )
}

const PRESETS: [&str; 5] = ["twitter", "snowflake", "discord", "instagram", "sonyflake"];

#[test]
fn the_api_answers_the_golden_vectors() {
    let server = Server::start(&[]);
    let mut checked = 0;
    for case in vectors("compose.json")["cases"].as_array().unwrap() {
        let layout = case["layout"].as_str().unwrap();
        if !PRESETS.contains(&layout) {
            continue;
        }
        let id = case["id"].as_str().unwrap();
        let (status, decoded) = server.json("GET", &format!("/v1/ids/{id}?layout={layout}"), None);
        assert_eq!(status, 200, "{decoded}");
        common::assert_decoded(&decoded, case);
        let mut body = json!({ "layout": layout, "timestamp": case["timestamp_ms"], "sequence": case["sequence"] });
        for (field, value) in case["nodes"].as_object().unwrap() {
            body[field] = value.clone();
        }
        let (status, composed) = server.json("POST", "/v1/compose", Some(&body.to_string()));
        assert_eq!(status, 200, "{composed}");
        assert_eq!(composed["id"], json!(id));
        checked += 1;
    }
    assert!(checked > 10, "{checked} vectors");
    for case in vectors("encodings.json")["cases"]
        .as_array()
        .unwrap()
        .iter()
        .take(20)
    {
        let id = case["id"].as_str().unwrap();
        for encoding in ["hex", "base58", "crockford32", "base2"] {
            let text = case[encoding].as_str().unwrap();
            let (status, decoded) = server.json(
                "GET",
                &format!("/v1/ids/{text}?encoding={encoding}&layout=instagram"),
                None,
            );
            assert_eq!(
                (status, decoded["id"].as_str()),
                (200, Some(id)),
                "{encoding} {text}"
            );
        }
    }
    // The seeds' worked example, ISO-8601 and an omitted timestamp.
    let (_, example) = server.json(
        "POST",
        "/v1/compose",
        Some(r#"{"timestamp": "2010-11-04T01:42:55.657Z", "datacenter_id": 1, "machine_id": 1, "sequence": 0}"#),
    );
    assert_eq!(example["id"], json!("4194439168"));
    let (status, now) = server.json(
        "POST",
        "/v1/compose",
        Some(r#"{"datacenter_id": 0, "machine_id": 0}"#),
    );
    assert_eq!(status, 200, "{now}");
    let ids = server.ids(100_000);
    assert_eq!(ids.len(), 100_000);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(server.issued(), 100_000);
    // 100,000 IDs span at least 24 ticks of 4,096: the batch waited at the ceiling.
    assert!(server.metric("polyflake_ceiling_waits_total") >= 1);
    assert_eq!(
        server.metric(r#"polyflake_clock_backwards_total{policy="wait",outcome="refused"}"#),
        0
    );
    let (status, layouts) = server.json("GET", "/v1/layouts", None);
    assert_eq!(status, 200);
    assert_eq!(layouts["layouts"].as_array().unwrap().len(), PRESETS.len());
    assert_eq!(server.http("GET", "/healthz", None).0, 200);
    assert_eq!(server.http("GET", "/readyz", None).0, 200);
    let (_, page) = server.http("GET", "/", None);
    assert!(page.contains("polyflake composer"));
    // The zero-config local lease: held throughout.
    assert_eq!(server.metric("polyflake_lease_losses_total"), 0);
    assert_eq!(server.metric("polyflake_lease_reacquisitions_total"), 0);
    let (status, log) = server.stop_with_log();
    assert!(status.success());
    // The node values IDs were issued under, logged once.
    let issuing = issuing_as(&log);
    assert_eq!(issuing.len(), 1, "{log}");
    assert!(issuing[0].contains(&logged_nodes(ids[0])), "{log}");
}

#[test]
fn the_backwards_policy_and_clock_come_from_flags_or_the_environment() {
    let server = Server::start(&[
        ("POLYFLAKE_ON_CLOCK_BACKWARDS", "fail"),
        ("POLYFLAKE_CLOCK", "wall"),
    ]);
    server.ids(10);
    assert_eq!(
        server.metric(r#"polyflake_clock_backwards_total{policy="fail",outcome="refused"}"#),
        0
    );
    assert!(server.stop().success());
    let refused = Command::new(env!("CARGO_BIN_EXE_polyflake"))
        .args(["serve", "--on-clock-backwards", "sideways"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("sideways"));
    let help = Command::new(env!("CARGO_BIN_EXE_polyflake"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for setting in [
        "POLYFLAKE_LAYOUT",
        "POLYFLAKE_LISTEN",
        "POLYFLAKE_ON_CLOCK_BACKWARDS",
        "POLYFLAKE_MAX_BACKWARDS_MS",
        "POLYFLAKE_CLOCK",
    ] {
        assert!(help.contains(setting), "{setting} in\n{help}");
    }
}

#[test]
fn bad_input_on_every_endpoint_is_400_with_a_code_and_issues_nothing() {
    let server = Server::start(&[]);
    let bad: [(&str, &str, Option<&str>, &str); 16] = [
        ("GET", "/v1/ids?count=0", None, "INVALID_ARGUMENT"),
        ("GET", "/v1/ids?count=100001", None, "FIELD_OUT_OF_RANGE"),
        ("GET", "/v1/ids?count=-1", None, "INVALID_ARGUMENT"),
        ("GET", "/v1/ids?count=1.5", None, "INVALID_ARGUMENT"),
        ("GET", "/v1/ids?n=5", None, "INVALID_ARGUMENT"),
        ("GET", "/v1/ids/12x", None, "INVALID_ENCODING"),
        ("GET", "/v1/ids/1?encoding=base99", None, "INVALID_ARGUMENT"),
        ("GET", "/v1/ids/1?encoding=bytes", None, "INVALID_ARGUMENT"),
        ("GET", "/v1/ids/1?layout=nope", None, "INVALID_LAYOUT"),
        (
            "GET",
            "/v1/ids/18446744073709551615?layout=twitter",
            None,
            "FIELD_OUT_OF_RANGE",
        ),
        ("POST", "/v1/compose", Some("not json"), "INVALID_ARGUMENT"),
        ("POST", "/v1/compose", Some("[1]"), "INVALID_ARGUMENT"),
        (
            "POST",
            "/v1/compose",
            Some(r#"{"datacenter_id": 1, "machine_id": 40}"#),
            "FIELD_OUT_OF_RANGE",
        ),
        (
            "POST",
            "/v1/compose",
            Some(r#"{"timestamp": "yesterday", "datacenter_id": 1, "machine_id": 1}"#),
            "INVALID_ARGUMENT",
        ),
        (
            "POST",
            "/v1/compose",
            Some(r#"{"datacenter_id": 1, "machine_id": 1, "sequence": -1}"#),
            "INVALID_ARGUMENT",
        ),
        ("GET", "/v2/nothing", None, "INVALID_ARGUMENT"),
    ];
    for (method, path, body, code) in bad {
        let (status, answer) = server.json(method, path, body);
        assert_eq!(status, 400, "{method} {path}: {answer}");
        assert_eq!(answer["code"], json!(code), "{method} {path}: {answer}");
        assert!(!answer["message"].as_str().unwrap().is_empty());
    }
    let (_, out_of_range) = server.json(
        "POST",
        "/v1/compose",
        Some(r#"{"datacenter_id": 1, "machine_id": 40}"#),
    );
    assert_eq!(
        (out_of_range["field"].as_str(), out_of_range["max"].as_str()),
        (Some("machine_id"), Some("31"))
    );
    for (path, kind) in [
        ("/v1/ids?count=0", "usage"),
        ("/v1/ids?n=5", "unknown_name"),
        ("/v1/ids/1?encoding=base99", "unknown_name"),
        ("/v2/nothing", "unknown_name"),
    ] {
        let (_, answer) = server.json("GET", path, None);
        assert_eq!(answer["kind"], json!(kind), "{path}: {answer}");
    }
    assert_eq!(server.issued(), 0, "nothing issued");
}

#[test]
fn replicas_on_one_etcd_never_overlap_and_sigterm_releases_the_lease() {
    let etcd = support::Etcd::start();
    let prefix = format!("/polyflake-serve-{}", std::process::id());
    let env = [
        ("POLYFLAKE_ETCD_ENDPOINTS", etcd.endpoint.as_str()),
        ("POLYFLAKE_ETCD_PREFIX", prefix.as_str()),
    ];
    let a = Server::start(&env);
    let b = Server::start(&env);
    let layout = polyflake::Layout::twitter();
    let node = |id: u64| layout.decode(id).unwrap().nodes().to_vec();
    let (from_a, from_b) = (a.ids(50_000), b.ids(50_000));
    assert_ne!(node(from_a[0]), node(from_b[0]), "distinct node values");
    let all: HashSet<u64> = from_a.iter().chain(&from_b).copied().collect();
    assert_eq!(all.len(), 100_000, "no ID twice");
    let held = node(from_a[0]);
    let last = *from_a.last().unwrap();
    // A SIGTERM finishes, releases the lease: a successor takes the value at once
    // (well inside the 10 s TTL) and starts past every ID of its predecessor.
    assert!(a.stop().success());
    let started = Instant::now();
    let c = Server::start(&env);
    let first = c.ids(1)[0];
    assert_eq!(node(first), held, "the released value");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(first > last, "past the predecessor's IDs");
    assert!(c.stop().success() && b.stop().success());
}

#[test]
fn a_replica_paused_past_its_ttl_refuses_until_it_holds_a_lease_again() {
    let etcd = support::Etcd::start();
    let prefix = format!("/polyflake-serve-pause-{}", std::process::id());
    // Short leases through the environment: TTL 4 s, renewed every second.
    let env = [
        ("POLYFLAKE_ETCD_ENDPOINTS", etcd.endpoint.as_str()),
        ("POLYFLAKE_ETCD_PREFIX", prefix.as_str()),
        ("POLYFLAKE_ETCD_TTL_MS", "4000"),
        ("POLYFLAKE_ETCD_KEEP_ALIVE_MS", "1000"),
        ("POLYFLAKE_ETCD_SAFETY_MARGIN_MS", "1000"),
        ("POLYFLAKE_ETCD_REQUEST_TIMEOUT_MS", "900"),
    ];
    let layout = polyflake::Layout::twitter();
    let node = |id: u64| layout.decode(id).unwrap().nodes().to_vec();
    let a = Server::start(&env);
    let before = a.ids(1000);
    assert_eq!(a.http("GET", "/readyz", None).0, 200);
    support::signal(a.child.id(), "STOP");
    std::thread::sleep(Duration::from_secs(6));
    // Its lease has expired: a newcomer takes its value meanwhile.
    let b = Server::start(&env);
    let from_b = b.ids(1000);
    assert_eq!(node(from_b[0]), node(before[0]), "the expired value");
    support::signal(a.child.id(), "CONT");
    // A answers 503 (LEASE_LOST) until it holds a lease again, then issues
    // under another value, never the newcomer's.
    let deadline = Instant::now() + Duration::from_secs(30);
    let after = loop {
        let (status, body) = a.json("GET", "/v1/ids?count=1000", None);
        if status == 200 {
            break body["ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().parse::<u64>().unwrap())
                .collect::<Vec<_>>();
        }
        assert_eq!(
            (status, body["code"].as_str()),
            (503, Some("LEASE_LOST")),
            "{body}"
        );
        // Paused past its deadline: the lease lapsed (or etcd's answers failed
        // meanwhile), and waiting helps.
        assert!(
            matches!(
                body["reason"].as_str(),
                Some("lapsed" | "unreachable" | "taken_over")
            ),
            "{body}"
        );
        assert_eq!(body["retryable"], json!(true), "{body}");
        // Ready again only once it can issue (it may have just claimed).
        let (ready, _) = a.http("GET", "/readyz", None);
        assert!(ready == 503 || ready == 200, "{ready}");
        assert!(Instant::now() < deadline, "no lease again within 30 s");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_ne!(
        node(after[0]),
        node(from_b[0]),
        "never the newcomer's value"
    );
    assert_eq!(a.http("GET", "/readyz", None).0, 200);
    assert!(a.metric("polyflake_lease_losses_total") >= 1);
    assert!(a.metric("polyflake_lease_reacquisitions_total") >= 1);
    // Renewed every second from then on.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(a.metric("polyflake_lease_renewals_total") >= 1);
    let all: HashSet<u64> = before
        .iter()
        .chain(&after)
        .chain(&from_b)
        .copied()
        .collect();
    assert_eq!(all.len(), 3000, "no ID twice");
    let (status, log) = a.stop_with_log();
    assert!(status.success() && b.stop().success());
    // Both identities it issued under are in its log, in order.
    let issuing = issuing_as(&log);
    assert_eq!(issuing.len(), 2, "{log}");
    assert!(issuing[0].contains(&logged_nodes(before[0])), "{log}");
    assert!(issuing[1].contains(&logged_nodes(after[0])), "{log}");
}
