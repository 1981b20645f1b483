//! `Generator.stats()`'s values: the core's `GeneratorStats` and `LeaseStats`
//! (core `generator/counts.rs`), as records.

/// Counts since the generator was built.
#[derive(uniffi::Record)]
pub struct FfiGeneratorStats {
    pub ceiling_waits: u64,
    pub clock_backwards_waited: u64,
    pub clock_backwards_refused: u64,
    pub clock_backwards_ran_ahead: u64,
    pub lease: Option<FfiLeaseStats>,
}

/// A lease's renewals, losses and re-acquisitions.
#[derive(uniffi::Record)]
pub struct FfiLeaseStats {
    pub renewals: u64,
    pub losses: u64,
    pub reacquisitions: u64,
}

impl From<polyflake::GeneratorStats> for FfiGeneratorStats {
    fn from(s: polyflake::GeneratorStats) -> Self {
        FfiGeneratorStats {
            ceiling_waits: s.ceiling_waits,
            clock_backwards_waited: s.clock_backwards_waited,
            clock_backwards_refused: s.clock_backwards_refused,
            clock_backwards_ran_ahead: s.clock_backwards_ran_ahead,
            lease: s.lease.map(|l| FfiLeaseStats {
                renewals: l.renewals,
                losses: l.losses,
                reacquisitions: l.reacquisitions,
            }),
        }
    }
}
