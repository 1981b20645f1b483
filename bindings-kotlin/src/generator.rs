//! `FfiGenerator`: wraps `polyflake::Generator`, plus the direct-mapped
//! `polyflake_next_id` JNA fast path (Generator.kt).

use std::cell::Cell;
use std::sync::Arc;
use std::time::Duration;

use polyflake::{
    BackwardsPolicy, Clock, Generator, GeneratorRequest, IdentityRequest, MonotonicClock,
    RegistryDuration, RegistrySettings, WallClock,
};
use polyflake_connectors::CONNECTORS;

use crate::clock::FfiManualClock;
use crate::error::Result;
use crate::layout::FfiLayout;
use crate::parts::FfiNodeValue;

/// Which clock a generator reads.
#[derive(uniffi::Enum)]
pub enum FfiClock {
    Monotonic,
    Wall,
    Manual { clock: Arc<FfiManualClock> },
}

/// What to do when the clock goes backwards.
#[derive(uniffi::Enum)]
pub enum FfiBackwards {
    Fail,
    Wait { max_ms: u64 },
    Logical,
}

/// A remote lease's settings; `None` takes the core's default.
#[derive(uniffi::Record)]
pub struct FfiRegistrySettings {
    pub endpoints: Vec<String>,
    pub prefix: Option<String>,
    pub ttl_ms: Option<u64>,
    pub keep_alive_ms: Option<u64>,
    pub safety_margin_ms: Option<u64>,
    pub request_timeout_ms: Option<u64>,
    pub max_clock_gap_ms: Option<u64>,
    /// `[start, end)` of the node numbers to claim from.
    pub node_range: Option<Vec<u64>>,
}

impl FfiRegistrySettings {
    fn into_core(self) -> Result<RegistrySettings> {
        let mut settings = RegistrySettings::new(self.endpoints);
        if let Some(prefix) = self.prefix {
            settings.prefix = prefix;
        }
        // In the order of `RegistryDuration::ALL`.
        let durations = [
            self.ttl_ms,
            self.keep_alive_ms,
            self.safety_margin_ms,
            self.request_timeout_ms,
            self.max_clock_gap_ms,
        ];
        for (setting, ms) in RegistryDuration::ALL.into_iter().zip(durations) {
            if let Some(ms) = ms {
                *setting.slot(&mut settings) = Duration::from_millis(ms);
            }
        }
        if let Some(range) = self.node_range {
            let [start, end] = range[..] else {
                return Err(polyflake::Error::invalid(
                    polyflake::ArgumentKind::Usage,
                    format!("nodeRange needs a start and an end, not {range:?}"),
                )
                .into());
            };
            settings.node_range = Some(start..end);
        }
        Ok(settings)
    }
}

/// Where the identity comes from.
#[derive(uniffi::Enum)]
pub enum FfiIdentity {
    Given {
        nodes: Vec<FfiNodeValue>,
    },
    Environment,
    /// A lease from etcd (the connector `polyflake_connectors::ETCD`).
    Etcd {
        settings: FfiRegistrySettings,
    },
}

#[derive(uniffi::Object)]
pub struct FfiGenerator {
    inner: Arc<Generator>,
}

#[uniffi::export]
impl FfiGenerator {
    #[uniffi::constructor]
    pub fn new(
        layout: &FfiLayout,
        identity: FfiIdentity,
        clock: FfiClock,
        backwards: FfiBackwards,
        check: Option<Arc<dyn crate::check::FfiNodeCheck>>,
    ) -> Result<Arc<Self>> {
        let identity = match identity {
            FfiIdentity::Given { nodes } => {
                IdentityRequest::Named(nodes.into_iter().map(|n| (n.name, n.value)).collect())
            }
            FfiIdentity::Environment => IdentityRequest::Environment,
            FfiIdentity::Etcd { settings } => IdentityRequest::Registry {
                name: polyflake_connectors::ETCD.to_owned(),
                settings: settings.into_core()?,
            },
        };
        let mut request = GeneratorRequest::new(layout.inner.clone(), identity);
        request.clock = Some(match clock {
            FfiClock::Monotonic => Arc::new(MonotonicClock::new()) as Arc<dyn Clock>,
            FfiClock::Wall => Arc::new(WallClock),
            FfiClock::Manual { clock } => Arc::new(clock.inner.clone()),
        });
        request.policy = match backwards {
            FfiBackwards::Fail => BackwardsPolicy::Fail,
            FfiBackwards::Wait { max_ms } => BackwardsPolicy::Wait { max_ms },
            FfiBackwards::Logical => BackwardsPolicy::Logical,
        };
        request.check = check.map(crate::check::node_check);
        Ok(Arc::new(FfiGenerator {
            inner: Arc::new(request.resolve(CONNECTORS)?),
        }))
    }

    pub fn next_id(&self) -> Result<u64> {
        Ok(self.inner.next_id()?)
    }

    /// After `polyflake_next_id` answered `NO_ID` on this thread: the error
    /// it met, else the next ID (its answer was the layout's all-ones ID,
    /// which is skipped, or a panic).
    pub fn next_id_after_fast_path(&self) -> Result<u64> {
        match FAST_PATH_ERROR.take() {
            Some(error) => Err(error.into()),
            None => self.next_id(),
        }
    }

    /// After `polyflake_next_ids` answered -1 on this thread: the error it
    /// met, else `n` IDs.
    pub fn next_ids_after_fast_path(&self, n: u32) -> Result<Vec<i64>> {
        match FAST_PATH_ERROR.take() {
            Some(error) => Err(error.into()),
            None => self.next_ids(n),
        }
    }

    /// `n` IDs in one crossing, as the bits of `Long`s.
    pub fn next_ids(&self, n: u32) -> Result<Vec<i64>> {
        let mut ids = vec![0u64; Generator::batch_size(u64::from(n))?];
        self.inner.fill(&mut ids)?;
        Ok(ids.into_iter().map(|id| id as i64).collect())
    }

    pub fn identity_source(&self) -> String {
        self.inner.identity_source()
    }

    pub fn stats(&self) -> crate::counts::FfiGeneratorStats {
        self.inner.stats().into()
    }

    pub fn node_values(&self) -> Vec<FfiNodeValue> {
        self.inner
            .layout()
            .node_fields()
            .iter()
            .zip(self.inner.node_values())
            .map(|(f, v)| FfiNodeValue {
                name: f.name().to_owned(),
                value: v,
            })
            .collect()
    }

    /// Gives up the worker identity now, while other threads may still be
    /// calling (`Generator::close` in the core); later calls fail with
    /// `LEASE_LOST`.
    pub fn give_up(&self) {
        self.inner.close();
    }

    /// A handle for `polyflake_next_id`: a strong reference the caller must
    /// give back to `polyflake_release` exactly once, after its last use.
    pub fn fast_handle(&self) -> u64 {
        Arc::into_raw(Arc::clone(&self.inner)) as usize as u64
    }
}

thread_local! {
    /// The error a fast path met on this thread, which the slow path that
    /// follows reports instead of asking the core again: a second attempt
    /// would count a refusal twice in the stats, and could answer otherwise.
    static FAST_PATH_ERROR: Cell<Option<polyflake::Error>> = const { Cell::new(None) };
}

/// The backwards policy `Wait`'s default bound, in milliseconds (the core's).
#[uniffi::export]
pub fn default_wait_ms() -> u64 {
    BackwardsPolicy::DEFAULT_WAIT_MS
}

/// The largest batch `nextIds` hands out in one call (the core's).
#[uniffi::export]
pub fn max_batch() -> u64 {
    Generator::MAX_BATCH
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

/// A Rust panic, to prove it surfaces as an exception (test builds only).
#[cfg(feature = "test-hooks")]
#[uniffi::export]
pub fn panic_for_tests() -> std::result::Result<(), crate::error::FfiError> {
    panic!("a deliberate panic")
}
