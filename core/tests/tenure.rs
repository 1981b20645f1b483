//! A generator under a remote lease: it refuses once the lease may have
//! lapsed, and takes up a new identity past its previous holder's mark.
//! The registry here is a scripted one; the etcd crate tests a real etcd.

use std::sync::Arc;

use polyflake::{
    Claim, Generator, Layout, LeaseLostReason, ManualClock, MarkStore, Tenure, WorkerIdentity,
};

mod common;
use common::{assert_past_mark, offer_marked, MemoryMark, Scripted};

fn setup(start: i64) -> (Generator, ManualClock, Arc<Tenure>, Arc<MemoryMark>) {
    let clock = ManualClock::new(start);
    let lease = Scripted::new(&[0, 1], 8_000);
    let mark = lease.mark.clone();
    let layout = Layout::twitter();
    let identity =
        WorkerIdentity::resolve_remote(&layout, lease.clone(), Arc::new(clock.clone())).unwrap();
    let g = Generator::builder(layout)
        .identity(identity)
        .build()
        .unwrap();
    (g, clock, lease.tenure(), mark)
}

#[test]
fn refuses_past_the_deadline_until_renewed() {
    let t = Layout::twitter();
    let start = t.epoch_ms() + 5_000_000;
    let (g, clock, tenure, mark) = setup(start);
    assert_eq!(g.identity_source(), "scripted node 0");
    let id = g.next_id().unwrap();
    assert_eq!(t.decode(id).unwrap().nodes(), &[0, 1]);
    assert!(
        mark.load().unwrap().unwrap() > start,
        "a mark is written before the first ID"
    );

    clock.set(start + 7_999);
    g.next_id().unwrap();
    clock.set(start + 8_000);
    let err = g.next_id().unwrap_err();
    assert_eq!(err.code(), "LEASE_LOST");
    assert!(err.to_string().contains("last renewed"), "{err}");
    // Nothing was reported: the deadline passed unrenewed.
    assert_eq!(err.lease_lost_reason(), Some(LeaseLostReason::Lapsed));
    assert!(err.retryable());
    assert_eq!(g.next_ids(3).unwrap_err().code(), "LEASE_LOST");
    let lease = g.stats().lease.unwrap();
    assert_eq!(
        (lease.renewals, lease.losses, lease.reacquisitions),
        (0, 1, 0),
        "one lapse, however many refusals"
    );

    tenure.renewed(0, start + 20_000);
    assert!(g.next_id().unwrap() > id);
    let lease = g.stats().lease.unwrap();
    assert_eq!((lease.renewals, lease.losses), (1, 1));
    // Lapsing again after the renewal is a second loss.
    clock.set(start + 20_000);
    assert_eq!(g.next_id().unwrap_err().code(), "LEASE_LOST");
    assert_eq!(g.stats().lease.unwrap().losses, 2);
}

#[test]
fn a_deadline_run_out_on_the_registrys_clock_refuses_whatever_the_generators_says() {
    // The generator's clock stands still (or went back): by it, the
    // deadline is far off; the registry's monotonic clock says it passed.
    let start = Layout::twitter().epoch_ms() + 5_000_000;
    let (g, clock, tenure, _mark) = setup(start);
    let id = g.next_id().unwrap();
    let stamp = tenure.valid_until_ms();
    // Another stamp, another generation, or a renewal since: nothing changes.
    tenure.expired(0, stamp - 1, 0);
    tenure.expired(1, stamp, 0);
    tenure.expired(0, stamp, 1);
    assert!(g.next_id().is_ok());
    tenure.expired(0, stamp, 0);
    let err = g.next_id().unwrap_err();
    assert_eq!(err.lease_lost_reason(), Some(LeaseLostReason::Lapsed));
    assert!(err.to_string().contains("monotonic clock"), "{err}");
    assert!(g.ready().is_err());
    // The clock going further back does not bring it back; a renewal does.
    clock.advance(-5_000);
    assert_eq!(g.next_id().unwrap_err().code(), "LEASE_LOST");
    clock.set(start + 10);
    tenure.renewed(0, start + 20_000);
    assert!(g.next_id().unwrap() > id);
    // A clock standing still stamps the same deadline at every renewal:
    // only the latest renewal's deadline may end the claim.
    let renewals = tenure.counts().renewals;
    tenure.renewed(0, start + 20_000);
    tenure.expired(0, start + 20_000, renewals);
    assert!(g.next_id().is_ok());
    tenure.expired(0, start + 20_000, renewals + 1);
    assert_eq!(g.next_id().unwrap_err().code(), "LEASE_LOST");
}

#[test]
fn a_deadline_passed_after_the_registry_reported_trouble_is_unreachable() {
    let start = Layout::twitter().epoch_ms() + 5_000_000;
    let (g, clock, tenure, _mark) = setup(start);
    g.next_id().unwrap();
    tenure.trouble("connection refused");
    // Trouble alone refuses nothing while the deadline holds.
    g.next_id().unwrap();
    clock.set(start + 8_000);
    let err = g.next_id().unwrap_err();
    assert_eq!(err.lease_lost_reason(), Some(LeaseLostReason::Unreachable));
    assert!(err.to_string().contains("connection refused"), "{err}");
    // A renewal clears the trouble: the next lapse is a plain one.
    tenure.renewed(0, start + 9_000);
    g.next_id().unwrap();
    clock.set(start + 9_000);
    assert_eq!(
        g.next_id().unwrap_err().lease_lost_reason(),
        Some(LeaseLostReason::Lapsed)
    );
}

#[test]
fn a_lost_lease_refuses_at_once_with_the_reason() {
    let start = Layout::twitter().epoch_ms() + 5_000_000;
    let (g, _clock, tenure, _mark) = setup(start);
    g.next_id().unwrap();
    tenure.lost(0, LeaseLostReason::TakenOver, "etcd says the lease expired");
    let err = g.next_id().unwrap_err();
    assert_eq!(err.code(), "LEASE_LOST");
    assert_eq!(err.lease_lost_reason(), Some(LeaseLostReason::TakenOver));
    assert!(
        err.to_string().contains("etcd says the lease expired"),
        "{err}"
    );
    // A renewal of the lost claim does not bring it back.
    tenure.renewed(0, start + 60_000);
    assert_eq!(g.next_id().unwrap_err().code(), "LEASE_LOST");
}

#[test]
fn a_new_identity_starts_past_its_previous_holders_mark() {
    let t = Layout::twitter();
    let start = t.epoch_ms() + 5_000_000;
    let (g, clock, tenure, _mark) = setup(start);
    g.next_id().unwrap();
    tenure.lost(0, LeaseLostReason::Lapsed, "expired");

    // Node 2's previous holder used time up to 600 ms from now.
    let (next_mark, generation) = offer_marked(&tenure, 2, start + 600, start + 8_000);
    assert_eq!(generation, 1);
    // Refused at once (no wait on the caller's thread) until the clock
    // passes that mark.
    let err = g.next_id().unwrap_err();
    assert_eq!(err.code(), "LEASE_LOST");
    assert!(err.to_string().contains("taken up in 600 ms"), "{err}");
    clock.set(start + 600);
    let id = g.next_id().unwrap();
    assert_past_mark(&t, id, 2, start + 600);
    let parts = t.decode(id).unwrap();
    assert!(next_mark.load().unwrap().unwrap() >= parts.timestamp_ms);
    assert_eq!(g.node_values(), vec![0, 2]);
    assert_eq!(g.identity_source(), "scripted node 2");

    // Renewals now apply to generation 1, not to the lost one.
    tenure.renewed(0, start + 90_000);
    clock.set(start + 8_000);
    assert_eq!(g.next_id().unwrap_err().code(), "LEASE_LOST");
    tenure.renewed(generation, start + 16_000);
    assert_eq!(t.decode(g.next_id().unwrap()).unwrap().nodes(), &[0, 2]);
    // Lost, taken up again, lapsed, renewed; the lost claim's renewal is not counted.
    let lease = g.stats().lease.unwrap();
    assert_eq!(
        (lease.renewals, lease.losses, lease.reacquisitions),
        (1, 2, 1)
    );
}

#[test]
fn a_claim_whose_mark_cannot_be_written_is_retried_not_used() {
    let t = Layout::twitter();
    let start = t.epoch_ms() + 5_000_000;
    let (g, _clock, tenure, _mark) = setup(start);
    g.next_id().unwrap();
    tenure.lost(0, LeaseLostReason::Lapsed, "expired");
    let next_mark = Arc::new(MemoryMark::default());
    *next_mark.broken.lock().unwrap() = true;
    tenure.offer(Claim {
        nodes: vec![0, 3],
        mark: next_mark.clone(),
        source: "scripted node 3".into(),
        valid_until_ms: start + 8_000,
    });
    let err = g.next_id().unwrap_err();
    assert!(err.to_string().contains("refused the write"), "{err}");
    assert_eq!(g.node_values(), vec![0, 1], "the identity is unchanged");
    *next_mark.broken.lock().unwrap() = false;
    assert_eq!(t.decode(g.next_id().unwrap()).unwrap().nodes(), &[0, 3]);
}

#[test]
fn a_remote_lease_takes_no_node_fields() {
    let lease = Scripted::new(&[0, 0], 1_000);
    let layout = Layout::twitter();
    let identity =
        WorkerIdentity::resolve_remote(&layout, lease, Arc::new(ManualClock::new(0))).unwrap();
    let err = Generator::builder(layout)
        .nodes(&[1, 1])
        .identity(identity)
        .build()
        .unwrap_err();
    assert_eq!(err.code(), "INVALID_ARGUMENT");
}

#[test]
fn an_offer_the_node_check_refuses_is_not_taken_up() {
    let t = Layout::twitter();
    let start = t.epoch_ms() + 5_000_000;
    let clock = ManualClock::new(start);
    let lease = Scripted::new(&[0, 1], 8_000);
    let check = polyflake::NodeCheck::new(|nodes| nodes != [0, 2]);
    let identity = WorkerIdentity::resolve_remote(&t, lease.clone(), Arc::new(clock.clone()))
        .unwrap()
        .checked(check)
        .unwrap();
    let g = Generator::builder(t.clone())
        .identity(identity)
        .build()
        .unwrap();
    let tenure = lease.tenure();
    g.next_id().unwrap();
    tenure.lost(0, LeaseLostReason::Lapsed, "expired");
    let offer = |n: u64| Claim {
        nodes: vec![0, n],
        mark: Arc::new(MemoryMark::default()),
        source: format!("scripted node {n}"),
        valid_until_ms: start + 8_000,
    };
    tenure.offer(offer(2));
    let err = g.next_id().unwrap_err();
    assert_eq!(err.code(), "LEASE_LOST");
    assert_eq!(err.lease_lost_reason(), Some(LeaseLostReason::CheckRefused));
    assert!(!err.retryable());
    assert!(
        err.to_string()
            .contains("refused node values [0, 2] (scripted node 2)"),
        "{err}"
    );
    // Not put back: the next call has nothing to take up.
    assert!(!g.next_id().unwrap_err().to_string().contains("[0, 2]"));
    tenure.offer(offer(3));
    assert_eq!(t.decode(g.next_id().unwrap()).unwrap().nodes(), &[0, 3]);
}
