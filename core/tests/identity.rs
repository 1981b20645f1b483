//! Worker identity from the environment, local leases and high-water marks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use polyflake::{
    ArgumentKind, BackwardsPolicy, Clock, FileMark, Generator, Layout, LeaseLostReason,
    ManualClock, MarkStore, MonotonicClock, NodeCheck, ReclaimingLease, WorkerIdentity,
};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("polyflake-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The variables that put the state directory at `dir`, and nothing else.
fn state_dir_vars(dir: &Path) -> HashMap<String, String> {
    [(
        "POLYFLAKE_STATE_DIR".to_owned(),
        dir.to_string_lossy().into_owned(),
    )]
    .into()
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
    assert_eq!(err.lease_lost_reason(), Some(LeaseLostReason::StateUnsafe));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn from_env_uses_variables_then_the_local_lease() {
    let dir = temp_dir("env");
    let layout = Layout::twitter();
    let state = dir.join("state").to_string_lossy().into_owned();
    let g = from_env(
        &layout,
        &[
            ("POLYFLAKE_NODE_ID", "37".into()),
            ("POLYFLAKE_STATE_DIR", state.clone()),
        ],
    )
    .unwrap();
    assert_eq!(g.node_values(), &[1, 5]);
    assert!(
        g.identity_source()
            .starts_with("POLYFLAKE_NODE_ID=37 (locked at "),
        "{}",
        g.identity_source()
    );
    drop(g);

    let a = from_env(&layout, &[("POLYFLAKE_STATE_DIR", state.clone())]).unwrap();
    let b = from_env(&layout, &[("POLYFLAKE_STATE_DIR", state.clone())]).unwrap();
    assert_ne!(a.node_values(), b.node_values());
    assert!(a.identity_source().starts_with("local lease on node 0"));
    let last = layout.decode(a.next_id().unwrap()).unwrap().timestamp_ms;
    drop(a);
    // The freed node value goes to the next process, which starts past its mark.
    let c = from_env(&layout, &[("POLYFLAKE_STATE_DIR", state.clone())]).unwrap();
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
            ("POLYFLAKE_STATE_DIR", state.clone()),
        ],
    )
    .unwrap();
    d.next_id().unwrap();
    assert!(FileMark::new(&file).load().unwrap().is_some());
    let err = from_env(&layout, &[("POLYFLAKE_MACHINE_ID", "x".into())]).unwrap_err();
    assert!(err.to_string().contains("POLYFLAKE_DATACENTER_ID"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn one_live_holder_per_identity_whatever_its_source() {
    let dir = temp_dir("one-holder");
    let layout = Layout::twitter();
    let state = dir.to_string_lossy().into_owned();
    let vars = |pairs: &[(&'static str, &str)]| -> Vec<(&'static str, String)> {
        let mut v: Vec<(&'static str, String)> =
            pairs.iter().map(|(k, v)| (*k, v.to_string())).collect();
        v.push(("POLYFLAKE_STATE_DIR", state.clone()));
        v
    };
    let a = from_env(&layout, &vars(&[("POLYFLAKE_NODE_ID", "37")])).unwrap();
    // The same value by another variable form, or leased: never twice at once.
    for pairs in [
        vec![("POLYFLAKE_NODE_ID", "37")],
        vec![
            ("POLYFLAKE_DATACENTER_ID", "1"),
            ("POLYFLAKE_MACHINE_ID", "5"),
        ],
        vec![("POLYFLAKE_ORDINAL", "37")],
    ] {
        let err = from_env(&layout, &vars(&pairs)).unwrap_err();
        assert_eq!(err.code(), "LEASE_LOST");
        assert_eq!(err.lease_lost_reason(), Some(LeaseLostReason::TakenOver));
        let text = err.to_string();
        assert!(
            text.contains(&format!("pid {}", std::process::id())),
            "{text}"
        );
        assert!(text.contains("node value 37"), "{text}");
    }
    // A leased value skips it.
    let leased: Vec<_> = (0..38)
        .map(|_| from_env(&layout, &vars(&[])).unwrap())
        .collect();
    assert!(leased.iter().all(|g| g.node_values() != [1, 5]));
    drop(a);
    from_env(&layout, &vars(&[("POLYFLAKE_NODE_ID", "37")])).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_identity_from_the_environment_keeps_a_mark() {
    let dir = temp_dir("marks");
    let layout = Layout::twitter();
    let mut vars: HashMap<String, String> = [
        ("POLYFLAKE_NODE_ID", "9"),
        ("POLYFLAKE_STATE_DIR", dir.to_str().unwrap()),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let start = layout.epoch_ms() + 9_000_000;
    let run = |vars: &HashMap<String, String>, at: i64| {
        let clock = Arc::new(ManualClock::new(at));
        let identity = WorkerIdentity::resolve_from(&layout, vars, clock, &[]).unwrap();
        Generator::builder(layout.clone())
            .identity(identity)
            .on_clock_backwards(BackwardsPolicy::Fail)
            .build()
            .unwrap()
    };
    for (i, form) in [
        vec![("POLYFLAKE_NODE_ID", "9")],
        vec![
            ("POLYFLAKE_DATACENTER_ID", "0"),
            ("POLYFLAKE_MACHINE_ID", "9"),
        ],
        vec![("POLYFLAKE_ORDINAL", "9")],
    ]
    .into_iter()
    .enumerate()
    {
        // One value, one mark file, whichever variable names it.
        let start = start + i as i64 * 100_000;
        vars.retain(|k, _| k == "POLYFLAKE_STATE_DIR");
        vars.extend(form.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let first = run(&vars, start);
        let last = first.next_ids(10).unwrap()[9];
        drop(first);
        // A restart onto a clock 100 ms behind: never an ID at or below the last.
        let second = run(&vars, start - 100);
        match second.next_id() {
            Ok(id) => assert!(id > last),
            Err(e) => assert_eq!(e.code(), "CLOCK_MOVED_BACKWARDS"),
        }
        drop(second);
        let logical = Generator::builder(layout.clone())
            .identity(
                WorkerIdentity::resolve_from(
                    &layout,
                    &vars,
                    Arc::new(ManualClock::new(start - 100)),
                    &[],
                )
                .unwrap(),
            )
            .on_clock_backwards(BackwardsPolicy::Logical)
            .build()
            .unwrap();
        assert!(logical.next_id().unwrap() > last, "{form:?}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn worker_bits_give_each_process_of_a_host_its_own_value() {
    let dir = temp_dir("workers");
    let layout = Layout::snowflake();
    let vars = [
        ("POLYFLAKE_NODE_ID", "5".to_string()),
        ("POLYFLAKE_WORKER_BITS", "2".to_string()),
        ("POLYFLAKE_STATE_DIR", dir.to_string_lossy().into_owned()),
    ];
    let workers: Vec<_> = (0..4).map(|_| from_env(&layout, &vars).unwrap()).collect();
    let mut values: Vec<u64> = workers.iter().map(|g| g.node_values()[0]).collect();
    values.sort();
    assert_eq!(values, [20, 21, 22, 23]);
    let err = from_env(&layout, &vars).unwrap_err();
    assert_eq!(err.code(), "LEASE_LOST");
    assert_eq!(err.lease_lost_reason(), Some(LeaseLostReason::Exhausted));
    assert!(err.retryable(), "a value frees up when a worker exits");
    assert!(
        err.to_string()
            .contains("every one of the 4 node values 20..24"),
        "{err}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_mark_before_the_epoch_or_past_the_end_is_an_error_naming_it() {
    let dir = temp_dir("pre-epoch");
    // Builds a twitter generator on a mark file holding `stored`.
    let build = |file: &str, stored: i64| {
        let path = dir.join(file);
        let store: Arc<dyn MarkStore> = Arc::new(FileMark::new(&path));
        store.persist(stored).unwrap();
        let clock = ManualClock::new(Layout::twitter().epoch_ms() + 1000);
        let source = format!("test identity (high-water mark {})", path.display());
        let identity =
            WorkerIdentity::resolve_with_mark(vec![1, 1], source, store, Arc::new(clock)).unwrap();
        Generator::builder(Layout::twitter())
            .identity(identity)
            .build()
            .unwrap_err()
    };
    for (file, stored, why) in [
        ("old.hwm", 5, "before layout twitter's epoch"),
        // Past the layout's last millisecond: named too, not a bare overflow.
        ("late.hwm", i64::MAX - 1, "no time left"),
    ] {
        let err = build(file, stored);
        assert_eq!(err.code(), "LEASE_LOST");
        assert_eq!(err.lease_lost_reason(), Some(LeaseLostReason::StateUnsafe));
        let text = err.to_string();
        assert!(text.contains(file) && text.contains(why), "{text}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_leased_value_whose_lock_file_is_deleted_is_given_up_for_another() {
    let dir = temp_dir("reclaim");
    let layout = Layout::twitter();
    let start = layout.epoch_ms() + 7_000_000;
    let clock = ManualClock::new(start);
    let vars = state_dir_vars(&dir);
    let identity =
        WorkerIdentity::resolve_from(&layout, &vars, Arc::new(clock.clone()), &[]).unwrap();
    let g = Generator::builder(layout.clone())
        .identity(identity)
        .build()
        .unwrap();
    assert_eq!(g.node_values(), [0, 0]);
    let before = g.next_ids(10).unwrap();
    // A tmp cleaner removes the lock; a newcomer takes node 0 and starts past its mark.
    std::fs::remove_file(dir.join("twitter/node-0.lock")).unwrap();
    let newcomer = polyflake::LocalLease::acquire(&layout, &dir).unwrap();
    assert_eq!(newcomer.number(), 0);
    // Past the mark's lead the holder must write a new mark: it notices, refuses once,
    // then issues under the next free value, after everything it issued before.
    clock.advance(2_000);
    let err = g.next_id().unwrap_err();
    assert_eq!(err.code(), "LEASE_LOST");
    assert!(err.to_string().contains("was replaced"), "{err}");
    assert_eq!(err.lease_lost_reason(), Some(LeaseLostReason::TakenOver));
    let after = g.next_ids(10).unwrap();
    assert_eq!(g.node_values(), [0, 1]);
    assert!(
        g.identity_source().starts_with("local lease on node 1"),
        "{}",
        g.identity_source()
    );
    assert!(after[0] > before[9]);
    assert!(after
        .iter()
        .all(|&id| layout.decode(id).unwrap().nodes() == [0, 1]));
    drop(newcomer);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_node_check_refusing_value_0_leads_to_value_1_and_refusals_are_errors() {
    let dir = temp_dir("check");
    let clock: Arc<dyn Clock> = Arc::new(MonotonicClock::new());
    let not_zero = NodeCheck::new(|nodes| nodes != [0]);
    let identity =
        WorkerIdentity::resolve_local_lease(&Layout::snowflake(), &dir, Arc::clone(&clock))
            .unwrap()
            .checked(not_zero.clone())
            .unwrap();
    assert_eq!(identity.nodes(), [1]);
    let g = Generator::builder(Layout::snowflake())
        .identity(identity)
        .build()
        .unwrap();
    assert_eq!(
        Layout::snowflake()
            .decode(g.next_id().unwrap())
            .unwrap()
            .nodes(),
        [1]
    );

    // A given value is not replaced: its refusal is the error.
    let given = WorkerIdentity::resolve_with_mark(
        vec![0],
        "POLYFLAKE_NODE_ID=0",
        Arc::new(FileMark::new(dir.join("given.hwm"))),
        Arc::clone(&clock),
    )
    .unwrap();
    let err = given.checked(not_zero).unwrap_err();
    assert_eq!(err.code(), "INVALID_ARGUMENT");
    assert_eq!(err.argument_kind(), Some(ArgumentKind::NodeCheck));
    assert!(
        err.to_string()
            .contains("refused node values [0] (POLYFLAKE_NODE_ID=0)"),
        "{err}"
    );

    // Every value of a range refused; a check that panics is refused too.
    let two = ReclaimingLease::new(dir.join("two"), Some(0..2));
    let err =
        WorkerIdentity::resolve_remote(&Layout::snowflake(), Arc::new(two), Arc::clone(&clock))
            .unwrap()
            .checked(NodeCheck::new(|_| false))
            .unwrap_err();
    assert_eq!(err.code(), "INVALID_ARGUMENT", "{err}");
    let err = WorkerIdentity::resolve_local_lease(&Layout::snowflake(), &dir.join("panic"), clock)
        .unwrap()
        .checked(NodeCheck::new(|_| panic!("the registry is down")))
        .unwrap_err();
    assert!(
        err.to_string().contains("panicked (the registry is down)"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_clean_drop_settles_the_mark_so_the_next_process_issues_at_once() {
    let dir = temp_dir("settle");
    let layout = Layout::twitter();
    let start = layout.epoch_ms() + 8_000_000;
    let clock = ManualClock::new(start);
    let vars = state_dir_vars(&dir);
    let run = |clock: &ManualClock| {
        let identity =
            WorkerIdentity::resolve_from(&layout, &vars, Arc::new(clock.clone()), &[]).unwrap();
        Generator::builder(layout.clone())
            .identity(identity)
            .build()
            .unwrap()
    };
    let mark = FileMark::new(dir.join("twitter/node-0.hwm"));
    let g = run(&clock);
    let first = g.next_ids(5).unwrap();
    assert_eq!(
        mark.load().unwrap(),
        Some(start + 1_000),
        "one lead ahead while it runs"
    );
    drop(g);
    assert_eq!(
        mark.load().unwrap(),
        Some(start),
        "settled to the last tick used"
    );
    // The next process on the value, in the same millisecond: past every
    // earlier ID after one tick, not after the lead.
    let g = run(&clock);
    let next = g.next_id().unwrap();
    assert!(next > first[4]);
    assert_eq!(clock.now_ms(), start + 1);
    drop(g);

    // A holder whose lock file was taken over leaves the newcomer's mark alone.
    let g = run(&clock);
    g.next_id().unwrap();
    let held = mark.load().unwrap().unwrap();
    std::fs::remove_file(dir.join("twitter/node-0.lock")).unwrap();
    let newcomer = polyflake::LocalLease::acquire(&layout, &dir).unwrap();
    assert_eq!(newcomer.number(), 0);
    drop(g);
    assert_eq!(mark.load().unwrap(), Some(held), "not lowered");
    drop(newcomer);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn close_gives_up_the_identity_while_other_threads_still_issue() {
    let dir = temp_dir("close");
    let layout = Layout::custom(1_288_834_974_657, 41)
        .node("node_id", 2)
        .sequence_bits(20)
        .build()
        .unwrap();
    let state = [("POLYFLAKE_STATE_DIR", dir.to_string_lossy().into_owned())];
    let first = Arc::new(from_env(&layout, &state).unwrap());
    let issued = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let (g, issued) = (Arc::clone(&first), Arc::clone(&issued));
            std::thread::spawn(move || {
                let mut ids = Vec::new();
                loop {
                    match g.next_id() {
                        Ok(id) => {
                            ids.push(id);
                            issued.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        Err(e) => return (ids, e.code()),
                    }
                }
            })
        })
        .collect();
    // Close while the threads are issuing, however slowly they started.
    while issued.load(std::sync::atomic::Ordering::Relaxed) < 10_000 {
        std::thread::yield_now();
    }
    first.close();
    // The lock is free at once, though the threads still hold the generator.
    let second = from_env(&layout, &state).unwrap();
    assert_eq!(second.node_values(), first.node_values());
    let after: Vec<u64> = (0..1_000).map(|_| second.next_id().unwrap()).collect();
    let mut before = Vec::new();
    for worker in workers {
        let (ids, code) = worker.join().unwrap();
        assert_eq!(code, "LEASE_LOST");
        before.extend(ids);
    }
    let last = *before
        .iter()
        .max()
        .expect("the threads issued before close");
    assert!(
        after[0] > last,
        "the identity's next holder starts past every ID issued before close"
    );
    assert!(first.is_closed());
    assert_eq!(first.ready().unwrap_err().code(), "LEASE_LOST");
    let closed = first.next_id().unwrap_err();
    assert_eq!(closed.lease_lost_reason(), Some(LeaseLostReason::Closed));
    assert!(!closed.retryable(), "a closed generator is finished");
    assert_eq!(first.next_ids(3).unwrap_err().code(), "LEASE_LOST");
    first.close();
    assert_eq!(
        first.last_timestamp_ms(),
        Some(layout.timestamp_of(last >> layout.time_shift())),
        "the last issued tick is still known"
    );
    drop(second);
    std::fs::remove_dir_all(dir).unwrap();
}
