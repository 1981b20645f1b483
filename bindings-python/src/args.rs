//! Strict argument conversion: Python's `int` only (not `bool`, `float` or
//! `str`), checked here so the exception class does not depend on the pyo3
//! or Python version (pyo3 issue #6116); durations in seconds.

use std::time::Duration;

use polyflake::{ArgumentKind, Error};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

use crate::error::{negative, too_large, wrong_type, IntoPyResult};

fn int<'py>(name: &str, value: &Bound<'py, PyAny>) -> PyResult<()> {
    if value.is_instance_of::<PyBool>() || !value.is_instance_of::<PyInt>() {
        return Err(wrong_type(name, "an int", value));
    }
    Ok(())
}

/// An unsigned 64-bit argument (an ID, a node field, a sequence).
pub(crate) fn u64_arg(name: &str, value: &Bound<'_, PyAny>) -> PyResult<u64> {
    // An exact `int` (never a `bool`) through `PyLong_AsUnsignedLong`, which
    // reads the digits directly; `...LongLong` goes through a byte array and
    // measured twice as dear on CPython 3.11 for an ID's three digits.
    #[cfg(all(target_pointer_width = "64", not(windows)))]
    if value.is_exact_instance_of::<PyInt>() {
        // SAFETY: `value` is a live `int`; the call sets an error only on
        // overflow or a negative value, and that error is taken right here.
        let v = unsafe { pyo3::ffi::PyLong_AsUnsignedLong(value.as_ptr()) };
        if v != std::os::raw::c_ulong::MAX || PyErr::take(value.py()).is_none() {
            return Ok(v);
        }
    }
    if let Ok(v) = value.cast::<PyInt>() {
        if !value.is_instance_of::<PyBool>() {
            if let Ok(v) = v.extract::<u64>() {
                return Ok(v);
            }
        }
    }
    int(name, value)?;
    if value.lt(0)? {
        Err(negative(name, value))
    } else {
        Err(too_large(name, "2**64", value))
    }
}

/// A signed 64-bit argument (a Unix timestamp in milliseconds).
pub(crate) fn i64_arg(name: &str, value: &Bound<'_, PyAny>) -> PyResult<i64> {
    int(name, value)?;
    value
        .extract::<i64>()
        .map_err(|_| too_large(name, "2**63 in magnitude", value))
}

/// A small unsigned argument (a width in bits, a tick length).
pub(crate) fn small_arg(name: &str, value: &Bound<'_, PyAny>, max: u64) -> PyResult<u64> {
    let v = u64_arg(name, value)?;
    if v > max {
        return Err(too_large(name, &(max + 1).to_string(), value));
    }
    Ok(v)
}

/// Seconds as an int or float, as `time.sleep` takes them.
pub(crate) fn seconds_arg(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Duration> {
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

/// URLs (etcd's endpoints, the service's replicas) as a list of strings or
/// one comma-separated string, split by the core's rule.
pub(crate) fn urls_arg(name: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(polyflake::identity::registry::parse_endpoints(
            &text.to_cow()?,
        ));
    }
    value
        .try_iter()
        .and_then(|items| items.map(|item| item?.extract::<String>()).collect())
        .map_err(|_| wrong_type(name, "a URL string or a list of them", value))
}
