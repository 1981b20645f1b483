//! `Generator.from_etcd` arguments: converts them into the core's
//! `RegistrySettings` (the connectors are `polyflake_connectors`').

use std::time::Duration;

use polyflake::{ArgumentKind, Error, RegistryDuration, RegistrySettings};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

use crate::args::u64_arg;
use crate::error::{wrong_type, IntoPyResult};

/// Seconds as an int or float, as `time.sleep` takes them.
fn seconds_arg(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Duration> {
    if !(value.is_instance_of::<PyInt>() || value.is_instance_of::<PyFloat>())
        || value.is_instance_of::<PyBool>()
    {
        return Err(wrong_type(name, "seconds as an int or float", value));
    }
    let seconds: f64 = value.extract()?;
    Duration::try_from_secs_f64(seconds)
        .map_err(|_| {
            Error::invalid(
                ArgumentKind::Configuration,
                format!("{name} must be a finite, non-negative number of seconds, not {seconds}"),
            )
        })
        .py_err()
}

/// `endpoints` as a list of URLs or one comma-separated string.
fn endpoints_arg(value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(polyflake::identity::registry::parse_endpoints(
            &text.to_cow()?,
        ));
    }
    value
        .try_iter()
        .and_then(|items| items.map(|item| item?.extract::<String>()).collect())
        .map_err(|_| wrong_type("endpoints", "a URL string or a list of them", value))
}

/// The settings of `Generator.from_etcd`; durations in seconds, in the
/// order of `RegistryDuration::ALL` (`None`: the core's default).
pub(crate) fn settings_arg(
    endpoints: &Bound<'_, PyAny>,
    prefix: Option<&str>,
    durations: [Option<&Bound<'_, PyAny>>; RegistryDuration::ALL.len()],
    node_range: Option<(&Bound<'_, PyAny>, &Bound<'_, PyAny>)>,
) -> PyResult<RegistrySettings> {
    let mut settings = RegistrySettings::new(endpoints_arg(endpoints)?);
    if let Some(prefix) = prefix {
        settings.prefix = prefix.to_owned();
    }
    for (setting, value) in RegistryDuration::ALL.into_iter().zip(durations) {
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
