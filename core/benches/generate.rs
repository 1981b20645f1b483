//! polyflake beside the `snowflaked` crate, in one run. Ratios go to
//! docs/benchmarks.md via `scripts/bench_report.py`.
//!
//! A generator bound by 4,096 IDs per millisecond spends most of a
//! benchmark waiting for the next millisecond, which hides what an ID costs.
//! So two measurements per generator:
//! - `ceiling/*`: plain calls, waits included; IDs per ms vs the 4,096 ceiling.
//! - `cost/*`: time per ID excluding the batches of 32 calls that waited for
//!   a tick (a batch over 4 µs), the same rule for every generator.

use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use common::{checked_floor, RuntimePlan};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use polyflake::{Encoding, Generator, Layout};

mod common;

const BATCH: u64 = 32;
const WAITED: Duration = Duration::from_micros(4);

/// Time for `iters` calls of `next`, split over `threads` threads sharing
/// the generator. Plain runs return the wall time from the first thread's
/// start to the last thread's end. With `skip_waits`, batches that waited for
/// a tick are neither timed nor counted, and each thread's time is scaled
/// to its share; threads run side by side, so the result is their mean.
fn timed(iters: u64, threads: u64, skip_waits: bool, next: &(dyn Fn() -> u64 + Sync)) -> Duration {
    let per_thread = iters.div_ceil(threads);
    let barrier = Barrier::new(threads as usize);
    let spans: Vec<(Instant, Instant, Duration)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    let start = Instant::now();
                    if !skip_waits {
                        for _ in 0..per_thread {
                            black_box(next());
                        }
                        return (start, Instant::now(), Duration::ZERO);
                    }
                    let mut counted = 0;
                    let mut spent = Duration::ZERO;
                    while counted < per_thread {
                        let start = Instant::now();
                        for _ in 0..BATCH {
                            black_box(next());
                        }
                        let took = start.elapsed();
                        if took < WAITED {
                            spent += took;
                            counted += BATCH;
                        }
                    }
                    (
                        start,
                        Instant::now(),
                        spent * per_thread as u32 / counted as u32,
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    if skip_waits {
        return spans.iter().map(|s| s.2).sum::<Duration>() / threads as u32;
    }
    let first = spans.iter().map(|s| s.0).min().unwrap();
    let last = spans.iter().map(|s| s.1).max().unwrap();
    last - first
}

/// The floor of `next_id`: one read of the clock it uses.
fn clock(c: &mut Criterion) {
    use polyflake::{Clock, MonotonicClock};
    let clock = MonotonicClock::new();
    let mut group = c.benchmark_group("clock");
    group.bench_function("monotonic", |b| b.iter(|| clock.now_ms()));
    // The floor of any lock-free generator: the clock read and one
    // compare-and-swap publishing the new state.
    let state = std::sync::atomic::AtomicU64::new(0);
    group.bench_function("monotonic+cas", |b| {
        b.iter(|| {
            use std::sync::atomic::Ordering;
            let current = state.load(Ordering::Acquire);
            let next = (clock.now_ms() as u64) << 12 | (current + 1) & 0xfff;
            state.compare_exchange_weak(current, next, Ordering::AcqRel, Ordering::Acquire)
        })
    });
    group.finish();
}

fn generators(c: &mut Criterion) {
    let snowflake = Generator::new(Layout::snowflake(), &[1]).unwrap();
    let wide_layout = Layout::custom(1_288_834_974_657, 41)
        .node("node_id", 1)
        .sequence_bits(21)
        .build()
        .unwrap();
    let wide = Generator::new(wide_layout, &[1]).unwrap();
    let peer = snowflaked::sync::Generator::new(1);

    let candidates: [(&str, &(dyn Fn() -> u64 + Sync)); 3] = [
        ("polyflake-snowflake", &|| snowflake.next_id().unwrap()),
        ("polyflake-wide", &|| wide.next_id().unwrap()),
        ("snowflaked", &|| peer.generate::<u64>()),
    ];
    for threads in [1u64, 2] {
        let mut group = c.benchmark_group(format!("ceiling/{threads}t"));
        group.throughput(Throughput::Elements(1));
        group.measurement_time(Duration::from_secs(3));
        for (name, next) in candidates.iter().filter(|(n, _)| *n != "polyflake-wide") {
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter_custom(|iters| timed(iters, threads, false, *next))
            });
        }
        group.finish();

        let mut group = c.benchmark_group(format!("cost/{threads}t"));
        group.throughput(Throughput::Elements(1));
        group.measurement_time(Duration::from_secs(3));
        for (name, next) in &candidates {
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter_custom(|iters| timed(iters, threads, true, *next))
            });
        }
        group.finish();
    }
}

fn decode_and_encodings(c: &mut Criterion) {
    let layout = Layout::twitter();
    let id = layout.compose(1_700_000_000_000, 1234, &[17, 29]).unwrap();
    let mut group = c.benchmark_group("decode");
    // A preset the compiler sees, as in `Layout::twitter().decode(id)`: its
    // decode folds to fixed shifts, as a decoder written for one layout does.
    group.bench_function("polyflake", |b| {
        b.iter(|| Layout::twitter().decode(black_box(id)).unwrap())
    });
    // The layout a value known only at run time (read from configuration):
    // its shifts and masks are read from memory, as a custom layout's are.
    group.bench_function("polyflake-runtime", |b| {
        b.iter(|| black_box(&layout).decode(black_box(id)).unwrap())
    });
    // A custom layout: three node fields, the sequence above them.
    let custom = Layout::custom(1_600_000_000_000, 40)
        .node("region", 3)
        .node("host", 7)
        .node("worker", 3)
        .sequence_bits(10)
        .sequence_above_nodes(true)
        .build()
        .unwrap();
    let custom_id = custom.compose(1_700_000_000_000, 77, &[5, 100, 6]).unwrap();
    group.bench_function("polyflake-custom", |b| {
        b.iter(|| black_box(&custom).decode(black_box(custom_id)).unwrap())
    });
    group.bench_function("snowflaked", |b| {
        use snowflaked::Snowflake;
        b.iter(|| {
            let id = black_box(id);
            (id.timestamp(), id.instance(), id.sequence())
        })
    });
    // The same work on both sides: snowflaked's shape (41 time, 10 node, 12
    // sequence) is the `snowflake` preset; read the three raw fields
    // snowflaked returns, from polyflake's one `decode`.
    let snowflake = Layout::snowflake();
    let snowflake_id = snowflake.compose(1_700_000_000_000, 1234, &[801]).unwrap();
    group.bench_function("polyflake-fields", |b| {
        b.iter(|| {
            let parts = Layout::snowflake().decode(black_box(snowflake_id)).unwrap();
            (parts.ticks, parts.nodes()[0], parts.sequence)
        })
    });
    group.bench_function("polyflake-fields-runtime", |b| {
        b.iter(|| {
            let parts = black_box(&snowflake)
                .decode(black_box(snowflake_id))
                .unwrap();
            (parts.ticks, parts.nodes()[0], parts.sequence)
        })
    });
    // A custom layout of snowflaked's shape, so necessarily read at run time.
    let twin = Layout::custom(1_288_834_974_657, 41)
        .node("node_id", 10)
        .build()
        .unwrap();
    group.bench_function("polyflake-fields-custom", |b| {
        b.iter(|| {
            let parts = black_box(&twin).decode(black_box(snowflake_id)).unwrap();
            (parts.ticks, parts.nodes()[0], parts.sequence)
        })
    });
    // The floor of a decoder that keeps the contract: snowflaked's shifts
    // plus the refusal of an ID with its unused top bit set.
    group.bench_function("checked-floor", |b| {
        b.iter(|| checked_floor(black_box(snowflake_id)))
    });
    // The floor of a decoder whose layout is data read at run time: the same
    // checked shifts, each amount and mask loaded rather than constant.
    let floor = black_box(RuntimePlan::snowflake());
    group.bench_function("runtime-floor", |b| {
        b.iter(|| black_box(&floor).decode(black_box(snowflake_id)))
    });
    group.finish();

    // Each side hands its text to the caller where it lies on the stack, as
    // a response writer takes it; neither value is copied out whole.
    let mut group = c.benchmark_group("format");
    // One closure per encoding, each with its encoding a constant, as in
    // `Encoding::Decimal.encode(id)`.
    macro_rules! format_bench {
        ($($encoding:ident),*) => {$(
            group.bench_function(Encoding::$encoding.name(), |b| {
                b.iter(|| {
                    let encoded = Encoding::$encoding.encode(black_box(id));
                    black_box(encoded.as_bytes());
                })
            });
        )*};
    }
    #[rustfmt::skip]
    format_bench!(Decimal, Hex, Base2, Base32, Base36, Base58, Base64, Crockford32, Bytes);
    // The floor for decimal: the `itoa` crate.
    group.bench_function("itoa", |b| {
        b.iter(|| {
            let mut buffer = itoa::Buffer::new();
            black_box(buffer.format(black_box(id)));
        })
    });
    group.finish();
    let mut group = c.benchmark_group("parse");
    for encoding in Encoding::ALL {
        let text = encoding.encode(id);
        group.bench_function(encoding.name(), |b| {
            b.iter(|| encoding.parse(black_box(text.as_bytes())).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, clock, generators, decode_and_encodings);
criterion_main!(benches);
