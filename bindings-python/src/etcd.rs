//! `Generator.from_etcd` arguments: wraps `polyflake_etcd::EtcdLease`.

use std::time::Duration;

use polyflake::Error;
use polyflake_etcd::{
    EtcdLease, DEFAULT_KEEP_ALIVE, DEFAULT_MARGIN, DEFAULT_REQUEST_TIMEOUT, DEFAULT_TTL,
};
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

/// `endpoints` as a list of URLs or one comma-separated string.
fn endpoints_arg(value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(text
            .to_cow()?
            .split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(str::to_owned)
            .collect());
    }
    value
        .try_iter()
        .and_then(|items| items.map(|item| item?.extract::<String>()).collect())
        .map_err(|_| wrong_type("endpoints", "a URL string or a list of them", value))
}

/// The lease of `Generator.from_etcd`; durations in the order ttl,
/// keep_alive, safety_margin, request_timeout (`None`: the default).
pub(crate) fn lease_arg(
    endpoints: &Bound<'_, PyAny>,
    prefix: &str,
    durations: [Option<&Bound<'_, PyAny>>; 4],
    node_range: Option<(&Bound<'_, PyAny>, &Bound<'_, PyAny>)>,
) -> PyResult<EtcdLease> {
    let [ttl, keep_alive, margin, timeout] = durations;
    let seconds = |name: &str, value: Option<&Bound<'_, PyAny>>, default: Duration| {
        value.map_or(Ok(default), |v| seconds_arg(name, v))
    };
    let mut lease = EtcdLease::new(endpoints_arg(endpoints)?)
        .prefix(prefix)
        .ttl(seconds("ttl", ttl, DEFAULT_TTL)?)
        .keep_alive(seconds("keep_alive", keep_alive, DEFAULT_KEEP_ALIVE)?)
        .safety_margin(seconds("safety_margin", margin, DEFAULT_MARGIN)?)
        .request_timeout(seconds(
            "request_timeout",
            timeout,
            DEFAULT_REQUEST_TIMEOUT,
        )?);
    if let Some((start, stop)) = node_range {
        lease = lease
            .node_range(u64_arg("node_range start", start)?..u64_arg("node_range stop", stop)?);
    }
    Ok(lease)
}
