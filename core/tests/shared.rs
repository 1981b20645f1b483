//! Generators of several processes on one [`SharedState`] (a server's forked
//! workers, as PostgreSQL's backends): the child processes are this test
//! binary run again, mapping one file of shared words.

// Mapping the words into each process needs mmap.
#![allow(unsafe_code)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use polyflake::{
    Clock, FileMark, Generator, Layout, ManualClock, MarkStore, MonotonicClock, SharedState,
    WorkerIdentity,
};

const CHILD: &str = "POLYFLAKE_TEST_SHARED_CHILD";
const PER_CHILD: usize = 20_000;
const CHILDREN: usize = 4;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("polyflake-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// 256 IDs a millisecond: the children meet at the ceiling and in the
/// compare-and-swap all the time.
fn small_layout() -> Layout {
    Layout::custom(1_600_000_000_000, 41)
        .node("n", 4)
        .sequence_bits(8)
        .build()
        .unwrap()
}

/// The words in `path`, mapped shared into this process for its lifetime.
fn map_words(path: &Path) -> &'static SharedState {
    // SAFETY: the mapping is never unmapped.
    unsafe { &*map_raw(path) }
}

fn map_raw(path: &Path) -> *mut SharedState {
    use std::os::fd::AsRawFd;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let size = std::mem::size_of::<SharedState>();
    // SAFETY: a fresh mapping of a file at least `size` long.
    unsafe {
        let ptr = libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        );
        assert_ne!(ptr, libc::MAP_FAILED);
        ptr.cast()
    }
}

/// A file holding fresh words.
fn fresh_words(path: &Path) {
    std::fs::write(path, vec![0u8; std::mem::size_of::<SharedState>()]).unwrap();
    // SAFETY: no process uses the words yet; this writes their start.
    unsafe { std::ptr::write(map_raw(path), SharedState::new()) };
}

/// Run as a child: issue `PER_CHILD` IDs on the shared words (or on words of
/// its own, with `unshared`) and write them to `out-<pid>`.
#[test]
fn child_issues_on_the_shared_words() {
    let Ok(dir) = std::env::var(CHILD) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let layout = small_layout();
    let clock: Arc<dyn Clock> = Arc::new(MonotonicClock::new());
    let store: Arc<dyn MarkStore> = Arc::new(FileMark::new(dir.join("node.hwm")));
    let identity =
        WorkerIdentity::resolve_with_mark(vec![3], "test", store, Arc::clone(&clock)).unwrap();
    let builder = Generator::builder(layout)
        .identity(identity)
        .mark_lead_ms(5);
    let builder = if std::env::var("UNSHARED").is_ok() {
        builder
    } else {
        builder.shared(map_words(&dir.join("words")), dir.join("mark.lock"))
    };
    let generator = builder.build().unwrap();
    let ids = generator.next_ids(PER_CHILD).unwrap();
    let bytes: Vec<u8> = ids.iter().flat_map(|id| id.to_le_bytes()).collect();
    std::fs::write(dir.join(format!("out-{}", std::process::id())), bytes).unwrap();
}

/// Runs `CHILDREN` children at once; answers each one's IDs.
fn run_children(dir: &Path, unshared: bool) -> Vec<Vec<u64>> {
    let children: Vec<_> = (0..CHILDREN)
        .map(|_| {
            let mut command = Command::new(std::env::current_exe().unwrap());
            command
                .args([
                    "--exact",
                    "child_issues_on_the_shared_words",
                    "--test-threads=1",
                ])
                .env(CHILD, dir)
                .stdout(std::process::Stdio::null());
            if unshared {
                command.env("UNSHARED", "1");
            }
            command.spawn().unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("out-")
        {
            let bytes = std::fs::read(&path).unwrap();
            all.push(
                bytes
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                    .collect(),
            );
        }
    }
    all
}

fn duplicates(runs: &[Vec<u64>]) -> usize {
    let mut seen = HashSet::new();
    runs.iter()
        .flatten()
        .filter(|id| !seen.insert(**id))
        .count()
}

#[test]
fn processes_on_shared_words_never_issue_one_id_twice() {
    let dir = temp_dir("shared-processes");
    fresh_words(&dir.join("words"));
    let runs = run_children(&dir, false);
    assert_eq!(runs.len(), CHILDREN);
    assert_eq!(duplicates(&runs), 0);
    for ids in &runs {
        assert_eq!(ids.len(), PER_CHILD);
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "increasing per process"
        );
    }
    // The mark the processes wrote in turn is past every ID they issued.
    let layout = small_layout();
    let last_ms = runs
        .iter()
        .flatten()
        .map(|&id| layout.decode(id).unwrap().timestamp_ms)
        .max()
        .unwrap();
    let mark = FileMark::new(dir.join("node.hwm")).load().unwrap().unwrap();
    assert!(
        mark >= last_ms,
        "mark {mark} behind the last ID's time {last_ms}"
    );
    std::fs::remove_dir_all(&dir).unwrap();

    // The same run on words of their own: the check above can fail.
    let dir = temp_dir("unshared-processes");
    let runs = run_children(&dir, true);
    assert!(
        duplicates(&runs) > 0,
        "processes on their own words collide"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fresh_words_start_past_the_mark_and_a_later_process_joins_where_they_are() {
    let dir = temp_dir("shared-join");
    let layout = Layout::twitter();
    let start = layout.epoch_ms() + 1_000_000;
    let clock = ManualClock::new(start);
    let store: Arc<dyn MarkStore> = Arc::new(FileMark::new(dir.join("node.hwm")));
    // A previous life of the server wrote its mark 100 ms ahead of now.
    store.persist(start + 100).unwrap();
    let words: &'static SharedState = Box::leak(Box::new(SharedState::new()));
    let build = || {
        let identity = WorkerIdentity::resolve_with_mark(
            vec![1, 1],
            "test",
            Arc::clone(&store),
            Arc::new(clock.clone()),
        )
        .unwrap();
        Generator::builder(layout.clone())
            .identity(identity)
            .mark_lead_ms(1_000)
            .shared(words, dir.join("mark.lock"))
            .build()
            .unwrap()
    };
    let first = build();
    let a = first.next_id().unwrap();
    // Past the old mark: the restart waited it out (within the lead).
    assert_eq!(layout.decode(a).unwrap().timestamp_ms, start + 101);
    assert_eq!(store.load().unwrap(), Some(start + 1_101));
    // A process that joins now reads the new mark, 1 s ahead: it must not
    // jump there, but carry on from the last ID.
    let second = build();
    let b = second.next_id().unwrap();
    assert_eq!(b, a + (1 << layout.sequence_shift()));
    assert_eq!(clock.now_ms(), start + 101, "no wait for the joiner");
    // Both see the one state: the first generator's next ID is past it.
    assert!(first.next_id().unwrap() > b);
    // Dropping one does not lower the mark under the other.
    drop(second);
    assert_eq!(store.load().unwrap(), Some(start + 1_101));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_remote_lease_is_led_not_shared() {
    let layout = Layout::twitter();
    let words: &'static SharedState = Box::leak(Box::new(SharedState::new()));
    let dir = temp_dir("shared-remote");
    let clock: Arc<dyn Clock> = Arc::new(MonotonicClock::new());
    let identity = WorkerIdentity::resolve_local_lease(&layout, &dir, clock).unwrap();
    // Each process would take up its own next identity: one holds the
    // lease and leads the words (tests/follow.rs), the others follow.
    assert_eq!(identity.share().unwrap_err().code(), "INVALID_ARGUMENT");
    let leader = Generator::builder(layout)
        .identity(identity)
        .shared(words, dir.join("mark.lock"))
        .build()
        .unwrap();
    leader.lead(2_000).unwrap();
    leader.next_id().unwrap();
    drop(leader);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_identity_for_processes_is_held_as_leased_and_refuses_a_registry() {
    let layout = Layout::twitter();
    let dir = temp_dir("shared-resolve");
    let clock: Arc<dyn Clock> = Arc::new(MonotonicClock::new());
    let vars: std::collections::HashMap<String, String> = [(
        "POLYFLAKE_STATE_DIR".to_owned(),
        dir.to_string_lossy().into_owned(),
    )]
    .into();
    let first = WorkerIdentity::resolve_shared_from(&layout, &vars, Arc::clone(&clock)).unwrap();
    let second = WorkerIdentity::resolve_shared_from(&layout, &vars, Arc::clone(&clock)).unwrap();
    assert_eq!(first.nodes(), [0, 0]);
    assert_eq!(second.nodes(), [0, 1], "the first value is held");
    assert!(first.source().contains("local lease"), "{}", first.source());
    // Shared, it is the same values and mark, read again.
    let copy = first.share().unwrap();
    assert_eq!(
        (copy.nodes(), copy.source()),
        (first.nodes(), first.source())
    );
    // A value named by a variable that a live holder has is refused.
    let mut named = vars.clone();
    named.insert("POLYFLAKE_NODE_ID".into(), "1".into());
    let err = WorkerIdentity::resolve_shared_from(&layout, &named, Arc::clone(&clock)).unwrap_err();
    assert_eq!(err.code(), "LEASE_LOST");
    let mut registry = vars.clone();
    registry.insert(
        "POLYFLAKE_ETCD_ENDPOINTS".into(),
        "http://127.0.0.1:1".into(),
    );
    let err = WorkerIdentity::resolve_shared_from(&layout, &registry, clock).unwrap_err();
    assert_eq!(err.code(), "INVALID_ARGUMENT");
    assert!(
        err.to_string().contains("POLYFLAKE_ETCD_ENDPOINTS"),
        "{err}"
    );
    drop((first, second, copy));
    std::fs::remove_dir_all(&dir).unwrap();
}
