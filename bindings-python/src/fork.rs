//! `os.fork` and the worker identity: a generator copied into a forked child
//! shares its parent's identity, and both could issue the same IDs, so the
//! child's copy refuses (`LeaseLostError`, reason `FORKED`).

use std::sync::atomic::{AtomicU64, Ordering};

use polyflake::{Error, LeaseLostReason};
use pyo3::prelude::*;

use crate::error::to_py;

/// Bumped in a child process after `fork` (registered by `polyflake/__init__.py`).
static FORK_GENERATION: AtomicU64 = AtomicU64::new(0);

#[pyfunction]
pub(crate) fn _after_fork_in_child() {
    FORK_GENERATION.fetch_add(1, Ordering::SeqCst);
}

/// The process's fork generation now: a generator made now records it.
pub(crate) fn generation() -> u64 {
    FORK_GENERATION.load(Ordering::SeqCst)
}

/// Refuses in a child process forked after the generator of `made_in` was made.
#[inline]
pub(crate) fn same_process(made_in: u64) -> PyResult<()> {
    if FORK_GENERATION.load(Ordering::Relaxed) != made_in {
        return Err(to_py(Error::lease_lost(
            LeaseLostReason::Forked,
            "this generator was created before os.fork(); the parent keeps its worker identity, \
             so create a new Generator with an identity of the child's own"
                .into(),
        )));
    }
    Ok(())
}
