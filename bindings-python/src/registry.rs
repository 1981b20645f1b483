//! `Generator.from_etcd` arguments: converts them into the core's
//! `RegistrySettings`, and names the connectors this build has.

use std::time::Duration;

use polyflake::{Error, LeaseConnector, RegistrySettings};
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
            Error::InvalidArgument(format!(
                "{name} must be a finite, non-negative number of seconds, not {seconds}"
            ))
        })
        .py_err()
}

/// The registries this build can lease identities from.
#[cfg(feature = "etcd")]
pub(crate) const CONNECTORS: &[&dyn LeaseConnector] = &[&polyflake_etcd::EtcdConnector];
#[cfg(not(feature = "etcd"))]
pub(crate) const CONNECTORS: &[&dyn LeaseConnector] = &[];

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

/// The settings of `Generator.from_etcd`; durations in the order ttl,
/// keep_alive, safety_margin, request_timeout (`None`: the core's default).
pub(crate) fn settings_arg(
    endpoints: &Bound<'_, PyAny>,
    prefix: Option<&str>,
    durations: [Option<&Bound<'_, PyAny>>; 4],
    node_range: Option<(&Bound<'_, PyAny>, &Bound<'_, PyAny>)>,
) -> PyResult<RegistrySettings> {
    let mut settings = RegistrySettings::new(endpoints_arg(endpoints)?);
    if let Some(prefix) = prefix {
        settings.prefix = prefix.to_owned();
    }
    let [ttl, keep_alive, margin, timeout] = durations;
    let slots = [
        ("ttl", ttl, &mut settings.ttl),
        ("keep_alive", keep_alive, &mut settings.keep_alive),
        ("safety_margin", margin, &mut settings.safety_margin),
        ("request_timeout", timeout, &mut settings.request_timeout),
    ];
    for (name, value, slot) in slots {
        if let Some(value) = value {
            *slot = seconds_arg(name, value)?;
        }
    }
    if let Some((start, stop)) = node_range {
        settings.node_range =
            Some(u64_arg("node_range start", start)?..u64_arg("node_range stop", stop)?);
    }
    Ok(settings)
}
