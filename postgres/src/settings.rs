//! The extension's settings (GUCs) and the environment they make for the
//! core's identity rules: `polyflake.node_id`, `polyflake.state_dir` and the
//! `polyflake.etcd_*` settings are `POLYFLAKE_NODE_ID`, `POLYFLAKE_STATE_DIR`
//! and `POLYFLAKE_ETCD_*` given in `postgresql.conf`.
//! Every one is read when the server starts (`PGC_POSTMASTER`): the
//! generator's words and identity are the server's, not a session's.

use std::ffi::CString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use pgrx::{GucContext, GucFlags, GucRegistry, GucSetting};

use crate::custom;
use polyflake_core::{
    ArgumentKind, BackwardsPolicy, Environment, Error, Layout, ProcessEnvironment, Result,
};

/// The most layouts one server issues for (a slot of shared words each).
pub(crate) const MAX_LAYOUTS: usize = 8;

static LAYOUTS: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(Some(c"twitter"));
static CUSTOM_LAYOUTS: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static NODE_ID: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static STATE_DIR: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static ETCD_ENDPOINTS: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static ETCD_PREFIX: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static ETCD_NODE_RANGE: GucSetting<Option<CString>> = GucSetting::<Option<CString>>::new(None);
static ON_CLOCK_BACKWARDS: GucSetting<Option<CString>> =
    GucSetting::<Option<CString>>::new(Some(c"wait"));
static MAX_BACKWARDS_MS: GucSetting<i32> =
    GucSetting::<i32>::new(BackwardsPolicy::DEFAULT_WAIT_MS as i32);

/// Whether the settings were registered (the library preloaded): loaded by
/// `CREATE EXTENSION` alone, PostgreSQL reads none of them.
static DEFINED: AtomicBool = AtomicBool::new(false);

/// Registers the settings, while the postmaster preloads the library.
pub(crate) fn define() {
    DEFINED.store(true, Ordering::Relaxed);
    GucRegistry::define_string_guc(
        c"polyflake.layouts",
        c"The layouts next_id issues IDs of, comma-separated; the first is next_id's default.",
        c"Each gets its own node value and high-water mark, resolved when the server starts.",
        &LAYOUTS,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"polyflake.custom_layouts",
        c"Custom layouts by name, as JSON: {\"orders\": {\"epoch_ms\": …, \"time_bits\": 41, \"nodes\": [[\"shard\", 10]]}}.",
        c"Every function takes their names beside the presets'; polyflake.layouts may name them.",
        &CUSTOM_LAYOUTS,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"polyflake.node_id",
        c"The node number (POLYFLAKE_NODE_ID), else the environment's rules.",
        c"Unset: the postmaster's POLYFLAKE_* variables, else a local lease on this host.",
        &NODE_ID,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"polyflake.state_dir",
        c"The directory of local leases and high-water marks (POLYFLAKE_STATE_DIR).",
        c"Clusters of one host must share it to get different node values.",
        &STATE_DIR,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"polyflake.etcd_endpoints",
        c"etcd's endpoints, comma-separated (POLYFLAKE_ETCD_ENDPOINTS): lease the node value there.",
        c"The server's lease worker holds the lease; the other POLYFLAKE_ETCD_* variables apply.",
        &ETCD_ENDPOINTS,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"polyflake.etcd_prefix",
        c"The etcd key prefix (POLYFLAKE_ETCD_PREFIX, default /polyflake).",
        c"",
        &ETCD_PREFIX,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"polyflake.etcd_node_range",
        c"The node numbers the etcd lease may claim, START..END with END excluded (POLYFLAKE_ETCD_NODE_RANGE).",
        c"",
        &ETCD_NODE_RANGE,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_string_guc(
        c"polyflake.on_clock_backwards",
        c"What next_id does when the clock reads before its last ID: wait, fail or logical.",
        c"wait: up to polyflake.max_backwards_ms, then fail; logical: run ahead of the clock.",
        &ON_CLOCK_BACKWARDS,
        GucContext::Postmaster,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"polyflake.max_backwards_ms",
        c"The longest wait of on_clock_backwards = wait, in milliseconds.",
        c"",
        &MAX_BACKWARDS_MS,
        0,
        i32::MAX,
        GucContext::Postmaster,
        GucFlags::default(),
    );
}

fn text(setting: &GucSetting<Option<CString>>) -> Option<String> {
    setting
        .get()
        .map(|value| value.to_string_lossy().into_owned())
}

/// The custom layouts of `polyflake.custom_layouts`, by name.
pub(crate) fn custom_layouts() -> Result<&'static custom::Named> {
    custom::parsed(text(&CUSTOM_LAYOUTS))
}

/// The layout named `name`: a preset, or one of `polyflake.custom_layouts`.
pub(crate) fn layout(name: &str) -> Result<Layout> {
    if let Ok(layout) = Layout::preset(name) {
        return Ok(layout);
    }
    let custom = custom_layouts()?;
    match custom.iter().find(|(n, _)| n == name) {
        Some((_, layout)) => Ok(layout.clone()),
        None => {
            let names: Vec<&str> = custom.iter().map(|(n, _)| n.as_str()).collect();
            Err(Error::InvalidLayout(format!(
                "unknown layout {name:?} (presets: {}; polyflake.custom_layouts: {})",
                polyflake_core::PRESETS.join(", "),
                if !DEFINED.load(Ordering::Relaxed) {
                    "not read: polyflake is not in shared_preload_libraries".to_owned()
                } else if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            )))
        }
    }
}

/// The layouts of `polyflake.layouts`, by name, in order.
pub(crate) fn layouts() -> Result<Vec<(String, Layout)>> {
    let setting = text(&LAYOUTS).unwrap_or_default();
    let mut layouts: Vec<(String, Layout)> = Vec::new();
    for name in setting.split(',').map(str::trim) {
        let layout = layout(name)?;
        if layouts.iter().any(|(n, _)| n == name) {
            return Err(Error::invalid(
                ArgumentKind::Usage,
                format!("polyflake.layouts names {name} twice"),
            ));
        }
        layouts.push((name.to_owned(), layout));
    }
    if layouts.len() > MAX_LAYOUTS {
        return Err(Error::invalid(
            ArgumentKind::Usage,
            format!(
                "polyflake.layouts names {} layouts; a server issues for at most {MAX_LAYOUTS}",
                layouts.len()
            ),
        ));
    }
    Ok(layouts)
}

/// `polyflake.on_clock_backwards` with `polyflake.max_backwards_ms`.
pub(crate) fn policy() -> Result<BackwardsPolicy> {
    let name = text(&ON_CLOCK_BACKWARDS).unwrap_or_default();
    BackwardsPolicy::parse(
        &name,
        MAX_BACKWARDS_MS.get().max(0) as u64,
        "polyflake.on_clock_backwards",
    )
}

/// The postmaster's environment with the settings that stand for variables.
#[derive(Debug)]
pub(crate) struct ServerEnvironment {
    given: Vec<(String, String)>,
}

impl ServerEnvironment {
    /// Refuses a setting whose variable is set too: one identity, one way.
    pub(crate) fn new() -> Result<ServerEnvironment> {
        use polyflake_core::identity::registry::setting_variable;
        let etcd = |suffix: &str| setting_variable(polyflake_connectors::ETCD, suffix);
        let mut given = Vec::new();
        for (setting, variable, value) in [
            (
                "polyflake.node_id",
                polyflake_core::identity::ENV_NODE_ID.to_owned(),
                text(&NODE_ID),
            ),
            (
                "polyflake.state_dir",
                polyflake_core::identity::ENV_STATE_DIR.to_owned(),
                text(&STATE_DIR),
            ),
            (
                "polyflake.etcd_endpoints",
                etcd("ENDPOINTS"),
                text(&ETCD_ENDPOINTS),
            ),
            ("polyflake.etcd_prefix", etcd("PREFIX"), text(&ETCD_PREFIX)),
            (
                "polyflake.etcd_node_range",
                etcd("NODE_RANGE"),
                text(&ETCD_NODE_RANGE),
            ),
        ] {
            let Some(value) = value else { continue };
            if ProcessEnvironment.var(&variable).is_some() {
                return Err(Error::invalid(
                    ArgumentKind::Usage,
                    format!("both the setting {setting} and the postmaster's variable {variable} are set; give it one way"),
                ));
            }
            given.push((variable, value));
        }
        Ok(ServerEnvironment { given })
    }

    /// The directory of the locks that order the mark's writers: the data
    /// directory's `polyflake/`.
    pub(crate) fn lock_dir() -> PathBuf {
        // SAFETY: DataDir is set before any library is preloaded and never
        // changes; it is a NUL-terminated path.
        let data_dir = unsafe { std::ffi::CStr::from_ptr(pgrx::pg_sys::DataDir) };
        PathBuf::from(data_dir.to_string_lossy().into_owned()).join("polyflake")
    }
}

impl Environment for ServerEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        self.given
            .iter()
            .find(|(variable, _)| *variable == name)
            .map(|(_, value)| value.clone())
            .or_else(|| ProcessEnvironment.var(name))
    }
    fn polyflake_names(&self) -> Vec<String> {
        let mut names = ProcessEnvironment.polyflake_names();
        names.extend(self.given.iter().map(|(variable, _)| variable.clone()));
        names
    }
}
