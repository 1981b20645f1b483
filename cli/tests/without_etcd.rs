//! A CLI built without the `etcd` feature (the default `cargo install`),
//! asked for an etcd lease: a one-line error that says how to get a build
//! with it, never another identity.
#![cfg(not(feature = "etcd"))]

use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

#[test]
fn etcd_endpoints_are_refused_with_the_documented_error() {
    let out = Command::cargo_bin("polyflake")
        .unwrap()
        .args(["next", "--layout", "twitter"])
        .env("POLYFLAKE_ETCD_ENDPOINTS", "http://127.0.0.1:1")
        .env_remove("POLYFLAKE_NODE_ID")
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(
        stderr.contains("built without the cargo feature `etcd`")
            && stderr.contains("--features etcd"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
