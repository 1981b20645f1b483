//! What every constructor takes besides the identity, as the core's
//! `GeneratorRequest` (core `generator/request.rs`): the clock, the backwards
//! policy and the check; the core's defaults where not given.

use polyflake::{BackwardsPolicy, GeneratorRequest, IdentityRequest};
use pyo3::prelude::*;

use crate::args::u64_arg;
use crate::check::check_arg;
use crate::clock::clock_arg;
use crate::error::IntoPyResult;
use crate::layout::PyLayout;

fn policy_arg(name: &str, max_ms: u64) -> PyResult<BackwardsPolicy> {
    BackwardsPolicy::parse(name, max_ms, "on_clock_backwards").py_err()
}

/// The clock, the backwards policy and the check, as every constructor takes
/// them, with the identity: the core's request (its defaults where not given).
pub(crate) fn request(
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
