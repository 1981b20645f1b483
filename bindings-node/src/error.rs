//! The one mapping of core errors to JS errors: `RangeError` for input that
//! cannot be an ID, `TypeError` for a mistake in the call, `Error` for clock
//! and lease faults; `err.code` is the contract's stable code.

use napi::{sys, Env, Error, Status};
use napi_derive::napi;

/// A detail an error carries as a property.
enum Detail {
    Text(String),
    /// A 64-bit value (an ID, a field): always a bigint.
    Big(u64),
    /// Milliseconds, counts: a number while it is a safe integer.
    Ms(i128),
    Bool(bool),
}

/// The error's fields, camelCase, as Python's exceptions carry them. By
/// variant: a new one does not compile here until it is mapped.
fn details(err: &polyflake::Error) -> Vec<(&'static str, Detail)> {
    use polyflake::Error as E;
    match err {
        E::FieldOutOfRange { field, value, max } => vec![
            (
                "field",
                Detail::Text(polyflake::id::layout::camel_case(field)),
            ),
            ("value", Detail::Big(*value)),
            ("max", Detail::Big(*max)),
        ],
        E::TimestampBeforeEpoch {
            timestamp_ms,
            epoch_ms,
        } => vec![
            ("timestampMs", Detail::Ms((*timestamp_ms).into())),
            ("epochMs", Detail::Ms((*epoch_ms).into())),
        ],
        E::TimestampOverflow {
            timestamp_ms,
            max_timestamp_ms,
        } => vec![
            ("timestampMs", Detail::Ms((*timestamp_ms).into())),
            ("maxTimestampMs", Detail::Ms((*max_timestamp_ms).into())),
        ],
        E::InvalidEncoding { encoding, .. } => {
            vec![("encoding", Detail::Text((*encoding).to_owned()))]
        }
        E::StateIo { path, os_error, .. } => {
            let mut details = vec![("path", Detail::Text(path.clone()))];
            if let Some(errno) = os_error {
                details.push(("errno", Detail::Ms((*errno).into())));
            }
            details
        }
        E::ClockMovedBackwards {
            behind_ms,
            allowed_ms,
        } => vec![
            ("behindMs", Detail::Ms((*behind_ms).into())),
            ("allowedMs", Detail::Ms((*allowed_ms).into())),
        ],
        E::LeaseLost { reason, .. } => vec![
            ("reason", Detail::Text(reason.name().to_owned())),
            ("retryable", Detail::Bool(reason.retryable())),
        ],
        E::InvalidArgument { kind, .. } => vec![("kind", Detail::Text(kind.name().to_owned()))],
        E::InvalidLayout(_) => Vec::new(),
    }
}

/// Throws `err` as the JS error of its code, with its details as properties
/// (`field`, `value`, `max`, `behindMs` …), and returns the pending-exception
/// marker that napi-rs passes through without throwing again.
pub(crate) fn throw(env: &Env, err: polyflake::Error) -> Error {
    match build(env, &err) {
        Ok(error) => {
            let status = unsafe { sys::napi_throw(env.raw(), error) };
            if status == sys::Status::napi_ok {
                return Error::from_status(Status::PendingException);
            }
            Error::new(Status::GenericFailure, err.to_string())
        }
        Err(e) => e,
    }
}

/// `err` as the JS error of its code, for a promise to reject with (an
/// async task's result is not thrown, so [`throw`] cannot carry it).
pub(crate) fn rejection(env: &Env, err: polyflake::Error) -> Error {
    match build(env, &err) {
        // SAFETY: `build` returned a live value of this env.
        Ok(error) => Error::from(unsafe { napi::Unknown::from_raw_unchecked(env.raw(), error) }),
        Err(e) => e,
    }
}

/// The core's message, naming a field as a JS caller spells it.
fn message(err: &polyflake::Error) -> String {
    match err {
        polyflake::Error::FieldOutOfRange { field, value, max } => {
            polyflake::Error::FieldOutOfRange {
                field: polyflake::id::layout::camel_case(field),
                value: *value,
                max: *max,
            }
            .to_string()
        }
        other => other.to_string(),
    }
}

fn build(env: &Env, err: &polyflake::Error) -> napi::Result<sys::napi_value> {
    let raw = env.raw();
    let string = |text: &str| -> napi::Result<sys::napi_value> {
        let mut value = std::ptr::null_mut();
        check(unsafe {
            sys::napi_create_string_utf8(raw, text.as_ptr().cast(), text.len() as isize, &mut value)
        })?;
        Ok(value)
    };
    let (code, message) = (string(err.code())?, string(&message(err))?);
    let mut error = std::ptr::null_mut();
    check(unsafe {
        if !err.is_input_error() {
            sys::napi_create_error(raw, code, message, &mut error)
        } else if matches!(err, polyflake::Error::InvalidArgument { .. }) {
            sys::napi_create_type_error(raw, code, message, &mut error)
        } else {
            sys::napi_create_range_error(raw, code, message, &mut error)
        }
    })?;
    for (name, detail) in details(err) {
        let value = match detail {
            Detail::Text(text) => string(&text)?,
            Detail::Big(n) => {
                let mut value = std::ptr::null_mut();
                check(unsafe { sys::napi_create_bigint_uint64(raw, n, &mut value) })?;
                value
            }
            // Milliseconds are numbers in JS while they are safe integers.
            Detail::Ms(ms) => {
                let mut value = std::ptr::null_mut();
                check(unsafe {
                    if ms.unsigned_abs() < 1u128 << 53 {
                        sys::napi_create_double(raw, ms as f64, &mut value)
                    } else if let Ok(ms) = i64::try_from(ms) {
                        sys::napi_create_bigint_int64(raw, ms, &mut value)
                    } else {
                        sys::napi_create_bigint_uint64(raw, ms as u64, &mut value)
                    }
                })?;
                value
            }
            Detail::Bool(b) => {
                let mut value = std::ptr::null_mut();
                check(unsafe { sys::napi_get_boolean(raw, b, &mut value) })?;
                value
            }
        };
        let key = std::ffi::CString::new(name).expect("property names have no NUL");
        check(unsafe { sys::napi_set_named_property(raw, error, key.as_ptr(), value) })?;
    }
    Ok(error)
}

fn check(status: sys::napi_status) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(
            Status::GenericFailure,
            format!("napi call failed ({status})"),
        ))
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

/// The contract's names of the lease-lost reasons and argument kinds, from
/// the core: the typings' unions are checked against them.
#[napi(js_name = "_errorNames")]
pub fn error_names() -> Vec<Vec<&'static str>> {
    vec![
        polyflake::LeaseLostReason::ALL.map(|r| r.name()).to_vec(),
        polyflake::ArgumentKind::ALL.map(|k| k.name()).to_vec(),
    ]
}
