//! `polyflake.ManualClock`: wraps `polyflake::ManualClock` for tests.

use std::sync::Arc;

use polyflake::{Clock, ManualClock};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::args::i64_arg;
use crate::error::{wrong_type, IntoPyResult};

#[pyclass(name = "ManualClock", module = "polyflake._polyflake", frozen)]
pub struct PyManualClock {
    pub(crate) inner: ManualClock,
}

#[pymethods]
impl PyManualClock {
    #[new]
    fn new(now_ms: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyManualClock {
            inner: ManualClock::new(i64_arg("now_ms", now_ms)?),
        })
    }
    /// The time in Unix milliseconds.
    #[getter]
    fn now_ms(&self) -> i64 {
        self.inner.now_ms()
    }
    fn set(&self, now_ms: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.set(i64_arg("now_ms", now_ms)?);
        Ok(())
    }
    fn advance(&self, delta_ms: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.advance(i64_arg("delta_ms", delta_ms)?);
        Ok(())
    }
    fn __repr__(&self) -> String {
        format!("ManualClock({})", self.inner.now_ms())
    }
}

/// The clock argument: `'monotonic'`, `'wall'` or a `ManualClock`; `None`
/// is the core's default.
pub(crate) fn clock_arg(clock: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Arc<dyn Clock>>> {
    let Some(clock) = clock.filter(|c| !c.is_none()) else {
        return Ok(None);
    };
    if let Ok(manual) = clock.cast::<PyManualClock>() {
        return Ok(Some(Arc::new(manual.get().inner.clone())));
    }
    if let Ok(name) = clock.cast::<PyString>() {
        return polyflake::clock::named_clock(&name.to_cow()?, "clock")
            .map(Some)
            .py_err();
    }
    Err(wrong_type(
        "clock",
        "'monotonic', 'wall' or a ManualClock",
        clock,
    ))
}
