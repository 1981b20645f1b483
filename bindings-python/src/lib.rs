//! `polyflake._polyflake`: the native half of the Python package. One file per
//! core module, conversions and error mapping only (docs/adr/0001).

use pyo3::prelude::*;

mod args;
mod check;
mod clock;
mod counts;
mod encoding;
mod error;
mod fork;
mod generator;
mod layout;
mod parts;
mod raw_type;
mod registry;
mod request;
mod service;

// Every wrapped type is `Sync` (the core generator is lock-free), so the
// module is safe on free-threaded Python.
#[pymodule(gil_used = false)]
fn _polyflake(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<layout::PyLayout>()?;
    m.add_class::<clock::PyManualClock>()?;
    parts::register(m)?;
    encoding::register(m)?;
    generator::register(m)?;
    counts::register(m)?;
    service::register(m)?;
    m.add_function(wrap_pyfunction!(error::_error_names, m)?)?;
    #[cfg(feature = "test-hooks")]
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    Ok(())
}

/// A Rust panic, to prove it surfaces as an exception (test builds only).
#[cfg(feature = "test-hooks")]
#[pyfunction]
fn _panic_for_tests() {
    panic!("a deliberate panic");
}
