//! polyflake's remote lease and high-water-mark protocol as a model that
//! stateright checks exhaustively: holders that claim one node value in
//! etcd, renew their lease over a network that delays and drops messages,
//! write the mark ahead, issue IDs, pause (any interleaving), crash and
//! restart onto a clock stepped back, and an etcd that expires leases.
//!
//! Time is whole ticks. `State::time` is etcd's (true) time; each process
//! incarnation reads `time + offset`, its offset fixed for its life (the
//! generator's monotonic clock never steps; a restart anchors a new one to a
//! wall clock that may have stepped back). Each step names where it lives in
//! the code.
//!
//! Checked: no tick of the value is issued by two incarnations, and an
//! incarnation never issues a tick at or below one another issued before it
//! (a successor's, or a restart's, first tick is past its predecessor's
//! last). [`Bug`] seeds the mistakes the protocol guards against.

use stateright::{Model, Property};

/// A mistake to seed, to show the checker finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bug {
    /// IDs are issued up to the lead before the mark is confirmed; the mark
    /// is written after them.
    MarkAfterIssue,
    /// The lease's deadline is stamped when the renewal's answer arrives,
    /// not when the request was sent (with no safety margin to cover the
    /// delay).
    DeadlineFromReply,
    /// A new holder of the value starts at its clock, not past the mark.
    SuccessorIgnoresMark,
}

/// The model's bounds and the protocol's settings.
#[derive(Clone, Debug)]
pub struct Protocol {
    /// Processes that compete for the one node value.
    pub holders: usize,
    /// The last tick of etcd's clock explored.
    pub max_time: i16,
    /// The lease's TTL in etcd.
    pub ttl: i16,
    /// Subtracted from the TTL for the holder's deadline.
    pub margin: i16,
    /// How far ahead of its clock a holder writes the mark.
    pub lead: i16,
    /// Restarts per holder.
    pub max_restarts: u8,
    /// How far a restart's clock may be behind the one before.
    pub step_back: i16,
    /// A seeded mistake, if any.
    pub bug: Option<Bug>,
}

impl Default for Protocol {
    /// Two holders, a TTL of 3 ticks with a margin of 1, the mark 3 ahead,
    /// one restart each onto a clock up to 2 ticks back, 7 ticks of time.
    fn default() -> Self {
        Protocol {
            holders: 2,
            max_time: 7,
            ttl: 3,
            margin: 1,
            lead: 3,
            max_restarts: 1,
            step_back: 2,
            bug: None,
        }
    }
}

/// One holder process: its incarnation, clock and what it holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Holder {
    /// This incarnation's number (unique in the run).
    pub incarnation: u8,
    pub restarts: u8,
    /// Its clock reads `time + offset`.
    pub offset: i16,
    /// Holds the value: the generator's lease check passes while its clock
    /// is before `deadline` (`Tenure::valid_until_ms`).
    pub holding: bool,
    pub deadline: i16,
    /// The clock reading when an in-flight renewal was sent.
    pub renew_sent: Option<i16>,
    /// A renewal etcd answered, still on its way back: its send time, and
    /// whether etcd still had the lease.
    pub renew_answer: Option<(i16, bool)>,
    /// The mark etcd confirmed: ticks up to it may be issued.
    pub mark_limit: i16,
    /// The last tick issued, or the floor a holder starts past.
    pub last: Option<i16>,
}

impl Holder {
    /// A process just started: it holds nothing and remembers nothing.
    fn started(incarnation: u8, restarts: u8, offset: i16) -> Holder {
        Holder {
            incarnation,
            restarts,
            offset,
            holding: false,
            deadline: 0,
            renew_sent: None,
            renew_answer: None,
            mark_limit: 0,
            last: None,
        }
    }
}

/// The whole system: etcd's clock and keys, the holders, and what was issued.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub time: i16,
    /// The incarnation whose lease holds the worker key, until `expires`.
    pub owner: Option<u8>,
    pub expires: i16,
    /// The mark key: no holder issued past it.
    pub mark: i16,
    pub holders: Vec<Holder>,
    /// The highest tick each incarnation issued.
    pub issued: Vec<Option<i16>>,
    /// A tick issued by two incarnations, or out of order between them.
    pub violation: bool,
    /// Some incarnation issued after another had (a handover happened).
    pub handed_over: bool,
    /// An incarnation on a clock behind its predecessor's issued.
    pub restarted_behind: bool,
}

/// What can happen next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// etcd's clock (and every holder's) moves one tick.
    Tick,
    /// Claim the free worker key (`etcd/src/keeper.rs` `claim`, a transaction
    /// on `create_revision` 0); the mark is read with it (`etcd/src/mark.rs`
    /// `EtcdMark::read`) and the generator starts past it
    /// (`generator/builder.rs`, `generator/handover.rs`).
    Claim(usize),
    /// The keep-alive thread sends a renewal (`etcd/src/keeper.rs`, every
    /// `keep_alive`).
    RenewSend(usize),
    /// etcd receives it: extends the lease if it still holds.
    RenewArrive(usize),
    /// The answer reaches the holder: `Tenure::renewed` sets the deadline
    /// from the request's send time minus the margin
    /// (`identity/tenure.rs`), or the loss.
    RenewAnswer(usize),
    /// The network drops the renewal or its answer.
    RenewDrop(usize),
    /// The keep-alive thread writes the mark ahead, in a transaction that
    /// holds only while the lease holds the worker key (`etcd/src/mark.rs`),
    /// and counts it confirmed when etcd accepts it. One write is in flight
    /// at a time and each asks for more than the last, so a delayed write
    /// only delays what may be issued: the model makes it one step.
    MarkWrite(usize),
    /// `next_id`: the lease check, the mark check, a tick past the last
    /// (`generator/mod.rs` `reserve`).
    Issue(usize),
    /// The process dies and starts again, its clock `back` ticks behind.
    Restart(usize, i16),
}

impl Protocol {
    fn incarnations(&self) -> usize {
        self.holders * (usize::from(self.max_restarts) + 1)
    }

    fn local(&self, state: &State, h: usize) -> i16 {
        state.time + state.holders[h].offset
    }

    fn lease_alive(&self, state: &State, incarnation: u8) -> bool {
        state.owner == Some(incarnation) && state.time < state.expires
    }
}

impl Model for Protocol {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        let holders = (0..self.holders)
            .map(|h| Holder::started(h as u8, 0, 0))
            .collect();
        vec![State {
            time: 0,
            owner: None,
            expires: 0,
            mark: 0,
            holders,
            issued: vec![None; self.incarnations()],
            violation: false,
            handed_over: false,
            restarted_behind: false,
        }]
    }

    fn actions(&self, state: &State, actions: &mut Vec<Action>) {
        if state.violation {
            return;
        }
        if state.time < self.max_time {
            actions.push(Action::Tick);
        }
        let key_free = state.owner.is_none() || state.time >= state.expires;
        for (h, holder) in state.holders.iter().enumerate() {
            if !holder.holding {
                if key_free {
                    actions.push(Action::Claim(h));
                }
            } else {
                if holder.renew_sent.is_none() && holder.renew_answer.is_none() {
                    actions.push(Action::RenewSend(h));
                }
                if holder.renew_sent.is_some() {
                    actions.push(Action::RenewArrive(h));
                }
                if holder.renew_answer.is_some() {
                    actions.push(Action::RenewAnswer(h));
                }
                if holder.renew_sent.is_some() || holder.renew_answer.is_some() {
                    actions.push(Action::RenewDrop(h));
                }
                let wanted = self.local(state, h) + self.lead;
                if wanted > holder.mark_limit && self.lease_alive(state, holder.incarnation) {
                    actions.push(Action::MarkWrite(h));
                }
                actions.push(Action::Issue(h));
            }
            if holder.restarts < self.max_restarts {
                actions.push(Action::Restart(h, 0));
                actions.push(Action::Restart(h, self.step_back));
            }
        }
    }

    fn next_state(&self, last: &State, action: Action) -> Option<State> {
        let mut s = last.clone();
        match action {
            Action::Tick => s.time += 1,
            Action::Claim(h) => {
                let incarnation = s.holders[h].incarnation;
                s.owner = Some(incarnation);
                s.expires = s.time + self.ttl;
                let local = self.local(&s, h);
                let mark = s.mark;
                let holder = &mut s.holders[h];
                holder.holding = true;
                // The claim's request was sent at `local`: the deadline counts from it.
                holder.deadline = local + self.ttl - self.margin;
                holder.mark_limit = mark;
                holder.last = if self.bug == Some(Bug::SuccessorIgnoresMark) {
                    None
                } else {
                    Some(mark)
                };
            }
            Action::RenewSend(h) => {
                let local = self.local(&s, h);
                s.holders[h].renew_sent = Some(local);
            }
            Action::RenewArrive(h) => {
                let sent = s.holders[h].renew_sent.take()?;
                let alive = self.lease_alive(&s, s.holders[h].incarnation);
                if alive {
                    s.expires = s.time + self.ttl;
                }
                s.holders[h].renew_answer = Some((sent, alive));
            }
            Action::RenewAnswer(h) => {
                let (sent, alive) = s.holders[h].renew_answer.take()?;
                let local = self.local(&s, h);
                let holder = &mut s.holders[h];
                if alive {
                    let from = if self.bug == Some(Bug::DeadlineFromReply) {
                        local
                    } else {
                        sent
                    };
                    let margin = if self.bug == Some(Bug::DeadlineFromReply) {
                        0
                    } else {
                        self.margin
                    };
                    holder.deadline = holder.deadline.max(from + self.ttl - margin);
                } else {
                    // Tenure::lost: the deadline is in the past at once.
                    holder.deadline = i16::MIN;
                }
            }
            Action::RenewDrop(h) => {
                let holder = &mut s.holders[h];
                holder.renew_sent = None;
                holder.renew_answer = None;
            }
            Action::MarkWrite(h) => {
                let wanted = self.local(&s, h) + self.lead;
                s.mark = wanted;
                let holder = &mut s.holders[h];
                holder.mark_limit = holder.mark_limit.max(wanted);
            }
            Action::Issue(h) => {
                let local = self.local(&s, h);
                let holder = &s.holders[h];
                // The lease check (one load of the tenure's deadline).
                if local >= holder.deadline {
                    return None;
                }
                // A clock at or behind the last tick: the policy waits or refuses.
                if holder.last.is_some_and(|last| local <= last) {
                    return None;
                }
                // The mark must be confirmed past the tick first.
                let limit = if self.bug == Some(Bug::MarkAfterIssue) {
                    local + self.lead
                } else {
                    holder.mark_limit
                };
                if local > limit {
                    return None;
                }
                let incarnation = usize::from(holder.incarnation);
                for (other, issued) in s.issued.iter().enumerate() {
                    if other != incarnation && issued.is_some_and(|tick| tick >= local) {
                        s.violation = true;
                    }
                    if other != incarnation && issued.is_some() {
                        s.handed_over = true;
                    }
                }
                s.issued[incarnation] = Some(local);
                s.holders[h].last = Some(local);
            }
            Action::Restart(h, back) => {
                let previous = usize::from(s.holders[h].incarnation);
                let holder = &mut s.holders[h];
                holder.restarts += 1;
                let incarnation = (h + self.holders * usize::from(holder.restarts)) as u8;
                let offset = holder.offset - back;
                *holder = Holder::started(incarnation, holder.restarts, offset);
                if s.issued[previous].is_some_and(|tick| s.time + offset <= tick) {
                    s.restarted_behind = true;
                }
            }
        }
        Some(s)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always(
                "no tick of the value issued by two holders, or out of order",
                |_, s: &State| !s.violation,
            ),
            Property::sometimes(
                "a successor issues after its predecessor",
                |_, s: &State| s.handed_over,
            ),
            Property::sometimes(
                "a restart onto a clock behind what it issued",
                |_, s: &State| s.restarted_behind,
            ),
        ]
    }
}
