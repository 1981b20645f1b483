//! `Generator.stats()`'s values: the core's `GeneratorStats` and `LeaseStats`
//! (core `generator/counts.rs`), copied into read-only objects.

use pyo3::prelude::*;

/// Counts since the generator was built (`Generator.stats()`).
#[pyclass(
    name = "GeneratorStats",
    module = "polyflake._polyflake",
    frozen,
    get_all,
    eq
)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PyGeneratorStats {
    /// Calls that found their tick's sequence spent and waited for the next.
    ceiling_waits: u64,
    /// Calls that waited for a clock behind the last tick (policy `wait`).
    clock_backwards_waited: u64,
    /// Calls refused with `ClockMovedBackwardsError`.
    clock_backwards_refused: u64,
    /// IDs issued ahead of a clock that was behind (policy `logical`).
    clock_backwards_ran_ahead: u64,
    /// The lease's counts, if the identity is leased (`None` otherwise).
    lease: Option<PyLeaseStats>,
}

/// A lease's renewals, losses and re-acquisitions.
#[pyclass(
    name = "LeaseStats",
    module = "polyflake._polyflake",
    frozen,
    get_all,
    eq
)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PyLeaseStats {
    renewals: u64,
    losses: u64,
    reacquisitions: u64,
}

impl From<polyflake::GeneratorStats> for PyGeneratorStats {
    fn from(s: polyflake::GeneratorStats) -> Self {
        PyGeneratorStats {
            ceiling_waits: s.ceiling_waits,
            clock_backwards_waited: s.clock_backwards_waited,
            clock_backwards_refused: s.clock_backwards_refused,
            clock_backwards_ran_ahead: s.clock_backwards_ran_ahead,
            lease: s.lease.map(|l| PyLeaseStats {
                renewals: l.renewals,
                losses: l.losses,
                reacquisitions: l.reacquisitions,
            }),
        }
    }
}

#[pymethods]
impl PyGeneratorStats {
    fn __repr__(&self) -> String {
        format!(
            "GeneratorStats(ceiling_waits={}, clock_backwards_waited={}, clock_backwards_refused={}, clock_backwards_ran_ahead={}, lease={})",
            self.ceiling_waits,
            self.clock_backwards_waited,
            self.clock_backwards_refused,
            self.clock_backwards_ran_ahead,
            self.lease.map_or("None".to_owned(), |l| l.__repr__())
        )
    }
}

#[pymethods]
impl PyLeaseStats {
    fn __repr__(&self) -> String {
        format!(
            "LeaseStats(renewals={}, losses={}, reacquisitions={})",
            self.renewals, self.losses, self.reacquisitions
        )
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGeneratorStats>()?;
    m.add_class::<PyLeaseStats>()
}
