//! The application's check on node values, a Python callable, as the
//! core's `NodeCheck` (core `identity/check.rs`).

use polyflake::NodeCheck;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::error::wrong_type;

/// An application's `check(nodes) -> bool`, called with the node values as a
/// tuple; an exception it raises refuses them with its message.
pub(crate) fn check_arg(check: Option<&Bound<'_, PyAny>>) -> PyResult<Option<NodeCheck>> {
    let Some(check) = check.filter(|c| !c.is_none()) else {
        return Ok(None);
    };
    if !check.is_callable() {
        return Err(wrong_type(
            "check",
            "a callable taking the node values",
            check,
        ));
    }
    let check = check.clone().unbind();
    Ok(Some(NodeCheck::fallible(move |nodes| {
        Python::attach(|py| {
            let failed = |e: PyErr| {
                polyflake::Error::invalid(
                    polyflake::ArgumentKind::NodeCheck,
                    format!("check raised {}", e.value(py)),
                )
            };
            let tuple = PyTuple::new(py, nodes).map_err(failed)?;
            let answer = check.call1(py, (tuple,)).map_err(failed)?;
            answer.extract::<bool>(py).map_err(|_| {
                polyflake::Error::invalid(
                    polyflake::ArgumentKind::NodeCheck,
                    "check must return a bool".into(),
                )
            })
        })
    })))
}
