//! `polyflake.Generator`: wraps `polyflake::Generator`.

use std::sync::OnceLock;

use polyflake::{FirstUse, Generator, IdentityRequest, RegistryDuration, TryNext};
use polyflake_connectors::{CONNECTORS, ETCD};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::args::u64_arg;
use crate::error::IntoPyResult;
use crate::fork;
use crate::layout::{layout_arg, PyLayout};
use crate::parts::named_values;
use crate::registry::settings_arg;
use crate::request::request;
use crate::service::PyServiceGenerator;

#[pyclass(name = "Generator", module = "polyflake._polyflake", frozen)]
pub struct PyGenerator {
    /// The core's generator, its identity claimed at the first use (ADR 0017).
    /// Boxed: the generator is aligned to cache lines, and Python places an
    /// object at 16 bytes (see the assertion below).
    inner: Box<FirstUse>,
    layout: Py<PyLayout>,
    /// The process's fork generation when the identity was claimed: a copy
    /// in a child forked after that refuses (`fork.rs`).
    claimed_in: OnceLock<u64>,
}

// Python's allocator aligns an object to 16 bytes: a class that held the
// core's 64-byte-aligned generator inline would sit misaligned (undefined
// behaviour, which pyo3's debug build aborts on at the first from_env).
const _: () = assert!(std::mem::align_of::<PyGenerator>() <= 16);

impl PyGenerator {
    /// The generator, claiming its identity if this is the first use in this
    /// process (without the GIL: claiming may lock files or wait on the
    /// network); refused in a forked child if claimed before the fork.
    #[inline]
    fn generator(&self, py: Python<'_>) -> PyResult<&Generator> {
        if let Some(generator) = self.inner.claimed_generator() {
            // Unset only for an instant after another thread claimed.
            if let Some(&claimed_in) = self.claimed_in.get() {
                fork::same_process(claimed_in)?;
            }
            return Ok(generator);
        }
        let generator = py.detach(|| self.inner.get()).py_err()?;
        let _ = self.claimed_in.set(fork::generation());
        Ok(generator)
    }

    /// The one way a generator is made: the arguments as the core's request,
    /// checked now and resolved with this build's connectors at the first
    /// use (node values given outright are built now).
    fn made(
        layout: Bound<'_, PyLayout>,
        identity: IdentityRequest,
        clock: Option<&Bound<'_, PyAny>>,
        on_clock_backwards: &str,
        max_backwards_ms: Option<&Bound<'_, PyAny>>,
        check: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let request = request(
            &layout,
            identity,
            clock,
            on_clock_backwards,
            max_backwards_ms,
            check,
        )?;
        let inner = Box::new(FirstUse::new(request, CONNECTORS).py_err()?);
        let claimed_in = OnceLock::new();
        if inner.claimed_generator().is_some() {
            let _ = claimed_in.set(fork::generation());
        }
        Ok(PyGenerator {
            inner,
            layout: layout.unbind(),
            claimed_in,
        })
    }
}

#[pymethods]
impl PyGenerator {
    #[new]
    #[pyo3(signature = (layout, *, clock = None, on_clock_backwards = "wait", max_backwards_ms = None, **node_fields))]
    fn new(
        layout: &Bound<'_, PyAny>,
        clock: Option<&Bound<'_, PyAny>>,
        on_clock_backwards: &str,
        max_backwards_ms: Option<&Bound<'_, PyAny>>,
        node_fields: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let layout = layout_arg(layout)?;
        let identity = IdentityRequest::Named(named_values(node_fields)?);
        Self::made(
            layout,
            identity,
            clock,
            on_clock_backwards,
            max_backwards_ms,
            None,
        )
    }

    /// A generator whose worker identity follows the environment (see
    /// docs/identity.md): POLYFLAKE_NODE_ID, per-field variables,
    /// POLYFLAKE_ORDINAL, else a local lease in the state directory.
    #[staticmethod]
    #[pyo3(signature = (layout, *, clock = None, on_clock_backwards = "wait", max_backwards_ms = None, check = None))]
    fn from_env(
        layout: &Bound<'_, PyAny>,
        clock: Option<&Bound<'_, PyAny>>,
        on_clock_backwards: &str,
        max_backwards_ms: Option<&Bound<'_, PyAny>>,
        check: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let layout = layout_arg(layout)?;
        let identity = IdentityRequest::Environment;
        Self::made(
            layout,
            identity,
            clock,
            on_clock_backwards,
            max_backwards_ms,
            check,
        )
    }

    /// A generator whose worker identity is leased from etcd: the lowest free
    /// node value under `prefix`, kept alive from a background thread; IDs are
    /// refused with LeaseLostError once the lease may have lapsed, and a new
    /// identity is claimed when etcd answers again. Durations in seconds.
    #[staticmethod]
    #[pyo3(signature = (
        layout, endpoints, *, prefix = None, ttl = None, keep_alive = None,
        safety_margin = None, request_timeout = None, max_clock_gap = None, node_range = None,
        clock = None, on_clock_backwards = "wait", max_backwards_ms = None, check = None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn from_etcd(
        layout: &Bound<'_, PyAny>,
        endpoints: &Bound<'_, PyAny>,
        prefix: Option<&str>,
        ttl: Option<&Bound<'_, PyAny>>,
        keep_alive: Option<&Bound<'_, PyAny>>,
        safety_margin: Option<&Bound<'_, PyAny>>,
        request_timeout: Option<&Bound<'_, PyAny>>,
        max_clock_gap: Option<&Bound<'_, PyAny>>,
        node_range: Option<(Bound<'_, PyAny>, Bound<'_, PyAny>)>,
        clock: Option<&Bound<'_, PyAny>>,
        on_clock_backwards: &str,
        max_backwards_ms: Option<&Bound<'_, PyAny>>,
        check: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let layout = layout_arg(layout)?;
        let settings = settings_arg(
            endpoints,
            prefix,
            &[
                (RegistryDuration::Ttl, ttl),
                (RegistryDuration::KeepAlive, keep_alive),
                (RegistryDuration::SafetyMargin, safety_margin),
                (RegistryDuration::RequestTimeout, request_timeout),
                (RegistryDuration::MaxClockGap, max_clock_gap),
            ],
            node_range.as_ref().map(|(a, b)| (a, b)),
        )?;
        let identity = IdentityRequest::Registry {
            name: ETCD.to_owned(),
            settings,
        };
        Self::made(
            layout,
            identity,
            clock,
            on_clock_backwards,
            max_backwards_ms,
            check,
        )
    }

    /// A generator whose IDs come from `polyflake serve` replicas (`urls`, a
    /// list or a comma-separated string): fetched `batch` at a time into a
    /// buffer that a background thread refills when fewer than `low_water`
    /// remain (the batch doubling, up to `max_batch`, while the buffer drains
    /// faster than requests come back), moving to the next replica when one
    /// fails. `next_id` raises
    /// `LeaseLostError` (reason `UNREACHABLE`) after waiting `deadline`
    /// seconds with an empty buffer. Durations in seconds.
    #[staticmethod]
    #[pyo3(signature = (urls, *, batch = None, low_water = None, max_batch = None, request_timeout = None, deadline = None))]
    fn from_service(
        urls: &Bound<'_, PyAny>,
        batch: Option<&Bound<'_, PyAny>>,
        low_water: Option<&Bound<'_, PyAny>>,
        max_batch: Option<&Bound<'_, PyAny>>,
        request_timeout: Option<&Bound<'_, PyAny>>,
        deadline: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyServiceGenerator> {
        PyServiceGenerator::made(urls, batch, low_water, max_batch, request_timeout, deadline)
    }

    /// Claims the worker identity now rather than at the first use, and
    /// returns the generator: for a process that must fail at start when no
    /// identity is to be had (`Generator.from_env(...).claim()`).
    fn claim(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().generator(slf.py())?;
        Ok(slf)
    }

    /// Whether the worker identity was claimed (in this process or, for a
    /// copy inherited across `os.fork()`, in its parent).
    #[getter]
    fn claimed(&self) -> bool {
        self.inner.claimed_generator().is_some()
    }

    /// Where the worker identity came from (claiming it, if not yet).
    #[getter]
    fn identity_source(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.generator(py)?.identity_source())
    }

    /// The next ID. Waits, without holding the GIL, when the tick's
    /// sequence is spent or the backwards policy says to wait.
    fn next_id(&self, py: Python<'_>) -> PyResult<u64> {
        let generator = self.generator(py)?;
        loop {
            match generator.try_next_id().py_err()? {
                TryNext::Id(id) => return Ok(id),
                TryNext::WaitUntil(ms) => py.detach(|| generator.wait_until(ms)),
            }
        }
    }

    /// `n` strictly increasing IDs in one call (the GIL is released meanwhile).
    fn next_ids(&self, py: Python<'_>, n: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        let n = Generator::batch_size(u64_arg("n", n)?).py_err()?;
        let generator = self.generator(py)?;
        let mut ids = vec![0u64; n];
        py.detach(|| generator.fill(&mut ids)).py_err()?;
        Ok(ids)
    }

    /// Counts since the generator was built: waits at the per-tick ceiling,
    /// clock-backwards events by outcome, the lease's renewals and losses
    /// (all zero before the identity is claimed).
    fn stats(&self) -> crate::counts::PyGeneratorStats {
        self.inner
            .claimed_generator()
            .map(Generator::stats)
            .unwrap_or_default()
            .into()
    }

    #[getter]
    fn layout(&self, py: Python<'_>) -> Py<PyLayout> {
        self.layout.clone_ref(py)
    }

    /// Gives up the worker identity now (the mark settled, the lock or lease
    /// released), even while other threads still call; later calls raise
    /// `LeaseLostError`. A forked child's copy gives up nothing: the
    /// identity is its parent's.
    fn close(&self) {
        let inherited = self
            .claimed_in
            .get()
            .is_some_and(|&claimed_in| fork::same_process(claimed_in).is_err());
        if !inherited {
            self.inner.close();
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*exc))]
    fn __exit__(&self, exc: &Bound<'_, PyTuple>) -> bool {
        let _ = exc; // an exception leaving the block is not swallowed
        self.close();
        false
    }

    /// The worker identity, by field name (claiming it, if not yet).
    #[getter]
    fn node_fields(&self, py: Python<'_>) -> PyResult<Vec<(String, u64)>> {
        let generator = self.generator(py)?;
        Ok(generator
            .layout()
            .node_fields()
            .iter()
            .zip(generator.node_values())
            .map(|(f, v)| (f.name().to_owned(), v))
            .collect())
    }

    /// Claims nothing: an unclaimed generator says so.
    fn __repr__(&self) -> String {
        let layout = self.inner.request().layout.name();
        match self.inner.claimed_generator() {
            Some(generator) => {
                let fields: Vec<String> = generator
                    .layout()
                    .node_fields()
                    .iter()
                    .zip(generator.node_values())
                    .map(|(f, v)| format!("{}={v}", f.name()))
                    .collect();
                format!("Generator({layout:?}, {})", fields.join(", "))
            }
            None => format!("Generator({layout:?}, identity claimed at first use)"),
        }
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGenerator>()?;
    Ok(())
}
