//! The one mapping of core errors to Python exceptions. The classes live in
//! `polyflake/errors.py` so that they can subclass two builtins at once.

use std::collections::HashMap;

use polyflake::Error;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;

pyo3::import_exception!(polyflake.errors, PolyflakeError);
pyo3::import_exception!(polyflake.errors, FieldOutOfRangeError);
pyo3::import_exception!(polyflake.errors, TimestampBeforeEpochError);
pyo3::import_exception!(polyflake.errors, TimestampOverflowError);
pyo3::import_exception!(polyflake.errors, InvalidLayoutError);
pyo3::import_exception!(polyflake.errors, InvalidEncodingError);
pyo3::import_exception!(polyflake.errors, ClockMovedBackwardsError);
pyo3::import_exception!(polyflake.errors, LeaseLostError);
pyo3::import_exception!(polyflake.errors, InvalidArgumentError);
pyo3::import_exception!(polyflake.errors, StateIoError);

type Details = (
    String,
    HashMap<&'static str, String>,
    HashMap<&'static str, i128>,
);

/// Converts a core error into the exception of its code, with its details
/// (`field`, `value`, `max`, `behind_ms` …) as attributes.
pub(crate) fn to_py(err: Error) -> PyErr {
    let mut text = HashMap::new();
    let mut ints = HashMap::new();
    match &err {
        Error::FieldOutOfRange { field, value, max } => {
            text.insert("field", field.clone());
            ints.insert("value", i128::from(*value));
            ints.insert("max", i128::from(*max));
        }
        Error::TimestampBeforeEpoch {
            timestamp_ms,
            epoch_ms,
        } => {
            ints.insert("timestamp_ms", i128::from(*timestamp_ms));
            ints.insert("epoch_ms", i128::from(*epoch_ms));
        }
        Error::TimestampOverflow {
            timestamp_ms,
            max_timestamp_ms,
        } => {
            ints.insert("timestamp_ms", i128::from(*timestamp_ms));
            ints.insert("max_timestamp_ms", i128::from(*max_timestamp_ms));
        }
        Error::ClockMovedBackwards {
            behind_ms,
            allowed_ms,
        } => {
            ints.insert("behind_ms", i128::from(*behind_ms));
            ints.insert("allowed_ms", i128::from(*allowed_ms));
        }
        Error::InvalidEncoding { encoding, .. } => {
            text.insert("encoding", (*encoding).to_owned());
        }
        // As OSError has them: `errno` and `filename`.
        Error::StateIo { path, os_error, .. } => {
            text.insert("filename", path.clone());
            if let Some(errno) = os_error {
                ints.insert("errno", i128::from(*errno));
            }
        }
        _ => {}
    }
    let args: Details = (err.to_string(), text, ints);
    match err.code() {
        "FIELD_OUT_OF_RANGE" => FieldOutOfRangeError::new_err(args),
        "TIMESTAMP_BEFORE_EPOCH" => TimestampBeforeEpochError::new_err(args),
        "TIMESTAMP_OVERFLOW" => TimestampOverflowError::new_err(args),
        "INVALID_LAYOUT" => InvalidLayoutError::new_err(args),
        "INVALID_ENCODING" => InvalidEncodingError::new_err(args),
        "CLOCK_MOVED_BACKWARDS" => ClockMovedBackwardsError::new_err(args),
        "LEASE_LOST" => LeaseLostError::new_err(args),
        "INVALID_ARGUMENT" => InvalidArgumentError::new_err(args),
        "STATE_IO" => StateIoError::new_err(args),
        _ => PolyflakeError::new_err(args),
    }
}

/// `?` on core results inside `#[pyfunction]`s.
pub(crate) trait IntoPyResult<T> {
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for polyflake::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// A value of the wrong Python type for `name`.
pub(crate) fn wrong_type(name: &str, expected: &str, got: &Bound<'_, PyAny>) -> PyErr {
    let type_name = got
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    PyTypeError::new_err(format!("{name} must be {expected}, not {type_name}"))
}

pub(crate) fn negative(name: &str, got: &Bound<'_, PyAny>) -> PyErr {
    PyValueError::new_err(format!("{name} must be >= 0, got {got}"))
}

pub(crate) fn too_large(name: &str, bound: &str, got: &Bound<'_, PyAny>) -> PyErr {
    PyOverflowError::new_err(format!("{name} must be < {bound}, got {got}"))
}
