//! The one request the client makes, `GET /v1/ids?count=N`, over a plain
//! HTTP/1.1 connection of std's: the service is ours and its answer small, so
//! no HTTP stack (and no async runtime) comes with the client. What is asked
//! and how the answer reads is `polyflake-wire`'s, which the server shares.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// A replica's address: `http://host:port` (a base path is not supported).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replica {
    pub(crate) url: String,
    host: String,
    port: u16,
}

impl Replica {
    /// Parses `http://host:port`; the message says what is wrong.
    pub(crate) fn parse(url: &str) -> Result<Replica, String> {
        let rest = url.strip_prefix("http://").ok_or_else(|| {
            format!("{url:?}: a replica's URL is http://host:port (https is not supported)")
        })?;
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let (host, port) = rest
            .rsplit_once(':')
            .ok_or_else(|| format!("{url:?}: the URL names no port (http://host:port)"))?;
        let port = port
            .parse::<u16>()
            .ok()
            .filter(|p| *p != 0)
            .ok_or_else(|| format!("{url:?}: the port must be a number from 1 to 65535"))?;
        let valid_host = !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '[' | ']' | ':'));
        if !valid_host {
            return Err(format!("{url:?}: the host must be a name or an address"));
        }
        Ok(Replica {
            url: url.to_owned(),
            host: host.to_owned(),
            port,
        })
    }

    fn address(&self) -> Result<SocketAddr, String> {
        let host = self.host.trim_start_matches('[').trim_end_matches(']');
        (host, self.port)
            .to_socket_addrs()
            .map_err(|e| format!("{}: cannot resolve {host}: {e}", self.url))?
            .next()
            .ok_or_else(|| format!("{}: {host} has no address", self.url))
    }

    /// `count` IDs from this replica, or why not (for the caller's log of
    /// failures): refused, timed out, a status other than 200, a body that is
    /// not the service's.
    pub(crate) fn fetch(&self, count: usize, timeout: Duration) -> Result<Vec<u64>, String> {
        let address = self.address()?;
        let mut stream = TcpStream::connect_timeout(&address, timeout)
            .map_err(|e| format!("{}: {e}", self.url))?;
        stream
            .set_read_timeout(Some(timeout))
            .and_then(|()| stream.set_write_timeout(Some(timeout)))
            .map_err(|e| format!("{}: {e}", self.url))?;
        write!(
            stream,
            "GET {} HTTP/1.1\r\nHost: {}:{}\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
            polyflake_wire::ids_target(count as u64),
            self.host, self.port
        )
        .map_err(|e| format!("{}: {e}", self.url))?;
        let mut reader = BufReader::new(stream);
        let mut status_line = String::new();
        reader
            .read_line(&mut status_line)
            .map_err(|e| format!("{}: {e}", self.url))?;
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse::<u16>().ok())
            .ok_or_else(|| format!("{}: not an HTTP answer: {status_line:?}", self.url))?;
        let mut length = None;
        loop {
            let mut line = String::new();
            reader
                .read_line(&mut line)
                .map_err(|e| format!("{}: {e}", self.url))?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse::<usize>().ok();
                }
            }
        }
        const MOST: usize = polyflake_wire::MAX_ANSWER_BYTES;
        let mut body = Vec::new();
        match length {
            Some(n) if n > MOST => return Err(format!("{}: an answer of {n} bytes", self.url)),
            Some(n) => {
                body.resize(n, 0);
                reader.read_exact(&mut body)
            }
            None => reader.take(MOST as u64).read_to_end(&mut body).map(drop),
        }
        .map_err(|e| format!("{}: {e}", self.url))?;
        if status != 200 {
            let text = String::from_utf8_lossy(&body);
            return Err(format!("{}: HTTP {status}: {}", self.url, text.trim()));
        }
        polyflake_wire::ids_from_answer(&body, count).map_err(|why| format!("{}: {why}", self.url))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replica_urls() {
        let r = Replica::parse("http://127.0.0.1:8080").unwrap();
        assert_eq!((r.host.as_str(), r.port), ("127.0.0.1", 8080));
        assert_eq!(Replica::parse("http://ids.internal:80/").unwrap().port, 80);
        assert_eq!(Replica::parse("http://[::1]:9000").unwrap().host, "[::1]");
        for (bad, says) in [
            ("https://a:1", "https"),
            ("a:1", "http://"),
            ("http://a", "no port"),
            ("http://a:0", "1 to 65535"),
            ("http://a:x", "1 to 65535"),
            ("http://:80", "host"),
            ("http://a b:80", "host"),
        ] {
            let err = Replica::parse(bad).unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
