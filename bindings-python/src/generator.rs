//! `polyflake.Generator`: wraps `polyflake::Generator`.

use std::sync::atomic::{AtomicU64, Ordering};

use std::sync::Arc;

use polyflake::{
    BackwardsPolicy, Clock, Error, Generator, GeneratorBuilder, Layout, NodeCheck, TryNext,
    WorkerIdentity,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::args::u64_arg;
use crate::clock::PyManualClock;
use crate::error::{to_py, wrong_type, IntoPyResult};
use crate::layout::{layout_arg, PyLayout};
use crate::parts::named_values;
use crate::registry::{settings_arg, CONNECTORS};

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
            return Err(to_py(Error::LeaseLost(
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

/// The clock argument: `'monotonic'`, `'wall'` or a `ManualClock`.
fn clock_arg(clock: Option<&Bound<'_, PyAny>>) -> PyResult<Arc<dyn Clock>> {
    let Some(clock) = clock else {
        return polyflake::clock::named_clock("monotonic", "clock").py_err();
    };
    if let Ok(manual) = clock.cast::<PyManualClock>() {
        return Ok(Arc::new(manual.get().inner.clone()));
    }
    if let Ok(name) = clock.cast::<PyString>() {
        return polyflake::clock::named_clock(&name.to_cow()?, "clock").py_err();
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
                polyflake::Error::InvalidArgument(format!("check raised {}", e.value(py)))
            };
            let tuple = PyTuple::new(py, nodes).map_err(failed)?;
            let answer = check.call1(py, (tuple,)).map_err(failed)?;
            answer
                .extract::<bool>(py)
                .map_err(|_| polyflake::Error::InvalidArgument("check must return a bool".into()))
        })
    })))
}

/// Submits a resolved identity to the application's check, if there is one.
fn with_check(
    identity: polyflake::Result<WorkerIdentity>,
    check: Option<NodeCheck>,
) -> polyflake::Result<WorkerIdentity> {
    match check {
        Some(check) => identity?.checked(check),
        None => identity,
    }
}

/// Resolves an identity on the generator's clock.
type Resolver =
    Box<dyn FnOnce(&Layout, Arc<dyn Clock>) -> polyflake::Result<WorkerIdentity> + Send>;

/// How the identity is had once the clock is known.
enum IdentityFrom {
    Given(Box<GeneratorBuilder>),
    Resolved(Resolver),
}

impl PyGenerator {
    fn build(
        identity: IdentityFrom,
        layout: Bound<'_, PyLayout>,
        clock: Option<&Bound<'_, PyAny>>,
        on_clock_backwards: &str,
        max_backwards_ms: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let max_ms = match max_backwards_ms {
            Some(v) => u64_arg("max_backwards_ms", v)?,
            None => BackwardsPolicy::DEFAULT_WAIT_MS,
        };
        let policy = policy_arg(on_clock_backwards, max_ms)?;
        let clock = clock_arg(clock)?;
        let core_layout = layout.get().inner.clone();
        // Resolving may lock files or wait on the network: let other threads run.
        let inner = layout
            .py()
            .detach(|| {
                let builder = match identity {
                    IdentityFrom::Given(builder) => builder.shared_clock(clock),
                    IdentityFrom::Resolved(resolve) => Generator::builder(core_layout.clone())
                        .identity(resolve(&core_layout, clock)?),
                };
                builder.on_clock_backwards(policy).build()
            })
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
        let mut builder = Generator::builder(layout.get().inner.clone());
        for (name, value) in named_values(node_fields)? {
            builder = builder.node(name, value);
        }
        Self::build(
            IdentityFrom::Given(Box::new(builder)),
            layout,
            clock,
            on_clock_backwards,
            max_backwards_ms,
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
        let check = check_arg(check)?;
        let resolve = IdentityFrom::Resolved(Box::new(move |layout: &Layout, clock| {
            with_check(
                WorkerIdentity::resolve_from_env(layout, clock, CONNECTORS),
                check,
            )
        }));
        Self::build(resolve, layout, clock, on_clock_backwards, max_backwards_ms)
    }

    /// A generator whose worker identity is leased from etcd: the lowest free
    /// node value under `prefix`, kept alive from a background thread; IDs are
    /// refused with LeaseLostError once the lease may have lapsed, and a new
    /// identity is claimed when etcd answers again. Durations in seconds.
    #[staticmethod]
    #[pyo3(signature = (
        layout, endpoints, *, prefix = None, ttl = None, keep_alive = None,
        safety_margin = None, request_timeout = None, node_range = None, clock = None,
        on_clock_backwards = "wait", max_backwards_ms = None, check = None
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
        node_range: Option<(Bound<'_, PyAny>, Bound<'_, PyAny>)>,
        clock: Option<&Bound<'_, PyAny>>,
        on_clock_backwards: &str,
        max_backwards_ms: Option<&Bound<'_, PyAny>>,
        check: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let layout = layout_arg(layout)?;
        let check = check_arg(check)?;
        let settings = settings_arg(
            endpoints,
            prefix,
            [ttl, keep_alive, safety_margin, request_timeout],
            node_range.as_ref().map(|(a, b)| (a, b)),
        )?;
        let resolve = IdentityFrom::Resolved(Box::new(move |layout: &Layout, clock| {
            with_check(
                WorkerIdentity::resolve_registry(layout, CONNECTORS, "etcd", &settings, clock),
                check,
            )
        }));
        Self::build(resolve, layout, clock, on_clock_backwards, max_backwards_ms)
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
