//! The gRPC load generator of `make bench-serve`, wrk's counterpart: `-c`
//! connections (one channel each), each calling one method back to back for
//! `-d` seconds on a one-thread runtime (wrk -t1); prints requests/s, p50 and
//! p99 in milliseconds as one JSON line.
//!
//! `cargo run --release -p polyflake-cli --features serve --example grpc_load -- ADDR METHOD C SECONDS`
//! with METHOD `health` (the standard health check: the floor), `ids1` or `ids1000`.

use std::time::{Duration, Instant};

use tonic::transport::Channel;

#[allow(
    clippy::all,
    missing_docs,
    missing_debug_implementations,
    unreachable_pub
)]
mod pb {
    tonic::include_proto!("polyflake.v1");
}

async fn call(channel: Channel, method: &str, until: Instant) -> Vec<u32> {
    let mut ids = pb::ids_client::IdsClient::new(channel.clone());
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
    let mut took = Vec::new();
    while Instant::now() < until {
        let began = Instant::now();
        let ok = match method {
            "health" => health
                .check(tonic_health::pb::HealthCheckRequest {
                    service: String::new(),
                })
                .await
                .is_ok(),
            "ids1" => ids.next_ids(pb::NextIdsRequest { count: 1 }).await.is_ok(),
            "ids1000" => ids
                .next_ids(pb::NextIdsRequest { count: 1000 })
                .await
                .is_ok_and(|r| r.into_inner().ids.len() == 1000),
            other => panic!("unknown method {other}: health, ids1 or ids1000"),
        };
        assert!(ok, "{method} failed");
        took.push(began.elapsed().as_micros() as u32);
    }
    took
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [addr, method, connections, seconds] = &args[..] else {
        panic!("usage: grpc_load ADDR METHOD CONNECTIONS SECONDS");
    };
    let connections: usize = connections.parse().expect("connections");
    let seconds: u64 = seconds.parse().expect("seconds");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let took = runtime.block_on(async {
        let mut channels = Vec::new();
        for _ in 0..connections {
            channels.push(
                Channel::from_shared(format!("http://{addr}"))
                    .expect("an address")
                    .connect()
                    .await
                    .expect("the server answers"),
            );
        }
        // A warm-up second, not counted.
        let warm = Instant::now() + Duration::from_secs(1);
        let tasks: Vec<_> = channels
            .iter()
            .map(|c| tokio::spawn(call(c.clone(), method.clone().leak(), warm)))
            .collect();
        for t in tasks {
            t.await.expect("a task");
        }
        let until = Instant::now() + Duration::from_secs(seconds);
        let began = Instant::now();
        let tasks: Vec<_> = channels
            .into_iter()
            .map(|c| tokio::spawn(call(c, method.clone().leak(), until)))
            .collect();
        let mut all = Vec::new();
        for t in tasks {
            all.extend(t.await.expect("a task"));
        }
        (all, began.elapsed())
    });
    let (mut all, elapsed) = took;
    all.sort_unstable();
    let pct = |p: f64| all[((all.len() as f64 * p) as usize).min(all.len() - 1)] as f64 / 1000.0;
    println!(
        "{{\"rps\": {:.1}, \"p50_ms\": {:.3}, \"p99_ms\": {:.3}}}",
        all.len() as f64 / elapsed.as_secs_f64(),
        pct(0.50),
        pct(0.99)
    );
}
