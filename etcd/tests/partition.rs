//! A holder cut off from etcd while etcd stays healthy for everyone else:
//! the partitions a network makes, through a proxy between the holder and
//! etcd (`lease_support/proxy.rs`). The holder and a newcomer run in this process,
//! so their IDs' instants are on one clock.
//!
//! - Blackholed, and reset: etcd hears nothing from the holder. The holder
//!   stops issuing by its deadline (the last renewal's send time plus TTL
//!   minus margin); a newcomer that may only take the holder's value gets it
//!   once etcd expired the lease, and its first ID comes after the holder's
//!   last, above it; healed, the holder issues again under the value etcd
//!   gives it.
//! - A three-member cluster whose leader is killed while one holder is cut
//!   off and another issues under load: the same, through the election.
//! - Answers lost (requests still reach etcd), and 2 s of latency: etcd may
//!   keep the lease alive, but answers that come too late (or never) are no
//!   renewal: the holder stops by its deadline all the same. A newcomer that
//!   gets the value starts after the holder's last ID; healed, the holder
//!   issues again.

mod lease_support;
mod support;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use lease_support::proxy::{Fault, Proxy};
use lease_support::{MARGIN, TTL};
use polyflake::{Clock as _, Generator, Layout, LeaseLostReason, WorkerIdentity};
use polyflake_etcd::EtcdLease;
use support::Etcd;

/// Scheduling slack on a loaded two-core machine.
const SLACK: Duration = Duration::from_millis(400);

fn lease(endpoint: &str, prefix: &str, values: std::ops::Range<u64>) -> EtcdLease {
    lease_support::lease(endpoint, prefix).node_range(values)
}

fn leased(lease: EtcdLease) -> polyflake::Result<Generator> {
    let layout = Layout::twitter();
    let clock: Arc<dyn polyflake::Clock> = Arc::new(polyflake::MonotonicClock::new());
    let identity = WorkerIdentity::resolve_remote(&layout, Arc::new(lease), clock)?;
    Generator::builder(layout).identity(identity).build()
}

/// A thread that asks for an ID every 2 ms and keeps what it got, when.
struct Issuer {
    ids: Arc<Mutex<Vec<(u64, Instant)>>>,
    refusals: Arc<Mutex<Vec<(polyflake::Error, Instant)>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Issuer {
    fn start(generator: Arc<Generator>) -> Issuer {
        let ids = Arc::new(Mutex::new(Vec::new()));
        let refusals = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (i, r, s) = (Arc::clone(&ids), Arc::clone(&refusals), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Acquire) {
                match generator.next_id() {
                    Ok(id) => i.lock().unwrap().push((id, Instant::now())),
                    Err(e) => r.lock().unwrap().push((e, Instant::now())),
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        Issuer {
            ids,
            refusals,
            stop,
            thread: Some(thread),
        }
    }

    fn ids_since(&self, since: Instant) -> Vec<(u64, Instant)> {
        self.ids
            .lock()
            .unwrap()
            .iter()
            .copied()
            .filter(|(_, at)| *at >= since)
            .collect()
    }

    /// Waits until an ID is issued after `since`.
    fn wait_for_id_after(&self, since: Instant, within: Duration) -> (u64, Instant) {
        let deadline = Instant::now() + within;
        loop {
            if let Some(found) = self.ids_since(since).first() {
                return *found;
            }
            let last = self
                .refusals
                .lock()
                .unwrap()
                .last()
                .map(|(e, _)| e.to_string());
            assert!(
                Instant::now() < deadline,
                "no ID within {within:?}; last refusal: {last:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn finish(mut self) -> Vec<(u64, Instant)> {
        self.stop.store(true, Ordering::Release);
        self.thread.take().unwrap().join().unwrap();
        std::mem::take(&mut *self.ids.lock().unwrap())
    }
}

fn prefix(fault: Fault) -> String {
    let name = format!("{fault:?}")
        .to_lowercase()
        .replace(|c: char| !c.is_ascii_alphanumeric(), "-");
    format!("/partition-{name}-{}", std::process::id())
}

/// Cuts the holder off with `fault`, checks what the module says, heals.
fn partition(fault: Fault, etcd_hears_the_holder: bool) {
    let etcd = Etcd::start();
    let proxy = Proxy::start(&etcd.endpoint);
    let prefix = prefix(fault);
    // The holder, through the proxy, may hold values 0 and 1; it takes 0.
    let holder = Arc::new(leased(lease(&proxy.endpoint, &prefix, 0..2)).unwrap());
    assert_eq!(holder.node_values(), [0, 0]);
    let issuer = Issuer::start(Arc::clone(&holder));
    std::thread::sleep(Duration::from_millis(1500));
    let cut = Instant::now();
    proxy.set(fault);

    // A newcomer straight to etcd that may hold value 0 only: it gets it
    // once etcd expired the holder's lease, if etcd does (not while the
    // holder's renewals still reach it).
    let newcomer_lease = || leased(lease(&etcd.endpoint, &prefix, 0..1));
    let give_up = cut
        + if etcd_hears_the_holder {
            TTL * 2
        } else {
            Duration::from_secs(30)
        };
    let newcomer = loop {
        match newcomer_lease() {
            Ok(g) => break Some((g, Instant::now())),
            Err(e) => {
                assert_eq!(
                    e.lease_lost_reason(),
                    Some(LeaseLostReason::Exhausted),
                    "{e}"
                );
                if Instant::now() > give_up {
                    break None;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    };
    assert!(
        newcomer.is_some() || etcd_hears_the_holder,
        "value 0 never freed though etcd heard nothing from its holder"
    );
    let mut newcomer_ids = Vec::new();
    if let Some((newcomer, claimed)) = &newcomer {
        // etcd expires a lease TTL after the last renewal it heard, and the
        // holder's last renewal before the cut was at most a keep-alive ago.
        assert!(
            *claimed + Duration::from_secs(1) + SLACK >= cut + TTL,
            "value 0 was free {:?} after the cut, before a TTL could pass",
            *claimed - cut
        );
        for _ in 0..500 {
            newcomer_ids.push((newcomer.next_id().unwrap(), Instant::now()));
        }
    }
    eprintln!(
        "{fault:?}: the newcomer {}",
        match &newcomer {
            Some((_, at)) => format!("took value 0 {:?} after the cut", *at - cut),
            None => format!(
                "was refused value 0 for {:?}: etcd kept the holder's lease",
                TTL * 2
            ),
        }
    );

    // The holder stopped by its deadline: nothing issued later than TTL - margin after the cut.
    let after_cut = issuer.ids_since(cut);
    if let Some((_, last)) = after_cut.last() {
        assert!(
            *last <= cut + TTL - MARGIN + SLACK,
            "the cut-off holder issued {:?} after the cut",
            *last - cut
        );
    }
    let refusal = issuer
        .refusals
        .lock()
        .unwrap()
        .iter()
        .find(|(_, at)| *at >= cut)
        .map(|(e, at)| (e.code(), *at - cut));
    let (code, refused_after) = refusal.expect("the cut-off holder refused");
    assert_eq!(code, "LEASE_LOST");
    assert!(
        refused_after <= TTL - MARGIN + SLACK,
        "refused only {refused_after:?} after the cut"
    );

    // No two holders under value 0 at once: every ID of the holder's value-0
    // tenure precedes the newcomer's first, in time and in value.
    let before_heal: Vec<_> = issuer.ids.lock().unwrap().clone();
    if let Some((first, first_at)) = newcomer_ids.first() {
        let (last, last_at) = before_heal.last().unwrap();
        assert!(
            last_at < first_at,
            "the holder issued after the newcomer began"
        );
        assert!(last < first, "the newcomer started past the holder's mark");
    }

    // Healed: the holder issues again, under value 1 if the newcomer holds 0.
    let healed = Instant::now();
    proxy.set(Fault::None);
    let (back, back_at) = issuer.wait_for_id_after(healed, Duration::from_secs(30));
    eprintln!(
        "{fault:?}: refused {refused_after:?} after the cut; issuing again {:?} after healing, under {:?}",
        back_at - healed,
        holder.node_values()
    );
    if newcomer_ids.is_empty() {
        assert_eq!(holder.node_values(), [0, 0]);
    } else {
        assert_eq!(holder.node_values(), [0, 1], "value 0 is the newcomer's");
    }
    assert!(back > before_heal.iter().map(|(id, _)| *id).max().unwrap());
    let all = issuer.finish();
    let mut seen = HashSet::new();
    for (id, _) in all.iter().chain(&newcomer_ids) {
        assert!(seen.insert(*id), "issued twice: {id}");
    }
}

#[test]
fn a_blackholed_holder_stops_by_its_deadline_and_a_newcomer_starts_after_expiry() {
    partition(Fault::Blackhole, false);
}

#[test]
fn a_holder_whose_connections_are_reset_stops_by_its_deadline() {
    partition(Fault::Reset, false);
}

#[test]
fn a_holder_whose_answers_are_lost_stops_though_etcd_keeps_its_lease() {
    partition(Fault::OneWay, true);
}

#[test]
fn a_holder_whose_renewals_take_2_s_each_way_stops_by_its_deadline() {
    partition(Fault::Latency(2000), true);
}

/// A three-member cluster: one holder cut off (blackholed to every member),
/// then the leader killed while another holder issues under load. The cut
/// holder stops by its deadline; a newcomer takes its value from the two
/// members left, only after the lease expired; the loaded holder keeps its
/// value throughout; no ID twice.
#[test]
fn the_leader_killed_while_a_holder_is_cut_off() {
    let mut members = Etcd::cluster(3);
    let endpoints: Vec<String> = members.iter().map(|m| m.endpoint.clone()).collect();
    let proxies: Vec<Proxy> = endpoints.iter().map(|e| Proxy::start(e)).collect();
    let through: Vec<&str> = proxies.iter().map(|p| p.endpoint.as_str()).collect();
    let prefix = format!("/partition-leader-{}", std::process::id());
    let with = |endpoints: &[&str], values| {
        leased(lease_support::lease_on(endpoints, &prefix).node_range(values))
    };
    let direct: Vec<&str> = endpoints.iter().map(String::as_str).collect();
    let cut_off = Arc::new(with(&through, 0..1).unwrap());
    let loaded = Arc::new(with(&direct, 1..2).unwrap());
    let (cut_issuer, loaded_issuer) = (
        Issuer::start(Arc::clone(&cut_off)),
        Issuer::start(Arc::clone(&loaded)),
    );
    std::thread::sleep(Duration::from_millis(1500));
    let cut = Instant::now();
    for proxy in &proxies {
        proxy.set(Fault::Blackhole);
    }
    std::thread::sleep(Duration::from_millis(500));
    let leader = members.iter().position(Etcd::is_leader).expect("a leader");
    members[leader].kill();
    let left: Vec<&str> = (0..3).filter(|&i| i != leader).map(|i| direct[i]).collect();
    let (newcomer, claimed) = loop {
        match with(&left, 0..1) {
            Ok(g) => break (g, Instant::now()),
            Err(e) => {
                assert_eq!(e.code(), "LEASE_LOST", "{e}");
                assert!(
                    cut.elapsed() < Duration::from_secs(30),
                    "value 0 never freed: {e}"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    };
    let newcomer_ids: Vec<(u64, Instant)> = (0..500)
        .map(|_| (newcomer.next_id().unwrap(), Instant::now()))
        .collect();
    // The loaded holder issues after the failover (it may have refused
    // while the members elected a leader, as the TTL here is short).
    loaded_issuer.wait_for_id_after(claimed, Duration::from_secs(20));
    let loaded_refusals = loaded_issuer.refusals.lock().unwrap().len();
    let cut_ids = cut_issuer.finish();
    let loaded_ids = loaded_issuer.finish();
    eprintln!(
        "leader killed with a holder cut off: value 0 free again {:?} after the cut; the loaded holder issued {} IDs, refused {loaded_refusals} calls",
        claimed - cut,
        loaded_ids.len()
    );
    assert!(
        claimed + Duration::from_secs(1) + SLACK >= cut + TTL,
        "freed before a TTL"
    );
    let (last, last_at) = *cut_ids.last().unwrap();
    assert!(
        last_at <= cut + TTL - MARGIN + SLACK,
        "issued {:?} after the cut",
        last_at - cut
    );
    assert!(last_at < newcomer_ids[0].1 && last < newcomer_ids[0].0);
    assert_eq!(
        loaded.node_values(),
        [0, 1],
        "the loaded holder kept its value"
    );
    let mut seen = HashSet::new();
    for (id, _) in cut_ids.iter().chain(&loaded_ids).chain(&newcomer_ids) {
        assert!(seen.insert(*id), "issued twice: {id}");
    }
}

/// A holder whose clock stands still (a custom clock, or a wall clock that
/// went back as far as it advanced) stamps deadlines that never pass by it.
/// Renewed, it keeps issuing; cut off, it still stops by this host's
/// monotonic clock, TTL - margin after its last renewal, when etcd may give
/// its value away.
#[test]
fn a_holder_whose_clock_stands_still_stops_by_the_monotonic_deadline() {
    let etcd = Etcd::start();
    let proxy = Proxy::start(&etcd.endpoint);
    let prefix = format!("/partition-still-{}", std::process::id());
    let wall = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let clock = polyflake::ManualClock::new(wall.as_millis() as i64);
    let layout = Layout::twitter();
    let identity = WorkerIdentity::resolve_remote(
        &layout,
        Arc::new(lease(&proxy.endpoint, &prefix, 0..1)),
        Arc::new(clock.clone()),
    )
    .unwrap();
    let holder = Arc::new(
        Generator::builder(layout)
            .identity(identity)
            .build()
            .unwrap(),
    );
    let issuer = Issuer::start(Arc::clone(&holder));
    // Longer than TTL - margin: the deadlines of earlier renewals, all the
    // same stamp, pass by the monotonic clock and must not end the claim.
    let healthy = Instant::now();
    std::thread::sleep(TTL);
    let refused_while_renewed = issuer.refusals.lock().unwrap().len();
    assert_eq!(refused_while_renewed, 0, "refused while renewed");
    assert!(issuer.ids_since(healthy).len() > 100);

    let cut = Instant::now();
    proxy.set(Fault::Blackhole);
    std::thread::sleep(TTL + Duration::from_secs(1));
    let after_cut = issuer.ids_since(cut);
    let refusals = issuer.refusals.lock().unwrap().clone();
    let ids = issuer.finish();
    let last = after_cut.last().map(|(_, at)| *at - cut);
    eprintln!(
        "a clock standing still at {} ms: the last ID {last:?} after the cut",
        clock.now_ms()
    );
    assert!(
        last.is_none_or(|last| last <= TTL - MARGIN + SLACK),
        "the holder issued {last:?} after the cut"
    );
    let (error, _) = refusals.first().expect("the cut-off holder refused");
    assert_eq!(error.code(), "LEASE_LOST");
    assert!(error.to_string().contains("monotonic clock"), "{error}");
    let unique: HashSet<u64> = ids.iter().map(|(id, _)| *id).collect();
    assert_eq!(unique.len(), ids.len());
}
