//! The service-backed generator (polyflake-service) against real `polyflake
//! serve` replicas leasing from one real etcd: one replica killed and one
//! paused while four threads take IDs.
#![cfg(all(feature = "serve", feature = "etcd"))]

mod common;
#[path = "../../etcd/tests/support/mod.rs"]
mod support;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use polyflake_service::{ServiceGenerator, ServiceSettings};

use common::Server;

#[test]
fn a_killed_and_a_paused_replica_cost_no_duplicate_and_no_error() {
    let etcd = support::Etcd::start();
    let prefix = format!("/polyflake-service-{}", std::process::id());
    let env = [
        ("POLYFLAKE_ETCD_ENDPOINTS", etcd.endpoint.as_str()),
        ("POLYFLAKE_ETCD_PREFIX", prefix.as_str()),
    ];
    let replicas: Vec<Server> = (0..3).map(|_| Server::start(&env)).collect();
    let mut settings = ServiceSettings::new(
        replicas
            .iter()
            .map(|r| format!("http://127.0.0.1:{}", r.port)),
    );
    settings.batch = 500;
    settings.low_water = Some(250);
    settings.request_timeout = Duration::from_millis(300);
    let service = Arc::new(ServiceGenerator::new(settings).unwrap());

    let stop = Arc::new(AtomicBool::new(false));
    let takers: Vec<_> = (0..4)
        .map(|_| {
            let (service, stop) = (Arc::clone(&service), Arc::clone(&stop));
            std::thread::spawn(move || {
                let (mut ids, mut waits) = (Vec::new(), Vec::new());
                while !stop.load(Ordering::Relaxed) {
                    let began = Instant::now();
                    ids.push(service.next_id().expect("an ID through every fault"));
                    waits.push(began.elapsed());
                }
                (ids, waits)
            })
        })
        .collect();

    std::thread::sleep(Duration::from_millis(1500));
    support::signal(replicas[0].child.id(), "KILL");
    std::thread::sleep(Duration::from_millis(1500));
    support::signal(replicas[1].child.id(), "STOP");
    std::thread::sleep(Duration::from_millis(2000));
    support::signal(replicas[1].child.id(), "CONT");
    std::thread::sleep(Duration::from_millis(1000));
    stop.store(true, Ordering::Relaxed);

    let (mut all, mut waits) = (Vec::new(), Vec::new());
    for taker in takers {
        let (ids, w) = taker.join().unwrap();
        all.extend(ids);
        waits.extend(w);
    }
    let unique: HashSet<u64> = all.iter().copied().collect();
    assert_eq!(unique.len(), all.len(), "no ID twice");
    let stats = service.stats();
    // Batches of 500 to 8,000 (the default max_batch, 16 × 500): the taker outran 500.
    assert!(
        (500..=8000).contains(&service.batch()),
        "{}",
        service.batch()
    );
    assert!(stats.batches as usize * 8000 >= all.len());
    assert!(
        stats.failovers >= 1,
        "the killed replica was skipped: {stats:?}"
    );
    // Every replica's identity served: the survivors' IDs carry two other node values.
    let layout = polyflake::Layout::twitter();
    let nodes: HashSet<Vec<u64>> = all
        .iter()
        .map(|&id| layout.decode(id).unwrap().nodes().to_vec())
        .collect();
    assert!(nodes.len() >= 2, "{nodes:?}");
    waits.sort();
    let p99 = waits[waits.len() * 99 / 100];
    eprintln!(
        "service-backed next_id: {} IDs, p50 {:?}, p99 {p99:?}, longest {:?}; {stats:?}",
        all.len(),
        waits[waits.len() / 2],
        waits.last().unwrap(),
    );
}
