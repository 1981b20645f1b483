//! The service's metrics: what both faces count (`Metrics`, kept by
//! `app.rs`), the request-latency histogram, and their Prometheus exposition
//! (`GET /metrics`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use polyflake::Generator;

/// Upper bounds of the request-latency histogram, in seconds.
pub(crate) const BUCKETS: [f64; 10] = [
    0.000_1, 0.000_25, 0.000_5, 0.001, 0.002, 0.005, 0.01, 0.05, 0.25, 1.0,
];

#[derive(Default)]
pub(crate) struct Metrics {
    pub(crate) ids: AtomicU64,
    pub(crate) batches: AtomicU64,
    pub(crate) refused: AtomicU64,
    pub(crate) requests: AtomicU64,
    /// Cumulative counts per bucket, then the sum in microseconds.
    pub(crate) latency: [AtomicU64; BUCKETS.len()],
    pub(crate) latency_us: AtomicU64,
}

impl Metrics {
    /// One request that took `took`, into the histogram.
    pub(crate) fn record(&self, took: Duration) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.latency_us
            .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
        for (bound, count) in BUCKETS.iter().zip(&self.latency) {
            if took.as_secs_f64() <= *bound {
                count.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// One Prometheus metric: its help, type and samples (`labels`, value).
fn metric(text: &mut String, name: &str, kind: &str, help: &str, samples: &[(&str, u64)]) {
    text.push_str(&format!("# HELP {name} {help}\n# TYPE {name} {kind}\n"));
    for (labels, value) in samples {
        text.push_str(&format!("{name}{labels} {value}\n"));
    }
}

/// The text of `GET /metrics`: the counters, the backwards policy's outcomes, the lease's
/// counts, readiness and the latency histogram, in Prometheus's text format.
pub(super) fn exposition(m: &Metrics, generator: &Generator) -> String {
    let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
    let stats = generator.stats();
    let mut text = String::new();
    #[rustfmt::skip]
    let counters: [(&str, &str, u64); 4] = [
        ("polyflake_ids_issued_total", "IDs handed out.", load(&m.ids)),
        ("polyflake_batches_total", "Successful /v1/ids requests.", load(&m.batches)),
        ("polyflake_refusals_total", "/v1/ids requests refused (lease or clock).", load(&m.refused)),
        ("polyflake_ceiling_waits_total", "Waits for the next tick because a tick's sequence was spent.", stats.ceiling_waits),
    ];
    for (name, help, value) in counters {
        metric(&mut text, name, "counter", help, &[("", value)]);
    }
    let policy = generator.policy().name();
    let labels = |outcome: &str| format!("{{policy=\"{policy}\",outcome=\"{outcome}\"}}");
    let (waited, refused, ran_ahead) = (labels("waited"), labels("refused"), labels("ran_ahead"));
    metric(
        &mut text,
        "polyflake_clock_backwards_total",
        "counter",
        "Calls that found the clock behind the last tick issued, by the backwards policy and what it did.",
        &[
            (&waited, stats.clock_backwards_waited),
            (&refused, stats.clock_backwards_refused),
            (&ran_ahead, stats.clock_backwards_ran_ahead),
        ],
    );
    if let Some(lease) = stats.lease {
        #[rustfmt::skip]
        let leases: [(&str, &str, u64); 3] = [
            ("polyflake_lease_renewals_total", "Renewals of the lease in force.", lease.renewals),
            ("polyflake_lease_losses_total", "Times the lease in force was lost or lapsed unrenewed.", lease.losses),
            ("polyflake_lease_reacquisitions_total", "New leases taken up after the first.", lease.reacquisitions),
        ];
        for (name, help, value) in leases {
            metric(&mut text, name, "counter", help, &[("", value)]);
        }
    }
    metric(
        &mut text,
        "polyflake_ready",
        "gauge",
        "1 while the lease holds and the clock is within policy.",
        &[("", u64::from(generator.ready().is_ok()))],
    );
    text.push_str("# HELP polyflake_request_seconds Request latency.\n# TYPE polyflake_request_seconds histogram\n");
    for (bound, count) in BUCKETS.iter().zip(&m.latency) {
        text.push_str(&format!(
            "polyflake_request_seconds_bucket{{le=\"{bound}\"}} {}\n",
            load(count)
        ));
    }
    text.push_str(&format!(
        "polyflake_request_seconds_bucket{{le=\"+Inf\"}} {0}\npolyflake_request_seconds_sum {1}\npolyflake_request_seconds_count {0}\n",
        load(&m.requests),
        load(&m.latency_us) as f64 / 1e6,
    ));
    text
}
