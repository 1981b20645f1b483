//! What the CLI's and the service's tests share: golden-vector checks, a
//! `polyflake serve` process, and the one HTTP client that talks to it and
//! to chromedriver.
// Each test crate uses a part of this.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// A decoded ID as JSON (`decode --json`, `GET /v1/ids/{id}`) against a
/// golden compose vector: the ID, time, every node field and the sequence.
pub fn assert_decoded(decoded: &Value, case: &Value) {
    assert_eq!(decoded["id"], case["id"]);
    assert_eq!(decoded["layout"], case["layout"]);
    assert_eq!(
        decoded["timestamp_ms"].to_string(),
        case["timestamp_ms"].as_str().unwrap()
    );
    assert_eq!(
        decoded["sequence"].to_string(),
        case["sequence"].as_str().unwrap()
    );
    if let Some(time) = case["time"].as_str() {
        assert_eq!(decoded["time"], time);
    }
    for (field, value) in case["nodes"].as_object().unwrap() {
        assert_eq!(
            decoded[field].to_string(),
            value.as_str().unwrap(),
            "{field}"
        );
    }
}

/// A port for a server that must be told one (chromedriver), by the rule
/// every suite shares (tests/ports.py): below Linux's ephemeral range
/// (32768 and up), so that no outgoing connection or port-0 socket takes it
/// before the server binds it, and bindable now. A server that takes port 0
/// is told port 0 instead (`Server::start`).
pub fn free_port() -> u16 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let seed = nanos ^ std::process::id().wrapping_mul(2_654_435_761) ^ n.wrapping_mul(40_503);
        let port = 20_000 + u16::try_from(seed % 12_768).expect("below 32768");
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// A directory removed when dropped.
pub struct TempDir(pub PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn temp_dir(name: &str) -> TempDir {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("polyflake-{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// One HTTP/1.1 request to 127.0.0.1: its status and body. The body is read
/// by its Content-Length where there is one (chromedriver keeps the
/// connection open), else to the end.
pub fn http(port: u16, method: &str, path: &str, body: &str, timeout: Duration) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(timeout)).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{path}: status line {status_line:?}"));
    let mut length = None;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = Some(value.trim().parse().unwrap());
            }
        }
    }
    let mut answer = Vec::new();
    match length {
        Some(n) => {
            answer.resize(n, 0);
            reader.read_exact(&mut answer).unwrap();
        }
        None => {
            reader.read_to_end(&mut answer).unwrap();
        }
    }
    (status, String::from_utf8(answer).unwrap())
}

/// `polyflake serve` on a free port with a state directory of its own,
/// killed when dropped.
pub struct Server {
    pub child: Child,
    pub port: u16,
    pub stderr: BufReader<ChildStderr>,
    _state: TempDir,
}

impl Server {
    /// Starts it on port 0 with these variables and waits for its first
    /// line, which says it serves and where.
    pub fn start(env: &[(&str, &str)]) -> Server {
        let state = temp_dir("serve-state");
        let mut command = Command::new(env!("CARGO_BIN_EXE_polyflake"));
        command
            .args(["serve", "--listen", "127.0.0.1:0"])
            .env("POLYFLAKE_STATE_DIR", &state.0)
            .env_remove("POLYFLAKE_NODE_ID")
            .env_remove("POLYFLAKE_ETCD_ENDPOINTS")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("polyflake serve starts");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        assert!(line.contains("serving layout"), "{line}");
        let port = line
            .split("http://127.0.0.1:")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line}"));
        Server {
            child,
            port,
            stderr,
            _state: state,
        }
    }

    pub fn http(&self, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
        http(
            self.port,
            method,
            path,
            body.unwrap_or(""),
            Duration::from_secs(10),
        )
    }

    pub fn json(&self, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
        let (status, text) = self.http(method, path, body);
        (
            status,
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("{path}: {text}")),
        )
    }

    pub fn ids(&self, count: u64) -> Vec<u64> {
        let (status, body) = self.json("GET", &format!("/v1/ids?count={count}"), None);
        assert_eq!(status, 200, "{body}");
        body["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().parse().unwrap())
            .collect()
    }

    /// The value of one sample of `/metrics` (its name with labels).
    pub fn metric(&self, sample: &str) -> u64 {
        let (_, text) = self.http("GET", "/metrics", None);
        let line = text
            .lines()
            .find(|l| l.strip_prefix(sample).is_some_and(|v| v.starts_with(' ')))
            .unwrap_or_else(|| panic!("no {sample} in\n{text}"));
        line.rsplit(' ').next().unwrap().parse().unwrap()
    }

    pub fn issued(&self) -> u64 {
        self.metric("polyflake_ids_issued_total")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
