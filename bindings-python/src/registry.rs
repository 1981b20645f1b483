//! `Generator.from_etcd` arguments: converts them into the core's
//! `RegistrySettings` (the connectors are `polyflake_connectors`').

use polyflake::{RegistryDuration, RegistrySettings};
use pyo3::prelude::*;

use crate::args::{seconds_arg, u64_arg, urls_arg};

/// The settings of `Generator.from_etcd`; durations in seconds, each paired
/// with the core's setting it is (`None`: the core's default).
pub(crate) fn settings_arg(
    endpoints: &Bound<'_, PyAny>,
    prefix: Option<&str>,
    durations: &[(RegistryDuration, Option<&Bound<'_, PyAny>>)],
    node_range: Option<(&Bound<'_, PyAny>, &Bound<'_, PyAny>)>,
) -> PyResult<RegistrySettings> {
    let mut settings = RegistrySettings::new(urls_arg("endpoints", endpoints)?);
    if let Some(prefix) = prefix {
        settings.prefix = prefix.to_owned();
    }
    for &(setting, value) in durations {
        if let Some(value) = value {
            *setting.slot(&mut settings) = seconds_arg(setting.name(), value)?;
        }
    }
    if let Some((start, stop)) = node_range {
        settings.node_range =
            Some(u64_arg("node_range start", start)?..u64_arg("node_range stop", stop)?);
    }
    Ok(settings)
}
