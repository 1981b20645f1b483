//! Python types and functions made by hand (`PyType_FromSpec`,
//! `PyCMethod_New`) where `#[pyclass]` and `#[pyfunction]` cost too much on
//! a hot path (`Parts` and `decode`, see `parts.rs`). Plumbing only: here
//! errors and panics become exceptions, as pyo3's own trampolines make them.

use std::any::Any;
use std::ffi::{c_void, CStr};
use std::panic::AssertUnwindSafe;

use pyo3::ffi;
use pyo3::panic::PanicException;
use pyo3::prelude::*;
use pyo3::types::PyType;

/// A getter: the object (and an unused closure) in, a new reference out.
pub(crate) type Getter =
    unsafe extern "C" fn(*mut ffi::PyObject, *mut c_void) -> *mut ffi::PyObject;

/// What a hand-made type consists of. Its instances cannot be created from
/// Python, nor the type subclassed or changed.
pub(crate) struct Spec {
    /// `module.Name`.
    pub name: &'static CStr,
    pub doc: &'static CStr,
    pub basicsize: usize,
    pub dealloc: unsafe extern "C" fn(*mut ffi::PyObject),
    pub getattro: ffi::getattrofunc,
    pub repr: ffi::reprfunc,
    pub hash: ffi::hashfunc,
    pub richcompare: ffi::richcmpfunc,
    /// Read-only properties.
    pub getters: &'static [(&'static CStr, Getter)],
    /// Methods without arguments.
    pub methods: &'static [(&'static CStr, ffi::PyCFunction)],
}

/// Makes the type. Its property and method tables must live as long as the
/// interpreter, so they are leaked: once per interpreter, a few hundred bytes.
pub(crate) fn new_type(py: Python<'_>, spec: &'static Spec) -> PyResult<Py<PyType>> {
    let mut getset: Vec<ffi::PyGetSetDef> = spec
        .getters
        .iter()
        .map(|&(name, get)| ffi::PyGetSetDef {
            name: name.as_ptr(),
            get: Some(get),
            set: None,
            doc: std::ptr::null(),
            closure: std::ptr::null_mut(),
        })
        .collect();
    getset.push(ffi::PyGetSetDef::default());
    let mut methods: Vec<ffi::PyMethodDef> = spec
        .methods
        .iter()
        .map(|&(name, method)| ffi::PyMethodDef {
            ml_name: name.as_ptr(),
            ml_meth: ffi::PyMethodDefPointer {
                PyCFunction: method,
            },
            ml_flags: ffi::METH_NOARGS,
            ml_doc: std::ptr::null(),
        })
        .collect();
    methods.push(ffi::PyMethodDef::zeroed());
    let getset = Box::leak(getset.into_boxed_slice());
    let methods = Box::leak(methods.into_boxed_slice());

    let slot = |slot, pfunc: *mut c_void| ffi::PyType_Slot { slot, pfunc };
    let mut slots = [
        slot(ffi::Py_tp_dealloc, spec.dealloc as *mut c_void),
        slot(ffi::Py_tp_doc, spec.doc.as_ptr() as *mut c_void),
        slot(ffi::Py_tp_getset, getset.as_mut_ptr().cast()),
        slot(ffi::Py_tp_methods, methods.as_mut_ptr().cast()),
        slot(ffi::Py_tp_getattro, spec.getattro as *mut c_void),
        slot(ffi::Py_tp_repr, spec.repr as *mut c_void),
        slot(ffi::Py_tp_hash, spec.hash as *mut c_void),
        slot(ffi::Py_tp_richcompare, spec.richcompare as *mut c_void),
        slot(0, std::ptr::null_mut()),
    ];
    let mut type_spec = ffi::PyType_Spec {
        name: spec.name.as_ptr(),
        basicsize: spec.basicsize as std::ffi::c_int,
        itemsize: 0,
        flags: (ffi::Py_TPFLAGS_DEFAULT
            | ffi::Py_TPFLAGS_DISALLOW_INSTANTIATION
            | ffi::Py_TPFLAGS_IMMUTABLETYPE) as std::ffi::c_uint,
        slots: slots.as_mut_ptr(),
    };
    // SAFETY: the spec and slots are read during the call only; the name,
    // the doc and the tables it keeps pointers to are static or leaked.
    unsafe {
        Ok(
            Bound::from_owned_ptr_or_err(py, ffi::PyType_FromSpec(&mut type_spec))?
                .cast_into::<PyType>()?
                .unbind(),
        )
    }
}

/// A module function called with its arguments in place (`METH_FASTCALL |
/// METH_KEYWORDS`).
pub(crate) struct Function {
    pub name: &'static CStr,
    /// `name(signature)\n--\n\n` then the docstring.
    pub doc: &'static CStr,
    pub call: ffi::PyCFunctionFastWithKeywords,
}

/// Makes the function, for `module`. Its definition must live as long as the
/// interpreter, so it is leaked: once per interpreter.
pub(crate) fn new_function<'py>(
    module: &Bound<'py, PyModule>,
    function: &'static Function,
) -> PyResult<Bound<'py, PyAny>> {
    let def = Box::leak(Box::new(ffi::PyMethodDef {
        ml_name: function.name.as_ptr(),
        ml_meth: ffi::PyMethodDefPointer {
            PyCFunctionFastWithKeywords: function.call,
        },
        ml_flags: ffi::METH_FASTCALL | ffi::METH_KEYWORDS,
        ml_doc: function.doc.as_ptr(),
    }));
    let module_name = module.name()?;
    // SAFETY: the definition is leaked, so it outlives the function; the
    // module and its name are live references.
    unsafe {
        Bound::from_owned_ptr_or_err(
            module.py(),
            ffi::PyCMethod_New(
                def,
                module.as_ptr(),
                module_name.as_ptr(),
                std::ptr::null_mut(),
            ),
        )
    }
}

/// Runs a slot's body with the thread's Python token, and turns an error
/// into a raised exception and a panic into a `PanicException`, returning
/// NULL for both: nothing unwinds into CPython.
pub(crate) fn guarded<F>(body: F) -> *mut ffi::PyObject
where
    F: for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>>,
{
    // SAFETY: CPython calls type slots with the thread attached.
    let py = unsafe { Python::assume_attached() };
    match std::panic::catch_unwind(AssertUnwindSafe(|| body(py))) {
        Ok(Ok(object)) => object.into_ptr(),
        Ok(Err(error)) => {
            error.restore(py);
            std::ptr::null_mut()
        }
        Err(payload) => {
            panic_error(payload).restore(py);
            std::ptr::null_mut()
        }
    }
}

fn panic_error(payload: Box<dyn Any + Send>) -> PyErr {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned());
    PanicException::new_err(message)
}
