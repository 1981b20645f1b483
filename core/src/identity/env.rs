//! The environment's say in the worker identity: which variables are set,
//! and what they select. Everything is read through an [`Environment`]
//! (the process's own, or a map in tests), the host name and the temp dir
//! included; [`super::resolve`] acts on the choice.

use std::collections::HashMap;
use std::path::PathBuf;

use super::nodes::{field_variable, node_space, split_node_number, Identity};
use super::registry::{parse_endpoints, prefix_variable, RegistryDuration, RegistrySettings};
use super::variables::{ENV_NODE_ID, ENV_ORDINAL, ENV_STATE_DIR, ENV_WORKER_BITS};
use crate::error::{ArgumentKind, Error, Result};
use crate::id::layout::{Layout, MAX_NODE_FIELDS};

/// Where variables are read from: the process environment, or a map in tests.
pub trait Environment {
    /// The value of `name`, if it is set (an empty value is set).
    fn var(&self, name: &str) -> Option<String>;
    /// The names of the variables set that start with `POLYFLAKE_`.
    fn polyflake_names(&self) -> Vec<String>;
    /// The host's IPv4 addresses with their interfaces, in the system's
    /// order (for `POLYFLAKE_NODE_ID=private-ip`).
    fn ipv4_addresses(&self) -> Vec<(String, std::net::Ipv4Addr)> {
        super::address::system_ipv4_addresses()
    }
    /// The host's name (for `POLYFLAKE_ORDINAL=hostname`): `HOSTNAME` if
    /// set, else the system's (`/etc/hostname`).
    fn hostname(&self) -> Option<String> {
        self.var("HOSTNAME").filter(|h| !h.is_empty()).or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_owned())
                .filter(|h| !h.is_empty())
        })
    }
    /// The system's temporary directory (the state directory's last resort).
    fn temp_dir(&self) -> PathBuf {
        std::env::temp_dir()
    }
}

/// The process's own environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnvironment;

impl Environment for ProcessEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        // A value that is not UTF-8 is kept (lossily) so that it fails to
        // parse with its name, rather than reading as unset.
        std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
    }
    fn polyflake_names(&self) -> Vec<String> {
        std::env::vars_os()
            .filter_map(|(k, _)| k.into_string().ok())
            .filter(|k| k.starts_with("POLYFLAKE_"))
            .collect()
    }
}

/// Variables from a map, for tests and embedders: the host name is the
/// map's `HOSTNAME` alone and the temp dir its `TMPDIR` (else the system's),
/// so that nothing of the real host leaks into what the map describes.
impl Environment for HashMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
    fn polyflake_names(&self) -> Vec<String> {
        self.keys()
            .filter(|k| k.starts_with("POLYFLAKE_"))
            .cloned()
            .collect()
    }
    fn hostname(&self) -> Option<String> {
        self.get("HOSTNAME").filter(|h| !h.is_empty()).cloned()
    }
    fn temp_dir(&self) -> PathBuf {
        self.get("TMPDIR")
            .map_or_else(std::env::temp_dir, PathBuf::from)
    }
}

/// What the environment asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvChoice {
    /// Node values from variables (or an ordinal).
    Fixed(Identity),
    /// Lease a node value in this state directory.
    LocalLease(PathBuf),
    /// The host part from a variable, the low `worker_bits` leased in this
    /// state directory: node number `host << worker_bits | worker`.
    HostAndWorker {
        /// The host part.
        host: u64,
        /// How many low bits each process leases.
        worker_bits: u32,
        /// Where the host part came from, for people.
        source: String,
    },
    /// Lease a node value from the registry named `name`
    /// (`POLYFLAKE_<NAME>_ENDPOINTS`).
    Registry {
        /// The registry's lower-case name.
        name: String,
        /// Endpoints and prefix from the environment, defaults otherwise.
        settings: RegistrySettings,
    },
}

/// A variable that is set must mean something: an empty one is refused,
/// never read as unset (that is how a typo defaults to node 0).
fn read(env: &dyn Environment, name: &str) -> Result<Option<String>> {
    match env.var(name) {
        Some(v) if v.trim().is_empty() => Err(Error::invalid(
            ArgumentKind::Configuration,
            format!("{name} is set but empty; give it a value or unset it"),
        )),
        other => Ok(other),
    }
}

/// The registries the environment selects: every `POLYFLAKE_<NAME>_ENDPOINTS`.
fn registries(env: &dyn Environment) -> Result<Vec<(String, String)>> {
    let mut found = Vec::new();
    let mut names = env.polyflake_names();
    names.sort();
    for variable in names {
        let Some(name) = variable
            .strip_prefix("POLYFLAKE_")
            .and_then(|rest| rest.strip_suffix("_ENDPOINTS"))
            .filter(|name| !name.is_empty())
        else {
            continue;
        };
        if let Some(value) = read(env, &variable)? {
            found.push((name.to_ascii_lowercase(), value));
        }
    }
    Ok(found)
}

/// Applies the selection rules of `docs/identity.md` to an environment.
pub fn choose_from_env(layout: &Layout, env: &dyn Environment) -> Result<EnvChoice> {
    let registries = registries(env)?;
    // A one-field layout whose field is `node_id` (`snowflake`): its field
    // variable is POLYFLAKE_NODE_ID itself, and both mean the same number.
    let field_vars: Vec<String> = layout
        .node_fields()
        .iter()
        .map(|f| field_variable(f.name()))
        .collect();
    let node_id = read(env, ENV_NODE_ID)?;
    let mut given_fields = Vec::new();
    for variable in field_vars.iter().filter(|v| v.as_str() != ENV_NODE_ID) {
        if read(env, variable)?.is_some() {
            given_fields.push(variable.clone());
        }
    }
    let ordinal = read(env, ENV_ORDINAL)?;
    let mut chosen: Vec<String> = registries
        .iter()
        .map(|(name, _)| super::registry::endpoints_variable(name))
        .collect();
    if node_id.is_some() {
        chosen.push(ENV_NODE_ID.to_owned());
    }
    if !given_fields.is_empty() {
        chosen.push(given_fields.join(", "));
    }
    if ordinal.is_some() {
        chosen.push(ENV_ORDINAL.to_owned());
    }
    if chosen.len() > 1 {
        return Err(Error::invalid(
            ArgumentKind::Configuration,
            format!(
                "the worker identity is given more than one way ({}); set only one",
                chosen.join(" and ")
            ),
        ));
    }
    if let Some(text) = read(env, ENV_WORKER_BITS)? {
        return host_and_worker(
            layout,
            env,
            &text,
            node_id,
            !given_fields.is_empty(),
            ordinal,
        );
    }
    if let Some((name, endpoints)) = registries.into_iter().next() {
        let mut settings = RegistrySettings::new(parse_endpoints(&endpoints));
        if settings.endpoints.is_empty() {
            return Err(Error::invalid(
                ArgumentKind::Configuration,
                format!(
                    "{} names no endpoint",
                    super::registry::endpoints_variable(&name)
                ),
            ));
        }
        if let Some(prefix) = read(env, &prefix_variable(&name))? {
            settings.prefix = prefix;
        }
        // The lease's timings in milliseconds, as Node's `fromEtcd` takes them.
        for setting in RegistryDuration::ALL {
            let suffix = format!("{}_MS", setting.name().to_ascii_uppercase());
            let variable = super::registry::setting_variable(&name, &suffix);
            if let Some(ms) = read(env, &variable)? {
                *setting.slot(&mut settings) =
                    std::time::Duration::from_millis(parse_number(&variable, &ms)?);
            }
        }
        let variable = super::registry::setting_variable(&name, "NODE_RANGE");
        if let Some(text) = read(env, &variable)? {
            settings.node_range = Some(parse_range(&variable, &text)?);
        }
        return Ok(EnvChoice::Registry { name, settings });
    }
    if let Some(text) = node_id {
        if text.trim() == super::address::PRIVATE_IP {
            let (nodes, source) =
                super::address::nodes_from_private_ipv4(layout, &env.ipv4_addresses())?;
            return Ok(EnvChoice::Fixed(Identity { nodes, source }));
        }
        let number = parse_number(ENV_NODE_ID, &text)?;
        return Ok(EnvChoice::Fixed(Identity {
            nodes: split_node_number(layout, number, ENV_NODE_ID)?,
            source: format!("{ENV_NODE_ID}={number}"),
        }));
    }
    if !given_fields.is_empty() {
        let mut nodes = Vec::with_capacity(MAX_NODE_FIELDS);
        for (field, variable) in layout.node_fields().iter().zip(&field_vars) {
            let text = read(env, variable)?.ok_or_else(|| {
                Error::invalid(
                    ArgumentKind::Configuration,
                    format!(
                        "{variable} is not set, but {} is: set every node field of layout {}",
                        given_fields[0],
                        layout.name()
                    ),
                )
            })?;
            let value = parse_number(variable, &text)?;
            if value > field.max() {
                return Err(Error::FieldOutOfRange {
                    field: variable.clone(),
                    value,
                    max: field.max(),
                });
            }
            nodes.push(value);
        }
        let source = field_vars
            .iter()
            .zip(&nodes)
            .map(|(v, n)| format!("{v}={n}"))
            .collect::<Vec<_>>()
            .join(" ");
        return Ok(EnvChoice::Fixed(Identity { nodes, source }));
    }
    if let Some(text) = ordinal {
        return Ok(EnvChoice::Fixed(ordinal_identity(layout, env, &text)?));
    }
    // Where every process has a filesystem of its own, a local lease gives
    // every one of them node 0: refuse rather than guess.
    if env.var(ENV_KUBERNETES).is_some() {
        return Err(Error::invalid(ArgumentKind::Configuration, format!(
            "no worker identity is configured, and {ENV_KUBERNETES} is set: in Kubernetes every pod has a filesystem of its own, so a local lease would give every pod node 0. Set {ENV_ORDINAL}=hostname (a StatefulSet), a registry lease (POLYFLAKE_<NAME>_ENDPOINTS) or {ENV_NODE_ID} (docs/identity.md)"
        )));
    }
    Ok(EnvChoice::LocalLease(state_dir(env)?))
}

/// Set in every Kubernetes container.
const ENV_KUBERNETES: &str = "KUBERNETES_SERVICE_HOST";

/// `START..END`, the node numbers from `START` up to `END` excluded, as
/// every binding's `node_range` (checked against the layout when claimed).
fn parse_range(variable: &str, text: &str) -> Result<std::ops::Range<u64>> {
    let Some((start, end)) = text.split_once("..") else {
        return Err(Error::invalid(
            ArgumentKind::Configuration,
            format!("{variable}={text:?} is not a range START..END (END excluded): 20..24 claims 20 to 23"),
        ));
    };
    let range = parse_number(variable, start)?..parse_number(variable, end)?;
    if range.is_empty() {
        return Err(Error::invalid(
            ArgumentKind::Configuration,
            format!("{variable}={text:?} holds no node number (END is excluded)"),
        ));
    }
    Ok(range)
}

fn parse_number(variable: &str, text: &str) -> Result<u64> {
    let trimmed = text.trim();
    if trimmed.is_empty() || !trimmed.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::invalid(
            ArgumentKind::Configuration,
            format!("{variable}={text:?} is not a non-negative whole number"),
        ));
    }
    trimmed.parse().map_err(|_| {
        Error::invalid(
            ArgumentKind::Configuration,
            format!("{variable}={text:?} does not fit 64 bits"),
        )
    })
}

/// The trailing ordinal of a StatefulSet pod's hostname: `idgen-3` -> 3.
pub fn hostname_ordinal(hostname: &str) -> Result<u64> {
    let short = hostname.split('.').next().unwrap_or_default();
    let digits = short.rsplit('-').next().unwrap_or_default();
    if short == digits || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Error::invalid(
            ArgumentKind::Configuration,
            format!("hostname {hostname:?} does not end in -<ordinal> as a StatefulSet pod's does"),
        ));
    }
    parse_number("the hostname's ordinal", digits)
}

/// `POLYFLAKE_WORKER_BITS` with the host part from `POLYFLAKE_NODE_ID` or
/// `POLYFLAKE_ORDINAL`.
fn host_and_worker(
    layout: &Layout,
    env: &dyn Environment,
    bits_text: &str,
    node_id: Option<String>,
    fields_given: bool,
    ordinal: Option<String>,
) -> Result<EnvChoice> {
    let all_bits = node_space(layout).trailing_zeros();
    let worker_bits = parse_number(ENV_WORKER_BITS, bits_text)?;
    if worker_bits == 0 || worker_bits >= u64::from(all_bits) {
        return Err(Error::invalid(ArgumentKind::Configuration, format!(
            "{ENV_WORKER_BITS}={worker_bits}: layout {} has {all_bits} node bits, so it must be 1..={}",
            layout.name(),
            all_bits.saturating_sub(1)
        )));
    }
    let worker_bits = worker_bits as u32;
    let (host, source) = match (node_id, ordinal) {
        (Some(text), None) if !fields_given => {
            let host = parse_number(ENV_NODE_ID, &text)?;
            (host, format!("{ENV_NODE_ID}={host}"))
        }
        (None, Some(text)) if !fields_given => {
            let (ordinal, from) = ordinal_and_origin(env, &text)?;
            (ordinal, format!("StatefulSet ordinal {ordinal} ({from})"))
        }
        _ => {
            return Err(Error::invalid(ArgumentKind::Configuration, format!(
                "{ENV_WORKER_BITS} needs the host part from {ENV_NODE_ID} or {ENV_ORDINAL} (one of them), and no per-field variables and no registry"
            )))
        }
    };
    let hosts = 1u128 << (all_bits - worker_bits);
    if u128::from(host) >= hosts {
        return Err(Error::FieldOutOfRange {
            field: format!("host part ({source}, with {ENV_WORKER_BITS}={worker_bits})"),
            value: host,
            max: (hosts - 1) as u64,
        });
    }
    Ok(EnvChoice::HostAndWorker {
        host,
        worker_bits,
        source,
    })
}

/// The ordinal `POLYFLAKE_ORDINAL` names (a number, or `hostname`), and whence.
fn ordinal_and_origin(env: &dyn Environment, text: &str) -> Result<(u64, String)> {
    if text.trim() == "hostname" {
        let host = env.hostname().ok_or_else(|| {
            Error::invalid(
                ArgumentKind::Configuration,
                format!("{ENV_ORDINAL}=hostname but no hostname is known"),
            )
        })?;
        Ok((hostname_ordinal(&host)?, format!("hostname {host}")))
    } else {
        Ok((
            parse_number(ENV_ORDINAL, text)?,
            format!("{ENV_ORDINAL}={}", text.trim()),
        ))
    }
}

/// The identity `POLYFLAKE_ORDINAL` gives on its own.
fn ordinal_identity(layout: &Layout, env: &dyn Environment, text: &str) -> Result<Identity> {
    let (ordinal, from) = ordinal_and_origin(env, text)?;
    Ok(Identity {
        nodes: split_node_number(layout, ordinal, "StatefulSet ordinal")?,
        source: format!("StatefulSet ordinal {ordinal} ({from})"),
    })
}

/// `POLYFLAKE_STATE_DIR`, else `$XDG_STATE_HOME/polyflake`, else
/// `~/.local/state/polyflake`, else a directory under the system temp dir.
pub fn state_dir(env: &dyn Environment) -> Result<PathBuf> {
    if let Some(dir) = read(env, ENV_STATE_DIR)? {
        return Ok(PathBuf::from(dir));
    }
    let set = |name: &str| env.var(name).filter(|v| !v.is_empty());
    if let Some(dir) = set("XDG_STATE_HOME") {
        return Ok(PathBuf::from(dir).join("polyflake"));
    }
    if let Some(home) = set("HOME") {
        return Ok(PathBuf::from(home).join(".local/state/polyflake"));
    }
    // Shared by every user of the host: one directory per user, which the
    // local lease refuses if another user created it first.
    Ok(env
        .temp_dir()
        .join(format!("polyflake-state-{}", user_id())))
}

#[cfg(unix)]
fn user_id() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    #[allow(unsafe_code)]
    unsafe {
        libc::geteuid()
    }
}

#[cfg(not(unix))]
fn user_id() -> u32 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn fixed(layout: &Layout, pairs: &[(&str, &str)]) -> Result<Vec<u64>> {
        match choose_from_env(layout, &env(pairs))? {
            EnvChoice::Fixed(identity) => Ok(identity.nodes),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn environment_rules() {
        let t = Layout::twitter();
        assert_eq!(fixed(&t, &[("POLYFLAKE_NODE_ID", "37")]).unwrap(), [1, 5]);
        assert_eq!(
            fixed(
                &t,
                &[
                    ("POLYFLAKE_DATACENTER_ID", "2"),
                    ("POLYFLAKE_MACHINE_ID", "9")
                ]
            )
            .unwrap(),
            [2, 9]
        );
        assert_eq!(fixed(&t, &[("POLYFLAKE_ORDINAL", "33")]).unwrap(), [1, 1]);
        let message = |pairs: &[(&str, &str)]| fixed(&t, pairs).unwrap_err().to_string();
        assert!(message(&[("POLYFLAKE_NODE_ID", "x7")]).contains("POLYFLAKE_NODE_ID"));
        assert!(message(&[("POLYFLAKE_NODE_ID", "-1")]).contains("POLYFLAKE_NODE_ID"));
        assert!(message(&[("POLYFLAKE_DATACENTER_ID", "2")])
            .contains("POLYFLAKE_MACHINE_ID is not set"));
        assert!(message(&[
            ("POLYFLAKE_DATACENTER_ID", "40"),
            ("POLYFLAKE_MACHINE_ID", "1")
        ])
        .contains("POLYFLAKE_DATACENTER_ID = 40"));
        assert!(
            message(&[("POLYFLAKE_NODE_ID", "1"), ("POLYFLAKE_ORDINAL", "2")])
                .contains("more than one")
        );
        assert!(message(&[("POLYFLAKE_ORDINAL", "1024")]).contains("1023"));
        assert!(matches!(
            choose_from_env(&t, &env(&[("POLYFLAKE_STATE_DIR", "/x")])).unwrap(),
            EnvChoice::LocalLease(dir) if dir == std::path::Path::new("/x")
        ));
    }

    #[test]
    fn a_field_named_node_id_is_the_node_id() {
        let s = Layout::snowflake();
        assert_eq!(fixed(&s, &[("POLYFLAKE_NODE_ID", "17")]).unwrap(), [17]);
    }

    #[test]
    fn empty_variables_are_refused_by_name() {
        let t = Layout::twitter();
        for name in [
            "POLYFLAKE_NODE_ID",
            "POLYFLAKE_MACHINE_ID",
            "POLYFLAKE_ORDINAL",
            "POLYFLAKE_STATE_DIR",
            "POLYFLAKE_KV_ENDPOINTS",
        ] {
            let err = choose_from_env(&t, &env(&[(name, "")])).unwrap_err();
            assert_eq!(err.code(), "INVALID_ARGUMENT");
            assert!(err.to_string().contains(name), "{err}");
        }
    }

    #[test]
    fn registries_are_selected_by_name_and_exclude_other_sources() {
        let t = Layout::twitter();
        let choice = choose_from_env(
            &t,
            &env(&[
                ("POLYFLAKE_KV_ENDPOINTS", "http://127.0.0.1:1, "),
                ("POLYFLAKE_KV_PREFIX", "/ids"),
                ("POLYFLAKE_KV_MAX_CLOCK_GAP_MS", "2500"),
                ("POLYFLAKE_KV_TTL_MS", "4000"),
                ("POLYFLAKE_KV_NODE_RANGE", "20..24"),
            ]),
        )
        .unwrap();
        let EnvChoice::Registry { name, settings } = choice else {
            panic!("{choice:?}")
        };
        assert_eq!(settings.node_range, Some(20..24));
        for bad in ["20", "24..20", "20..20", "a..b", "20..-1"] {
            let err = choose_from_env(
                &t,
                &env(&[
                    ("POLYFLAKE_KV_ENDPOINTS", "http://127.0.0.1:1"),
                    ("POLYFLAKE_KV_NODE_RANGE", bad),
                ]),
            )
            .unwrap_err();
            assert_eq!(err.code(), "INVALID_ARGUMENT", "{bad}");
            assert!(err.to_string().contains("POLYFLAKE_KV_NODE_RANGE"), "{err}");
        }
        assert_eq!(name, "kv");
        assert_eq!(settings.endpoints, ["http://127.0.0.1:1"]);
        assert_eq!(settings.prefix, "/ids");
        assert_eq!(
            settings.max_clock_gap,
            std::time::Duration::from_millis(2500)
        );
        assert_eq!(settings.ttl, std::time::Duration::from_secs(4));
        let err = choose_from_env(
            &t,
            &env(&[
                ("POLYFLAKE_KV_ENDPOINTS", "http://127.0.0.1:1"),
                ("POLYFLAKE_KV_MAX_CLOCK_GAP_MS", "10s"),
            ]),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("POLYFLAKE_KV_MAX_CLOCK_GAP_MS"),
            "{err}"
        );
        let err = choose_from_env(
            &t,
            &env(&[
                ("POLYFLAKE_KV_ENDPOINTS", "http://127.0.0.1:1"),
                ("POLYFLAKE_NODE_ID", "3"),
            ]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("more than one way"), "{err}");
        let err = choose_from_env(&t, &env(&[("POLYFLAKE_KV_ENDPOINTS", ",")])).unwrap_err();
        assert!(err.to_string().contains("names no endpoint"), "{err}");
    }

    #[test]
    fn worker_bits_split_the_identity() {
        let s = Layout::snowflake();
        let choice = |pairs: &[(&str, &str)]| choose_from_env(&s, &env(pairs));
        assert_eq!(
            choice(&[("POLYFLAKE_NODE_ID", "5"), ("POLYFLAKE_WORKER_BITS", "2")]).unwrap(),
            EnvChoice::HostAndWorker {
                host: 5,
                worker_bits: 2,
                source: "POLYFLAKE_NODE_ID=5".into()
            }
        );
        assert!(matches!(
            choice(&[("POLYFLAKE_ORDINAL", "7"), ("POLYFLAKE_WORKER_BITS", "3")]).unwrap(),
            EnvChoice::HostAndWorker {
                host: 7,
                worker_bits: 3,
                ..
            }
        ));
        let message = |pairs: &[(&str, &str)]| choice(pairs).unwrap_err().to_string();
        assert!(message(&[("POLYFLAKE_WORKER_BITS", "2")]).contains("needs the host part"));
        assert!(
            message(&[("POLYFLAKE_NODE_ID", "5"), ("POLYFLAKE_WORKER_BITS", "10")])
                .contains("1..=9")
        );
        assert!(
            message(&[("POLYFLAKE_NODE_ID", "256"), ("POLYFLAKE_WORKER_BITS", "2")])
                .contains("0..=255")
        );
        let t = Layout::twitter();
        let err = choose_from_env(
            &t,
            &env(&[
                ("POLYFLAKE_DATACENTER_ID", "1"),
                ("POLYFLAKE_MACHINE_ID", "1"),
                ("POLYFLAKE_WORKER_BITS", "2"),
            ]),
        )
        .unwrap_err();
        assert!(err.to_string().contains("no per-field variables"), "{err}");
    }

    #[test]
    fn every_preset_with_every_variable_form() {
        for name in crate::id::layout::PRESETS {
            let layout = Layout::preset(name).unwrap();
            let fields: Vec<String> = layout
                .node_fields()
                .iter()
                .map(|f| field_variable(f.name()))
                .collect();
            let per_field: Vec<(&str, &str)> = fields.iter().map(|v| (v.as_str(), "1")).collect();
            let ones = vec![1; fields.len()];
            let last = vec![0; fields.len() - 1]
                .into_iter()
                .chain([1])
                .collect::<Vec<u64>>();
            // Each form alone.
            assert_eq!(
                fixed(&layout, &[("POLYFLAKE_NODE_ID", "1")]).unwrap(),
                last,
                "{name}"
            );
            assert_eq!(fixed(&layout, &per_field).unwrap(), ones, "{name}");
            assert_eq!(
                fixed(&layout, &[("POLYFLAKE_ORDINAL", "1")]).unwrap(),
                last,
                "{name}"
            );
            assert!(matches!(
                choose_from_env(
                    &layout,
                    &env(&[("POLYFLAKE_NODE_ID", "1"), ("POLYFLAKE_WORKER_BITS", "1")])
                )
                .unwrap(),
                EnvChoice::HostAndWorker {
                    host: 1,
                    worker_bits: 1,
                    ..
                }
            ));
            assert!(matches!(
                choose_from_env(&layout, &env(&[("POLYFLAKE_KV_ENDPOINTS", "http://h:1")]))
                    .unwrap(),
                EnvChoice::Registry { .. }
            ));
            // Two at once: refused, whichever two.
            let forms: Vec<Vec<(&str, &str)>> = vec![
                vec![("POLYFLAKE_NODE_ID", "1")],
                per_field.clone(),
                vec![("POLYFLAKE_ORDINAL", "1")],
                vec![("POLYFLAKE_KV_ENDPOINTS", "http://h:1")],
            ];
            for (i, a) in forms.iter().enumerate() {
                for b in &forms[i + 1..] {
                    let both: Vec<(&str, &str)> = a.iter().chain(b).copied().collect();
                    // On `snowflake` the per-field form is POLYFLAKE_NODE_ID itself.
                    if name == "snowflake" && a == &forms[0] && b == &forms[1] {
                        continue;
                    }
                    let err = choose_from_env(&layout, &env(&both)).unwrap_err();
                    assert!(
                        err.to_string().contains("more than one way"),
                        "{name} {both:?}: {err}"
                    );
                }
            }
            // Set but empty: refused by name.
            for variable in fields
                .iter()
                .map(String::as_str)
                .chain(["POLYFLAKE_ORDINAL"])
            {
                let err = choose_from_env(&layout, &env(&[(variable, "")])).unwrap_err();
                assert!(err.to_string().contains(variable), "{name}: {err}");
            }
        }
    }

    #[test]
    fn the_state_dir_falls_back_to_one_of_this_user_own() {
        let dir = state_dir(&env(&[])).unwrap();
        assert_eq!(
            dir,
            std::env::temp_dir().join(format!("polyflake-state-{}", user_id()))
        );
        assert_eq!(
            state_dir(&env(&[("HOME", "/home/u")])).unwrap(),
            std::path::Path::new("/home/u/.local/state/polyflake")
        );
        // The temp dir is the environment's, not read around it.
        assert_eq!(
            state_dir(&env(&[("TMPDIR", "/scratch")])).unwrap(),
            std::path::Path::new("/scratch").join(format!("polyflake-state-{}", user_id()))
        );
    }

    #[test]
    fn the_hostname_ordinal_reads_the_environments_hostname_only() {
        let t = Layout::twitter();
        let ordinal = |pairs: &[(&str, &str)]| choose_from_env(&t, &env(pairs));
        assert_eq!(
            ordinal(&[("POLYFLAKE_ORDINAL", "hostname"), ("HOSTNAME", "idgen-7")]).unwrap(),
            EnvChoice::Fixed(Identity {
                nodes: vec![0, 7],
                source: "StatefulSet ordinal 7 (hostname idgen-7)".into(),
            })
        );
        // A map without HOSTNAME knows no host name, whatever this host is called.
        let err = ordinal(&[("POLYFLAKE_ORDINAL", "hostname")]).unwrap_err();
        assert_eq!(err.argument_kind(), Some(ArgumentKind::Configuration));
        assert!(err.to_string().contains("no hostname is known"), "{err}");
    }

    #[test]
    fn no_identity_in_kubernetes_is_refused_not_node_0() {
        let t = Layout::twitter();
        let err =
            choose_from_env(&t, &env(&[("KUBERNETES_SERVICE_HOST", "10.0.0.1")])).unwrap_err();
        assert_eq!(err.code(), "INVALID_ARGUMENT");
        for option in [
            "POLYFLAKE_ORDINAL=hostname",
            "_ENDPOINTS",
            "POLYFLAKE_NODE_ID",
        ] {
            assert!(err.to_string().contains(option), "{err}");
        }
        assert!(choose_from_env(
            &t,
            &env(&[
                ("KUBERNETES_SERVICE_HOST", "10.0.0.1"),
                ("POLYFLAKE_ORDINAL", "3")
            ])
        )
        .is_ok());
    }

    #[test]
    fn hostname_ordinals() {
        assert_eq!(hostname_ordinal("idgen-3").unwrap(), 3);
        assert_eq!(hostname_ordinal("idgen-12.idgen.default.svc").unwrap(), 12);
        for bad in ["idgen", "idgen-", "idgen-x3", "3", ""] {
            assert_eq!(
                hostname_ordinal(bad).unwrap_err().code(),
                "INVALID_ARGUMENT",
                "{bad}"
            );
        }
    }
}
