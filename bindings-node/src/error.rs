//! The one mapping of core errors to JS errors: `RangeError` for input that
//! cannot be an ID, `TypeError` for a mistake in the call, `Error` for clock
//! and lease faults; `err.code` is the contract's stable code.

use napi::{Env, Error, Status};

/// Throws `err` as the JS error of its code and returns the pending-exception
/// marker that napi-rs passes through without throwing again.
pub(crate) fn throw(env: &Env, err: polyflake::Error) -> Error {
    let message = err.to_string();
    let code = err.code();
    let thrown = if err.is_input_error() {
        if code == "INVALID_ARGUMENT" {
            env.throw_type_error(&message, Some(code))
        } else {
            env.throw_range_error(&message, Some(code))
        }
    } else {
        env.throw_error(&message, Some(code))
    };
    match thrown {
        Ok(()) => Error::from_status(Status::PendingException),
        Err(e) => e,
    }
}

/// A value of the wrong JS type for `name` (`ERR_INVALID_ARG_TYPE`, as Node's own).
pub(crate) fn wrong_type(env: &Env, name: &str, expected: &str) -> Error {
    pending(env.throw_type_error(
        &format!("{name} must be {expected}"),
        Some("ERR_INVALID_ARG_TYPE"),
    ))
}

/// A value of the right type outside what it may be (`ERR_OUT_OF_RANGE`).
pub(crate) fn out_of_range(env: &Env, name: &str, why: &str) -> Error {
    pending(env.throw_range_error(&format!("{name} {why}"), Some("ERR_OUT_OF_RANGE")))
}

fn pending(thrown: napi::Result<()>) -> Error {
    match thrown {
        Ok(()) => Error::from_status(Status::PendingException),
        Err(e) => e,
    }
}

/// `?` on core results.
pub(crate) trait OrThrow<T> {
    fn or_throw(self, env: &Env) -> napi::Result<T>;
}

impl<T> OrThrow<T> for polyflake::Result<T> {
    fn or_throw(self, env: &Env) -> napi::Result<T> {
        self.map_err(|e| throw(env, e))
    }
}
