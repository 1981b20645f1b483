//! format_id / parse_id: wraps `polyflake::encoding`.

use polyflake::Encoding;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyString};

use crate::args::u64_arg;
use crate::error::{wrong_type, IntoPyResult};

static NAMES: PyOnceLock<Vec<Py<PyString>>> = PyOnceLock::new();

/// An encoding name. String literals in Python source are interned, so the
/// usual call is matched by identity; anything else is read as text (which
/// costs a copy under the stable ABI).
fn encoding_arg(name: &Bound<'_, PyString>) -> PyResult<Encoding> {
    let py = name.py();
    let names = NAMES.get_or_init(py, || {
        Encoding::ALL
            .iter()
            .map(|e| PyString::intern(py, e.name()).unbind())
            .collect()
    });
    if let Some(i) = names.iter().position(|n| n.as_ptr() == name.as_ptr()) {
        return Ok(Encoding::ALL[i]);
    }
    Encoding::from_name(&name.to_cow()?).py_err()
}

/// `str` for text encodings, `bytes` for `"bytes"`.
#[pyfunction]
#[pyo3(signature = (id, encoding = None))]
fn format_id<'py>(
    py: Python<'py>,
    id: &Bound<'py, PyAny>,
    encoding: Option<&Bound<'py, PyString>>,
) -> PyResult<Bound<'py, PyAny>> {
    let id = u64_arg("id", id)?;
    let encoding = encoding.map_or(Ok(Encoding::Decimal), encoding_arg)?;
    let encoded = encoding.encode(id);
    Ok(match encoded.as_str() {
        Some(text) => PyString::new(py, text).into_any(),
        None => PyBytes::new(py, encoded.as_bytes()).into_any(),
    })
}

/// Parses `str` (or `bytes`) text; `"bytes"` takes exactly 8 bytes.
#[pyfunction]
#[pyo3(signature = (text, encoding = None))]
fn parse_id(text: &Bound<'_, PyAny>, encoding: Option<&Bound<'_, PyString>>) -> PyResult<u64> {
    let encoding = encoding.map_or(Ok(Encoding::Decimal), encoding_arg)?;
    // Bytes are bytes, text is text: never a str's UTF-8 read as raw bytes.
    match (
        text.cast::<PyString>(),
        text.cast::<PyBytes>(),
        encoding == Encoding::Bytes,
    ) {
        (Ok(s), _, false) => encoding.parse(s.to_cow()?.as_bytes()).py_err(),
        (_, Ok(b), true) => encoding.parse(b.as_bytes()).py_err(),
        (_, Ok(b), false) => encoding.parse(b.as_bytes()).py_err(),
        (Ok(_), _, true) => Err(wrong_type(
            "text",
            "bytes (8 of them) for encoding 'bytes'",
            text,
        )),
        _ => Err(wrong_type("text", "a str or bytes", text)),
    }
}

/// Whether `dumps`/`loads` treat a JSON key as naming an ID (or a list of IDs).
#[pyfunction]
fn is_id_key(key: &str) -> bool {
    polyflake::is_id_key(key)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(is_id_key, m)?)?;
    m.add_function(wrap_pyfunction!(format_id, m)?)?;
    m.add_function(wrap_pyfunction!(parse_id, m)?)?;
    m.add(
        "ENCODINGS",
        Encoding::ALL.iter().map(|e| e.name()).collect::<Vec<_>>(),
    )?;
    Ok(())
}
