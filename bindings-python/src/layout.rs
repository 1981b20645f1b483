//! `polyflake.Layout`: wraps `polyflake::Layout`.

use polyflake::{Layout, PRESETS};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple};

use crate::args::{i64_arg, small_arg};
use crate::error::{wrong_type, IntoPyResult};

#[pyclass(name = "Layout", module = "polyflake._polyflake", frozen, eq, hash)]
#[derive(PartialEq, Eq, Hash)]
pub struct PyLayout {
    pub(crate) inner: Layout,
}

/// The preset layouts and their interned names, made once per interpreter.
static PRESET_OBJECTS: PyOnceLock<Vec<(Py<PyString>, Py<PyLayout>)>> = PyOnceLock::new();

/// A `Layout` argument: a `Layout` object or a preset's name.
pub(crate) fn layout_arg<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyLayout>> {
    // Test the type before casting: a failed cast builds an error object,
    // which cost a preset name 18 ns per call.
    if value.is_instance_of::<PyLayout>() {
        return Ok(value.cast::<PyLayout>()?.clone());
    }
    if value.is_instance_of::<PyString>() {
        let name = value.cast::<PyString>()?;
        let py = value.py();
        let presets = PRESET_OBJECTS.get_or_try_init(py, || {
            PRESETS
                .iter()
                .map(|name| {
                    let layout = PyLayout {
                        inner: Layout::preset(name).unwrap(),
                    };
                    Ok((PyString::intern(py, name).unbind(), Py::new(py, layout)?))
                })
                .collect::<PyResult<Vec<_>>>()
        })?;
        // Literals are interned: match by identity first, by text otherwise.
        if let Some((_, layout)) = presets.iter().find(|(n, _)| n.as_ptr() == name.as_ptr()) {
            return Ok(layout.bind(py).clone());
        }
        let text = name.to_cow()?;
        return match PRESETS.iter().position(|p| *p == text) {
            Some(i) => Ok(presets[i].1.bind(py).clone()),
            None => Err(Layout::preset(&text).unwrap_err()).py_err(),
        };
    }
    Err(wrong_type(
        "layout",
        "a polyflake.Layout or a preset name",
        value,
    ))
}

fn node_specs(nodes: &Bound<'_, PyAny>) -> PyResult<Vec<(String, u8)>> {
    let pairs: Vec<(Bound<'_, PyAny>, Bound<'_, PyAny>)> = if let Ok(map) = nodes.cast::<PyDict>() {
        map.iter().collect()
    } else {
        let mut pairs = Vec::new();
        for item in nodes.try_iter()? {
            let item = item?;
            let tuple = item
                .cast::<PyTuple>()
                .map_err(|_| wrong_type("nodes item", "a (name, bits) tuple", &item))?;
            if tuple.len() != 2 {
                return Err(wrong_type("nodes item", "a (name, bits) tuple", &item));
            }
            pairs.push((tuple.get_item(0)?, tuple.get_item(1)?));
        }
        pairs
    };
    pairs
        .into_iter()
        .map(|(name, bits)| {
            let name = name
                .cast::<PyString>()
                .map_err(|_| wrong_type("node field name", "a str", &name))?
                .to_cow()?
                .into_owned();
            Ok((name, small_arg("node field bits", &bits, 64)? as u8))
        })
        .collect()
}

#[pymethods]
impl PyLayout {
    /// `Layout("twitter")` is `Layout.preset("twitter")`.
    #[new]
    fn new(name: &str) -> PyResult<Self> {
        Self::preset(name)
    }

    #[staticmethod]
    fn preset(name: &str) -> PyResult<Self> {
        Ok(PyLayout {
            inner: Layout::preset(name).py_err()?,
        })
    }

    #[staticmethod]
    #[pyo3(signature = (epoch_ms, time_bits, nodes = None, sequence_bits = None, tick_ms = None, sequence_above_nodes = false))]
    fn custom(
        epoch_ms: &Bound<'_, PyAny>,
        time_bits: &Bound<'_, PyAny>,
        nodes: Option<&Bound<'_, PyAny>>,
        sequence_bits: Option<&Bound<'_, PyAny>>,
        tick_ms: Option<&Bound<'_, PyAny>>,
        sequence_above_nodes: bool,
    ) -> PyResult<Self> {
        let mut builder = Layout::custom(
            i64_arg("epoch_ms", epoch_ms)?,
            small_arg("time_bits", time_bits, 64)? as u8,
        )
        .sequence_above_nodes(sequence_above_nodes);
        if let Some(bits) = sequence_bits {
            builder = builder.sequence_bits(small_arg("sequence_bits", bits, 64)? as u8);
        }
        if let Some(tick) = tick_ms {
            builder = builder.tick_ms(small_arg("tick_ms", tick, u64::MAX - 1)?);
        }
        if let Some(nodes) = nodes {
            for (name, bits) in node_specs(nodes)? {
                builder = builder.node(name, bits);
            }
        }
        Ok(PyLayout {
            inner: builder.build().py_err()?,
        })
    }

    #[classattr]
    #[pyo3(name = "PRESETS")]
    fn presets() -> Vec<&'static str> {
        PRESETS.to_vec()
    }
    #[classattr]
    #[pyo3(name = "TWITTER")]
    fn twitter() -> Self {
        PyLayout {
            inner: Layout::twitter(),
        }
    }
    #[classattr]
    #[pyo3(name = "SNOWFLAKE")]
    fn snowflake() -> Self {
        PyLayout {
            inner: Layout::snowflake(),
        }
    }
    #[classattr]
    #[pyo3(name = "DISCORD")]
    fn discord() -> Self {
        PyLayout {
            inner: Layout::discord(),
        }
    }
    #[classattr]
    #[pyo3(name = "INSTAGRAM")]
    fn instagram() -> Self {
        PyLayout {
            inner: Layout::instagram(),
        }
    }
    #[classattr]
    #[pyo3(name = "SONYFLAKE")]
    fn sonyflake() -> Self {
        PyLayout {
            inner: Layout::sonyflake(),
        }
    }

    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }
    #[getter]
    fn epoch_ms(&self) -> i64 {
        self.inner.epoch_ms()
    }
    #[getter]
    fn tick_ms(&self) -> u64 {
        self.inner.tick_ms()
    }
    #[getter]
    fn time_bits(&self) -> u8 {
        self.inner.time_bits()
    }
    #[getter]
    fn sequence_bits(&self) -> u8 {
        self.inner.sequence_bits()
    }
    #[getter]
    fn sequence_above_nodes(&self) -> bool {
        self.inner.sequence_above_nodes()
    }
    #[getter]
    fn unused_bits(&self) -> u8 {
        self.inner.unused_bits()
    }
    #[getter]
    fn max_sequence(&self) -> u64 {
        self.inner.max_sequence()
    }
    #[getter]
    fn max_timestamp_ms(&self) -> i64 {
        self.inner.max_timestamp_ms()
    }
    /// The node fields' names, most significant first.
    #[getter]
    fn field_names(&self) -> Vec<String> {
        self.inner
            .node_fields()
            .iter()
            .map(|f| f.name().to_owned())
            .collect()
    }
    /// `(name, bits)` for every node field, most significant first.
    #[getter]
    fn nodes(&self) -> Vec<(String, u8)> {
        self.inner
            .node_fields()
            .iter()
            .map(|f| (f.name().to_owned(), f.bits()))
            .collect()
    }

    fn __repr__(&self) -> String {
        let l = &self.inner;
        if l.name() != "custom" {
            return format!("Layout.{}", l.name().to_uppercase());
        }
        let nodes: Vec<String> = l
            .node_fields()
            .iter()
            .map(|f| format!("({:?}, {})", f.name(), f.bits()))
            .collect();
        format!(
            "Layout.custom(epoch_ms={}, time_bits={}, nodes=[{}], sequence_bits={}, tick_ms={}, sequence_above_nodes={})",
            l.epoch_ms(),
            l.time_bits(),
            nodes.join(", "),
            l.sequence_bits(),
            l.tick_ms(),
            if l.sequence_above_nodes() { "True" } else { "False" }
        )
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let class = py.get_type::<PyLayout>();
        let l = &slf.get().inner;
        if l.name() != "custom" {
            return Ok((class.getattr("preset")?, PyTuple::new(py, [l.name()])?));
        }
        let nodes: Vec<(String, u8)> = slf.get().nodes();
        let args = (
            l.epoch_ms(),
            l.time_bits(),
            nodes,
            l.sequence_bits(),
            l.tick_ms(),
            l.sequence_above_nodes(),
        )
            .into_pyobject(py)?;
        Ok((class.getattr("custom")?, args))
    }
}
