//! A real etcd (Debian's `etcd-server`) on 127.0.0.1 with a temporary data
//! directory, stopped by PID when dropped.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub struct Etcd {
    child: Child,
    pub endpoint: String,
    data_dir: PathBuf,
}

/// A port that can be bound now, below Linux's ephemeral range (32768 and
/// up), where the outgoing connections of the other tests' etcd members
/// would otherwise land on it before its member binds it.
fn free_port(taken: &[u16]) -> u16 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let seed = nanos ^ std::process::id().wrapping_mul(2_654_435_761) ^ n.wrapping_mul(40_503);
        let port = 20_000 + (seed % 12_000) as u16;
        if !taken.contains(&port) && TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

impl Etcd {
    pub fn start() -> Etcd {
        Etcd::cluster(1).pop().expect("one member")
    }

    /// A cluster of `members` etcd processes on loopback, each healthy. A
    /// cluster that does not become healthy (a port taken between choosing
    /// and binding it) is stopped and started again on other ports.
    pub fn cluster(members: usize) -> Vec<Etcd> {
        for _ in 0..3 {
            if let Some(cluster) = Etcd::try_cluster(members) {
                return cluster;
            }
        }
        panic!("etcd was not healthy within 30 s, three times");
    }

    fn try_cluster(members: usize) -> Option<Vec<Etcd>> {
        let etcd = std::env::var("ETCD_BIN").unwrap_or_else(|_| "etcd".into());
        let mut taken = Vec::new();
        let ports: Vec<(u16, u16)> = (0..members)
            .map(|_| {
                let client = free_port(&taken);
                taken.push(client);
                let peer = free_port(&taken);
                taken.push(peer);
                (client, peer)
            })
            .collect();
        let name = |i: usize| format!("polyflake-test-{i}");
        let initial = ports
            .iter()
            .enumerate()
            .map(|(i, (_, peer))| format!("{}=http://127.0.0.1:{peer}", name(i)))
            .collect::<Vec<_>>()
            .join(",");
        let token = format!("polyflake-{}", ports[0].0);
        let servers: Vec<Etcd> = ports
            .iter()
            .enumerate()
            .map(|(i, &(client, peer))| {
                let data_dir = std::env::temp_dir()
                    .join(format!("polyflake-etcd-{}-{client}", std::process::id()));
                let _ = std::fs::remove_dir_all(&data_dir);
                let client_url = format!("http://127.0.0.1:{client}");
                let peer_url = format!("http://127.0.0.1:{peer}");
                let child = Command::new(&etcd)
                    .args(["--name", &name(i), "--data-dir"])
                    .arg(&data_dir)
                    .args(["--listen-client-urls", &client_url])
                    .args(["--advertise-client-urls", &client_url])
                    .args(["--listen-peer-urls", &peer_url])
                    .args(["--initial-advertise-peer-urls", &peer_url])
                    .args(["--initial-cluster", &initial])
                    .args(["--initial-cluster-token", &token])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap_or_else(|e| {
                        panic!(
                            "cannot start {etcd} (scripts/test-etcd.sh installs etcd-server): {e}"
                        )
                    });
                Etcd {
                    child,
                    endpoint: client_url,
                    data_dir,
                }
            })
            .collect();
        // Listening is not serving: wait until the members have a leader.
        let deadline = Instant::now() + Duration::from_secs(30);
        for (client, _) in &ports {
            while !healthy(*client) {
                if Instant::now() >= deadline {
                    eprintln!(
                        "etcd on {ports:?} was not healthy within 30 s; again on other ports"
                    );
                    return None; // dropping the members stops them
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        Some(servers)
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

    /// kill -9 the member.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGSTOP (`true`) or SIGCONT (`false`) the server.
    pub fn pause(&self, paused: bool) {
        signal(self.pid(), if paused { "STOP" } else { "CONT" });
    }
}

/// `GET /health` answers `"health":"true"` once the member serves requests.
fn healthy(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let request = format!("GET /health HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    let mut answer = String::new();
    stream.write_all(request.as_bytes()).is_ok()
        && stream.read_to_string(&mut answer).is_ok()
        && answer.contains("\"health\":\"true\"")
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

pub fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args([format!("-{name}"), pid.to_string()])
        .status()
        .expect("kill(1)");
    assert!(status.success(), "kill -{name} {pid}");
}

impl Drop for Etcd {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            signal(self.pid(), "CONT");
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}
