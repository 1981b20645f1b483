//! `fromEtcd`'s settings as the core's `RegistrySettings` (core
//! `identity/registry.rs`); the connectors are `polyflake_connectors`'.

use std::time::Duration;

use polyflake::{RegistryDuration, RegistrySettings};

use crate::error::Result;

/// A remote lease's settings; `None` takes the core's default.
#[derive(uniffi::Record)]
pub struct FfiRegistrySettings {
    pub endpoints: Vec<String>,
    pub prefix: Option<String>,
    pub ttl_ms: Option<u64>,
    pub keep_alive_ms: Option<u64>,
    pub safety_margin_ms: Option<u64>,
    pub request_timeout_ms: Option<u64>,
    pub max_clock_gap_ms: Option<u64>,
    /// `[start, end)` of the node numbers to claim from.
    pub node_range: Option<Vec<u64>>,
}

impl FfiRegistrySettings {
    pub(crate) fn into_core(self) -> Result<RegistrySettings> {
        let mut settings = RegistrySettings::new(self.endpoints);
        if let Some(prefix) = self.prefix {
            settings.prefix = prefix;
        }
        // Each paired with its setting, never by position in `RegistryDuration::ALL`.
        let durations = [
            (RegistryDuration::Ttl, self.ttl_ms),
            (RegistryDuration::KeepAlive, self.keep_alive_ms),
            (RegistryDuration::SafetyMargin, self.safety_margin_ms),
            (RegistryDuration::RequestTimeout, self.request_timeout_ms),
            (RegistryDuration::MaxClockGap, self.max_clock_gap_ms),
        ];
        for (setting, ms) in durations {
            if let Some(ms) = ms {
                *setting.slot(&mut settings) = Duration::from_millis(ms);
            }
        }
        if let Some(range) = self.node_range {
            let [start, end] = range[..] else {
                return Err(polyflake::Error::invalid(
                    polyflake::ArgumentKind::Usage,
                    format!("nodeRange needs a start and an end, not {range:?}"),
                )
                .into());
            };
            settings.node_range = Some(start..end);
        }
        Ok(settings)
    }
}
