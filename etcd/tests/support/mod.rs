//! A real etcd (Debian's `etcd-server`) on 127.0.0.1 with a temporary data
//! directory, stopped by PID when dropped.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Etcd {
    child: Child,
    pub endpoint: String,
    data_dir: PathBuf,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port on 127.0.0.1")
        .port()
}

impl Etcd {
    pub fn start() -> Etcd {
        Etcd::cluster(1).pop().expect("one member")
    }

    /// A cluster of `members` etcd processes on loopback, each healthy.
    pub fn cluster(members: usize) -> Vec<Etcd> {
        let etcd = std::env::var("ETCD_BIN").unwrap_or_else(|_| "etcd".into());
        let ports: Vec<(u16, u16)> = (0..members).map(|_| (free_port(), free_port())).collect();
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
                assert!(
                    Instant::now() < deadline,
                    "etcd was not healthy within 30 s"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        servers
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
