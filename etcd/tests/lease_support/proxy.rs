//! A TCP proxy between one holder and etcd that the test can cut: the
//! partitions a network makes, which pausing etcd is not (etcd stays
//! healthy for everyone else). A few lines of our own rather than toxiproxy:
//! the faults needed are four, and a Go service more to build and drive
//! would be the larger part of the test.
//!
//! - `Blackhole`: bytes in either direction vanish; connections stay open
//!   and new ones are accepted, so the client waits on its timeouts.
//! - `Reset`: every connection is closed with a reset and new ones too.
//! - `Latency(ms)`: every chunk is held that long, both ways.
//! - `OneWay`: requests reach etcd; its answers vanish.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    None,
    Blackhole,
    Reset,
    Latency(u64),
    OneWay,
}

impl Fault {
    fn encode(self) -> u64 {
        match self {
            Fault::None => 0,
            Fault::Blackhole => 1,
            Fault::Reset => 2,
            Fault::OneWay => 3,
            Fault::Latency(ms) => 4 + ms,
        }
    }
    fn decode(v: u64) -> Fault {
        match v {
            0 => Fault::None,
            1 => Fault::Blackhole,
            2 => Fault::Reset,
            3 => Fault::OneWay,
            ms => Fault::Latency(ms - 4),
        }
    }
}

struct Shared {
    fault: AtomicU64,
    stop: AtomicBool,
    /// Open connections, to reset them when the fault says so.
    streams: Mutex<Vec<TcpStream>>,
}

pub struct Proxy {
    pub endpoint: String,
    shared: Arc<Shared>,
}

impl Proxy {
    /// Listens on a free port of 127.0.0.1 and forwards to `upstream`
    /// (`http://127.0.0.1:port`).
    pub fn start(upstream: &str) -> Proxy {
        let target = upstream.trim_start_matches("http://").to_owned();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let shared = Arc::new(Shared {
            fault: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            streams: Mutex::new(Vec::new()),
        });
        let accepting = Arc::clone(&shared);
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if accepting.stop.load(Ordering::Acquire) {
                    return;
                }
                let Ok(client) = client else { continue };
                if accepting.fault() == Fault::Reset {
                    reset(&client);
                    continue;
                }
                let Ok(server) = TcpStream::connect(&target) else {
                    reset(&client);
                    continue;
                };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                {
                    let mut streams = accepting.streams.lock().unwrap();
                    streams.push(client.try_clone().unwrap());
                    streams.push(server.try_clone().unwrap());
                }
                pump(
                    &accepting,
                    client.try_clone().unwrap(),
                    server.try_clone().unwrap(),
                    true,
                );
                pump(&accepting, server, client, false);
            }
        });
        Proxy { endpoint, shared }
    }

    /// Applies `fault` from now on (`Reset` also resets the open connections).
    pub fn set(&self, fault: Fault) {
        self.shared.fault.store(fault.encode(), Ordering::Release);
        if fault == Fault::Reset {
            for stream in self.shared.streams.lock().unwrap().drain(..) {
                reset(&stream);
            }
        }
    }
}

impl Shared {
    fn fault(&self) -> Fault {
        Fault::decode(self.fault.load(Ordering::Acquire))
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        for stream in self.shared.streams.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
        // Wakes the accepting thread so that it sees `stop`.
        let _ = TcpStream::connect(self.endpoint.trim_start_matches("http://"));
    }
}

/// Closes with a reset (SO_LINGER 0), as a middlebox that drops the flow does.
fn reset(stream: &TcpStream) {
    let _ = socket_linger_zero(stream);
    let _ = stream.shutdown(Shutdown::Both);
}

#[allow(unsafe_code)]
fn socket_linger_zero(stream: &TcpStream) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: a valid socket descriptor and a linger struct of the size given.
    let rc = unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&raw const linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Copies `from` to `to` on a thread of its own, applying the fault to each
/// chunk; `upstream` is the direction towards etcd.
fn pump(shared: &Arc<Shared>, mut from: TcpStream, mut to: TcpStream, upstream: bool) {
    let shared = Arc::clone(shared);
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            match shared.fault() {
                Fault::None => {}
                Fault::Blackhole => continue,
                Fault::OneWay if !upstream => continue,
                Fault::OneWay => {}
                Fault::Reset => break,
                Fault::Latency(ms) => std::thread::sleep(Duration::from_millis(ms)),
            }
            if to.write_all(&buf[..n]).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}
