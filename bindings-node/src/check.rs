//! `check` (a JS function over the node values) as the core's `NodeCheck`.
//! The core asks it on the caller's thread (when the identity is resolved,
//! and when `nextId` takes up a new lease), which for Node is the JS thread
//! that made the generator; anywhere else it refuses rather than crash.

use std::ptr::null_mut;
use std::thread::{self, ThreadId};

use napi::bindgen_prelude::*;
use napi::{sys, Env, ValueType};
use polyflake::{ArgumentKind, Error, NodeCheck};

use crate::error::wrong_type;

/// A reference to the JS function, released on its own thread.
struct FunctionRef {
    env: sys::napi_env,
    reference: sys::napi_ref,
    thread: ThreadId,
}

// SAFETY: the raw handles are used only on `thread` (checked on every use);
// elsewhere the reference is leaked rather than touched.
unsafe impl Send for FunctionRef {}
unsafe impl Sync for FunctionRef {}

impl Drop for FunctionRef {
    fn drop(&mut self) {
        if thread::current().id() == self.thread {
            unsafe { sys::napi_delete_reference(self.env, self.reference) };
        }
    }
}

fn ok(status: sys::napi_status) -> std::result::Result<(), Error> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::invalid(
            ArgumentKind::NodeCheck,
            format!("check: N-API status {status}"),
        ))
    }
}

impl FunctionRef {
    fn call(&self, nodes: &[u64]) -> polyflake::Result<bool> {
        if thread::current().id() != self.thread {
            return Err(Error::invalid(
                ArgumentKind::Usage,
                "check is a JS function: it runs only on the thread that made the generator".into(),
            ));
        }
        let env = self.env;
        unsafe {
            let mut function = null_mut();
            ok(sys::napi_get_reference_value(
                env,
                self.reference,
                &mut function,
            ))?;
            let mut array = null_mut();
            ok(sys::napi_create_array_with_length(
                env,
                nodes.len(),
                &mut array,
            ))?;
            for (i, &n) in nodes.iter().enumerate() {
                let mut value = null_mut();
                if n < 1 << 53 {
                    ok(sys::napi_create_double(env, n as f64, &mut value))?;
                } else {
                    ok(sys::napi_create_bigint_uint64(env, n, &mut value))?;
                }
                ok(sys::napi_set_element(env, array, i as u32, value))?;
            }
            let mut this = null_mut();
            ok(sys::napi_get_undefined(env, &mut this))?;
            let mut result = null_mut();
            if sys::napi_call_function(env, this, function, 1, &array, &mut result)
                != sys::Status::napi_ok
            {
                return Err(Error::invalid(
                    ArgumentKind::NodeCheck,
                    format!("check threw {}", take_exception(env)),
                ));
            }
            let mut kind = 0;
            ok(sys::napi_typeof(env, result, &mut kind))?;
            if kind != sys::ValueType::napi_boolean {
                return Err(Error::invalid(
                    ArgumentKind::NodeCheck,
                    "check must return a boolean".into(),
                ));
            }
            let mut admitted = false;
            ok(sys::napi_get_value_bool(env, result, &mut admitted))?;
            Ok(admitted)
        }
    }
}

/// Clears the pending exception and returns it as text.
unsafe fn take_exception(env: sys::napi_env) -> String {
    let mut exception = null_mut();
    if sys::napi_get_and_clear_last_exception(env, &mut exception) != sys::Status::napi_ok {
        return "an exception".into();
    }
    let mut text = null_mut();
    if sys::napi_coerce_to_string(env, exception, &mut text) != sys::Status::napi_ok {
        // Coercing may itself throw (a Symbol): clear that too.
        let mut again = null_mut();
        sys::napi_get_and_clear_last_exception(env, &mut again);
        return "an exception".into();
    }
    let mut len = 0;
    sys::napi_get_value_string_utf8(env, text, null_mut(), 0, &mut len);
    let mut buf = vec![0u8; len + 1];
    sys::napi_get_value_string_utf8(env, text, buf.as_mut_ptr().cast(), len + 1, &mut len);
    String::from_utf8_lossy(&buf[..len]).into_owned()
}

/// The `check` option: a function `(nodes: number[]) => boolean`.
pub(crate) fn check_arg(env: &Env, value: &Unknown<'_>) -> Result<NodeCheck> {
    if value.get_type()? != ValueType::Function {
        return Err(wrong_type(
            env,
            "check",
            "a function (nodes: number[]) => boolean",
        ));
    }
    let mut reference = null_mut();
    let status = unsafe { sys::napi_create_reference(env.raw(), value.raw(), 1, &mut reference) };
    if status != sys::Status::napi_ok {
        return Err(napi::Error::from_reason(
            "check: cannot keep a reference to the function",
        ));
    }
    let function = FunctionRef {
        env: env.raw(),
        reference,
        thread: thread::current().id(),
    };
    Ok(NodeCheck::fallible(move |nodes| function.call(nodes)))
}
