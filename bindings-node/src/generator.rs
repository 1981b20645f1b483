//! `Generator`: wraps `polyflake::Generator`.

use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;
use polyflake::{FirstUse, Generator, GeneratorRequest};
use polyflake_connectors::CONNECTORS;

use crate::args::{camel, exact_number, u64_arg};
use crate::error::OrThrow;
use crate::layout::{with_layout, JsLayout};
use crate::request::{request, Source};
use crate::service::JsServiceGenerator;

/// Issues IDs for one worker identity; safe to share, never the same ID twice.
#[napi(js_name = "Generator")]
pub struct JsGenerator {
    /// The core's generator, its identity claimed at the first use (ADR 0017).
    inner: Arc<FirstUse>,
}

/// The one way a generator is made: the request checked now and resolved
/// with this build's connectors at the first use (values given outright are
/// built now).
fn made(env: &Env, request: GeneratorRequest) -> Result<JsGenerator> {
    Ok(JsGenerator {
        inner: Arc::new(FirstUse::new(request, CONNECTORS).or_throw(env)?),
    })
}

impl JsGenerator {
    /// The generator, claiming its identity if this is its first use.
    #[inline]
    fn generator(&self, env: &Env) -> Result<&Generator> {
        self.inner.get().or_throw(env)
    }
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

    /// A generator whose IDs come from `polyflake serve` replicas (`urls`, an
    /// array or a comma-separated string): fetched `batch` at a time into a
    /// buffer that a background thread refills when fewer than `lowWater`
    /// remain, moving to the next replica when one fails.
    #[napi(catch_unwind, ts_return_type = "ServiceGenerator")]
    pub fn from_service(
        env: Env,
        #[napi(ts_arg_type = "string | string[]")] urls: Unknown<'_>,
        #[napi(ts_arg_type = "ServiceOptions")] options: Option<Unknown<'_>>,
    ) -> Result<JsServiceGenerator> {
        let options = crate::args::optional_object_arg(&env, "options", options)?;
        crate::service::from_service(&env, &urls, options.as_ref())
    }

    /// Claims the worker identity now rather than at the first use, and
    /// returns the generator: `Generator.fromEnv('twitter').claim()` fails at
    /// start when no identity is to be had.
    #[napi(catch_unwind, ts_return_type = "this")]
    pub fn claim<'this>(&self, env: Env, this: This<'this>) -> Result<Unknown<'this>> {
        self.generator(&env)?;
        Ok(this.object.to_unknown())
    }

    /// Whether the worker identity was claimed.
    #[napi(getter)]
    pub fn claimed(&self) -> bool {
        self.inner.claimed_generator().is_some()
    }

    /// The next ID.
    #[napi(catch_unwind)]
    pub fn next_id(&self, env: Env) -> Result<u64> {
        self.generator(&env)?.next_id().or_throw(&env)
    }

    /// The next ID as a decimal string.
    #[napi(catch_unwind)]
    pub fn next_id_string(&self, env: Env) -> Result<String> {
        Ok(self.generator(&env)?.next_id().or_throw(&env)?.to_string())
    }

    /// `n` strictly increasing IDs in one call.
    #[napi(catch_unwind)]
    pub fn next_ids(
        &self,
        env: Env,
        #[napi(ts_arg_type = "number")] n: Unknown<'_>,
    ) -> Result<BigUint64Array> {
        let n = Generator::batch_size(u64_arg(&env, "n", &n)?).or_throw(&env)?;
        let generator = self.generator(&env)?;
        let mut ids = vec![0u64; n];
        generator.fill(&mut ids).or_throw(&env)?;
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
    /// clock-backwards events by outcome, the lease's renewals and losses
    /// (all zero before the identity is claimed).
    #[napi(catch_unwind)]
    pub fn stats(&self) -> crate::counts::GeneratorStats {
        self.inner
            .claimed_generator()
            .map(Generator::stats)
            .unwrap_or_default()
            .into()
    }

    #[napi(getter)]
    pub fn layout(&self) -> JsLayout {
        JsLayout {
            inner: self.inner.request().layout.clone(),
        }
    }

    /// Where the worker identity came from (claiming it, if not yet).
    #[napi(getter)]
    pub fn identity_source(&self, env: Env) -> Result<String> {
        Ok(self.generator(&env)?.identity_source())
    }

    /// The worker identity, by camelCase field name (claiming it, if not yet).
    #[napi(getter)]
    pub fn node_fields(&self, env: Env) -> Result<std::collections::HashMap<String, f64>> {
        // Numbers, as decode's node fields; a value past 2^53 is a RangeError, never cut.
        let generator = self.generator(&env)?;
        generator
            .layout()
            .node_fields()
            .iter()
            .zip(generator.node_values())
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
