//! `ServiceGenerator` (made by `Generator.fromService`): wraps
//! `polyflake_service::ServiceGenerator`, IDs fetched from `polyflake serve`
//! replicas in batches and refilled in the background.

use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::{Env, ValueType};
use napi_derive::napi;
use polyflake::{ArgumentKind, Error, Generator};
use polyflake_service::{ServiceGenerator, ServiceSettings};

use crate::args::u64_arg;
use crate::error::{rejection, wrong_type, OrThrow};

/// IDs from `polyflake serve` replicas, buffered and refilled ahead by a
/// background thread; each ID handed out once.
#[napi(js_name = "ServiceGenerator")]
pub struct JsServiceGenerator {
    inner: Arc<ServiceGenerator>,
}

/// `urls` as a comma-separated string or an array of strings.
fn urls_arg(env: &Env, value: &Unknown<'_>) -> Result<Vec<String>> {
    if value.get_type()? == ValueType::String {
        return Ok(polyflake::identity::registry::parse_endpoints(&unsafe {
            value.cast::<String>()?
        }));
    }
    unsafe { value.cast::<Vec<String>>() }
        .map_err(|_| wrong_type(env, "urls", "a URL string or an array of them"))
}

fn count_arg(env: &Env, name: &str, value: &Unknown<'_>) -> Result<usize> {
    let n = u64_arg(env, name, value)?;
    usize::try_from(n)
        .map_err(|_| Error::invalid(ArgumentKind::Usage, format!("{name} is too large: {n}")))
        .or_throw(env)
}

/// `Generator.fromService(urls, options)`'s body: the options as the service
/// crate's settings; what is not given is its default.
pub(crate) fn from_service(
    env: &Env,
    urls: &Unknown<'_>,
    options: Option<&Object<'_>>,
) -> Result<JsServiceGenerator> {
    let mut settings = ServiceSettings::new(urls_arg(env, urls)?);
    if let Some(options) = options {
        for (key, value) in crate::args::given_options(options)? {
            match key.as_str() {
                "batch" => settings.batch = count_arg(env, &key, &value)?,
                "lowWater" => settings.low_water = Some(count_arg(env, &key, &value)?),
                "maxBatch" => settings.max_batch = Some(count_arg(env, &key, &value)?),
                "requestTimeoutMs" => {
                    settings.request_timeout = Duration::from_millis(u64_arg(env, &key, &value)?)
                }
                "deadlineMs" => {
                    settings.deadline = Duration::from_millis(u64_arg(env, &key, &value)?)
                }
                _ => {
                    return Err(Error::invalid(
                        ArgumentKind::UnknownName,
                        format!(
                            "unknown option {key:?}: fromService takes batch, lowWater, \
                             maxBatch, requestTimeoutMs and deadlineMs"
                        ),
                    ))
                    .or_throw(env)
                }
            }
        }
    }
    Ok(JsServiceGenerator {
        inner: Arc::new(ServiceGenerator::new(settings).or_throw(env)?),
    })
}

/// `nextIdsAsync`: the wait for a refill on libuv's thread pool, not on the
/// event loop.
pub struct TakeIds {
    service: Arc<ServiceGenerator>,
    n: usize,
}

impl Task for TakeIds {
    type Output = std::result::Result<Vec<u64>, Error>;
    type JsValue = BigUint64Array;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(self.service.next_ids(self.n))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
        output
            .map(BigUint64Array::new)
            .map_err(|e| rejection(&env, e))
    }
}

#[napi]
impl JsServiceGenerator {
    /// The next ID from the buffer; blocks for a refill only when the buffer
    /// is empty, at most `deadlineMs` (`nextIdsAsync` waits off the event loop).
    #[napi(catch_unwind)]
    pub fn next_id(&self, env: Env) -> Result<u64> {
        self.inner.next_id().or_throw(&env)
    }

    /// The next ID as a decimal string.
    #[napi(catch_unwind)]
    pub fn next_id_string(&self, env: Env) -> Result<String> {
        Ok(self.inner.next_id().or_throw(&env)?.to_string())
    }

    /// `n` IDs, each batch's in its order.
    #[napi(catch_unwind)]
    pub fn next_ids(
        &self,
        env: Env,
        #[napi(ts_arg_type = "number")] n: Unknown<'_>,
    ) -> Result<BigUint64Array> {
        let n = Generator::batch_size(u64_arg(&env, "n", &n)?).or_throw(&env)?;
        Ok(BigUint64Array::new(self.inner.next_ids(n).or_throw(&env)?))
    }

    /// `n` IDs, resolved once they are here: a refill is awaited on the
    /// thread pool, never on the event loop.
    #[napi(catch_unwind, ts_return_type = "Promise<BigUint64Array>")]
    pub fn next_ids_async(
        &self,
        env: Env,
        #[napi(ts_arg_type = "number")] n: Unknown<'_>,
    ) -> Result<AsyncTask<TakeIds>> {
        let n = Generator::batch_size(u64_arg(&env, "n", &n)?).or_throw(&env)?;
        Ok(AsyncTask::new(TakeIds {
            service: Arc::clone(&self.inner),
            n,
        }))
    }

    /// Counts since the generator was made.
    #[napi(catch_unwind)]
    pub fn stats(&self) -> ServiceStats {
        self.inner.stats().into()
    }

    /// IDs fetched and not yet handed out.
    #[napi(getter)]
    pub fn buffered(&self) -> u32 {
        u32::try_from(self.inner.buffered()).unwrap_or(u32::MAX)
    }

    /// The replicas, in the order batches are asked of them.
    #[napi(getter)]
    pub fn urls(&self) -> Vec<String> {
        self.inner.settings().urls.clone()
    }

    /// IDs per request now: the refill adapts it to the rate, from the
    /// `batch` given up to `maxBatch`.
    #[napi(getter)]
    pub fn batch(&self) -> u32 {
        self.inner.batch() as u32
    }

    /// The refill starts when fewer IDs than this remain (it scales with the batch).
    #[napi(getter)]
    pub fn low_water(&self) -> u32 {
        self.inner.low_water() as u32
    }

    /// Stops the refill and drops the buffer (waiting at most one request's
    /// timeout); later calls throw `LEASE_LOST`, reason `closed`.
    #[napi(catch_unwind)]
    pub fn close(&self) {
        self.inner.close();
    }
}

/// Counts since a service-backed generator was made.
#[napi(object)]
pub struct ServiceStats {
    /// Batches fetched.
    pub batches: f64,
    /// Requests that failed, each followed by a try at the next replica.
    pub failovers: f64,
    /// Calls that found the buffer empty and waited for a refill.
    pub stalls: f64,
    /// The longest of those waits, in milliseconds.
    pub longest_stall_ms: f64,
    /// Calls that waited their whole deadline and threw.
    pub refused: f64,
}

impl From<polyflake_service::ServiceStats> for ServiceStats {
    fn from(s: polyflake_service::ServiceStats) -> Self {
        ServiceStats {
            batches: s.batches as f64,
            failovers: s.failovers as f64,
            stalls: s.stalls as f64,
            longest_stall_ms: s.longest_stall.as_secs_f64() * 1000.0,
            refused: s.refused as f64,
        }
    }
}
