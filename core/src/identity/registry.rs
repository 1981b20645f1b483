//! Registries a worker identity can be leased from over the network, as the
//! core sees them: settings, and a connector that a registry's own crate
//! supplies. The core names no registry; the environment selects one by the
//! name its connector answers to (`POLYFLAKE_<NAME>_ENDPOINTS`).

use std::fmt;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use super::tenure::RemoteLease;
use crate::error::{ArgumentKind, Error, Result};

/// The key prefix registries use unless told otherwise.
pub const DEFAULT_PREFIX: &str = "/polyflake";
/// The default lease time to live.
pub const DEFAULT_TTL: Duration = Duration::from_secs(10);
/// The default renewal period.
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(3);
/// The default safety margin: IDs are refused this long before the lease
/// could expire at the registry.
pub const DEFAULT_SAFETY_MARGIN: Duration = Duration::from_secs(2);
/// The default bound on one request to the registry.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(2);
/// The default bound on how far a claimant's clock may be from its live
/// peers' (their median) before it refuses to start, as Twitter's Snowflake did.
pub const DEFAULT_MAX_CLOCK_GAP: Duration = Duration::from_secs(10);

/// How a remote lease is held. Every binding builds these and nothing else;
/// [`validate`](RegistrySettings::validate) is the one place they are checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistrySettings {
    /// Endpoint URLs (`http://127.0.0.1:2379`).
    pub endpoints: Vec<String>,
    /// Key prefix, starting with `/` (default [`DEFAULT_PREFIX`]).
    pub prefix: String,
    /// Lease time to live, whole seconds, at least 2.
    pub ttl: Duration,
    /// How often the lease is renewed.
    pub keep_alive: Duration,
    /// How long before the lease could expire IDs are refused.
    pub safety_margin: Duration,
    /// The bound on one request.
    pub request_timeout: Duration,
    /// Node numbers to claim from (all node fields read as one number, as
    /// `POLYFLAKE_NODE_ID`); `None`: the layout's whole node space.
    pub node_range: Option<Range<u64>>,
    /// The largest gap allowed between this process's clock and the median
    /// of its live peers' when it claims a value; zero turns the check off.
    pub max_clock_gap: Duration,
}

/// The settings that are durations, named once: each binding takes them in
/// its own spelling and unit of this name (`ttl`, `ttlMs`, `ttl=` seconds),
/// the environment as `POLYFLAKE_<NAME>_<NAME>_MS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegistryDuration {
    /// [`RegistrySettings::ttl`].
    Ttl,
    /// [`RegistrySettings::keep_alive`].
    KeepAlive,
    /// [`RegistrySettings::safety_margin`].
    SafetyMargin,
    /// [`RegistrySettings::request_timeout`].
    RequestTimeout,
    /// [`RegistrySettings::max_clock_gap`].
    MaxClockGap,
}

impl RegistryDuration {
    /// Every duration setting.
    pub const ALL: [RegistryDuration; 5] = [
        RegistryDuration::Ttl,
        RegistryDuration::KeepAlive,
        RegistryDuration::SafetyMargin,
        RegistryDuration::RequestTimeout,
        RegistryDuration::MaxClockGap,
    ];

    /// The setting's name, `snake_case` (`keep_alive`).
    pub fn name(self) -> &'static str {
        match self {
            RegistryDuration::Ttl => "ttl",
            RegistryDuration::KeepAlive => "keep_alive",
            RegistryDuration::SafetyMargin => "safety_margin",
            RegistryDuration::RequestTimeout => "request_timeout",
            RegistryDuration::MaxClockGap => "max_clock_gap",
        }
    }

    /// Where `settings` keep it.
    pub fn slot(self, settings: &mut RegistrySettings) -> &mut Duration {
        match self {
            RegistryDuration::Ttl => &mut settings.ttl,
            RegistryDuration::KeepAlive => &mut settings.keep_alive,
            RegistryDuration::SafetyMargin => &mut settings.safety_margin,
            RegistryDuration::RequestTimeout => &mut settings.request_timeout,
            RegistryDuration::MaxClockGap => &mut settings.max_clock_gap,
        }
    }
}

impl RegistrySettings {
    /// Defaults for every setting but the endpoints.
    pub fn new<E: AsRef<str>>(endpoints: impl IntoIterator<Item = E>) -> Self {
        RegistrySettings {
            endpoints: endpoints
                .into_iter()
                .map(|e| e.as_ref().to_owned())
                .collect(),
            prefix: DEFAULT_PREFIX.to_owned(),
            ttl: DEFAULT_TTL,
            keep_alive: DEFAULT_KEEP_ALIVE,
            safety_margin: DEFAULT_SAFETY_MARGIN,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            node_range: None,
            max_clock_gap: DEFAULT_MAX_CLOCK_GAP,
        }
    }

    /// Refuses settings under which a lease could lapse unnoticed.
    pub fn validate(&self) -> Result<()> {
        let bad = |why: String| Err(Error::invalid(ArgumentKind::Configuration, why));
        if self.endpoints.is_empty() {
            return bad("a remote lease needs at least one endpoint".into());
        }
        if self.ttl.subsec_nanos() != 0 || self.ttl < Duration::from_secs(2) {
            return bad(format!(
                "the lease TTL must be whole seconds, at least 2 (got {:?})",
                self.ttl
            ));
        }
        if self.safety_margin.is_zero() || self.safety_margin >= self.ttl {
            return bad(format!(
                "the safety margin ({:?}) must be above zero and below the TTL ({:?})",
                self.safety_margin, self.ttl
            ));
        }
        if self.keep_alive.is_zero()
            || self.keep_alive + self.request_timeout >= self.ttl - self.safety_margin
        {
            return bad(format!(
                "keep-alive every {:?} plus a request timeout of {:?} must be shorter than the TTL minus the margin ({:?})",
                self.keep_alive,
                self.request_timeout,
                self.ttl - self.safety_margin
            ));
        }
        if matches!(&self.node_range, Some(r) if r.is_empty()) {
            return bad(format!("the node range {:?} is empty", self.node_range));
        }
        if !self.prefix.starts_with('/') {
            return bad(format!(
                "the key prefix {:?} must start with '/'",
                self.prefix
            ));
        }
        Ok(())
    }
}

/// Endpoint URLs from one comma-separated string; blanks are dropped.
pub fn parse_endpoints(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(str::to_owned)
        .collect()
}

/// An endpoint's `scheme`, `userinfo` and what follows it (from the `@`),
/// when it has userinfo (`http://user:secret@host`).
fn userinfo(endpoint: &str) -> Option<(&str, &str, &str)> {
    let (scheme, rest) = endpoint.split_once("://")?;
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let at = rest[..authority_end].rfind('@')?;
    Some((scheme, &rest[..at], &rest[at..]))
}

/// An endpoint fit for a message: a password in it (`http://user:secret@host`)
/// is replaced by `***`.
pub fn redacted(endpoint: &str) -> String {
    match userinfo(endpoint) {
        Some((scheme, info, rest)) => {
            let user = info.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***{rest}")
        }
        None => endpoint.to_owned(),
    }
}

/// `text` (a client library's error, say) with every password of
/// `endpoints` replaced by `***`.
pub fn scrubbed(text: &str, endpoints: &[String]) -> String {
    endpoints
        .iter()
        .filter_map(|e| userinfo(e)?.1.split_once(':').map(|(_, password)| password))
        .filter(|password| !password.is_empty())
        .fold(text.to_owned(), |text, password| {
            text.replace(password, "***")
        })
}

/// Opens remote leases from one kind of registry. A registry's crate
/// implements it; identity resolution is handed the connectors a build has.
pub trait LeaseConnector: Send + Sync + fmt::Debug {
    /// The lower-case name the environment selects it by: `kv` answers to
    /// `POLYFLAKE_KV_ENDPOINTS` and `POLYFLAKE_KV_PREFIX`.
    fn name(&self) -> &str;
    /// A lease under `settings`, not yet started.
    fn connect(&self, settings: &RegistrySettings) -> Result<Arc<dyn RemoteLease>>;
}

/// The endpoints variable of a registry: `kv` -> `POLYFLAKE_KV_ENDPOINTS`.
pub fn endpoints_variable(name: &str) -> String {
    setting_variable(name, "ENDPOINTS")
}

/// The prefix variable of a registry: `kv` -> `POLYFLAKE_KV_PREFIX`.
pub fn prefix_variable(name: &str) -> String {
    setting_variable(name, "PREFIX")
}

/// `POLYFLAKE_<NAME>_<SUFFIX>`: one of a registry's settings from the
/// environment (`ENDPOINTS`, `PREFIX`, `MAX_CLOCK_GAP_MS`, `TTL_MS`,
/// `KEEP_ALIVE_MS`, `SAFETY_MARGIN_MS`, `REQUEST_TIMEOUT_MS`, `NODE_RANGE`).
pub fn setting_variable(name: &str, suffix: &str) -> String {
    format!("POLYFLAKE_{}_{suffix}", name.to_ascii_uppercase())
}

/// Finds the connector named `name`, or says that this build lacks it and
/// how to get one that has it.
pub fn find_connector<'a>(
    connectors: &[&'a dyn LeaseConnector],
    name: &str,
) -> Result<&'a dyn LeaseConnector> {
    connectors
        .iter()
        .copied()
        .find(|c| c.name() == name)
        .ok_or_else(|| {
            Error::invalid(
                ArgumentKind::NotInBuild,
                format!(
                "this build of polyflake has no {name} lease (asked for by {} or {name} settings): \
                 it was built without the cargo feature `{name}`. Use a released package (they \
                 include it) or rebuild with `--features {name}` (docs/identity.md, \"Remote \
                 leases and the build\")",
                endpoints_variable(name)
            ),
            )
        })
}

/// Checks, without I/O, that this build can lease from the registry named
/// `name` with `settings`: it has the connector, and the settings are valid.
/// Every path to a registry lease (a generator's, a claim at first use,
/// PostgreSQL's lease worker) asks this first, so each refuses alike.
pub fn check_registry<'a>(
    connectors: &[&'a dyn LeaseConnector],
    name: &str,
    settings: &RegistrySettings,
) -> Result<&'a dyn LeaseConnector> {
    let connector = find_connector(connectors, name)?;
    settings.validate()?;
    Ok(connector)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_duration_setting_reaches_its_own_field_and_no_other() {
        // The field each name must reach, written out here rather than taken
        // from `slot`, so that a name wired to the wrong field fails.
        type Field = fn(&RegistrySettings) -> Duration;
        let fields: [(&str, Field); 5] = [
            ("ttl", |s| s.ttl),
            ("keep_alive", |s| s.keep_alive),
            ("safety_margin", |s| s.safety_margin),
            ("request_timeout", |s| s.request_timeout),
            ("max_clock_gap", |s| s.max_clock_gap),
        ];
        assert_eq!(fields.len(), RegistryDuration::ALL.len());
        for (i, (name, field)) in fields.iter().enumerate() {
            let mut settings = RegistrySettings::new(["http://127.0.0.1:2379"]);
            let marker = Duration::from_millis(777_000 + i as u64);
            let setting = RegistryDuration::ALL[i];
            assert_eq!(setting.name(), *name);
            *setting.slot(&mut settings) = marker;
            assert_eq!(field(&settings), marker, "{name}");
            for (other, other_field) in fields.iter().filter(|(o, _)| o != name) {
                assert_ne!(other_field(&settings), marker, "{name} also set {other}");
            }
        }
    }

    #[test]
    fn defaults_validate_and_bad_settings_are_named() {
        let ok = RegistrySettings::new(["http://127.0.0.1:2379"]);
        ok.validate().unwrap();
        let message = |change: fn(&mut RegistrySettings)| {
            let mut s = ok.clone();
            change(&mut s);
            s.validate().unwrap_err().to_string()
        };
        assert!(message(|s| s.endpoints.clear()).contains("endpoint"));
        assert!(message(|s| s.ttl = Duration::from_millis(2500)).contains("whole seconds"));
        assert!(message(|s| s.safety_margin = s.ttl).contains("margin"));
        assert!(message(|s| s.keep_alive = Duration::from_secs(7)).contains("keep-alive"));
        assert!(message(|s| s.node_range = Some(3..3)).contains("empty"));
        assert!(message(|s| s.prefix = "x".into()).contains("'/'"));
    }

    #[test]
    fn passwords_never_reach_a_message() {
        assert_eq!(redacted("http://u:s3cret@h:2379"), "http://u:***@h:2379");
        assert_eq!(redacted("https://u:p@ss@h/x@y"), "https://u:***@h/x@y");
        assert_eq!(redacted("http://h:2379"), "http://h:2379");
        assert_eq!(redacted("h:2379"), "h:2379");
        let endpoints = ["http://u:s3cret@h:2379".to_owned()];
        assert_eq!(
            scrubbed("connect to http://u:s3cret@h:2379 failed", &endpoints),
            "connect to http://u:***@h:2379 failed"
        );
    }

    #[test]
    fn endpoints_and_variables() {
        assert_eq!(parse_endpoints(" a, ,b ,"), ["a", "b"]);
        assert_eq!(endpoints_variable("kv"), "POLYFLAKE_KV_ENDPOINTS");
        assert_eq!(prefix_variable("kv"), "POLYFLAKE_KV_PREFIX");
        let err = find_connector(&[], "kv").unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT");
        assert!(err.to_string().contains("--features kv"), "{err}");
    }
}
