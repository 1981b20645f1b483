//! `os.fork` and the worker identity: a generator copied into a forked child
//! shares its parent's identity, and both could issue the same IDs, so the
//! child's copy refuses (`LeaseLostError`, reason `FORKED`). Forks are
//! counted by the core (`polyflake::fork`), which sees `os.fork` as the
//! `fork()` it is.

use polyflake::{Error, LeaseLostReason};
use pyo3::prelude::*;

use crate::error::to_py;

/// The process's fork generation now: a generator that claims its identity
/// records it (the core's child handler registered by then).
pub(crate) fn generation() -> u64 {
    polyflake::fork::registered()
}

/// Refuses in a child process forked after the generator of `made_in` was made.
#[inline]
pub(crate) fn same_process(made_in: u64) -> PyResult<()> {
    if polyflake::fork::forked_since(made_in) {
        return Err(to_py(Error::lease_lost(
            LeaseLostReason::Forked,
            "this generator was created before os.fork(); the parent keeps its worker identity, \
             so create a new Generator with an identity of the child's own"
                .into(),
        )));
    }
    Ok(())
}
