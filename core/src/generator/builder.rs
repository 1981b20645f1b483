//! Assembling a generator: validation only. The identity arrives resolved
//! ([`WorkerIdentity`]); nothing here reads the environment, touches a file
//! or the network, or sleeps.

use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::follow::LeadersMark;
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
    follow: Option<(&'static SharedState, String)>,
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
            follow: None,
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
    /// words for every process.
    ///
    /// A remote lease is held by one process for all: built with a remote
    /// identity, the generator leads the words. It stops the followers of a
    /// previous leader, starts the words past its identity's mark with its
    /// node bits, and publishes the lease's deadline at its first
    /// [`lead`](Generator::lead); the other processes [`follow`](Self::follow).
    pub fn shared(mut self, words: &'static SharedState, mark_lock: impl Into<PathBuf>) -> Self {
        self.shared = Some((words, mark_lock.into()));
        self
    }

    /// Issues on `words` under the remote lease another process holds for
    /// them and [leads](Generator::lead): the node bits, the deadline and the
    /// mark's limit are the leader's, read from the words; IDs are refused
    /// (`LEASE_LOST`, with the leader's reason) from the published deadline
    /// on, and when the mark's limit is reached. `source` says, for people,
    /// where the lease is held. Give no identity or node fields.
    pub fn follow(mut self, words: &'static SharedState, source: impl Into<String>) -> Self {
        self.follow = Some((words, source.into()));
        self
    }

    /// Validates the identity against the layout and builds.
    pub fn build(mut self) -> Result<Generator> {
        if u32::from(self.layout.time_bits()) + u32::from(self.layout.sequence_bits()) > 63 {
            return Err(Error::InvalidLayout(
                "a generator needs time_bits + sequence_bits <= 63".into(),
            ));
        }
        if let Some((words, source)) = self.follow.take() {
            return self.build_follower(words, source);
        }
        let layout = self.layout;
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
            Some((words, mark_lock)) if held.is_some() => {
                // The leader of the words: a previous leader's followers stop
                // first, and its first mark is written before any ID; below,
                // the words move past this identity's mark (a handover,
                // whatever the previous identity issued), then its bits are
                // published.
                words.lease_deadline.store(i64::MIN, Ordering::Release);
                words.mark_limit.store(0, Ordering::Release);
                (Words::Shared(words), Some(mark_lock))
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
                words.node_bits.store(node_bits, Ordering::Release);
                (Words::Shared(words), Some(mark_lock))
            }
        };
        if let Words::Own(words) = &words {
            words.node_bits.store(node_bits, Ordering::Relaxed);
        }
        let leads = held.is_some() && words.is_shared();
        let generator = Generator {
            identity: Mutex::new(IdentityNote { source }),
            clock,
            policy: self.policy,
            words,
            mark: mark_store.map(|store| Mark::new(store, self.mark_lead_ms, across)),
            held,
            following: false,
            // Only a mark's own lead is waited out; a bare `after` is not.
            resume_grace_ms: if resumed_ms.is_some() {
                self.mark_lead_ms as u64
            } else {
                0
            },
            counters: Default::default(),
            closed_from: AtomicU64::new(NONE),
            layout,
        };
        if leads {
            if state != NONE {
                generator.raise_state(state);
            }
            generator
                .words()
                .node_bits
                .store(node_bits, Ordering::Release);
        }
        Ok(generator)
    }

    /// A generator that follows the leader of `words` (`follow.rs`).
    fn build_follower(self, words: &'static SharedState, source: String) -> Result<Generator> {
        if self.identity.is_some() || self.positional.is_some() || !self.named.is_empty() {
            return Err(Error::invalid(
                ArgumentKind::Usage,
                "a generator that follows another process's lease takes its identity from the words; give no identity or node fields".into(),
            ));
        }
        let clock = match self.clock {
            Some(clock) => ClockSource::new(clock),
            None => ClockSource::Monotonic(Arc::new(MonotonicClock::new())),
        };
        Ok(Generator {
            identity: Mutex::new(IdentityNote { source }),
            clock,
            policy: self.policy,
            words: Words::Shared(words),
            mark: Some(Mark::new(Arc::new(LeadersMark), self.mark_lead_ms, None)),
            held: None,
            following: true,
            resume_grace_ms: 0,
            counters: Default::default(),
            closed_from: AtomicU64::new(NONE),
            layout: self.layout,
        })
    }
}
