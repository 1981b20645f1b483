//! The batch follows the rate: a replica stand-in on loopback answers
//! `GET /v1/ids?count=N` with N fresh IDs and records each N.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use polyflake_service::{ServiceGenerator, ServiceSettings};

/// A replica stand-in: the counts asked for, in order.
fn replica() -> (String, Arc<Mutex<Vec<usize>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    std::thread::spawn(move || {
        let mut next = 1u64 << 40;
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut line = String::new();
            BufReader::new(&stream).read_line(&mut line).unwrap();
            let count: usize = line
                .split("count=")
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap();
            log.lock().unwrap().push(count);
            let ids: Vec<String> = (0..count as u64)
                .map(|i| format!("\"{}\"", next + i))
                .collect();
            next += count as u64;
            let body = format!("{{\"ids\":[{}]}}", ids.join(","));
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, asked)
}

#[test]
fn the_batch_grows_with_a_fast_taker_and_shrinks_with_a_slow_one() {
    let (url, asked) = replica();
    let mut settings = ServiceSettings::new([url]);
    settings.batch = 100;
    let service = ServiceGenerator::new(settings).unwrap();
    assert_eq!((service.batch(), service.low_water()), (100, 50));
    let mut seen = HashSet::new();
    while seen.len() < 200_000 {
        for id in service.next_ids(100).unwrap() {
            assert!(seen.insert(id), "{id} twice");
        }
    }
    let fast: Vec<usize> = asked.lock().unwrap().clone();
    assert!(
        fast.iter().all(|n| [100, 200, 400, 800, 1600].contains(n)),
        "doubling from 100 to 16 × 100: {fast:?}"
    );
    assert_eq!(*fast.iter().max().unwrap(), 1600, "{fast:?}");
    // The low-water mark keeps its proportion.
    assert_eq!(service.low_water() * 2, service.batch());

    // A taker far slower than a request: each batch lasts hundreds of requests.
    let before = asked.lock().unwrap().len();
    for _ in 0..25 {
        service.next_ids(300).unwrap();
        std::thread::sleep(Duration::from_millis(150));
    }
    let slow: Vec<usize> = asked.lock().unwrap()[before..].to_vec();
    assert!(
        slow.iter().any(|&n| n < 1600),
        "the batch shrank toward 100: {slow:?}"
    );
    assert!(
        slow.iter().all(|&n| n >= 100),
        "never below the setting: {slow:?}"
    );
}

#[test]
fn a_max_batch_of_the_batch_keeps_it_fixed() {
    let (url, asked) = replica();
    let mut settings = ServiceSettings::new([url]);
    settings.batch = 100;
    settings.max_batch = Some(100);
    let service = ServiceGenerator::new(settings).unwrap();
    for _ in 0..500 {
        service.next_ids(100).unwrap();
    }
    assert!(asked.lock().unwrap().iter().all(|&n| n == 100));
    let mut bad = ServiceSettings::new(["http://127.0.0.1:9"]);
    bad.batch = 100;
    bad.max_batch = Some(99);
    assert_eq!(
        ServiceGenerator::new(bad).unwrap_err().code(),
        "FIELD_OUT_OF_RANGE"
    );
}
