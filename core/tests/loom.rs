//! The generator's compare-and-swap under loom: every interleaving of two
//! and three threads (up to loom's preemption bound) issues strictly
//! increasing IDs per thread and never one ID twice, and the retry after a
//! lost compare-and-swap reads the clock again only when the winner's tick is
//! past its reading (under the `fail` policy a stale reading would refuse).
//!
//! Run with `make test-loom` (`RUSTFLAGS="--cfg loom"`, its own target directory).
#![cfg(loom)]

use std::collections::HashSet;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use loom::sync::atomic::{AtomicI64, Ordering};
use loom::thread;
use polyflake::{BackwardsPolicy, Clock, Generator, Layout};

/// A clock whose readings are loom operations, so that loom also places
/// other threads between a reading and the compare-and-swap. Waiting jumps
/// to the target, as the manual clock does.
#[derive(Debug)]
struct LoomClock(AtomicI64);

impl Clock for LoomClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
    fn wait_until(&self, target_ms: i64) {
        self.0.fetch_max(target_ms, Ordering::SeqCst);
    }
}

/// Two IDs a tick: threads meet at the ceiling and in the clock's step.
fn layout() -> Layout {
    Layout::custom(0, 41)
        .node("n", 2)
        .sequence_bits(1)
        .build()
        .unwrap()
}

/// Runs the model; answers how many interleavings loom explored.
fn run(threads: usize, per_thread: usize) -> usize {
    let explored = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&explored);
    let mut model = loom::model::Builder::new();
    model.preemption_bound = Some(3);
    model.check(move || {
        counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let clock: Arc<dyn Clock> = Arc::new(LoomClock(AtomicI64::new(1_000)));
        let generator = Arc::new(
            Generator::builder(layout())
                .nodes(&[1])
                .shared_clock(clock)
                .on_clock_backwards(BackwardsPolicy::Fail)
                .build()
                .unwrap(),
        );
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let generator = Arc::clone(&generator);
                thread::spawn(move || {
                    (0..per_thread)
                        .map(|_| {
                            generator
                                .next_id()
                                .expect("no refusal: the clock never goes back")
                        })
                        .collect::<Vec<u64>>()
                })
            })
            .collect();
        let mut seen = HashSet::new();
        for handle in handles {
            let ids = handle.join().unwrap();
            assert!(
                ids.windows(2).all(|w| w[0] < w[1]),
                "increasing per thread: {ids:?}"
            );
            for id in ids {
                assert!(seen.insert(id), "issued twice: {id}");
            }
        }
    });
    let explored = explored.load(std::sync::atomic::Ordering::Relaxed);
    println!("{threads} threads x {per_thread} IDs: {explored} interleavings");
    explored
}

#[test]
fn two_threads_never_share_an_id() {
    assert!(run(2, 3) > 100);
}

#[test]
fn three_threads_never_share_an_id() {
    assert!(run(3, 2) > 1_000);
}
