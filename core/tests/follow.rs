//! One remote lease for processes that share a generator's words: the
//! leader holds it, the followers issue under it and stop when it does.
//! Here the processes are generators of one test on leaked words; the
//! PostgreSQL suite runs the same with a real etcd and real backends.

use std::collections::HashSet;
use std::sync::Arc;

use polyflake::{
    Clock, Error, Generator, Layout, LeaseLostReason, ManualClock, MarkStore, SharedState,
    WorkerIdentity,
};

mod common;
use common::{assert_past_mark, offer_marked, Scripted};

const TTL_MS: i64 = 8_000;
const AHEAD_MS: i64 = 2_000;

fn words() -> &'static SharedState {
    Box::leak(Box::new(SharedState::new()))
}

fn lock_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "polyflake-follow-{name}-{}.lock",
        std::process::id()
    ))
}

struct Server {
    layout: Layout,
    clock: ManualClock,
    words: &'static SharedState,
    lease: Arc<Scripted>,
    leader: Generator,
}

/// A leader on fresh words, holding node [0, 1] of `twitter` from `start`.
fn server(name: &str, start: i64) -> Server {
    let layout = Layout::twitter();
    let clock = ManualClock::new(start);
    let words = words();
    let lease = Scripted::new(&[0, 1], TTL_MS);
    let leader = leader(&layout, &clock, words, lease.clone(), name);
    Server {
        layout,
        clock,
        words,
        lease,
        leader,
    }
}

fn leader(
    layout: &Layout,
    clock: &ManualClock,
    words: &'static SharedState,
    lease: Arc<Scripted>,
    name: &str,
) -> Generator {
    let identity = WorkerIdentity::resolve_remote(layout, lease, Arc::new(clock.clone())).unwrap();
    Generator::builder(layout.clone())
        .identity(identity)
        .shared(words, lock_path(name))
        .build()
        .unwrap()
}

/// A server whose leader has led once, and a follower of its words.
fn led(name: &str) -> (Server, Generator, i64) {
    let start = Layout::twitter().epoch_ms() + 5_000_000;
    let s = server(name, start);
    let follower = s.follower();
    s.leader.lead(AHEAD_MS).unwrap();
    follower.next_id().unwrap();
    (s, follower, start)
}

/// Why `g` refuses its next ID (it must).
fn refusal(g: &Generator) -> Option<LeaseLostReason> {
    reason(g.next_id().unwrap_err())
}

impl Server {
    fn follower(&self) -> Generator {
        let clock: Arc<dyn Clock> = Arc::new(self.clock.clone());
        Generator::builder(self.layout.clone())
            .shared_clock(clock)
            .follow(self.words, "the test's leader")
            .build()
            .unwrap()
    }

    fn nodes(&self, id: u64) -> Vec<u64> {
        self.layout.decode(id).unwrap().nodes().to_vec()
    }
}

fn reason(error: Error) -> Option<LeaseLostReason> {
    assert_eq!(error.code(), "LEASE_LOST", "{error}");
    error.lease_lost_reason()
}

#[test]
fn followers_issue_only_once_the_leader_publishes_and_never_what_it_issues() {
    let start = Layout::twitter().epoch_ms() + 5_000_000;
    let s = server("publish", start);
    let followers = [s.follower(), s.follower()];
    // Built, not led yet: the deadline is not published.
    let err = followers[0].next_id().unwrap_err();
    assert_eq!(reason(err.clone()), Some(LeaseLostReason::Lapsed));
    assert!(err.to_string().contains("has not published"), "{err}");
    s.leader.lead(AHEAD_MS).unwrap();
    assert!(
        s.lease.mark.load().unwrap().unwrap() >= start + 2_000,
        "the mark is written ahead before the followers issue"
    );
    let mut seen = HashSet::new();
    for round in 0..3_000 {
        if round % 1_000 == 999 {
            s.clock.advance(1);
        }
        for g in followers.iter().chain([&s.leader]) {
            let id = g.next_id().unwrap();
            assert!(seen.insert(id), "{id} issued twice");
            assert_eq!(s.nodes(id), [0, 1]);
        }
    }
    assert_eq!(followers[1].node_values(), [0, 1]);
}

#[test]
fn followers_stop_with_the_leaders_lease() {
    let (s, follower, start) = led("stop");
    let tenure = s.lease.tenure();

    // The deadline passes unrenewed: refused, then renewed: issues again,
    // without the leader doing anything (the tenure writes to the words).
    s.clock.set(start + TTL_MS);
    assert_eq!(refusal(&follower), Some(LeaseLostReason::Lapsed));
    tenure.renewed(0, start + 2 * TTL_MS);
    s.leader.lead(AHEAD_MS).unwrap();
    follower.next_id().unwrap();

    // Lost at the registry: refused at once, with the leader's reason once it led.
    tenure.lost(0, LeaseLostReason::TakenOver, "etcd says the lease expired");
    assert_eq!(refusal(&follower), Some(LeaseLostReason::Lapsed));
    assert_eq!(
        reason(s.leader.lead(AHEAD_MS).unwrap_err()),
        Some(LeaseLostReason::TakenOver)
    );
    assert_eq!(refusal(&follower), Some(LeaseLostReason::TakenOver));
}

#[test]
fn the_leaders_clock_running_out_stops_the_followers_whatever_their_clock_says() {
    let (s, follower, _) = led("expired");
    let tenure = s.lease.tenure();
    tenure.expired(0, tenure.valid_until_ms(), tenure.counts().renewals);
    assert_eq!(follower.next_id().unwrap_err().code(), "LEASE_LOST");
}

#[test]
fn a_new_identity_reaches_the_followers_past_its_previous_holders_mark() {
    let (s, follower, start) = led("handover");
    let tenure = s.lease.tenure();
    tenure.lost(0, LeaseLostReason::Lapsed, "expired");
    let (next_mark, _) = offer_marked(&tenure, 2, start + 600, start + TTL_MS);
    s.clock.set(start + 600);
    // The follower cannot take it up; the leader does, at its next lead.
    assert_eq!(follower.next_id().unwrap_err().code(), "LEASE_LOST");
    s.leader.lead(AHEAD_MS).unwrap();
    assert_past_mark(&s.layout, follower.next_id().unwrap(), 2, start + 600);
    assert!(next_mark.load().unwrap().unwrap() >= start + 600 + AHEAD_MS);
    assert_eq!(follower.node_values(), [0, 2]);
}

#[test]
fn followers_never_pass_the_mark_the_leader_wrote() {
    let (s, follower, _) = led("mark");
    let written = s.lease.mark.load().unwrap().unwrap();
    s.clock.set(written + 1);
    let err = follower.next_id().unwrap_err();
    assert_eq!(reason(err.clone()), Some(LeaseLostReason::Unreachable));
    assert!(err.to_string().contains("written ahead"), "{err}");
    s.leader.lead(AHEAD_MS).unwrap();
    let id = follower.next_id().unwrap();
    assert!(s.lease.mark.load().unwrap().unwrap() >= s.layout.decode(id).unwrap().timestamp_ms);
}

#[test]
fn a_new_leader_stops_the_old_ones_followers_until_it_leads() {
    let (s, follower, start) = led("successor");
    let before = follower.next_id().unwrap();
    // The old leader's process died (its lease stays in the registry until
    // it expires); a new one claims node 3, whose previous holder wrote a
    // mark 900 ms ahead.
    let lease = Scripted::new(&[0, 3], TTL_MS);
    lease.mark.persist(start + 900).unwrap();
    let successor = leader(&s.layout, &s.clock, s.words, lease.clone(), "successor");
    std::mem::forget(s.leader);
    assert_eq!(follower.next_id().unwrap_err().code(), "LEASE_LOST");
    // Not before the clock passes that mark.
    let err = successor.lead(AHEAD_MS).unwrap_err();
    assert!(err.to_string().contains("taken up in 900 ms"), "{err}");
    assert_eq!(follower.next_id().unwrap_err().code(), "LEASE_LOST");
    s.clock.set(start + 901);
    successor.lead(AHEAD_MS).unwrap();
    let id = follower.next_id().unwrap();
    assert_past_mark(&s.layout, id, 3, start + 900);
    assert!(id > before);
}

#[test]
fn a_leader_that_cannot_claim_or_is_dropped_stops_the_followers() {
    let (s, follower, _) = led("refused");
    drop(s.leader);
    assert_eq!(refusal(&follower), Some(LeaseLostReason::Closed));
    s.words.refuse_followers(&Error::lease_lost(
        LeaseLostReason::Exhausted,
        "every value is held".into(),
    ));
    assert_eq!(refusal(&follower), Some(LeaseLostReason::Exhausted));
}

#[test]
fn a_follower_takes_no_identity_and_only_a_leader_leads() {
    let (s, follower, _) = led("usage");
    let err = Generator::builder(s.layout.clone())
        .nodes(&[0, 1])
        .follow(s.words, "x")
        .build()
        .unwrap_err();
    assert_eq!(err.code(), "INVALID_ARGUMENT");
    assert_eq!(
        follower.lead(AHEAD_MS).unwrap_err().code(),
        "INVALID_ARGUMENT"
    );
    let own = Generator::new(s.layout.clone(), &[0, 1]).unwrap();
    assert_eq!(own.lead(AHEAD_MS).unwrap_err().code(), "INVALID_ARGUMENT");
}
