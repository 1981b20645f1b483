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
use polyflake::{Generator, Layout};

use crate::args::u64_arg;
use crate::error::throw;
use crate::parts::decode_into;

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
    generator: Arc<Generator>,
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
            let id = bound.generator.next_id().map_err(|err| throw(e, err))?;
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
    generator: Arc<Generator>,
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

struct Decoder {
    layout: Layout,
    out: Float64Array,
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
            let decoder = &mut *data.cast::<Decoder>();
            let id = u64_arg(e, "id", &Unknown::from_raw_unchecked(env, arg))?;
            // polyflake.js owns the array, never detaches it, and runs nothing while we write.
            decode_into(e, &decoder.layout, id, decoder.out.as_mut())?;
            let mut undefined = ptr::null_mut();
            check(sys::napi_get_undefined(env, &mut undefined))?;
            Ok(undefined)
        })
    }
}

pub(crate) fn bind_decode(env: &Env, layout: Layout, out: Float64Array) -> Result<Unknown<'_>> {
    function_with(
        env,
        "decode",
        Some(decode),
        Box::new(Decoder { layout, out }),
    )
}
