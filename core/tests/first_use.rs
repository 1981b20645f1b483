//! A generator whose identity is claimed at its first use: made, it holds
//! nothing; used, it claims; a failed claim is tried again; closed unused,
//! it never claims. Misconfiguration still fails when it is made. One test,
//! as it sets the process's environment.

use std::path::Path;

use polyflake::{FirstUse, GeneratorRequest, IdentityRequest, Layout, LeaseLostReason, LocalLease};

fn request() -> GeneratorRequest {
    GeneratorRequest::new(Layout::snowflake(), IdentityRequest::Environment)
}

/// Whether node `n` of `snowflake` is free in `dir`: it can be leased now.
fn free(dir: &Path, n: u64) -> bool {
    LocalLease::acquire_in(&Layout::snowflake(), dir, n..n + 1).is_ok()
}

#[test]
fn an_environment_identity_is_claimed_at_the_first_use() {
    let dir = std::env::temp_dir().join(format!("polyflake-first-use-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::env::set_var("POLYFLAKE_STATE_DIR", &dir);

    // A local lease: made, nothing is held; used, node 0 is.
    let lazy = FirstUse::new(request(), &[]).unwrap();
    assert!(lazy.claimed_generator().is_none());
    assert!(free(&dir, 0), "made, it holds no value");
    let id = lazy.get().unwrap().next_id().unwrap();
    assert_eq!(Layout::snowflake().decode(id).unwrap().nodes(), &[0]);
    assert!(!free(&dir, 0), "used, it holds node 0");
    assert!(std::ptr::eq(
        lazy.get().unwrap(),
        lazy.claimed_generator().unwrap()
    ));

    // Closed unused: it never claims.
    let unused = FirstUse::new(request(), &[]).unwrap();
    unused.close();
    let err = unused.get().unwrap_err();
    assert_eq!(err.lease_lost_reason(), Some(LeaseLostReason::Closed));
    assert!(free(&dir, 1));

    // A value held elsewhere: refused at the first use, not when made, and
    // claimed at a later use once it is free.
    std::env::set_var("POLYFLAKE_NODE_ID", "7");
    let holder = LocalLease::acquire_in(&Layout::snowflake(), &dir, 7..8).unwrap();
    let waiting = FirstUse::new(request(), &[]).unwrap();
    assert_eq!(waiting.get().unwrap_err().code(), "LEASE_LOST");
    drop(holder);
    let id = waiting.get().unwrap().next_id().unwrap();
    assert_eq!(Layout::snowflake().decode(id).unwrap().nodes(), &[7]);

    // What needs no I/O fails when it is made: a bad variable, a registry
    // this build lacks; and `claimed` fails at once when nothing is to be had.
    std::env::set_var("POLYFLAKE_NODE_ID", "seven");
    let err = FirstUse::new(request(), &[]).unwrap_err();
    assert!(err.to_string().contains("POLYFLAKE_NODE_ID"), "{err}");
    std::env::set_var("POLYFLAKE_NODE_ID", "7");
    let err = FirstUse::claimed(request(), &[]).unwrap_err();
    assert_eq!(err.code(), "LEASE_LOST", "node 7 is held by `waiting`");
    std::env::remove_var("POLYFLAKE_NODE_ID");
    std::env::set_var("POLYFLAKE_ETCD_ENDPOINTS", "http://127.0.0.1:1");
    let err = FirstUse::new(request(), &[]).unwrap_err();
    assert_eq!(err.code(), "INVALID_ARGUMENT");
    assert!(err.to_string().contains("no etcd lease"), "{err}");
    std::env::remove_var("POLYFLAKE_ETCD_ENDPOINTS");

    // Node values given outright claim nothing: built at once.
    let given = FirstUse::new(
        GeneratorRequest::new(Layout::snowflake(), IdentityRequest::Nodes(vec![9])),
        &[],
    )
    .unwrap();
    assert!(given.claimed_generator().is_some());
    drop((lazy, waiting));
    std::fs::remove_dir_all(&dir).unwrap();
}
