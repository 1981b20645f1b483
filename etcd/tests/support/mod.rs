//! A real etcd (Debian's `etcd-server`) on 127.0.0.1, one member or several,
//! started by the launcher every suite shares (`tests/etcd_cluster.py`: its
//! free-port rule, its readiness wait, its retry on a lost port) and stopped
//! by PID when the last member is dropped, its directory removed.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The launcher's directory; dropping the last member's handle runs its
/// `stop`, which ends every member by the PID written there.
struct Launched(PathBuf);

impl Drop for Launched {
    fn drop(&mut self) {
        let _ = Command::new("python3")
            .arg(launcher())
            .arg("stop")
            .arg(&self.0)
            .status();
    }
}

pub struct Etcd {
    pid: u32,
    pub endpoint: String,
    _cluster: Arc<Launched>,
}

fn launcher() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/etcd_cluster.py")
}

impl Etcd {
    pub fn start() -> Etcd {
        Etcd::cluster(1).pop().expect("one member")
    }

    /// A cluster of `members` etcd processes on loopback, each healthy.
    pub fn cluster(members: usize) -> Vec<Etcd> {
        let out = Command::new("python3")
            .arg(launcher())
            .args(["start", "--members", &members.to_string()])
            .output()
            .expect("python3 runs tests/etcd_cluster.py");
        assert!(
            out.status.success(),
            "tests/etcd_cluster.py start (scripts/test-etcd.sh installs etcd-server): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let started: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("the launcher prints JSON");
        let cluster = Arc::new(Launched(PathBuf::from(
            started["dir"].as_str().expect("dir"),
        )));
        started["members"]
            .as_array()
            .expect("members")
            .iter()
            .map(|m| Etcd {
                pid: u32::try_from(m["pid"].as_u64().expect("pid")).expect("a PID"),
                endpoint: m["endpoint"].as_str().expect("endpoint").to_owned(),
                _cluster: Arc::clone(&cluster),
            })
            .collect()
    }

    /// Whether this member is the cluster's leader (asked through its
    /// JSON gateway's status call).
    pub fn is_leader(&self) -> bool {
        let status = post(&self.endpoint, "/v3/maintenance/status", "{}");
        let field = |name: &str| {
            let at = status.find(&format!("\"{name}\":\""))? + name.len() + 4;
            status[at..].split('"').next().map(str::to_owned)
        };
        let member = status.find("\"header\"").and_then(|_| field("member_id"));
        member.is_some() && member == field("leader")
    }

    /// kill -9 the member, and wait until it is gone.
    pub fn kill(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", &self.pid.to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while running(self.pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// SIGSTOP (`true`) or SIGCONT (`false`) the server.
    pub fn pause(&self, paused: bool) {
        signal(self.pid(), if paused { "STOP" } else { "CONT" });
    }
}

/// Neither gone nor a zombie (the members are not this process's children).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .next()?
                .to_owned();
            Some(state != "Z")
        })
        .unwrap_or(false)
}

/// The body of an HTTP/1.0 POST to the member at `endpoint`.
fn post(endpoint: &str, path: &str, body: &str) -> String {
    let address = endpoint.trim_start_matches("http://");
    let Ok(mut stream) = TcpStream::connect(address) else {
        return String::new();
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let request = format!(
        "POST {path} HTTP/1.0\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut answer = String::new();
    if stream.write_all(request.as_bytes()).is_err() || stream.read_to_string(&mut answer).is_err()
    {
        return String::new();
    }
    answer
}

/// A port of 127.0.0.1 nobody listens on now (the kernel's choice,
/// released): an address that must refuse.
pub fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a loopback socket")
        .port()
}

pub fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args([format!("-{name}"), pid.to_string()])
        .status()
        .expect("kill(1)");
    assert!(status.success(), "kill -{name} {pid}");
}
