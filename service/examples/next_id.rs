//! `make bench-serve`'s client side: `next_id()` through a service-backed
//! generator against a running `polyflake serve`, beside a local generator,
//! on one thread (the refill runs on its own). Mean ns per ID from an untimed
//! loop; p50/p99/max from a loop that times each call (the two clock reads,
//! ~40 ns, included). Prints one JSON line per generator.
//!
//! `cargo run --release -p polyflake-service --example next_id -- URL CALLS BATCH`

use std::time::Instant;

use polyflake::{Generator, Layout};
use polyflake_service::{ServiceGenerator, ServiceSettings};

fn measure(name: &str, calls: usize, next: impl Fn() -> u64) {
    // Warm-up: the first batch arrives, the caches fill.
    for _ in 0..calls / 10 {
        std::hint::black_box(next());
    }
    let began = Instant::now();
    for _ in 0..calls {
        std::hint::black_box(next());
    }
    let mean_ns = began.elapsed().as_nanos() as f64 / calls as f64;
    let mut took: Vec<u64> = (0..calls)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(next());
            t.elapsed().as_nanos() as u64
        })
        .collect();
    took.sort_unstable();
    let pct = |p: f64| took[((took.len() as f64 * p) as usize).min(took.len() - 1)];
    println!(
        "{{\"generator\": \"{name}\", \"mean_ns\": {mean_ns:.1}, \"p50_ns\": {}, \"p99_ns\": {}, \"max_ns\": {}}}",
        pct(0.50),
        pct(0.99),
        took[took.len() - 1]
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, calls, batch] = &args[..] else {
        panic!("usage: next_id URL CALLS BATCH");
    };
    let calls: usize = calls.parse().expect("calls");
    let local = Generator::new(Layout::twitter(), &[1, 1]).expect("a local generator");
    measure("local", calls, || local.next_id().expect("an ID"));
    let mut settings = ServiceSettings::new([url.as_str()]);
    settings.batch = batch.parse().expect("batch");
    let service = ServiceGenerator::new(settings).expect("a service-backed generator");
    measure("service", calls, || service.next_id().expect("an ID"));
    let stats = service.stats();
    println!(
        "{{\"generator\": \"service-stats\", \"batches\": {}, \"stalls\": {}, \"longest_stall_us\": {}}}",
        stats.batches,
        stats.stalls,
        stats.longest_stall.as_micros()
    );
}
