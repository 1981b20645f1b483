//! `Generator`: wraps `polyflake::Generator`.

use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::{Env, ValueType};
use napi_derive::napi;
use polyflake::{
    BackwardsPolicy, Clock, Error, Generator, LeaseConnector, MonotonicClock, NodeCheck,
    RegistrySettings, WorkerIdentity,
};

use crate::args::{camel, exact_number, u64_arg};
use crate::clock::JsManualClock;
use crate::error::{wrong_type, OrThrow};
use crate::layout::{with_layout, JsLayout};

/// The registries this build can lease identities from.
#[cfg(feature = "etcd")]
const CONNECTORS: &[&dyn LeaseConnector] = &[&polyflake_etcd::EtcdConnector];
#[cfg(not(feature = "etcd"))]
const CONNECTORS: &[&dyn LeaseConnector] = &[];

/// Issues IDs for one worker identity; safe to share, never the same ID twice.
#[napi(js_name = "Generator")]
pub struct JsGenerator {
    inner: Arc<Generator>,
}

/// What every constructor takes besides the identity.
struct Options {
    clock: Arc<dyn Clock>,
    policy: BackwardsPolicy,
    /// Node fields by their core name (`new Generator` only).
    nodes: Vec<(String, u64)>,
    /// `fromEtcd`'s settings (its own options only).
    registry: Option<RegistrySettings>,
    /// The application's check on the node values (resolved identities only).
    check: Option<NodeCheck>,
}

/// Which keys an options object may hold beside the clock and policy.
#[derive(Clone, Copy, PartialEq)]
enum Extra {
    NodeFields,
    Nothing,
    Registry,
}

fn ms_arg(env: &Env, name: &str, value: &Unknown<'_>) -> Result<Duration> {
    Ok(Duration::from_millis(u64_arg(env, name, value)?))
}

/// `{ clock, onClockBackwards, maxBackwardsMs, ...node fields or etcd settings }`.
fn read_options(
    env: &Env,
    layout: &polyflake::Layout,
    options: Option<&Object<'_>>,
    extra: Extra,
) -> Result<Options> {
    let mut policy = "wait".to_owned();
    let mut max_ms = BackwardsPolicy::DEFAULT_WAIT_MS;
    let mut clock: Arc<dyn Clock> = Arc::new(MonotonicClock::new());
    let mut nodes = Vec::new();
    let mut check = None;
    let mut registry =
        (extra == Extra::Registry).then(|| RegistrySettings::new(Vec::<String>::new()));
    if let Some(options) = options {
        for key in Object::keys(options)? {
            // An option set to `undefined` is an option not given.
            let Some(value) = options.get::<Unknown<'_>>(&key)? else {
                continue;
            };
            if value.get_type()? == ValueType::Undefined {
                continue;
            }
            match (key.as_str(), registry.as_mut()) {
                ("onClockBackwards", _) => {
                    policy = unsafe { value.cast::<String>() }.map_err(|_| {
                        wrong_type(env, "onClockBackwards", "'fail', 'wait' or 'logical'")
                    })?
                }
                ("maxBackwardsMs", _) => max_ms = u64_arg(env, "maxBackwardsMs", &value)?,
                ("check", _) if extra != Extra::NodeFields => {
                    check = Some(crate::check::check_arg(env, &value)?)
                }
                ("clock", _) => {
                    if value.get_type()? == ValueType::String {
                        let name = unsafe { value.cast::<String>()? };
                        clock = polyflake::clock::named_clock(&name, "clock").or_throw(env)?;
                    } else {
                        let manual: ClassInstance<'_, JsManualClock> = unsafe { value.cast() }
                            .map_err(|_| {
                                wrong_type(env, "clock", "'monotonic', 'wall' or a ManualClock")
                            })?;
                        clock = Arc::new(manual.inner.clone());
                    }
                }
                ("endpoints", Some(settings)) => {
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
                ("prefix", Some(settings)) => {
                    settings.prefix = unsafe { value.cast::<String>() }
                        .map_err(|_| wrong_type(env, "prefix", "a string"))?
                }
                ("ttlMs", Some(settings)) => settings.ttl = ms_arg(env, "ttlMs", &value)?,
                ("keepAliveMs", Some(settings)) => {
                    settings.keep_alive = ms_arg(env, "keepAliveMs", &value)?
                }
                ("safetyMarginMs", Some(settings)) => {
                    settings.safety_margin = ms_arg(env, "safetyMarginMs", &value)?
                }
                ("requestTimeoutMs", Some(settings)) => {
                    settings.request_timeout = ms_arg(env, "requestTimeoutMs", &value)?
                }
                ("nodeRange", Some(settings)) => {
                    let pair: Vec<Unknown<'_>> = unsafe { value.cast() }
                        .map_err(|_| wrong_type(env, "nodeRange", "[start, stop]"))?;
                    let [start, stop] = pair.as_slice() else {
                        return Err(wrong_type(env, "nodeRange", "[start, stop]"));
                    };
                    settings.node_range = Some(
                        u64_arg(env, "nodeRange[0]", start)?..u64_arg(env, "nodeRange[1]", stop)?,
                    );
                }
                _ if extra == Extra::NodeFields => {
                    let field = layout
                        .node_fields()
                        .iter()
                        .find(|f| camel(f.name()) == key)
                        .map_or(key.clone(), |f| f.name().to_owned());
                    nodes.push((field, u64_arg(env, &key, &value)?));
                }
                _ => {
                    return Err(Error::InvalidArgument(format!(
                        "unknown option {key:?}: the identity is not given by the caller here"
                    )))
                    .or_throw(env)
                }
            }
        }
    }
    let policy = BackwardsPolicy::parse(&policy, max_ms, "onClockBackwards").or_throw(env)?;
    Ok(Options {
        clock,
        policy,
        nodes,
        registry,
        check,
    })
}

/// A generator whose identity is resolved (environment or registry).
fn resolved(
    env: &Env,
    layout: &polyflake::Layout,
    options: Options,
    resolve: impl FnOnce(
        &polyflake::Layout,
        Arc<dyn Clock>,
        Option<RegistrySettings>,
    ) -> polyflake::Result<WorkerIdentity>,
) -> Result<JsGenerator> {
    let mut identity = resolve(layout, options.clock, options.registry);
    if let Some(check) = options.check {
        identity = identity.and_then(|identity| identity.checked(check));
    }
    let identity = identity.or_throw(env)?;
    let inner = Generator::builder(layout.clone())
        .identity(identity)
        .on_clock_backwards(options.policy)
        .build()
        .or_throw(env)?;
    Ok(JsGenerator {
        inner: Arc::new(inner),
    })
}

#[napi]
impl JsGenerator {
    /// `new Generator('twitter', { datacenterId: 1, machineId: 2 })`.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: Env,
        #[napi(ts_arg_type = "Layout | PresetName")] layout: Unknown<'_>,
        #[napi(ts_arg_type = "GeneratorOptions")] options: Option<Object<'_>>,
    ) -> Result<Self> {
        with_layout(&env, &layout, |layout| {
            let options = read_options(&env, layout, options.as_ref(), Extra::NodeFields)?;
            let mut builder = Generator::builder(layout.clone())
                .shared_clock(options.clock)
                .on_clock_backwards(options.policy);
            for (name, value) in options.nodes {
                builder = builder.node(name, value);
            }
            Ok(JsGenerator {
                inner: Arc::new(builder.build().or_throw(&env)?),
            })
        })
    }

    /// A generator whose identity follows the environment (docs/identity.md),
    /// an etcd lease when `POLYFLAKE_ETCD_ENDPOINTS` is set.
    #[napi(factory, catch_unwind)]
    pub fn from_env(
        env: Env,
        #[napi(ts_arg_type = "Layout | PresetName")] layout: Unknown<'_>,
        #[napi(ts_arg_type = "ResolvedOptions")] options: Option<Object<'_>>,
    ) -> Result<Self> {
        with_layout(&env, &layout, |layout| {
            let options = read_options(&env, layout, options.as_ref(), Extra::Nothing)?;
            resolved(&env, layout, options, |layout, clock, _| {
                WorkerIdentity::resolve_from_env(layout, clock, CONNECTORS)
            })
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
        #[napi(ts_arg_type = "EtcdOptions")] options: Object<'_>,
    ) -> Result<Self> {
        with_layout(&env, &layout, |layout| {
            let options = read_options(&env, layout, Some(&options), Extra::Registry)?;
            resolved(&env, layout, options, |layout, clock, settings| {
                let settings =
                    settings.unwrap_or_else(|| RegistrySettings::new(Vec::<String>::new()));
                WorkerIdentity::resolve_registry(layout, CONNECTORS, "etcd", &settings, clock)
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
