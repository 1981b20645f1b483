//! The one mapping of core errors to Python exceptions. The classes live in
//! `polyflake/errors.py` so that they can subclass two builtins at once.

use std::collections::HashMap;

use polyflake::Error;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;

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
    HashMap<&'static str, bool>,
);

/// Converts a core error into the exception of its variant, with its details
/// (`field`, `value`, `max`, `behind_ms`, `reason` …) as attributes. By
/// variant: a new one does not compile here until it is mapped.
pub(crate) fn to_py(err: Error) -> PyErr {
    let mut text = HashMap::new();
    let mut ints = HashMap::new();
    let mut flags = HashMap::new();
    let new_err: fn(Details) -> PyErr = match &err {
        Error::FieldOutOfRange { field, value, max } => {
            text.insert("field", field.clone());
            ints.insert("value", i128::from(*value));
            ints.insert("max", i128::from(*max));
            FieldOutOfRangeError::new_err
        }
        Error::TimestampBeforeEpoch {
            timestamp_ms,
            epoch_ms,
        } => {
            ints.insert("timestamp_ms", i128::from(*timestamp_ms));
            ints.insert("epoch_ms", i128::from(*epoch_ms));
            TimestampBeforeEpochError::new_err
        }
        Error::TimestampOverflow {
            timestamp_ms,
            max_timestamp_ms,
        } => {
            ints.insert("timestamp_ms", i128::from(*timestamp_ms));
            ints.insert("max_timestamp_ms", i128::from(*max_timestamp_ms));
            TimestampOverflowError::new_err
        }
        Error::InvalidLayout(_) => InvalidLayoutError::new_err,
        Error::InvalidEncoding { encoding, .. } => {
            text.insert("encoding", (*encoding).to_owned());
            InvalidEncodingError::new_err
        }
        Error::ClockMovedBackwards {
            behind_ms,
            allowed_ms,
        } => {
            ints.insert("behind_ms", i128::from(*behind_ms));
            ints.insert("allowed_ms", i128::from(*allowed_ms));
            ClockMovedBackwardsError::new_err
        }
        // `errors.py` turns the names into its enums.
        Error::LeaseLost { reason, .. } => {
            text.insert("reason", reason.name().to_owned());
            flags.insert("retryable", reason.retryable());
            LeaseLostError::new_err
        }
        Error::InvalidArgument { kind, .. } => {
            text.insert("kind", kind.name().to_owned());
            InvalidArgumentError::new_err
        }
        // As OSError has them: `errno` and `filename`.
        Error::StateIo { path, os_error, .. } => {
            text.insert("filename", path.clone());
            if let Some(errno) = os_error {
                ints.insert("errno", i128::from(*errno));
            }
            StateIoError::new_err
        }
    };
    new_err((err.to_string(), text, ints, flags))
}

/// The contract's names of the lease-lost reasons and argument kinds, from
/// the core: `errors.py`'s enums are checked against them.
#[pyfunction]
pub(crate) fn _error_names() -> (Vec<&'static str>, Vec<&'static str>) {
    (
        polyflake::LeaseLostReason::ALL.map(|r| r.name()).to_vec(),
        polyflake::ArgumentKind::ALL.map(|k| k.name()).to_vec(),
    )
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
