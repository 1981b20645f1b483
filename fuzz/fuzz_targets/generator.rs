//! A generator driven by any sequence of clock moves and batch sizes under
//! each backwards policy: every ID strictly greater than the last, never a
//! duplicate; refusals only with the clock's or the layout's codes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyflake::{BackwardsPolicy, Generator, Layout, ManualClock};

fuzz_target!(|input: (u8, Vec<(i16, u8)>)| {
    let (which, steps) = input;
    let policy = match which % 3 {
        0 => BackwardsPolicy::Fail,
        1 => BackwardsPolicy::Wait { max_ms: 5 },
        _ => BackwardsPolicy::Logical,
    };
    // A small layout: the sequence is spent and the time field ends quickly.
    let layout = Layout::custom(0, 16)
        .node("n", 2)
        .sequence_bits(2)
        .build()
        .unwrap();
    let clock = ManualClock::new(i64::from(which) * 97);
    let generator = Generator::builder(layout)
        .nodes(&[1])
        .clock(clock.clone())
        .on_clock_backwards(policy)
        .build()
        .unwrap();
    let mut last = None;
    for (delta, batch) in steps {
        clock.advance(i64::from(delta));
        match generator.next_ids(usize::from(batch % 9)) {
            Ok(ids) => {
                for id in ids {
                    assert!(last.is_none_or(|l| id > l), "{id} after {last:?}");
                    last = Some(id);
                }
            }
            Err(e) => assert!(
                ["CLOCK_MOVED_BACKWARDS", "TIMESTAMP_BEFORE_EPOCH", "TIMESTAMP_OVERFLOW"]
                    .contains(&e.code()),
                "{e}"
            ),
        }
    }
});
