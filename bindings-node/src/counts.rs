//! `generator.stats()`'s object: the core's `GeneratorStats` and `LeaseStats`
//! (core `generator/counts.rs`), counts as numbers (exact below 2^53).

use napi_derive::napi;

/// Counts since the generator was built.
#[napi(object)]
pub struct GeneratorStats {
    /// Calls that found their tick's sequence spent and waited for the next.
    pub ceiling_waits: f64,
    /// Calls that waited for a clock behind the last tick (policy `wait`).
    pub clock_backwards_waited: f64,
    /// Calls refused with `CLOCK_MOVED_BACKWARDS`.
    pub clock_backwards_refused: f64,
    /// IDs issued ahead of a clock that was behind (policy `logical`).
    pub clock_backwards_ran_ahead: f64,
    /// The lease's counts, if the identity is leased.
    pub lease: Option<LeaseStats>,
}

/// A lease's renewals, losses and re-acquisitions.
#[napi(object)]
pub struct LeaseStats {
    pub renewals: f64,
    pub losses: f64,
    pub reacquisitions: f64,
}

impl From<polyflake::GeneratorStats> for GeneratorStats {
    fn from(s: polyflake::GeneratorStats) -> Self {
        GeneratorStats {
            ceiling_waits: s.ceiling_waits as f64,
            clock_backwards_waited: s.clock_backwards_waited as f64,
            clock_backwards_refused: s.clock_backwards_refused as f64,
            clock_backwards_ran_ahead: s.clock_backwards_ran_ahead as f64,
            lease: s.lease.map(|l| LeaseStats {
                renewals: l.renewals as f64,
                losses: l.losses as f64,
                reacquisitions: l.reacquisitions as f64,
            }),
        }
    }
}
