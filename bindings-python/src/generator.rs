//! `polyflake.Generator`: wraps `polyflake::Generator`.

use std::sync::atomic::{AtomicU64, Ordering};

use std::sync::Arc;

use polyflake::{
    BackwardsPolicy, Clock, Error, Generator, GeneratorRequest, IdentityRequest, LeaseLostReason,
    NodeCheck, TryNext,
};
use polyflake_connectors::{CONNECTORS, ETCD};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::args::u64_arg;
use crate::clock::PyManualClock;
use crate::error::{to_py, wrong_type, IntoPyResult};
use crate::layout::{layout_arg, PyLayout};
use crate::parts::named_values;
use crate::registry::settings_arg;

/// Bumped in a child process after `fork` (registered by `polyflake/__init__.py`).
static FORK_GENERATION: AtomicU64 = AtomicU64::new(0);

#[pyfunction]
fn _after_fork_in_child() {
    FORK_GENERATION.fetch_add(1, Ordering::SeqCst);
}

#[pyclass(name = "Generator", module = "polyflake._polyflake", frozen)]
pub struct PyGenerator {
    inner: Generator,
    layout: Py<PyLayout>,
    fork_generation: u64,
}

impl PyGenerator {
    /// A generator copied into a forked child shares its parent's identity:
    /// both could issue the same IDs, so the child's copy refuses.
    #[inline]
    fn check_process(&self) -> PyResult<()> {
        if FORK_GENERATION.load(Ordering::Relaxed) != self.fork_generation {
            return Err(to_py(Error::lease_lost(LeaseLostReason::Forked,
                "this generator was created before os.fork(); the parent keeps its worker identity, \
                 so create a new Generator with an identity of the child's own"
                    .into(),
            )));
        }
        Ok(())
    }
}

fn policy_arg(name: &str, max_ms: u64) -> PyResult<BackwardsPolicy> {
    BackwardsPolicy::parse(name, max_ms, "on_clock_backwards").py_err()
}

/// The clock argument: `'monotonic'`, `'wall'` or a `ManualClock`; `None`
/// is the core's default.
fn clock_arg(clock: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Arc<dyn Clock>>> {
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

/// An application's `check(nodes) -> bool`, called with the node values as a
/// tuple; an exception it raises refuses them with its message.
fn check_arg(check: Option<&Bound<'_, PyAny>>) -> PyResult<Option<NodeCheck>> {
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

/// The clock, the backwards policy and the check, as every constructor takes
/// them, with the identity: the core's request (its defaults where not given).
fn request(
    layout: &Bound<'_, PyLayout>,
    identity: IdentityRequest,
    clock: Option<&Bound<'_, PyAny>>,
    on_clock_backwards: &str,
    max_backwards_ms: Option<&Bound<'_, PyAny>>,
    check: Option<&Bound<'_, PyAny>>,
) -> PyResult<GeneratorRequest> {
    let max_ms = match max_backwards_ms {
        Some(v) => u64_arg("max_backwards_ms", v)?,
        None => BackwardsPolicy::DEFAULT_WAIT_MS,
    };
    let mut request = GeneratorRequest::new(layout.get().inner.clone(), identity);
    request.policy = policy_arg(on_clock_backwards, max_ms)?;
    request.clock = clock_arg(clock)?;
    request.check = check_arg(check)?;
    Ok(request)
}

impl PyGenerator {
    /// The one way a generator is made: the request resolved with this
    /// build's connectors. Resolving may lock files or wait on the network:
    /// other threads run meanwhile.
    fn made(request: GeneratorRequest, layout: Bound<'_, PyLayout>) -> PyResult<Self> {
        let inner = layout
            .py()
            .detach(|| request.resolve(CONNECTORS))
            .py_err()?;
        Ok(PyGenerator {
            inner,
            layout: layout.unbind(),
            fork_generation: FORK_GENERATION.load(Ordering::SeqCst),
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
        let request = request(
            &layout,
            identity,
            clock,
            on_clock_backwards,
            max_backwards_ms,
            None,
        )?;
        Self::made(request, layout)
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
        let request = request(
            &layout,
            identity,
            clock,
            on_clock_backwards,
            max_backwards_ms,
            check,
        )?;
        Self::made(request, layout)
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
            [
                ttl,
                keep_alive,
                safety_margin,
                request_timeout,
                max_clock_gap,
            ],
            node_range.as_ref().map(|(a, b)| (a, b)),
        )?;
        let identity = IdentityRequest::Registry {
            name: ETCD.to_owned(),
            settings,
        };
        let request = request(
            &layout,
            identity,
            clock,
            on_clock_backwards,
            max_backwards_ms,
            check,
        )?;
        Self::made(request, layout)
    }

    /// Where the worker identity came from.
    #[getter]
    fn identity_source(&self) -> String {
        self.inner.identity_source()
    }

    /// The next ID. Waits, without holding the GIL, when the tick's
    /// sequence is spent or the backwards policy says to wait.
    fn next_id(&self, py: Python<'_>) -> PyResult<u64> {
        self.check_process()?;
        loop {
            match self.inner.try_next_id().py_err()? {
                TryNext::Id(id) => return Ok(id),
                TryNext::WaitUntil(ms) => py.detach(|| self.inner.wait_until(ms)),
            }
        }
    }

    /// `n` strictly increasing IDs in one call (the GIL is released meanwhile).
    fn next_ids(&self, py: Python<'_>, n: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        self.check_process()?;
        let n = Generator::batch_size(u64_arg("n", n)?).py_err()?;
        let mut ids = vec![0u64; n];
        py.detach(|| self.inner.fill(&mut ids)).py_err()?;
        Ok(ids)
    }

    /// Counts since the generator was built: waits at the per-tick ceiling,
    /// clock-backwards events by outcome, the lease's renewals and losses.
    fn stats(&self) -> crate::counts::PyGeneratorStats {
        self.inner.stats().into()
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
        if self.check_process().is_ok() {
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

    /// The worker identity, by field name.
    #[getter]
    fn node_fields(&self) -> Vec<(String, u64)> {
        self.inner
            .layout()
            .node_fields()
            .iter()
            .zip(self.inner.node_values())
            .map(|(f, v)| (f.name().to_owned(), v))
            .collect()
    }

    fn __repr__(&self) -> String {
        let fields: Vec<String> = self
            .node_fields()
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        format!(
            "Generator({:?}, {})",
            self.inner.layout().name(),
            fields.join(", ")
        )
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGenerator>()?;
    m.add_function(wrap_pyfunction!(_after_fork_in_child, m)?)?;
    Ok(())
}
