//! Worker identity from the environment, local leases and high-water marks.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use polyflake::{
    BackwardsPolicy, Clock, FileMark, Generator, Layout, ManualClock, MarkStore, WorkerIdentity,
};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("polyflake-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Resolves from a map of variables, on the monotonic clock.
fn from_env(layout: &Layout, pairs: &[(&str, String)]) -> polyflake::Result<Generator> {
    let vars: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let clock: Arc<dyn Clock> = Arc::new(polyflake::MonotonicClock::new());
    let identity = WorkerIdentity::resolve_from(layout, &vars, clock, &[])?;
    Generator::builder(layout.clone())
        .identity(identity)
        .build()
}

/// Node values with a mark in `store`, on `clock`.
fn marked(nodes: &[u64], store: &Arc<dyn MarkStore>, clock: &ManualClock) -> WorkerIdentity {
    WorkerIdentity::resolve_with_mark(
        nodes.to_vec(),
        "given, with a mark",
        Arc::clone(store),
        Arc::new(clock.clone()),
    )
    .unwrap()
}

#[test]
fn marks_are_persisted_ahead_and_only_when_needed() {
    let dir = temp_dir("mark");
    let store: Arc<dyn MarkStore> = Arc::new(FileMark::new(dir.join("a.hwm")));
    let t = Layout::twitter();
    let start = t.epoch_ms() + 1_000_000;
    let clock = ManualClock::new(start);
    let g = Generator::builder(t.clone())
        .identity(marked(&[1, 1], &store, &clock))
        .mark_lead_ms(500)
        .build()
        .unwrap();
    g.next_id().unwrap();
    assert_eq!(store.load().unwrap(), Some(start + 500));
    clock.set(start + 400);
    g.next_id().unwrap();
    assert_eq!(
        store.load().unwrap(),
        Some(start + 500),
        "inside the mark: no new write"
    );
    clock.set(start + 501);
    g.next_id().unwrap();
    assert_eq!(store.load().unwrap(), Some(start + 1001));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_restart_starts_past_the_mark_or_meets_the_policy() {
    let dir = temp_dir("restart");
    let store: Arc<dyn MarkStore> = Arc::new(FileMark::new(dir.join("b.hwm")));
    let t = Layout::twitter();
    let mark = t.epoch_ms() + 5_000_000;
    store.persist(mark).unwrap();

    // Behind by less than the lead: waits it out, then issues past the mark.
    let clock = ManualClock::new(mark - 300);
    let g = Generator::builder(t.clone())
        .identity(marked(&[2, 2], &store, &clock))
        .build()
        .unwrap();
    assert_eq!(clock.now_ms(), mark - 300, "building never waits");
    let id = g.next_id().unwrap();
    assert_eq!(clock.now_ms(), mark + 1, "the first ID waits the mark out");
    assert!(t.decode(id).unwrap().timestamp_ms > mark);
    drop(g);

    // Behind by far more (the clock was stepped back): the policy decides.
    let far = ManualClock::new(mark - 60_000);
    let g = Generator::builder(t.clone())
        .identity(marked(&[2, 2], &store, &far))
        .on_clock_backwards(BackwardsPolicy::Fail)
        .build()
        .unwrap();
    let mark_now = store.load().unwrap().unwrap();
    assert_eq!(g.next_id().unwrap_err().code(), "CLOCK_MOVED_BACKWARDS");
    let g = Generator::builder(t.clone())
        .identity(marked(&[2, 2], &store, &far))
        .on_clock_backwards(BackwardsPolicy::Logical)
        .build()
        .unwrap();
    let id = g.next_id().unwrap();
    assert!(
        t.decode(id).unwrap().timestamp_ms > mark_now,
        "logical counts on past the mark"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn corrupt_marks_are_an_error_never_a_reset() {
    let dir = temp_dir("corrupt");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("c.hwm");
    std::fs::write(&path, "polyflake-hwm 1\nnot-a-number\n").unwrap();
    let err = WorkerIdentity::resolve_with_mark(
        vec![1],
        "given",
        Arc::new(FileMark::new(&path)),
        Arc::new(ManualClock::new(0)),
    )
    .unwrap_err();
    assert_eq!(err.code(), "LEASE_LOST");
    assert!(err.to_string().contains("c.hwm"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn from_env_uses_variables_then_the_local_lease() {
    let dir = temp_dir("env");
    let layout = Layout::twitter();
    let g = from_env(&layout, &[("POLYFLAKE_NODE_ID", "37".into())]).unwrap();
    assert_eq!(g.node_values(), &[1, 5]);
    assert_eq!(g.identity_source(), "POLYFLAKE_NODE_ID=37");

    let state = dir.join("state").to_string_lossy().into_owned();
    let a = from_env(&layout, &[("POLYFLAKE_STATE_DIR", state.clone())]).unwrap();
    let b = from_env(&layout, &[("POLYFLAKE_STATE_DIR", state.clone())]).unwrap();
    assert_ne!(a.node_values(), b.node_values());
    assert!(a.identity_source().starts_with("local lease on node 0"));
    let last = layout.decode(a.next_id().unwrap()).unwrap().timestamp_ms;
    drop(a);
    // The freed node value goes to the next process, which starts past its mark.
    let c = from_env(&layout, &[("POLYFLAKE_STATE_DIR", state)]).unwrap();
    assert!(c.identity_source().starts_with("local lease on node 0"));
    let first = layout.decode(c.next_id().unwrap()).unwrap().timestamp_ms;
    assert!(first > last);

    let file = dir.join("static.hwm").to_string_lossy().into_owned();
    let d = from_env(
        &layout,
        &[
            ("POLYFLAKE_DATACENTER_ID", "3".into()),
            ("POLYFLAKE_MACHINE_ID", "4".into()),
            ("POLYFLAKE_STATE_FILE", file.clone()),
        ],
    )
    .unwrap();
    d.next_id().unwrap();
    assert!(FileMark::new(&file).load().unwrap().is_some());
    let err = from_env(&layout, &[("POLYFLAKE_MACHINE_ID", "x".into())]).unwrap_err();
    assert!(err.to_string().contains("POLYFLAKE_DATACENTER_ID"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}
