//! `Generator`: wraps `polyflake::Generator`.

use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::{Env, ValueType};
use napi_derive::napi;
use polyflake::{
    ArgumentKind, BackwardsPolicy, Error, Generator, GeneratorRequest, IdentityRequest,
    RegistryDuration, RegistrySettings,
};
use polyflake_connectors::{CONNECTORS, ETCD};

use crate::args::{camel, exact_number, u64_arg};
use crate::clock::JsManualClock;
use crate::error::{wrong_type, OrThrow};
use crate::layout::{with_layout, JsLayout};

/// Issues IDs for one worker identity; safe to share, never the same ID twice.
#[napi(js_name = "Generator")]
pub struct JsGenerator {
    inner: Arc<Generator>,
}

/// Where the identity comes from, which decides the keys an options object
/// may hold beside the clock, the policy and the check.
#[derive(Clone, Copy, PartialEq)]
enum Source {
    /// `new Generator`: node fields by camelCase name; no check.
    Given,
    /// `fromEnv`: nothing more.
    Environment,
    /// `fromEtcd`: the registry's settings.
    Registry,
}

/// `{ clock, onClockBackwards, maxBackwardsMs, check, ...node fields or etcd
/// settings }` as the core's request; what is not given is the core's default.
fn request(
    env: &Env,
    layout: &polyflake::Layout,
    options: Option<&Object<'_>>,
    source: Source,
) -> Result<GeneratorRequest> {
    let mut policy = None;
    let mut max_ms = BackwardsPolicy::DEFAULT_WAIT_MS;
    let mut nodes = Vec::new();
    let mut settings = RegistrySettings::new(Vec::<String>::new());
    let mut request = GeneratorRequest::new(layout.clone(), IdentityRequest::Environment);
    let duration = |key: &str| {
        RegistryDuration::ALL
            .into_iter()
            .find(|d| format!("{}Ms", camel(d.name())) == key)
    };
    for key in options.map(Object::keys).transpose()?.unwrap_or_default() {
        let options = options.expect("keys come from the options");
        // An option set to `undefined` is an option not given.
        let Some(value) = options.get::<Unknown<'_>>(&key)? else {
            continue;
        };
        if value.get_type()? == ValueType::Undefined {
            continue;
        }
        let registry = source == Source::Registry;
        match key.as_str() {
            "onClockBackwards" => {
                policy = Some(unsafe { value.cast::<String>() }.map_err(|_| {
                    wrong_type(env, "onClockBackwards", "'fail', 'wait' or 'logical'")
                })?)
            }
            "maxBackwardsMs" => max_ms = u64_arg(env, "maxBackwardsMs", &value)?,
            "check" if source != Source::Given => {
                request.check = Some(crate::check::check_arg(env, &value)?)
            }
            "clock" => {
                request.clock = Some(if value.get_type()? == ValueType::String {
                    let name = unsafe { value.cast::<String>()? };
                    polyflake::clock::named_clock(&name, "clock").or_throw(env)?
                } else {
                    let manual: ClassInstance<'_, JsManualClock> = unsafe { value.cast() }
                        .map_err(|_| {
                            wrong_type(env, "clock", "'monotonic', 'wall' or a ManualClock")
                        })?;
                    Arc::new(manual.inner.clone())
                })
            }
            "endpoints" if registry => {
                settings.endpoints = if value.get_type()? == ValueType::String {
                    polyflake::identity::registry::parse_endpoints(&unsafe {
                        value.cast::<String>()?
                    })
                } else {
                    unsafe { value.cast::<Vec<String>>() }.map_err(|_| {
                        wrong_type(env, "endpoints", "a URL string or an array of them")
                    })?
                }
            }
            "prefix" if registry => {
                settings.prefix = unsafe { value.cast::<String>() }
                    .map_err(|_| wrong_type(env, "prefix", "a string"))?
            }
            "nodeRange" if registry => {
                let pair: Vec<Unknown<'_>> = unsafe { value.cast() }
                    .map_err(|_| wrong_type(env, "nodeRange", "[start, stop]"))?;
                let [start, stop] = pair.as_slice() else {
                    return Err(wrong_type(env, "nodeRange", "[start, stop]"));
                };
                settings.node_range =
                    Some(u64_arg(env, "nodeRange[0]", start)?..u64_arg(env, "nodeRange[1]", stop)?);
            }
            key if registry && duration(key).is_some() => {
                let setting = duration(key).expect("matched");
                *setting.slot(&mut settings) = Duration::from_millis(u64_arg(env, key, &value)?);
            }
            _ if source == Source::Given => {
                let field = layout
                    .node_fields()
                    .iter()
                    .find(|f| camel(f.name()) == key)
                    .map_or(key.clone(), |f| f.name().to_owned());
                nodes.push((field, u64_arg(env, &key, &value)?));
            }
            _ => {
                return Err(Error::invalid(
                    ArgumentKind::UnknownName,
                    format!("unknown option {key:?}: the identity is not given by the caller here"),
                ))
                .or_throw(env)
            }
        }
    }
    let name = policy
        .as_deref()
        .unwrap_or(BackwardsPolicy::default().name());
    request.policy = BackwardsPolicy::parse(name, max_ms, "onClockBackwards").or_throw(env)?;
    request.identity = match source {
        Source::Given => IdentityRequest::Named(nodes),
        Source::Environment => IdentityRequest::Environment,
        Source::Registry => IdentityRequest::Registry {
            name: ETCD.to_owned(),
            settings,
        },
    };
    Ok(request)
}

/// The one way a generator is made: the request resolved with this build's connectors.
fn made(env: &Env, request: GeneratorRequest) -> Result<JsGenerator> {
    Ok(JsGenerator {
        inner: Arc::new(request.resolve(CONNECTORS).or_throw(env)?),
    })
}

#[napi]
impl JsGenerator {
    /// `new Generator('twitter', { datacenterId: 1, machineId: 2 })`.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: Env,
        #[napi(ts_arg_type = "Layout | PresetName")] layout: Unknown<'_>,
        #[napi(ts_arg_type = "GeneratorOptions")] options: Option<Unknown<'_>>,
    ) -> Result<Self> {
        let options = crate::args::optional_object_arg(&env, "options", options)?;
        with_layout(&env, &layout, |layout| {
            made(
                &env,
                request(&env, layout, options.as_ref(), Source::Given)?,
            )
        })
    }

    /// A generator whose identity follows the environment (docs/identity.md),
    /// an etcd lease when `POLYFLAKE_ETCD_ENDPOINTS` is set.
    #[napi(factory, catch_unwind)]
    pub fn from_env(
        env: Env,
        #[napi(ts_arg_type = "Layout | PresetName")] layout: Unknown<'_>,
        #[napi(ts_arg_type = "ResolvedOptions")] options: Option<Unknown<'_>>,
    ) -> Result<Self> {
        let options = crate::args::optional_object_arg(&env, "options", options)?;
        with_layout(&env, &layout, |layout| {
            made(
                &env,
                request(&env, layout, options.as_ref(), Source::Environment)?,
            )
        })
    }

    /// A generator whose identity is leased from etcd (`endpoints`, and
    /// optionally `prefix`, `ttlMs`, `keepAliveMs`, `safetyMarginMs`,
    /// `requestTimeoutMs`, `nodeRange`). Builds without the `etcd` feature
    /// refuse with `INVALID_ARGUMENT`.
    #[napi(factory, catch_unwind)]
    pub fn from_etcd(
        env: Env,
        #[napi(ts_arg_type = "Layout | PresetName")] layout: Unknown<'_>,
        #[napi(ts_arg_type = "EtcdOptions")] options: Unknown<'_>,
    ) -> Result<Self> {
        let options = crate::args::object_arg(&env, "options", options)?;
        with_layout(&env, &layout, |layout| {
            made(
                &env,
                request(&env, layout, Some(&options), Source::Registry)?,
            )
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
    pub fn next_ids(
        &self,
        env: Env,
        #[napi(ts_arg_type = "number")] n: Unknown<'_>,
    ) -> Result<BigUint64Array> {
        let n = Generator::batch_size(u64_arg(&env, "n", &n)?).or_throw(&env)?;
        let mut ids = vec![0u64; n];
        self.inner.fill(&mut ids).or_throw(&env)?;
        Ok(BigUint64Array::new(ids))
    }

    /// Gives up the worker identity now (the mark settled, the lock or lease
    /// released), even while other calls are pending; later calls throw
    /// `LEASE_LOST`. A second call does nothing.
    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.inner.close();
    }

    /// Counts since the generator was built: waits at the per-tick ceiling,
    /// clock-backwards events by outcome, the lease's renewals and losses.
    #[napi(catch_unwind)]
    pub fn stats(&self) -> crate::counts::GeneratorStats {
        self.inner.stats().into()
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
    pub fn node_fields(&self, env: Env) -> Result<std::collections::HashMap<String, f64>> {
        // Numbers, as decode's node fields; a value past 2^53 is a RangeError, never cut.
        self.inner
            .layout()
            .node_fields()
            .iter()
            .zip(self.inner.node_values())
            .map(|(f, v)| {
                Ok((
                    camel(f.name()),
                    exact_number(&env, f.name(), i128::from(v))?,
                ))
            })
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

/// A Rust panic, to prove it surfaces as a JS error (test builds only).
#[cfg(feature = "test-hooks")]
#[napi(js_name = "_panicForTests", catch_unwind)]
pub fn panic_for_tests() {
    panic!("a deliberate panic");
}

// A zero-argument native call returning a bigint: the floor the benchmark
// compares nextId with (test builds only).
#[cfg(feature = "test-hooks")]
#[napi(js_name = "_floor")]
pub fn floor() -> u64 {
    1
}
