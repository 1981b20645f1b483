//! Assembling a generator: validation only. The identity arrives resolved
//! ([`WorkerIdentity`]); nothing here reads the environment, touches a file
//! or the network, or sleeps.

use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::handover::Held;
use super::marks::{floor_state, Mark};
use super::shared::{SharedState, Words};
use super::{BackwardsPolicy, Generator, IdentityNote, NONE};
use crate::clock::{Clock, ClockSource, MonotonicClock};
use crate::error::{ArgumentKind, Error, LeaseLostReason, Result};
use crate::id::layout::{Layout, MAX_NODE_FIELDS};
use crate::identity::resolve::WorkerIdentity;

/// Configures a [`Generator`].
#[must_use]
pub struct GeneratorBuilder {
    layout: Layout,
    positional: Option<Vec<u64>>,
    named: Vec<(String, u64)>,
    clock: Option<Arc<dyn Clock>>,
    policy: BackwardsPolicy,
    after_ms: Option<i64>,
    mark_lead_ms: i64,
    identity: Option<WorkerIdentity>,
    shared: Option<(&'static SharedState, PathBuf)>,
}

impl fmt::Debug for GeneratorBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GeneratorBuilder")
            .field("layout", &self.layout.name())
            .field("positional", &self.positional)
            .field("named", &self.named)
            .field("policy", &self.policy)
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}

fn same_clock(a: &Arc<dyn Clock>, b: &Arc<dyn Clock>) -> bool {
    std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b))
}

impl GeneratorBuilder {
    pub(super) fn new(layout: Layout, mark_lead_ms: i64) -> Self {
        GeneratorBuilder {
            layout,
            positional: None,
            named: Vec::new(),
            clock: None,
            policy: BackwardsPolicy::default(),
            after_ms: None,
            mark_lead_ms,
            identity: None,
            shared: None,
        }
    }

    /// The worker identity as values in layout order.
    pub fn nodes(mut self, values: &[u64]) -> Self {
        self.positional = Some(values.to_vec());
        self
    }
    /// One node field of the worker identity, by name.
    pub fn node(mut self, name: impl Into<String>, value: u64) -> Self {
        self.named.push((name.into(), value));
        self
    }
    /// A resolved identity (from the environment, a local or remote lease,
    /// or given with a high-water mark); the generator reads its clock.
    pub fn identity(mut self, identity: WorkerIdentity) -> Self {
        self.identity = Some(identity);
        self
    }
    /// The clock (default: [`MonotonicClock`]).
    pub fn clock(self, clock: impl Clock + 'static) -> Self {
        self.shared_clock(Arc::new(clock))
    }
    /// A clock shared with other owners.
    pub fn shared_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }
    /// What to do when time goes backwards (default: wait up to 5 ms).
    pub fn on_clock_backwards(mut self, policy: BackwardsPolicy) -> Self {
        self.policy = policy;
        self
    }
    /// Issue no ID in a tick at or before the one holding `timestamp_ms`
    /// (a high-water mark left by a previous run with the same identity).
    pub fn after(mut self, timestamp_ms: i64) -> Self {
        self.after_ms = Some(timestamp_ms);
        self
    }
    /// How far ahead of the clock marks are written (default 1 s): the
    /// longest a restart with the same identity waits.
    pub fn mark_lead_ms(mut self, lead_ms: i64) -> Self {
        self.mark_lead_ms = lead_ms.max(1);
        self
    }

    /// Keeps the generator's state in `words`, which other processes share
    /// (memory mapped into each, as PostgreSQL's shared memory): every
    /// process that issues under this identity builds its generator on the
    /// same words, with the same layout, identity, clock source and
    /// `mark_lock`, a file the processes lock (`flock`) in turn to persist
    /// the high-water mark. The first generator built on fresh words starts
    /// them past the identity's mark; the others join where they are. The
    /// mark is never lowered when one of them goes, and `close` closes the
    /// words for every process. A remote lease cannot be shared this way.
    pub fn shared(mut self, words: &'static SharedState, mark_lock: impl Into<PathBuf>) -> Self {
        self.shared = Some((words, mark_lock.into()));
        self
    }

    /// Validates the identity against the layout and builds.
    pub fn build(mut self) -> Result<Generator> {
        let layout = self.layout;
        if u32::from(layout.time_bits()) + u32::from(layout.sequence_bits()) > 63 {
            return Err(Error::InvalidLayout(
                "a generator needs time_bits + sequence_bits <= 63".into(),
            ));
        }
        let mut source = "given by the caller".to_owned();
        let mut mark_store = None;
        let mut resumed_ms = None;
        let mut held = None;
        if let Some(identity) = self.identity.take() {
            if self.positional.is_some() || !self.named.is_empty() {
                return Err(Error::invalid(
                    ArgumentKind::Usage,
                    "the identity is resolved already; give no node fields".into(),
                ));
            }
            if let Some(clock) = &self.clock {
                if !same_clock(clock, &identity.clock) {
                    return Err(Error::invalid(ArgumentKind::Usage,
                        "the identity was resolved against another clock; give the generator that one"
                            .into(),
                    ));
                }
            }
            self.clock = Some(identity.clock);
            self.positional = Some(identity.nodes);
            source = identity.source;
            mark_store = identity.mark;
            resumed_ms = identity.previous_mark_ms;
            held = identity.remote.map(|remote| Held {
                check: remote.check,
                admitted: AtomicU64::new(0),
                tenure: remote.tenure,
                switching: Mutex::new(()),
                lease: Mutex::new(Some(remote.lease)),
            });
        }
        let clock = match self.clock.take() {
            Some(clock) => ClockSource::new(clock),
            None => ClockSource::Monotonic(Arc::new(MonotonicClock::new())),
        };
        let nodes = match (self.positional, self.named.is_empty()) {
            (Some(_), false) => {
                return Err(Error::invalid(
                    ArgumentKind::Usage,
                    "give the node fields either by position or by name, not both".into(),
                ))
            }
            (Some(values), true) => {
                layout.node_bits(&values)?;
                let mut nodes = [0; MAX_NODE_FIELDS];
                nodes[..values.len()].copy_from_slice(&values);
                nodes
            }
            (None, _) => layout.node_values(self.named.iter().map(|(n, v)| (n.as_str(), *v)))?,
        };
        let node_bits = layout.node_bits(&nodes[..layout.node_fields().len()])?;
        if let Some(ms) = resumed_ms.filter(|&ms| ms < layout.epoch_ms()) {
            // No generator of this layout writes such a mark: it is another
            // layout's, or was tampered with. Starting from it would be a reset.
            return Err(Error::lease_lost(LeaseLostReason::StateUnsafe, format!(
                "the high-water mark of {source} holds {ms}, before layout {}'s epoch {}; remove it only if no generator with this identity has run since",
                layout.name(),
                layout.epoch_ms()
            )));
        }
        if let Some(ms) = resumed_ms.filter(|&ms| ms > layout.max_timestamp_ms()) {
            return Err(Error::lease_lost(LeaseLostReason::StateUnsafe, format!(
                "the high-water mark of {source} holds {ms}, past the end of layout {}'s time field ({}): this identity has no time left",
                layout.name(),
                layout.max_timestamp_ms()
            )));
        }
        let after_ms = match (self.after_ms, resumed_ms) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        let (state, resume_ticks) = match after_ms {
            Some(ms) if ms >= layout.epoch_ms() => {
                (floor_state(&layout, ms)?, layout.ticks_at(ms)?)
            }
            _ => (NONE, NONE),
        };
        let (words, across) = match self.shared {
            None => {
                let words = SharedState::new();
                words.state.store(state, Ordering::Relaxed);
                words.resume_ticks.store(resume_ticks, Ordering::Relaxed);
                (Words::Own(words), None)
            }
            Some(_) if held.is_some() => {
                return Err(Error::invalid(
                    ArgumentKind::Usage,
                    "a remote lease's identity cannot be shared between processes: each would take up its own next identity"
                        .into(),
                ));
            }
            Some((words, mark_lock)) => {
                // Only fresh words start at the mark: a process joining later
                // reads a mark already ahead of the IDs and must not jump to it.
                // Every builder tries (the resumed tick first, so that it is
                // there when the state is): whichever wins, the state starts
                // past a mark read after the last ID of the words' previous life.
                if state != NONE {
                    let _ = words.resume_ticks.compare_exchange(
                        NONE,
                        resume_ticks,
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    );
                    let _ = words.state.compare_exchange(
                        NONE,
                        state,
                        Ordering::AcqRel,
                        Ordering::Acquire,
                    );
                }
                (Words::Shared(words), Some(mark_lock))
            }
        };
        Ok(Generator {
            node_bits: AtomicU64::new(node_bits),
            identity: Mutex::new(IdentityNote { nodes, source }),
            clock,
            policy: self.policy,
            words,
            mark: mark_store.map(|store| Mark::new(store, self.mark_lead_ms, across)),
            held,
            // Only a mark's own lead is waited out; a bare `after` is not.
            resume_grace_ms: if resumed_ms.is_some() {
                self.mark_lead_ms as u64
            } else {
                0
            },
            counters: Default::default(),
            closed_from: AtomicU64::new(NONE),
            layout,
        })
    }
}
