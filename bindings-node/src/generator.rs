//! `Generator`: wraps `polyflake::Generator`.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::{Env, ValueType};
use napi_derive::napi;
use polyflake::{BackwardsPolicy, Error, Generator, GeneratorBuilder, WallClock};

use crate::args::{camel, u64_arg};
use crate::clock::JsManualClock;
use crate::error::{wrong_type, OrThrow};
use crate::layout::{with_layout, JsLayout};

/// Issues IDs for one worker identity; safe to share, never the same ID twice.
#[napi(js_name = "Generator")]
pub struct JsGenerator {
    inner: Arc<Generator>,
}

/// `{ clock, onClockBackwards, maxBackwardsMs, ...node fields }`.
fn configure(
    env: &Env,
    mut builder: GeneratorBuilder,
    layout: &polyflake::Layout,
    options: Option<&Object<'_>>,
    node_fields_allowed: bool,
) -> Result<Generator> {
    let mut policy = "wait".to_owned();
    let mut max_ms = BackwardsPolicy::DEFAULT_WAIT_MS;
    if let Some(options) = options {
        for key in Object::keys(options)? {
            // An option set to `undefined` is an option not given.
            let Some(value) = options.get::<Unknown<'_>>(&key)? else {
                continue;
            };
            if value.get_type()? == ValueType::Undefined {
                continue;
            }
            match key.as_str() {
                "onClockBackwards" => {
                    policy = unsafe { value.cast::<String>() }.map_err(|_| {
                        wrong_type(env, "onClockBackwards", "'fail', 'wait' or 'logical'")
                    })?
                }
                "maxBackwardsMs" => max_ms = u64_arg(env, "maxBackwardsMs", &value)?,
                "clock" => {
                    if value.get_type()? == ValueType::String {
                        match unsafe { value.cast::<String>()? }.as_str() {
                            "monotonic" => {}
                            "wall" => builder = builder.clock(WallClock),
                            other => {
                                return Err(Error::InvalidArgument(format!(
                                "clock must be 'monotonic', 'wall' or a ManualClock, not {other:?}"
                            )))
                                .or_throw(env)
                            }
                        }
                    } else {
                        let clock: ClassInstance<'_, JsManualClock> = unsafe { value.cast() }
                            .map_err(|_| {
                                wrong_type(env, "clock", "'monotonic', 'wall' or a ManualClock")
                            })?;
                        builder = builder.clock(clock.inner.clone());
                    }
                }
                _ if node_fields_allowed => {
                    let field = layout
                        .node_fields()
                        .iter()
                        .find(|f| camel(f.name()) == key)
                        .map_or(key.clone(), |f| f.name().to_owned());
                    builder = builder.node(field, u64_arg(env, &key, &value)?);
                }
                _ => {
                    return Err(Error::InvalidArgument(format!(
                        "unknown option {key:?}: the identity comes from the environment"
                    )))
                    .or_throw(env)
                }
            }
        }
    }
    let policy = match policy.as_str() {
        "fail" => BackwardsPolicy::Fail,
        "wait" => BackwardsPolicy::Wait { max_ms },
        "logical" => BackwardsPolicy::Logical,
        other => {
            return Err(Error::InvalidArgument(format!(
                "onClockBackwards must be 'fail', 'wait' or 'logical', not {other:?}"
            )))
            .or_throw(env)
        }
    };
    builder.on_clock_backwards(policy).build().or_throw(env)
}

#[napi]
impl JsGenerator {
    /// `new Generator('twitter', { datacenterId: 1, machineId: 2 })`.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: Env,
        #[napi(
            ts_arg_type = "Layout | 'twitter' | 'snowflake' | 'discord' | 'instagram' | 'sonyflake'"
        )]
        layout: Unknown<'_>,
        #[napi(ts_arg_type = "GeneratorOptions")] options: Option<Object<'_>>,
    ) -> Result<Self> {
        with_layout(&env, &layout, |layout| {
            let builder = Generator::builder(layout.clone());
            let inner = configure(&env, builder, layout, options.as_ref(), true)?;
            Ok(JsGenerator {
                inner: Arc::new(inner),
            })
        })
    }

    /// A generator whose identity follows the environment (docs/identity.md),
    /// an etcd lease when `POLYFLAKE_ETCD_ENDPOINTS` is set.
    #[napi(factory, catch_unwind)]
    pub fn from_env(
        env: Env,
        #[napi(
            ts_arg_type = "Layout | 'twitter' | 'snowflake' | 'discord' | 'instagram' | 'sonyflake'"
        )]
        layout: Unknown<'_>,
        #[napi(ts_arg_type = "ClockOptions")] options: Option<Object<'_>>,
    ) -> Result<Self> {
        // POLYFLAKE_ETCD_ENDPOINTS selects an etcd lease (polyflake-etcd).
        polyflake_etcd::register();
        with_layout(&env, &layout, |layout| {
            let builder = Generator::builder(layout.clone()).identity_from_env();
            let inner = configure(&env, builder, layout, options.as_ref(), false)?;
            Ok(JsGenerator {
                inner: Arc::new(inner),
            })
        })
    }

    /// The next ID.
    #[napi(catch_unwind)]
    pub fn next_id(&self, env: Env) -> Result<u64> {
        self.inner.next_id().or_throw(&env)
    }

    /// The next ID as a decimal string.
    #[napi(catch_unwind)]
    pub fn next_id_string(&self, env: Env) -> Result<String> {
        Ok(self.inner.next_id().or_throw(&env)?.to_string())
    }

    /// `n` strictly increasing IDs in one call.
    #[napi(catch_unwind)]
    pub fn next_ids(&self, env: Env, n: u32) -> Result<BigUint64Array> {
        let mut ids = vec![0u64; n as usize];
        self.inner.fill(&mut ids).or_throw(&env)?;
        Ok(BigUint64Array::new(ids))
    }

    #[napi(getter)]
    pub fn layout(&self) -> JsLayout {
        JsLayout {
            inner: self.inner.layout().clone(),
        }
    }

    /// Where the worker identity came from.
    #[napi(getter)]
    pub fn identity_source(&self) -> String {
        self.inner.identity_source()
    }

    /// The worker identity, by camelCase field name.
    #[napi(getter)]
    pub fn node_fields(&self) -> std::collections::HashMap<String, u32> {
        self.inner
            .layout()
            .node_fields()
            .iter()
            .zip(self.inner.node_values())
            .map(|(f, v)| (camel(f.name()), v as u32))
            .collect()
    }
}

/// `nextId` bound to one generator: a zero-argument native function (see fast.rs).
#[napi(js_name = "_bindNextId", ts_return_type = "() => bigint")]
pub fn bind_next_id<'env>(env: &'env Env, generator: &JsGenerator) -> Result<Unknown<'env>> {
    crate::fast::bind_next_id(env, Arc::clone(&generator.inner), false)
}

/// `nextIdString` bound to one generator.
#[napi(js_name = "_bindNextIdString", ts_return_type = "() => string")]
pub fn bind_next_id_string<'env>(env: &'env Env, generator: &JsGenerator) -> Result<Unknown<'env>> {
    crate::fast::bind_next_id(env, Arc::clone(&generator.inner), true)
}

/// A Rust panic, to prove it surfaces as a JS error (tests only).
#[napi(js_name = "_panicForTests", catch_unwind)]
pub fn panic_for_tests() {
    panic!("a deliberate panic");
}

// A zero-argument native call returning a bigint: the floor the benchmark
// compares nextId with.
#[napi(js_name = "_floor")]
pub fn floor() -> u64 {
    1
}
