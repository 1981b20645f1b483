//! A generator's words in memory that several processes share: the state
//! word, the high-water mark's limit and the tick a restart resumes from.
//! A server whose workers are processes (PostgreSQL's backends, forked from
//! one postmaster) places one [`SharedState`] in shared memory, and every
//! process builds its generator on it with
//! [`GeneratorBuilder::shared`](super::GeneratorBuilder::shared): the
//! compare-and-swap that keeps threads apart then keeps processes apart.

use std::fs::{File, OpenOptions};
use std::path::Path;
// The lease's words are std's under loom too: loom models the state word's
// compare-and-swap; the lease's deadline is written by one process.
use std::sync::atomic::{AtomicI64, AtomicU64};

// Under `--cfg loom` the words are loom's, so that core/tests/loom.rs runs
// the compare-and-swap under every interleaving loom can reach.
#[cfg(loom)]
pub(super) use loom::sync::atomic::AtomicU64 as Word;
#[cfg(not(loom))]
pub(super) use std::sync::atomic::AtomicU64 as Word;

use super::NONE;
use crate::error::{Error, Result};

/// The words one identity's generators share, for memory mapped into every
/// process that issues under it. Only lock-free 64-bit atomics, no pointers:
/// its address may differ from process to process. Start it with
/// [`SharedState::new`] (no ID issued, no mark persisted).
#[repr(C, align(64))]
#[derive(Debug)]
pub struct SharedState {
    /// The last issued `(tick, sequence)`, or `NONE`.
    pub(super) state: Word,
    /// IDs are issued only in ticks below it (0: no mark persisted yet).
    pub(super) mark_limit: Word,
    /// The tick of the high-water mark the first generator started past.
    pub(super) resume_ticks: Word,
    /// The worker identity's bits, as IDs carry them: written by every
    /// generator built on the words, and by the leader of a remote lease
    /// when it takes up a new identity.
    pub(super) node_bits: Word,
    /// Under a remote lease held by one process for all (the leader, see
    /// [`GeneratorBuilder::shared`](super::GeneratorBuilder::shared)): until
    /// when, on the generators' clock, IDs may be issued (`i64::MIN`: not
    /// held). The leader's tenure writes it; followers compare with it.
    pub(crate) lease_deadline: AtomicI64,
    /// Why the leader last failed to hold the lease: an index into
    /// `LeaseLostReason::ALL` plus one (0: no failure, `u64::MAX`: an error
    /// of another kind).
    pub(super) lease_refusal: AtomicU64,
}

macro_rules! fresh {
    () => {
        SharedState {
            state: Word::new(NONE),
            mark_limit: Word::new(0),
            resume_ticks: Word::new(NONE),
            node_bits: Word::new(0),
            lease_deadline: AtomicI64::new(i64::MIN),
            lease_refusal: AtomicU64::new(0),
        }
    };
}

impl SharedState {
    /// Words on which no ID was issued yet.
    #[cfg(not(loom))]
    pub const fn new() -> SharedState {
        fresh!()
    }

    /// Words on which no ID was issued yet (loom's atomics are not `const`).
    #[cfg(loom)]
    pub fn new() -> SharedState {
        fresh!()
    }
}

impl Default for SharedState {
    fn default() -> Self {
        SharedState::new()
    }
}

/// A generator's own words, or words it shares with other processes.
#[derive(Debug)]
pub(super) enum Words {
    Own(SharedState),
    Shared(&'static SharedState),
}

impl Words {
    #[inline]
    pub(super) fn get(&self) -> &SharedState {
        match self {
            Words::Own(words) => words,
            Words::Shared(words) => words,
        }
    }

    pub(super) fn is_shared(&self) -> bool {
        matches!(self, Words::Shared(_))
    }

    /// The words other processes share, if these are.
    pub(super) fn shared(&self) -> Option<&'static SharedState> {
        match self {
            Words::Own(_) => None,
            Words::Shared(words) => Some(words),
        }
    }
}

/// Holds an exclusive lock (`flock`) on `path` until dropped: the processes
/// of one shared state persist its mark one at a time, so that a slower
/// writer never replaces a higher mark with its lower one. The OS drops the
/// lock of a process that dies holding it.
pub(super) fn lock_across_processes(path: &Path) -> Result<File> {
    let open = || -> std::io::Result<File> {
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options.open(path)?;
        file.lock()?;
        Ok(file)
    };
    open().map_err(|e| {
        Error::state_io(
            path,
            "the lock that orders the processes' high-water marks cannot be taken",
            &e,
        )
    })
}
