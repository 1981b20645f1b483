//! `polyflake.ServiceGenerator` (made by `Generator.from_service`): wraps
//! `polyflake_service::ServiceGenerator`, IDs fetched from `polyflake serve`
//! replicas in batches and refilled in the background.

use polyflake::{ArgumentKind, Error};
use polyflake_service::{ServiceGenerator, ServiceSettings, ServiceStats};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::args::{seconds_arg, u64_arg, urls_arg};
use crate::error::IntoPyResult;

#[pyclass(name = "ServiceGenerator", module = "polyflake._polyflake", frozen)]
pub struct PyServiceGenerator {
    inner: ServiceGenerator,
}

fn count_arg(name: &str, value: &Bound<'_, PyAny>) -> PyResult<usize> {
    let n = u64_arg(name, value)?;
    usize::try_from(n)
        .map_err(|_| Error::invalid(ArgumentKind::Usage, format!("{name} is too large: {n}")))
        .py_err()
}

impl PyServiceGenerator {
    /// `Generator.from_service`'s body: the arguments as the service crate's
    /// settings (`None`: its default).
    pub(crate) fn made(
        urls: &Bound<'_, PyAny>,
        batch: Option<&Bound<'_, PyAny>>,
        low_water: Option<&Bound<'_, PyAny>>,
        max_batch: Option<&Bound<'_, PyAny>>,
        request_timeout: Option<&Bound<'_, PyAny>>,
        deadline: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut settings = ServiceSettings::new(urls_arg("urls", urls)?);
        if let Some(batch) = batch {
            settings.batch = count_arg("batch", batch)?;
        }
        if let Some(low_water) = low_water {
            settings.low_water = Some(count_arg("low_water", low_water)?);
        }
        if let Some(max_batch) = max_batch {
            settings.max_batch = Some(count_arg("max_batch", max_batch)?);
        }
        if let Some(timeout) = request_timeout {
            settings.request_timeout = seconds_arg("request_timeout", timeout)?;
        }
        if let Some(deadline) = deadline {
            settings.deadline = seconds_arg("deadline", deadline)?;
        }
        Ok(PyServiceGenerator {
            inner: ServiceGenerator::new(settings).py_err()?,
        })
    }
}

#[pymethods]
impl PyServiceGenerator {
    /// The next ID from the buffer; waits (without the GIL) for a refill
    /// only when the buffer is empty, at most `deadline` seconds.
    fn next_id(&self, py: Python<'_>) -> PyResult<u64> {
        py.detach(|| self.inner.next_id()).py_err()
    }

    /// `n` IDs, each batch's in its order (the GIL is released meanwhile).
    fn next_ids(&self, py: Python<'_>, n: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        let n = polyflake::Generator::batch_size(u64_arg("n", n)?).py_err()?;
        py.detach(|| self.inner.next_ids(n)).py_err()
    }

    /// Counts since the generator was made.
    fn stats(&self) -> PyServiceStats {
        self.inner.stats().into()
    }

    /// IDs fetched and not yet handed out.
    #[getter]
    fn buffered(&self) -> usize {
        self.inner.buffered()
    }

    /// The replicas, in the order batches are asked of them.
    #[getter]
    fn urls(&self) -> Vec<String> {
        self.inner.settings().urls.clone()
    }

    /// IDs per request now: the refill adapts it to the rate, from the
    /// `batch` given up to `max_batch`.
    #[getter]
    fn batch(&self) -> usize {
        self.inner.batch()
    }

    /// The refill starts when fewer IDs than this remain (it scales with the batch).
    #[getter]
    fn low_water(&self) -> usize {
        self.inner.low_water()
    }

    /// Stops the refill and drops the buffer (waiting at most one request's
    /// timeout); later calls raise `LeaseLostError` (reason `CLOSED`).
    fn close(&self, py: Python<'_>) {
        py.detach(|| self.inner.close());
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*exc))]
    fn __exit__(&self, py: Python<'_>, exc: &Bound<'_, PyTuple>) -> bool {
        let _ = exc; // an exception leaving the block is not swallowed
        self.close(py);
        false
    }

    fn __repr__(&self) -> String {
        let settings = self.inner.settings();
        format!(
            "ServiceGenerator({:?}, batch={}, buffered={})",
            settings.urls,
            self.inner.batch(),
            self.inner.buffered()
        )
    }
}

/// `ServiceGenerator.stats()`: the service crate's `ServiceStats`, copied.
#[pyclass(
    name = "ServiceStats",
    module = "polyflake._polyflake",
    frozen,
    get_all,
    eq
)]
#[derive(Debug, Clone, PartialEq)]
pub struct PyServiceStats {
    /// Batches fetched.
    batches: u64,
    /// Requests that failed, each followed by a try at the next replica.
    failovers: u64,
    /// Calls that found the buffer empty and waited for a refill.
    stalls: u64,
    /// The longest of those waits, in seconds.
    longest_stall: f64,
    /// Calls that waited their whole deadline and raised.
    refused: u64,
}

impl From<ServiceStats> for PyServiceStats {
    fn from(s: ServiceStats) -> Self {
        PyServiceStats {
            batches: s.batches,
            failovers: s.failovers,
            stalls: s.stalls,
            longest_stall: s.longest_stall.as_secs_f64(),
            refused: s.refused,
        }
    }
}

#[pymethods]
impl PyServiceStats {
    fn __repr__(&self) -> String {
        format!(
            "ServiceStats(batches={}, failovers={}, stalls={}, longest_stall={}, refused={})",
            self.batches, self.failovers, self.stalls, self.longest_stall, self.refused
        )
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyServiceGenerator>()?;
    m.add_class::<PyServiceStats>()
}
