//! Strict argument conversion. 64-bit values arrive as `bigint`, decimal
//! strings or safe integers; anything that could lose precision is refused.

use napi::bindgen_prelude::*;
use napi::{Env, JsDate, ValueType};

use crate::error::{out_of_range, wrong_type, OrThrow};

const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

fn bigint_words(value: &Unknown<'_>) -> Result<(bool, Vec<u64>)> {
    let big: BigInt = unsafe { value.cast()? };
    Ok((big.sign_bit, big.words))
}

/// An unsigned 64-bit argument (an ID, a node field, a sequence).
#[inline]
pub(crate) fn u64_arg(env: &Env, name: &str, value: &Unknown<'_>) -> Result<u64> {
    // The common case in one napi call: a bigint that fits. Anything else
    // (other types, negative or too wide) takes the checked path below.
    let (mut result, mut lossless) = (0u64, false);
    let status = unsafe {
        napi::sys::napi_get_value_bigint_uint64(env.raw(), value.raw(), &mut result, &mut lossless)
    };
    if status == napi::sys::Status::napi_ok && lossless {
        return Ok(result);
    }
    u64_arg_checked(env, name, value)
}

#[cold]
fn u64_arg_checked(env: &Env, name: &str, value: &Unknown<'_>) -> Result<u64> {
    match value.get_type()? {
        ValueType::BigInt => {
            let (negative, words) = bigint_words(value)?;
            let low = words.first().copied().unwrap_or(0);
            let fits = words.iter().skip(1).all(|&w| w == 0);
            if negative && (low != 0 || !fits) {
                return Err(out_of_range(env, name, "must be >= 0"));
            }
            if !fits {
                return Err(out_of_range(env, name, "must be < 2n ** 64n"));
            }
            Ok(low)
        }
        ValueType::Number => {
            let n: f64 = unsafe { value.cast()? };
            if !n.is_finite() || n.fract() != 0.0 {
                return Err(wrong_type(
                    env,
                    name,
                    "an integer (a bigint, a decimal string or a safe integer)",
                ));
            }
            if n < 0.0 {
                return Err(out_of_range(env, name, "must be >= 0"));
            }
            if n > MAX_SAFE {
                return Err(out_of_range(
                    env,
                    name,
                    "is above Number.MAX_SAFE_INTEGER: pass a bigint or a string",
                ));
            }
            Ok(n as u64)
        }
        ValueType::String => {
            let text: String = unsafe { value.cast()? };
            polyflake::Encoding::Decimal
                .parse(&text)
                .map_err(|e| polyflake::Error::InvalidEncoding {
                    encoding: polyflake::Encoding::Decimal.name(),
                    reason: format!("{name}: {e}"),
                })
                .or_throw(env)
        }
        _ => Err(wrong_type(
            env,
            name,
            "a bigint, a decimal string or a safe integer",
        )),
    }
}

/// A Unix timestamp in milliseconds: a safe integer, a bigint, a decimal
/// string or a `Date`.
pub(crate) fn timestamp_arg(env: &Env, name: &str, value: &Unknown<'_>) -> Result<i64> {
    match value.get_type()? {
        ValueType::Number => {
            let n: f64 = unsafe { value.cast()? };
            if !n.is_finite() || n.fract() != 0.0 {
                return Err(wrong_type(env, name, "an integer number of milliseconds"));
            }
            if n.abs() > MAX_SAFE {
                return Err(out_of_range(env, name, "is beyond Number.MAX_SAFE_INTEGER"));
            }
            Ok(n as i64)
        }
        ValueType::BigInt => {
            let (negative, words) = bigint_words(value)?;
            let low = words.first().copied().unwrap_or(0);
            // i64 runs from -2^63 to 2^63 - 1: the negative side holds one more.
            let limit = if negative {
                1u64 << 63
            } else {
                i64::MAX as u64
            };
            if words.iter().skip(1).any(|&w| w != 0) || low > limit {
                return Err(out_of_range(env, name, "does not fit 64 bits"));
            }
            Ok(if negative {
                (low as i64).wrapping_neg()
            } else {
                low as i64
            })
        }
        ValueType::String => {
            let text: String = unsafe { value.cast()? };
            text.parse::<i64>()
                .map_err(|_| wrong_type(env, name, "milliseconds (a decimal string of digits)"))
        }
        ValueType::Object => {
            let date: JsDate<'_> = unsafe { value.cast() }
                .map_err(|_| wrong_type(env, name, "a number, bigint, string or Date"))?;
            let ms = date
                .value_of()
                .map_err(|_| wrong_type(env, name, "a number, bigint, string or Date"))?;
            if !ms.is_finite() {
                return Err(out_of_range(env, name, "is an invalid Date"));
            }
            Ok(ms as i64)
        }
        _ => Err(wrong_type(env, name, "a number, bigint, string or Date")),
    }
}

/// A string argument; anything else is `ERR_INVALID_ARG_TYPE` naming it,
/// never napi's own conversion error.
pub(crate) fn text_arg(
    env: &Env,
    name: &str,
    value: &Unknown<'_>,
    expected: &str,
) -> Result<String> {
    if value.get_type()? != ValueType::String {
        return Err(wrong_type(env, name, expected));
    }
    unsafe { value.cast::<String>() }
}

/// An object argument (not null, not an array of the wrong kind: any
/// object); anything else is `ERR_INVALID_ARG_TYPE` naming it, never napi's
/// own conversion error.
pub(crate) fn object_arg<'env>(
    env: &Env,
    name: &str,
    value: Unknown<'env>,
) -> Result<Object<'env>> {
    if value.get_type()? != ValueType::Object {
        return Err(wrong_type(env, name, "an object"));
    }
    value.coerce_to_object()
}

/// An optional object argument: `undefined` and `null` are `None`.
pub(crate) fn optional_object_arg<'env>(
    env: &Env,
    name: &str,
    value: Option<Unknown<'env>>,
) -> Result<Option<Object<'env>>> {
    match value {
        Some(value) if !matches!(value.get_type()?, ValueType::Undefined | ValueType::Null) => {
            object_arg(env, name, value).map(Some)
        }
        _ => Ok(None),
    }
}

/// A small count or width.
pub(crate) fn small_arg(env: &Env, name: &str, value: &Unknown<'_>, max: u64) -> Result<u64> {
    let v = u64_arg(env, name, value)?;
    if v > max {
        return Err(out_of_range(env, name, &format!("must be <= {max}")));
    }
    Ok(v)
}

/// `datacenter_id` -> `datacenterId` (the core's spelling).
pub(crate) fn camel(name: &str) -> String {
    polyflake::id::layout::camel_case(name)
}

/// A JS number that holds `value` exactly, or a RangeError.
pub(crate) fn exact_number(env: &Env, name: &str, value: i128) -> Result<f64> {
    if value.unsigned_abs() > MAX_SAFE as u128 {
        return Err(out_of_range(env, name, "exceeds Number.MAX_SAFE_INTEGER"));
    }
    Ok(value as f64)
}

/// The options an options object gives, in its order: an option set to
/// `undefined` is an option not given.
pub(crate) fn given_options<'env>(options: &Object<'env>) -> Result<Vec<(String, Unknown<'env>)>> {
    let mut given = Vec::new();
    for key in Object::keys(options)? {
        let Some(value) = options.get::<Unknown<'env>>(&key)? else {
            continue;
        };
        if value.get_type()? != ValueType::Undefined {
            given.push((key, value));
        }
    }
    Ok(given)
}
