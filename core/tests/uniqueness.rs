//! Many threads, one generator: no duplicates, strictly increasing per thread,
//! timestamps that track real time.

use std::collections::HashSet;
use std::sync::Arc;

use polyflake::{BackwardsPolicy, Clock, Generator, Layout, WallClock};

fn hammer(generator: Arc<Generator>, threads: usize, per_thread: usize) -> Vec<Vec<u64>> {
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let generator = Arc::clone(&generator);
            std::thread::spawn(move || {
                (0..per_thread)
                    .map(|_| generator.next_id().unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

fn assert_unique_and_increasing(per_thread: &[Vec<u64>]) {
    let mut all = HashSet::new();
    for ids in per_thread {
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "not strictly increasing within a thread"
        );
        for &id in ids {
            assert!(all.insert(id), "duplicate ID {id}");
        }
    }
}

/// 21 sequence bits: 2 million IDs per ms, so the threads race instead of
/// waiting for the next tick.
fn wide_sequence() -> Layout {
    Layout::custom(1_288_834_974_657, 41)
        .node("node_id", 1)
        .sequence_bits(21)
        .build()
        .unwrap()
}

#[test]
fn four_threads_four_million_ids_on_a_wide_sequence() {
    let generator = Arc::new(Generator::new(wide_sequence(), &[1]).unwrap());
    let ids = hammer(generator, 4, 1_000_000);
    assert_unique_and_increasing(&ids);
}

/// Threads racing across ticks on a monotonic clock must never look to the
/// generator like the clock going backwards: a thread that loses a
/// compare-and-swap to a later tick than its own reading reads the clock
/// again. With the `fail` policy, one such mistake is an error.
#[test]
fn racing_threads_never_look_like_the_clock_going_backwards() {
    let generator = Arc::new(
        Generator::builder(wide_sequence())
            .nodes(&[1])
            .on_clock_backwards(BackwardsPolicy::Fail)
            .build()
            .unwrap(),
    );
    let ids = hammer(generator, 4, 1_000_000);
    assert_unique_and_increasing(&ids);
}

#[test]
fn snowflake_preset_at_its_ceiling_waits_instead_of_wrapping() {
    let layout = Layout::snowflake();
    let generator = Arc::new(Generator::new(layout.clone(), &[7]).unwrap());
    let before = WallClock.now_ms();
    let ids = hammer(Arc::clone(&generator), 3, 300_000);
    let after = WallClock.now_ms();
    assert_unique_and_increasing(&ids);
    let mut per_ms = std::collections::HashMap::<i64, u64>::new();
    for &id in ids.iter().flatten() {
        let parts = layout.decode(id).unwrap();
        assert_eq!(parts.nodes(), &[7]);
        // The monotonic clock is anchored to wall time: no timestamp from the future or the past.
        assert!(parts.timestamp_ms >= before - 1 && parts.timestamp_ms <= after + 1);
        *per_ms.entry(parts.timestamp_ms).or_default() += 1;
    }
    assert!(per_ms.values().all(|&n| n <= 4096));
}

#[test]
fn batches_and_single_ids_interleave_without_overlap() {
    let generator = Arc::new(Generator::new(Layout::twitter(), &[1, 2]).unwrap());
    let handles: Vec<_> = (0..2)
        .map(|t| {
            let generator = Arc::clone(&generator);
            std::thread::spawn(move || {
                let mut ids = Vec::new();
                for _ in 0..200 {
                    if t == 0 {
                        ids.extend(generator.next_ids(1000).unwrap());
                    } else {
                        ids.extend((0..1000).map(|_| generator.next_id().unwrap()));
                    }
                }
                ids
            })
        })
        .collect();
    let ids: Vec<Vec<u64>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_unique_and_increasing(&ids);
}
