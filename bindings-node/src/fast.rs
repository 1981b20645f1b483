//! Hand-rolled napi callbacks for the hot paths. napi-rs spends ~100 ns
//! converting even one argument; these native functions carry their
//! generator (or decoder) as callback data, read at most one argument, and
//! convert nothing else. Conversions and error mapping only, as everywhere.

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::sys;
use napi::Env;
use polyflake::{FirstUse, Layout};

use crate::args::{exact_number, u64_arg};
use crate::error::{throw, wrong_type, OrThrow};

fn check(status: sys::napi_status) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::from_reason(format!("napi call failed ({status})")))
    }
}

/// Creates `name` calling `callback` with `data`, and drops `data` (as a
/// `Box<T>`) when the function is collected.
fn function_with<'env, T>(
    env: &'env Env,
    name: &str,
    callback: sys::napi_callback,
    data: Box<T>,
) -> Result<Unknown<'env>> {
    unsafe extern "C" fn finalize<T>(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
        drop(unsafe { Box::from_raw(data.cast::<T>()) });
    }
    let data = Box::into_raw(data).cast::<c_void>();
    let mut function = ptr::null_mut();
    unsafe {
        let created = sys::napi_create_function(
            env.raw(),
            name.as_ptr().cast(),
            name.len() as isize,
            callback,
            data,
            &mut function,
        );
        if created != sys::Status::napi_ok {
            drop(Box::from_raw(data.cast::<T>()));
            return Err(Error::from_reason("napi_create_function failed"));
        }
        check(sys::napi_add_finalizer(
            env.raw(),
            function,
            data,
            Some(finalize::<T>),
            ptr::null_mut(),
            ptr::null_mut(),
        ))?;
        Ok(Unknown::from_raw_unchecked(env.raw(), function))
    }
}

/// Runs `f`; a Rust panic becomes a thrown JS `Error` with code `PANIC`.
unsafe fn guarded(
    env: sys::napi_env,
    f: impl FnOnce(&Env) -> Result<sys::napi_value>,
) -> sys::napi_value {
    let env = Env::from_raw(env);
    match catch_unwind(AssertUnwindSafe(|| f(&env))) {
        Ok(Ok(value)) => value,
        Ok(Err(e)) => {
            if e.status != Status::PendingException {
                let _ = env.throw_error(&e.reason, Some(e.status.as_ref()));
            }
            ptr::null_mut()
        }
        Err(_) => {
            let _ = env.throw_error(
                "polyflake: a Rust panic was caught; please report it",
                Some("PANIC"),
            );
            ptr::null_mut()
        }
    }
}

struct Bound {
    generator: Arc<FirstUse>,
    as_string: bool,
}

unsafe extern "C" fn next_id(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe {
        guarded(env, |e| {
            let mut data = ptr::null_mut();
            check(sys::napi_get_cb_info(
                env,
                info,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                &mut data,
            ))?;
            let bound = &*data.cast::<Bound>();
            let id = bound
                .generator
                .get()
                .and_then(polyflake::Generator::next_id)
                .map_err(|err| throw(e, err))?;
            let mut out = ptr::null_mut();
            if bound.as_string {
                let text = polyflake::Encoding::Decimal.encode(id);
                let bytes = text.as_bytes();
                check(sys::napi_create_string_latin1(
                    env,
                    bytes.as_ptr().cast(),
                    bytes.len() as isize,
                    &mut out,
                ))?;
            } else {
                check(sys::napi_create_bigint_uint64(env, id, &mut out))?;
            }
            Ok(out)
        })
    }
}

pub(crate) fn bind_next_id(
    env: &Env,
    generator: Arc<FirstUse>,
    as_string: bool,
) -> Result<Unknown<'_>> {
    let name = if as_string { "nextIdString" } else { "nextId" };
    function_with(
        env,
        name,
        Some(next_id),
        Box::new(Bound {
            generator,
            as_string,
        }),
    )
}

/// A decoder keeps a strong reference to the caller's `Float64Array`, never
/// a pointer into it: the array's memory is looked up on every call, so an
/// array whose buffer was transferred (detached) or is too short is refused
/// with an error, never written.
struct Decoder {
    layout: Layout,
    env: sys::napi_env,
    out: sys::napi_ref,
}

impl Drop for Decoder {
    fn drop(&mut self) {
        // Runs in the function's finalizer, on the JS thread of `env`.
        unsafe { sys::napi_delete_reference(self.env, self.out) };
    }
}

/// The writable `f64`s of the typed array `value`, if it is a live
/// `Float64Array` of at least `needed` elements.
unsafe fn float64s<'a>(env: &Env, value: sys::napi_value, needed: usize) -> Result<&'a mut [f64]> {
    let mut kind = 0;
    let mut length = 0usize;
    let mut data = ptr::null_mut();
    let mut buffer = ptr::null_mut();
    let mut offset = 0usize;
    let status = unsafe {
        sys::napi_get_typedarray_info(
            env.raw(),
            value,
            &mut kind,
            &mut length,
            &mut data,
            &mut buffer,
            &mut offset,
        )
    };
    if status != sys::Status::napi_ok || kind != sys::TypedarrayType::float64_array {
        return Err(wrong_type(env, "out", "a Float64Array"));
    }
    if data.is_null() || length < needed {
        return Err(throw(
            env,
            polyflake::Error::invalid(polyflake::ArgumentKind::Usage, format!(
                "the decode buffer holds {length} numbers (detached, or too short); it needs {needed}"
            )),
        ));
    }
    Ok(unsafe { std::slice::from_raw_parts_mut(data.cast::<f64>(), length) })
}

unsafe extern "C" fn decode(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    unsafe {
        guarded(env, |e| {
            let mut argc = 1usize;
            let mut arg = ptr::null_mut();
            let mut data = ptr::null_mut();
            check(sys::napi_get_cb_info(
                env,
                info,
                &mut argc,
                &mut arg,
                ptr::null_mut(),
                &mut data,
            ))?;
            let decoder = &*data.cast::<Decoder>();
            let id = u64_arg(e, "id", &Unknown::from_raw_unchecked(env, arg))?;
            let mut array = ptr::null_mut();
            check(sys::napi_get_reference_value(env, decoder.out, &mut array))?;
            // Looked up after the argument's conversion, which may run JS.
            let out = float64s(e, array, 2 + decoder.layout.node_fields().len())?;
            decode_into(e, &decoder.layout, id, out)?;
            let mut undefined = ptr::null_mut();
            check(sys::napi_get_undefined(env, &mut undefined))?;
            Ok(undefined)
        })
    }
}

pub(crate) fn bind_decode<'env>(
    env: &'env Env,
    layout: Layout,
    out: Unknown<'_>,
) -> Result<Unknown<'env>> {
    unsafe { float64s(env, out.raw(), 2 + layout.node_fields().len())? };
    let mut reference = ptr::null_mut();
    check(unsafe { sys::napi_create_reference(env.raw(), out.raw(), 1, &mut reference) })?;
    function_with(
        env,
        "decode",
        Some(decode),
        Box::new(Decoder {
            layout,
            env: env.raw(),
            out: reference,
        }),
    )
}

/// Writes one decoded ID into `out`.
pub(crate) fn decode_into(
    env: &Env,
    layout: &polyflake::Layout,
    id: u64,
    out: &mut [f64],
) -> Result<()> {
    let parts = layout.decode(id).or_throw(env)?;
    out[0] = exact_number(env, "timestampMs", i128::from(parts.timestamp_ms))?;
    out[1] = exact_number(env, "sequence", i128::from(parts.sequence))?;
    for (slot, (name, value)) in out[2..].iter_mut().zip(parts.fields(layout)) {
        *slot = exact_number(env, name, i128::from(value))?;
    }
    Ok(())
}
