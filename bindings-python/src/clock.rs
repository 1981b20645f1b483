//! `polyflake.ManualClock`: wraps `polyflake::ManualClock` for tests.

use polyflake::{Clock, ManualClock};
use pyo3::prelude::*;

use crate::args::i64_arg;

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
