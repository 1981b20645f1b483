//! The composer page in a real browser: Debian's chromium, driven through
//! chromedriver's W3C WebDriver API (plain HTTP from here), against a real
//! `polyflake serve`. Writes `target/composer.png`, the screenshot in docs/.
#![cfg(feature = "serve")]

mod common;

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One WebDriver request; the answer's `value`.
fn webdriver(port: u16, method: &str, path: &str, body: Option<Value>) -> Value {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let (_, text) = common::http(port, method, path, &body, Duration::from_secs(60));
    let value: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{path}: {text}"));
    value["value"].clone()
}

struct Browser {
    port: u16,
    session: String,
    _driver: Process,
}

impl Browser {
    fn start() -> Browser {
        let port = common::free_port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver (Debian's chromium-driver; scripts/debian-deps.sh installs it)");
        let driver = Process(driver);
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile =
            std::env::temp_dir().join(format!("polyflake-chromium-{}", std::process::id()));
        let capabilities = json!({ "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--disable-quic", "--no-first-run", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync", "--window-size=1000,1000",
                         format!("--user-data-dir={}", profile.display())]
            }
        }}});
        let session = webdriver(port, "POST", "/session", Some(capabilities));
        let session = session["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("{session}"))
            .to_owned();
        Browser {
            port,
            session,
            _driver: driver,
        }
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        webdriver(
            self.port,
            method,
            &format!("/session/{}{path}", self.session),
            body,
        )
    }

    /// The element matching `css`, waited for.
    fn find(&self, css: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let found = self.call(
                "POST",
                "/element",
                Some(json!({ "using": "css selector", "value": css })),
            );
            if let Some(id) = found[ELEMENT].as_str() {
                return id.to_owned();
            }
            assert!(Instant::now() < deadline, "no element {css}: {found}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn text(&self, css: &str) -> String {
        let id = self.find(css);
        self.call("GET", &format!("/element/{id}/text"), None)
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    fn texts(&self, css: &str) -> Vec<String> {
        let found = self.call(
            "POST",
            "/elements",
            Some(json!({ "using": "css selector", "value": css })),
        );
        found
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let id = e[ELEMENT].as_str().unwrap();
                self.call("GET", &format!("/element/{id}/text"), None)
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    fn fill(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.call("POST", &format!("/element/{id}/clear"), Some(json!({})));
        self.call(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        );
    }

    fn click(&self, css: &str) {
        let id = self.find(css);
        self.call("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    /// Waits until the element's text satisfies `ok`, and returns it.
    fn wait_text(&self, css: &str, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = self.text(css);
            if ok(&text) {
                return text;
            }
            assert!(Instant::now() < deadline, "{css} reads {text:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = webdriver(
            self.port,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
    }
}

/// Standard base64 (the screenshot), without a dependency for it.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let n = chunk
            .iter()
            .fold(0u32, |acc, &c| (acc << 6) | u32::from(value(c)))
            << (6 * (4 - chunk.len()));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

#[test]
fn the_composer_page_composes_draws_the_segments_and_shows_errors_inline() {
    let server = common::Server::start(&[]);
    let port = server.port;

    let browser = Browser::start();
    browser.call(
        "POST",
        "/url",
        Some(json!({ "url": format!("http://127.0.0.1:{port}/") })),
    );
    browser.find("body[data-ready='true']");

    // The seeds' worked example: 1288834975657, datacenter 1, machine 1, sequence 0.
    browser.fill("#timestamp", "1288834975657");
    browser.fill("#field-datacenter_id", "1");
    browser.fill("#field-machine_id", "1");
    browser.fill("#sequence", "0");
    browser.click("#compose-button");
    browser.wait_text("#id", |t| t == "4194439168");
    let segments = browser.texts("#segments .seg b");
    assert_eq!(
        segments,
        [
            "unused 0",
            "time 1000",
            "datacenter_id 1",
            "machine_id 1",
            "sequence 0"
        ],
        "the 64 bits by segment"
    );
    let encodings = browser.texts("#encodings tbody td");
    assert!(
        encodings
            .windows(2)
            .any(|w| w[0] == "hex" && w[1] == "00000000fa021000"),
        "{encodings:?}"
    );
    let png = base64_decode(browser.call("GET", "/screenshot", None).as_str().unwrap());
    assert_eq!(&png[1..4], b"PNG");
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/composer.png");
    std::fs::write(target, png).unwrap();

    // An out-of-range machine ID: the error sits beside that field, with its range.
    browser.fill("#field-machine_id", "40");
    browser.click("#compose-button");
    let error = browser.wait_text("#machine_id-error", |t| !t.is_empty());
    assert!(error.contains("out of range 0..=31"), "{error}");

    // Paste an ID to take it apart.
    browser.fill("#decode-id", "4194439168");
    browser.click("#decode-button");
    let decoded = browser.wait_text("#decoded", |t| t.contains("machine_id"));
    assert!(decoded.contains("2010-11-04T01:42:55.657Z"), "{decoded}");
}
