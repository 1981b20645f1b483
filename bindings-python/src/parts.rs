//! compose / decode / explain / min_id / max_id and the decoded `Parts`:
//! wraps `polyflake::parts`.

use polyflake::Parts;
use pyo3::exceptions::PyAttributeError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyString, PyTuple, PyType};

use crate::args::{i64_arg, u64_arg};
use crate::error::IntoPyResult;
use crate::layout::{layout_arg, PyLayout};
use crate::raw_type;

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

fn decode_to_parts<'py>(
    id: &Bound<'py, PyAny>,
    layout: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let id = u64_arg("id", id)?;
    let layout = layout_arg(layout)?;
    let parts = layout.get().inner.decode(id).py_err()?;
    new_parts(id, parts, layout)
}

/// `decode` called any other way than with two positional arguments: pyo3
/// reads the keywords and words the errors.
#[pyfunction]
#[pyo3(name = "decode")]
fn decode_by_keyword<'py>(
    id: &Bound<'py, PyAny>,
    layout: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    decode_to_parts(id, layout)
}

static DECODE_BY_KEYWORD: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

// `decode(id, layout)` as CPython calls it, the arguments in place: pyo3's
// own entry (a trampoline, then its argument parser) was 15 ns of a 107 ns
// call (docs/benchmarks.md). Any other call goes to `decode_by_keyword`.
unsafe extern "C" fn decode(
    _module: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    raw_type::guarded(|py| {
        let keywords = if kwnames.is_null() {
            0
        } else {
            // SAFETY: a non-NULL `kwnames` is a tuple of names.
            unsafe { ffi::PyTuple_Size(kwnames) }
        };
        if nargs == 2 && keywords == 0 {
            // SAFETY: CPython passes `nargs` live arguments.
            let (id, layout) = unsafe {
                (
                    Borrowed::from_ptr(py, *args),
                    Borrowed::from_ptr(py, *args.add(1)),
                )
            };
            return decode_to_parts(&id, &layout);
        }
        // CPython passes `nargs` positional arguments followed by one value
        // per keyword name, all live for the call (and may pass NULL for none).
        let total = (nargs + keywords.max(0)) as usize;
        let given: Vec<_> = if total == 0 {
            Vec::new()
        } else {
            // SAFETY: as above.
            unsafe { std::slice::from_raw_parts(args, total) }
                .iter()
                .map(|&arg| unsafe { Borrowed::from_ptr(py, arg) })
                .collect()
        };
        let by_keyword = DECODE_BY_KEYWORD
            .get_or_try_init(py, || {
                Ok::<_, PyErr>(wrap_pyfunction!(decode_by_keyword, py)?.into_any().unbind())
            })?
            .bind(py);
        let positional = PyTuple::new(py, &given[..nargs as usize])?;
        let named = PyDict::new(py);
        if keywords > 0 {
            // SAFETY: `kwnames` is a live tuple, as above.
            let names = unsafe { Borrowed::from_ptr(py, kwnames).cast_unchecked::<PyTuple>() };
            for (name, value) in names.iter().zip(&given[nargs as usize..]) {
                named.set_item(name, value)?;
            }
        }
        by_keyword.call(positional, Some(&named))
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
///
/// Made by hand rather than by `#[pyclass]`, which makes every class
/// garbage-collected and sends creation and deallocation through trampolines
/// and type-slot lookups: a third of what `decode` cost (docs/benchmarks.md).
/// A `Parts` holds the ID, its fields and its `Layout`, which holds no
/// `Parts`, so it can never be part of a cycle and needs no collector. Everything here is conversion: the fields
/// are the core's `decode`.
#[repr(C)]
struct PartsObject {
    ob_base: ffi::PyObject,
    id: u64,
    parts: Parts,
    /// A strong reference to a `PyLayout`.
    layout: *mut ffi::PyObject,
}

/// The `Parts` type, made once per interpreter.
static PARTS_TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn parts_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    PARTS_TYPE
        .get_or_try_init(py, || raw_type::new_type(py, &PARTS_SPEC))
        .map(|t| t.bind(py))
}

fn new_parts<'py>(
    id: u64,
    parts: Parts,
    layout: Bound<'py, PyLayout>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = layout.py();
    let tp = parts_type(py)?;
    // SAFETY: the memory is sized for a `PartsObject` and initialised as one
    // before Python sees it; `PyObject_Init` sets its type (taking a reference
    // to the type, which `parts_dealloc` gives back) and its refcount.
    unsafe {
        let obj = ffi::PyObject_Malloc(std::mem::size_of::<PartsObject>()).cast::<ffi::PyObject>();
        if obj.is_null() {
            return Err(PyErr::fetch(py));
        }
        ffi::PyObject_Init(obj, tp.as_type_ptr());
        obj.cast::<PartsObject>().write(PartsObject {
            ob_base: obj.read(),
            id,
            parts,
            layout: layout.into_ptr(),
        });
        Ok(Bound::from_owned_ptr(py, obj))
    }
}

/// The object behind a `Parts` pointer, with its layout, borrowed for a call.
struct PartsRef<'a, 'py> {
    id: u64,
    parts: &'a Parts,
    layout: Borrowed<'a, 'py, PyLayout>,
}

impl<'a, 'py> PartsRef<'a, 'py> {
    /// # Safety
    /// `obj` is a live `Parts` (CPython calls its slots only with one), and
    /// stays alive for `'a`.
    unsafe fn of(py: Python<'py>, obj: *mut ffi::PyObject) -> PartsRef<'a, 'py> {
        // SAFETY: per the contract above; the layout pointer is a strong
        // reference to a `PyLayout` held by the object.
        unsafe {
            let object = &*obj.cast::<PartsObject>();
            PartsRef {
                id: object.id,
                parts: &object.parts,
                layout: Borrowed::from_ptr(py, object.layout).cast_unchecked(),
            }
        }
    }

    fn pairs(&self) -> Vec<(String, i128)> {
        let parts = self.parts;
        let mut pairs = vec![("timestamp_ms".to_owned(), i128::from(parts.timestamp_ms))];
        pairs.extend(
            parts
                .fields(&self.layout.get().inner)
                .map(|(n, v)| (n.to_owned(), i128::from(v))),
        );
        pairs.push(("sequence".to_owned(), i128::from(parts.sequence)));
        pairs
    }

    fn as_dict(&self) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(self.layout.py());
        for (name, value) in self.pairs() {
            dict.set_item(name, value)?;
        }
        Ok(dict)
    }
}

static UTC_EPOCH: PyOnceLock<(Py<PyAny>, Py<PyAny>)> = PyOnceLock::new();

/// The tick's start as an aware `datetime` in UTC.
fn time<'py>(this: &PartsRef<'_, 'py>) -> PyResult<Bound<'py, PyAny>> {
    let py = this.layout.py();
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
    kwargs.set_item("milliseconds", this.parts.timestamp_ms)?;
    let delta = timedelta.bind(py).call((), Some(&kwargs))?;
    epoch.bind(py).add(delta)
}

// Node fields are attributes named by the layout. They and the fields every
// `Parts` has come first, by the identity of the interned name, then the
// type's own lookup; a name found nowhere says which fields exist.
unsafe extern "C" fn parts_getattro(
    obj: *mut ffi::PyObject,
    name: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    raw_type::guarded(|py| {
        // SAFETY: CPython passes a live `Parts` and a live name.
        let (this, name) = unsafe { (PartsRef::of(py, obj), Bound::from_borrowed_ptr(py, name)) };
        if let Ok(name) = name.cast::<PyString>() {
            if name.is(intern!(py, "timestamp_ms")) {
                return Ok(this.parts.timestamp_ms.into_pyobject(py)?.into_any());
            }
            if name.is(intern!(py, "sequence")) {
                return Ok(this.parts.sequence.into_pyobject(py)?.into_any());
            }
            if name.is(intern!(py, "id")) {
                return Ok(this.id.into_pyobject(py)?.into_any());
            }
            if let Some(i) = this.layout.get().inner.node_index(name.to_str()?) {
                return Ok(this.parts.nodes()[i].into_pyobject(py)?.into_any());
            }
        }
        // SAFETY: both pointers are live for the call; the result is a new
        // reference or NULL with the error set, which `from_owned_ptr_or_err` takes.
        let found = unsafe {
            Bound::from_owned_ptr_or_err(py, ffi::PyObject_GenericGetAttr(obj, name.as_ptr()))
        };
        match found {
            Err(e) if e.is_instance_of::<PyAttributeError>(py) => {
                Err(PyAttributeError::new_err(format!(
                    "'Parts' of layout {} has no field '{name}'",
                    this.layout.get().inner.name()
                )))
            }
            other => other,
        }
    })
}

unsafe extern "C" fn parts_repr(obj: *mut ffi::PyObject) -> *mut ffi::PyObject {
    raw_type::guarded(|py| {
        // SAFETY: CPython passes a live `Parts`.
        let this = unsafe { PartsRef::of(py, obj) };
        let fields: Vec<String> = this
            .pairs()
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        let text = format!(
            "Parts(id={}, layout={:?}, {})",
            this.id,
            this.layout.get().inner.name(),
            fields.join(", ")
        );
        Ok(PyString::new(py, &text).into_any())
    })
}

unsafe extern "C" fn parts_hash(obj: *mut ffi::PyObject) -> ffi::Py_hash_t {
    // SAFETY: CPython passes a live `Parts`; reading its ID cannot fail.
    let id = unsafe { (*obj.cast::<PartsObject>()).id };
    // -1 means "error" to CPython.
    match id as ffi::Py_hash_t {
        -1 => -2,
        h => h,
    }
}

unsafe extern "C" fn parts_richcompare(
    obj: *mut ffi::PyObject,
    other: *mut ffi::PyObject,
    op: std::ffi::c_int,
) -> *mut ffi::PyObject {
    raw_type::guarded(|py| {
        let equal = match op {
            ffi::Py_EQ => true,
            ffi::Py_NE => false,
            _ => return Ok(py.NotImplemented().into_bound(py)),
        };
        // SAFETY: CPython passes two live objects; `obj` is a `Parts`, and
        // `other` is read as one only once its type is the same (the type is
        // final, so no subclass has another layout).
        let same = unsafe {
            let this = PartsRef::of(py, obj);
            ffi::Py_TYPE(other) == ffi::Py_TYPE(obj) && {
                let that = PartsRef::of(py, other);
                this.id == that.id && this.layout.get().inner == that.layout.get().inner
            }
        };
        Ok(PyBool::new(py, same == equal).to_owned().into_any())
    })
}

unsafe extern "C" fn parts_dealloc(obj: *mut ffi::PyObject) {
    // SAFETY: CPython calls this once, when the last reference goes: give
    // back the layout, the memory and the reference `PyObject_Init` took to
    // the type, as a heap type's instances must.
    unsafe {
        let tp = ffi::Py_TYPE(obj);
        ffi::Py_DECREF((*obj.cast::<PartsObject>()).layout);
        ffi::PyObject_Free(obj.cast());
        ffi::Py_DECREF(tp.cast());
    }
}

/// A getter (second argument a closure) or method (its absent argument) of
/// `Parts`: the object in, a new reference out.
macro_rules! parts_fn {
    ($name:ident($unused:ty), |$py:ident, $this:ident| $body:expr) => {
        unsafe extern "C" fn $name(obj: *mut ffi::PyObject, _: $unused) -> *mut ffi::PyObject {
            raw_type::guarded(|$py| {
                // SAFETY: CPython passes a live `Parts`.
                let $this = unsafe { PartsRef::of($py, obj) };
                $body
            })
        }
    };
}

parts_fn!(get_id(*mut std::ffi::c_void), |py, this| Ok(this
    .id
    .into_pyobject(py)?
    .into_any()));
parts_fn!(get_timestamp_ms(*mut std::ffi::c_void), |py, this| Ok(this
    .parts
    .timestamp_ms
    .into_pyobject(py)?
    .into_any()));
parts_fn!(get_sequence(*mut std::ffi::c_void), |py, this| Ok(this
    .parts
    .sequence
    .into_pyobject(py)?
    .into_any()));
parts_fn!(get_layout(*mut std::ffi::c_void), |_py, this| Ok(this
    .layout
    .to_owned()
    .into_any()));
parts_fn!(get_time(*mut std::ffi::c_void), |_py, this| time(&this));
parts_fn!(get_fields(*mut std::ffi::c_void), |py, this| {
    let names: Vec<String> = this.pairs().into_iter().map(|(n, _)| n).collect();
    Ok(names.into_pyobject(py)?.into_any())
});
parts_fn!(as_dict(*mut ffi::PyObject), |_py, this| Ok(this
    .as_dict()?
    .into_any()));
parts_fn!(reduce(*mut ffi::PyObject), |py, this| {
    let decode = py.import("polyflake._polyflake")?.getattr("decode")?;
    Ok((decode, (this.id, this.layout.to_owned()))
        .into_pyobject(py)?
        .into_any())
});

static DECODE: raw_type::Function = raw_type::Function {
    name: c"decode",
    // The signature `inspect` and stubtest read, as pyo3 would write it.
    doc: c"decode(id, layout)\n--\n\n",
    call: decode,
};

static PARTS_SPEC: raw_type::Spec = raw_type::Spec {
    name: c"polyflake._polyflake.Parts",
    doc: c"A decoded ID: immutable, hashable, node fields as attributes.",
    basicsize: std::mem::size_of::<PartsObject>(),
    dealloc: parts_dealloc,
    getattro: parts_getattro,
    repr: parts_repr,
    hash: parts_hash,
    richcompare: parts_richcompare,
    getters: &[
        (c"id", get_id),
        (c"timestamp_ms", get_timestamp_ms),
        (c"sequence", get_sequence),
        (c"layout", get_layout),
        (c"time", get_time),
        (c"_fields", get_fields),
    ],
    methods: &[
        (c"_asdict", as_dict),
        (c"to_dict", as_dict),
        (c"__reduce__", reduce),
    ],
};

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
    m.add("decode", raw_type::new_function(m, &DECODE)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(min_id, m)?)?;
    m.add_function(wrap_pyfunction!(max_id, m)?)?;
    m.add("Parts", parts_type(m.py())?)?;
    m.add_class::<PySegment>()?;
    Ok(())
}
