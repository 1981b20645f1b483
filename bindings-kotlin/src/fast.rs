//! The direct-mapped fast paths (ADR 0004): `polyflake_next_id` and
//! `polyflake_next_ids` through JNA, `JniPath.nextId` through JNI, and the
//! handles they take. When one cannot answer it says so, and the generated
//! call that follows reports the error it met (`FfiGenerator::*_after_fast_path`).

use std::cell::Cell;
use std::sync::Arc;

use polyflake::Generator;

thread_local! {
    /// The error a fast path met on this thread, which the slow path that
    /// follows reports instead of asking the core again: a second attempt
    /// would count a refusal twice in the stats, and could answer otherwise.
    static FAST_PATH_ERROR: Cell<Option<polyflake::Error>> = const { Cell::new(None) };
}

/// The error the fast path met on this thread, if any, taken.
pub(crate) fn take_error() -> Option<polyflake::Error> {
    FAST_PATH_ERROR.take()
}

/// `polyflake_next_id`'s answer when it cannot issue an ID (an error, or a
/// panic): the caller then asks `FfiGenerator::next_id_after_fast_path`,
/// which reports the typed error or issues the next ID. All ones is never a valid ID of a
/// layout with an unused bit; in the others it is the layout's very last ID,
/// which is then skipped, never issued twice.
pub const NO_ID: i64 = -1;

/// The direct-mapped fast path: one JNA call, no allocation.
///
/// # Safety
/// `handle` must come from `fast_handle` and not yet be released.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn polyflake_next_id(handle: u64) -> i64 {
    let generator = unsafe { &*(handle as usize as *const Generator) };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| generator.next_id())) {
        Ok(Ok(id)) if id as i64 != NO_ID => id as i64,
        Ok(Err(error)) => {
            FAST_PATH_ERROR.set(Some(error));
            NO_ID
        }
        _ => NO_ID,
    }
}

/// `dev.polyflake.JniPath.nextId(long)`: the same call as
/// `polyflake_next_id`, entered through JNI, which costs the JVM a fraction of
/// JNA's direct mapping (ADR 0004). Bound by `polyflake_register_jni`.
///
/// # Safety
/// As for `polyflake_next_id`.
unsafe extern "system" fn jni_next_id(
    _env: *mut jni_sys::JNIEnv,
    _class: jni_sys::jclass,
    handle: jni_sys::jlong,
) -> jni_sys::jlong {
    unsafe { polyflake_next_id(handle as u64) }
}

/// Binds `JniPath`'s native methods to this library's functions; called once
/// through JNA, which passes the calling thread's `JNIEnv`. Returns 0, or
/// -1 when the class or the binding is refused (the caller keeps JNA).
///
/// # Safety
/// `env` is the calling thread's live `JNIEnv`, as JNA passes it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn polyflake_register_jni(env: *mut jni_sys::JNIEnv) -> i32 {
    let next_id = jni_next_id as *mut std::ffi::c_void;
    unsafe { register_natives(env, c"dev/polyflake/JniPath", c"nextId", c"(J)J", next_id) }
}

/// Binds one static native method of `class` to `function`.
///
/// # Safety
/// `env` as for `polyflake_register_jni`; `function` has the JNI signature
/// `signature` describes.
unsafe fn register_natives(
    env: *mut jni_sys::JNIEnv,
    class: &std::ffi::CStr,
    name: &std::ffi::CStr,
    signature: &std::ffi::CStr,
    function: *mut std::ffi::c_void,
) -> i32 {
    if env.is_null() || unsafe { (*env).is_null() } {
        return -1;
    }
    let table = unsafe { &**env };
    let class = unsafe { (table.v1_1.FindClass)(env, class.as_ptr()) };
    if class.is_null() {
        unsafe { (table.v1_1.ExceptionClear)(env) };
        return -1;
    }
    let methods = [jni_sys::JNINativeMethod {
        name: name.as_ptr().cast_mut(),
        signature: signature.as_ptr().cast_mut(),
        fnPtr: function,
    }];
    let rc = unsafe { (table.v1_1.RegisterNatives)(env, class, methods.as_ptr(), 1) };
    unsafe { (table.v1_1.DeleteLocalRef)(env, class) };
    if rc != 0 {
        unsafe { (table.v1_1.ExceptionClear)(env) };
        return -1;
    }
    0
}

/// Fills `out[..n]` with increasing IDs; returns `n`, or -1 when it cannot
/// (the caller then asks `FfiGenerator::next_ids` for the typed error).
///
/// # Safety
/// `handle` as for `polyflake_next_id`; `out` points to at least `n` longs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn polyflake_next_ids(handle: u64, out: *mut i64, n: i32) -> i32 {
    let generator = unsafe { &*(handle as usize as *const Generator) };
    if out.is_null() || n < 0 {
        return -1;
    }
    let ids = unsafe { std::slice::from_raw_parts_mut(out.cast::<u64>(), n as usize) };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| generator.fill(ids))) {
        Ok(Ok(())) => n,
        Ok(Err(error)) => {
            FAST_PATH_ERROR.set(Some(error));
            -1
        }
        _ => -1,
    }
}

/// Gives back a handle from `fast_handle`.
///
/// # Safety
/// `handle` must come from `fast_handle`, released once, after its last use.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn polyflake_release(handle: u64) {
    drop(unsafe { Arc::from_raw(handle as usize as *const Generator) });
}

/// A trivial direct-mapped call: the floor the benchmark compares with
/// (test builds only).
#[cfg(feature = "test-hooks")]
#[unsafe(no_mangle)]
pub extern "C" fn polyflake_floor() -> i64 {
    1
}

/// The same trivial call bound through JNI, the floor of `JniPath.nextId`
/// (test builds only): `JniFloor.floor()`.
///
/// # Safety
/// As for `polyflake_register_jni`.
#[cfg(feature = "test-hooks")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn polyflake_register_jni_floor(env: *mut jni_sys::JNIEnv) -> i32 {
    extern "system" fn floor(_env: *mut jni_sys::JNIEnv, _class: jni_sys::jclass) -> i64 {
        1
    }
    let floor = floor as *mut std::ffi::c_void;
    unsafe { register_natives(env, c"dev/polyflake/JniFloor", c"floor", c"()J", floor) }
}
