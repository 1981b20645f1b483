//! compose / decode / explain / min_id / max_id and the decoded `Parts`:
//! wraps `polyflake::parts`.

use polyflake::Parts;
use pyo3::exceptions::PyAttributeError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::args::{i64_arg, u64_arg};
use crate::error::IntoPyResult;
use crate::layout::{layout_arg, PyLayout};

#[pyfunction]
#[pyo3(signature = (layout, *, timestamp_ms, sequence, **node_fields))]
fn compose(
    layout: &Bound<'_, PyAny>,
    timestamp_ms: &Bound<'_, PyAny>,
    sequence: &Bound<'_, PyAny>,
    node_fields: Option<&Bound<'_, PyDict>>,
) -> PyResult<u64> {
    let layout = layout_arg(layout)?;
    let timestamp_ms = i64_arg("timestamp_ms", timestamp_ms)?;
    let sequence = u64_arg("sequence", sequence)?;
    let named = named_values(node_fields)?;
    layout
        .get()
        .inner
        .compose_named(
            timestamp_ms,
            sequence,
            named.iter().map(|(n, v)| (n.as_str(), *v)),
        )
        .py_err()
}

/// `**node_fields` as `(name, value)`, each value a checked `int`.
pub(crate) fn named_values(fields: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, u64)>> {
    let Some(fields) = fields else {
        return Ok(Vec::new());
    };
    fields
        .iter()
        .map(|(name, value)| {
            let name: String = name.extract()?;
            let v = u64_arg(&name, &value)?;
            Ok((name, v))
        })
        .collect()
}

#[pyfunction]
fn decode(id: &Bound<'_, PyAny>, layout: &Bound<'_, PyAny>) -> PyResult<PyParts> {
    let id = u64_arg("id", id)?;
    let layout = layout_arg(layout)?;
    let parts = layout.get().inner.decode(id).py_err()?;
    Ok(PyParts {
        id,
        parts,
        layout: layout.unbind(),
    })
}

#[pyfunction]
fn explain(id: &Bound<'_, PyAny>, layout: &Bound<'_, PyAny>) -> PyResult<Vec<PySegment>> {
    let id = u64_arg("id", id)?;
    let layout = layout_arg(layout)?;
    let segments = layout.get().inner.explain(id).py_err()?;
    Ok(segments
        .into_iter()
        .map(|s| PySegment {
            kind: s.kind.name(),
            bits: s.bits(),
            width: s.width(),
            name: s.name,
            msb: s.msb,
            lsb: s.lsb,
            value: s.value,
        })
        .collect())
}

#[pyfunction]
fn min_id(layout: &Bound<'_, PyAny>, timestamp_ms: &Bound<'_, PyAny>) -> PyResult<u64> {
    let layout = layout_arg(layout)?;
    layout
        .get()
        .inner
        .min_id(i64_arg("timestamp_ms", timestamp_ms)?)
        .py_err()
}

#[pyfunction]
fn max_id(layout: &Bound<'_, PyAny>, timestamp_ms: &Bound<'_, PyAny>) -> PyResult<u64> {
    let layout = layout_arg(layout)?;
    layout
        .get()
        .inner
        .max_id(i64_arg("timestamp_ms", timestamp_ms)?)
        .py_err()
}

/// A decoded ID: immutable, hashable, node fields as attributes.
// No `freelist`: pyo3 guards it with a mutex, which measured dearer than
// CPython's own allocator.
#[pyclass(name = "Parts", module = "polyflake._polyflake", frozen)]
pub struct PyParts {
    id: u64,
    parts: Parts,
    layout: Py<PyLayout>,
}

static UTC_EPOCH: PyOnceLock<(Py<PyAny>, Py<PyAny>)> = PyOnceLock::new();

impl PyParts {
    fn pairs(&self) -> Vec<(String, i128)> {
        let layout = &self.layout.get().inner;
        let mut pairs = vec![(
            "timestamp_ms".to_owned(),
            i128::from(self.parts.timestamp_ms),
        )];
        pairs.extend(
            self.parts
                .fields(layout)
                .map(|(n, v)| (n.to_owned(), i128::from(v))),
        );
        pairs.push(("sequence".to_owned(), i128::from(self.parts.sequence)));
        pairs
    }
}

#[pymethods]
impl PyParts {
    #[getter]
    fn id(&self) -> u64 {
        self.id
    }
    #[getter]
    fn timestamp_ms(&self) -> i64 {
        self.parts.timestamp_ms
    }
    #[getter]
    fn sequence(&self) -> u64 {
        self.parts.sequence
    }
    #[getter]
    fn layout(&self, py: Python<'_>) -> Py<PyLayout> {
        self.layout.clone_ref(py)
    }
    /// The names `_asdict()` returns, in order.
    #[getter]
    fn _fields(&self) -> Vec<String> {
        self.pairs().into_iter().map(|(n, _)| n).collect()
    }
    /// The tick's start as an aware `datetime` in UTC.
    #[getter]
    fn time<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (epoch, timedelta) = UTC_EPOCH.get_or_try_init(py, || -> PyResult<_> {
            let datetime = py.import("datetime")?;
            let utc = datetime.getattr("timezone")?.getattr("utc")?;
            let kwargs = PyDict::new(py);
            kwargs.set_item("tzinfo", utc)?;
            let epoch = datetime
                .getattr("datetime")?
                .call((1970, 1, 1), Some(&kwargs))?;
            Ok((epoch.unbind(), datetime.getattr("timedelta")?.unbind()))
        })?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("milliseconds", self.parts.timestamp_ms)?;
        let delta = timedelta.bind(py).call((), Some(&kwargs))?;
        epoch.bind(py).add(delta)
    }

    // Node fields are attributes named by the layout. `__getattr__` would
    // reach them only after the type's own lookup failed and raised, which
    // measured 7x a dict lookup; here they come first, then the usual lookup.
    fn __getattribute__<'py>(
        slf: &Bound<'py, Self>,
        name: &Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let this = slf.get();
        // The names every Parts has, by the identity of the interned name.
        if name.is(intern!(py, "timestamp_ms")) {
            return Ok(this.parts.timestamp_ms.into_pyobject(py)?.into_any());
        }
        if name.is(intern!(py, "sequence")) {
            return Ok(this.parts.sequence.into_pyobject(py)?.into_any());
        }
        if name.is(intern!(py, "id")) {
            return Ok(this.id.into_pyobject(py)?.into_any());
        }
        if let Some(value) = this.parts.get(&this.layout.get().inner, name.to_str()?) {
            return Ok(value.into_pyobject(py)?.into_any());
        }
        // SAFETY: both pointers are live for the call; the result is a new
        // reference or NULL with the error set, which `from_owned_ptr_or_err` takes.
        unsafe {
            Bound::from_owned_ptr_or_err(
                py,
                ffi::PyObject_GenericGetAttr(slf.as_ptr(), name.as_ptr()),
            )
        }
    }

    // Reached only when `__getattribute__` found nothing: says what does exist.
    fn __getattr__(&self, name: &Bound<'_, PyString>) -> PyResult<u64> {
        Err(PyAttributeError::new_err(format!(
            "'Parts' of layout {} has no field '{name}'",
            self.layout.get().inner.name()
        )))
    }

    fn _asdict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in self.pairs() {
            dict.set_item(name, value)?;
        }
        Ok(dict)
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self._asdict(py)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyParts>()
            .map(|o| o.get().id == self.id && o.get().layout.get().inner == self.layout.get().inner)
            .unwrap_or(false)
    }

    fn __hash__(&self) -> u64 {
        self.id
    }

    fn __repr__(&self) -> String {
        let fields: Vec<String> = self
            .pairs()
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        format!(
            "Parts(id={}, layout={:?}, {})",
            self.id,
            self.layout.get().inner.name(),
            fields.join(", ")
        )
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let decode = py.import("polyflake._polyflake")?.getattr("decode")?;
        let args = (slf.get().id, slf.get().layout.clone_ref(py)).into_pyobject(py)?;
        Ok((decode, args))
    }
}

/// One labelled run of an ID's bits.
#[pyclass(name = "Segment", module = "polyflake._polyflake", frozen, get_all, eq)]
#[derive(PartialEq)]
pub struct PySegment {
    name: String,
    kind: &'static str,
    msb: u8,
    lsb: u8,
    width: u8,
    value: u64,
    bits: String,
}

#[pymethods]
impl PySegment {
    fn __repr__(&self) -> String {
        format!(
            "Segment(name={:?}, kind={:?}, msb={}, lsb={}, width={}, value={}, bits={:?})",
            self.name, self.kind, self.msb, self.lsb, self.width, self.value, self.bits
        )
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compose, m)?)?;
    m.add_function(wrap_pyfunction!(decode, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(min_id, m)?)?;
    m.add_function(wrap_pyfunction!(max_id, m)?)?;
    m.add_class::<PyParts>()?;
    m.add_class::<PySegment>()?;
    Ok(())
}
