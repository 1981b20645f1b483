//! The CLI's default identity with `POLYFLAKE_ETCD_ENDPOINTS` set, against a
//! real etcd, with the default lease settings (TTL 10 s, keep-alive 3 s).
#![cfg(feature = "etcd")]

#[path = "../../etcd/tests/support/mod.rs"]
mod support;

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

fn next(endpoints: &str, prefix: &str) -> (i32, Vec<u64>, String) {
    let out = Command::cargo_bin("polyflake")
        .unwrap()
        .args(["next", "--layout", "twitter", "--count", "3"])
        .env("POLYFLAKE_ETCD_ENDPOINTS", endpoints)
        .env("POLYFLAKE_ETCD_PREFIX", prefix)
        .env_remove("POLYFLAKE_NODE_ID")
        .output()
        .unwrap();
    let ids = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    (
        out.status.code().unwrap_or(-1),
        ids,
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn next_leases_from_etcd_and_releases_on_exit() {
    let etcd = support::Etcd::start();
    let prefix = format!("/cli-{}", std::process::id());
    let (code, first, stderr) = next(&etcd.endpoint, &prefix);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("etcd lease on node 0"), "{stderr}");
    assert_eq!(first.len(), 3);
    // The first run revoked its lease on exit, so node 0 is free at once;
    // its mark in etcd puts the second run's IDs after the first's.
    let (code, second, stderr) = next(&etcd.endpoint, &prefix);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("etcd lease on node 0"), "{stderr}");
    assert!(second[0] > first[2], "{second:?} after {first:?}");
}

#[test]
fn an_unreachable_etcd_is_a_one_line_error() {
    let port = support::closed_port();
    let (code, ids, stderr) = next(&format!("http://127.0.0.1:{port}"), "/p");
    assert_eq!(code, 2);
    assert!(ids.is_empty());
    assert!(
        stderr.contains("lease lost: cannot reach etcd at http://127.0.0.1:"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
