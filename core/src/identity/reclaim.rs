//! A local lease that outlives its lock file: when the file is deleted or
//! replaced (a tmp cleaner, an `rm -rf`), the holder refuses at once and
//! claims another free value, which its generator takes up at the next ID,
//! past that value's mark — the remote-lease handover, on one host.

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use super::lease::LocalLease;
use super::mark::MarkStore;
use super::nodes::{join_node_number, node_space};
use super::tenure::{Claim, Generation, RemoteLease, Tenure};
use crate::clock::Clock;
use crate::error::{Error, LeaseLostReason, Result};
use crate::id::layout::Layout;

/// Leases node values under a state directory and claims again when a held
/// lock file disappears. Give it to
/// [`WorkerIdentity::resolve_remote`](crate::WorkerIdentity::resolve_remote).
#[derive(Debug)]
pub struct ReclaimingLease {
    state_dir: PathBuf,
    numbers: Option<Range<u64>>,
    started: OnceLock<Arc<Started>>,
}

/// What the marks need to claim again.
#[derive(Debug)]
struct Started {
    state_dir: PathBuf,
    numbers: Range<u64>,
    layout: Layout,
    tenure: Arc<Tenure>,
    /// Values the application's check refused (released, never claimed
    /// again by this lease).
    refused: Mutex<Vec<u64>>,
}

impl ReclaimingLease {
    /// Leases the lowest free value of `numbers` (default: the whole node
    /// space) under `state_dir`.
    pub fn new(state_dir: impl Into<PathBuf>, numbers: Option<Range<u64>>) -> ReclaimingLease {
        ReclaimingLease {
            state_dir: state_dir.into(),
            numbers,
            started: OnceLock::new(),
        }
    }
}

impl RemoteLease for ReclaimingLease {
    fn start(&self, layout: &Layout, _clock: Arc<dyn Clock>, tenure: Arc<Tenure>) -> Result<Claim> {
        let space = node_space(layout).min(u128::from(u64::MAX)) as u64;
        let started = Arc::new(Started {
            state_dir: self.state_dir.clone(),
            numbers: self.numbers.clone().unwrap_or(0..space),
            layout: layout.clone(),
            tenure,
            refused: Mutex::new(Vec::new()),
        });
        let lease = started.acquire()?;
        let _ = self.started.set(Arc::clone(&started));
        let (claim, mark) = started.claim(lease);
        let _ = mark.generation.set(0);
        Ok(claim)
    }

    fn refused(&self, claim: Claim) -> bool {
        let Some(started) = self.started.get() else {
            return false;
        };
        let number = join_node_number(&started.layout, &claim.nodes);
        started
            .refused
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(number);
        // Releases the value's lock: another process may use it.
        drop(claim);
        match started.acquire() {
            Ok(lease) => {
                let (claim, mark) = started.claim(lease);
                let _ = mark.generation.set(started.tenure.offer(claim));
                true
            }
            Err(e) => {
                started
                    .tenure
                    .trouble(format!("claiming another local value failed: {e}"));
                false
            }
        }
    }
}

impl Started {
    fn acquire(&self) -> Result<LocalLease> {
        let refused = self
            .refused
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        LocalLease::acquire_excluding(
            &self.layout,
            &self.state_dir,
            self.numbers.clone(),
            &refused,
        )
    }

    fn claim(self: &Arc<Self>, lease: LocalLease) -> (Claim, Arc<HeldMark>) {
        let source = format!(
            "local lease on node {} ({})",
            lease.number(),
            lease.lock_path().display()
        );
        let mark = Arc::new(HeldMark {
            started: Arc::clone(self),
            generation: OnceLock::new(),
            lease,
        });
        let claim = Claim {
            nodes: mark.lease.nodes().to_vec(),
            mark: mark.clone(),
            source,
            // Held until the lock file is lost; the OS drops it with the process.
            valid_until_ms: i64::MAX,
        };
        (claim, mark)
    }
}

/// The mark of one claimed value; it notices a lost lock file when the
/// generator moves the mark ahead (LocalLease checks before and after).
struct HeldMark {
    started: Arc<Started>,
    lease: LocalLease,
    generation: OnceLock<Generation>,
}

impl fmt::Debug for HeldMark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HeldMark")
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

impl MarkStore for HeldMark {
    fn load(&self) -> Result<Option<i64>> {
        self.lease.load()
    }

    fn persist(&self, until_ms: i64) -> Result<()> {
        let result = self.lease.persist(until_ms);
        if matches!(&result, Err(Error::LeaseLost { .. })) {
            self.reclaim(result.as_ref().unwrap_err().to_string());
        }
        result
    }

    fn settle(&self, used_until_ms: i64) -> Result<()> {
        self.lease.settle(used_until_ms)
    }
}

impl HeldMark {
    /// Refuses under this value from now on and offers the next free one.
    /// Runs under the generator's mark lock, so the offer is not taken up
    /// before its generation is recorded here.
    fn reclaim(&self, why: String) {
        let Some(&generation) = self.generation.get() else {
            return;
        };
        let started = &self.started;
        started
            .tenure
            .lost(generation, LeaseLostReason::TakenOver, why);
        match started.acquire() {
            Ok(lease) => {
                let (claim, mark) = started.claim(lease);
                let _ = mark.generation.set(started.tenure.offer(claim));
            }
            Err(e) => started
                .tenure
                .trouble(format!("claiming another local value failed: {e}")),
        }
    }
}
