//! compose / decode / explain / minId / maxId: wraps `polyflake::parts`.
//! `decode`'s object is built in JavaScript (polyflake.js) from the numbers
//! `decodeInto` writes: one crossing, no per-property napi calls.

use napi::bindgen_prelude::*;
use napi::Env;
use napi_derive::napi;

use crate::args::{camel, object_arg, timestamp_arg, u64_arg};
use crate::error::{wrong_type, OrThrow};
use crate::layout::with_layout;

/// Builds an ID: `compose('twitter', { timestampMs, sequence, datacenterId, machineId })`.
#[napi(catch_unwind)]
pub fn compose(
    env: Env,
    #[napi(ts_arg_type = "Layout | PresetName")] layout: Unknown<'_>,
    #[napi(ts_arg_type = "ComposeParts")] parts: Unknown<'_>,
) -> Result<u64> {
    let parts = object_arg(&env, "parts", parts)?;
    with_layout(&env, &layout, |layout| {
        let mut timestamp = None;
        let mut sequence = None;
        let mut named: Vec<(String, u64)> = Vec::new();
        for key in Object::keys(&parts)? {
            let Some(value) = parts.get::<Unknown<'_>>(&key)? else {
                continue;
            };
            match key.as_str() {
                "timestampMs" => timestamp = Some(timestamp_arg(&env, "timestampMs", &value)?),
                "sequence" => sequence = Some(u64_arg(&env, "sequence", &value)?),
                _ => {
                    let field = layout
                        .node_fields()
                        .iter()
                        .find(|f| camel(f.name()) == key)
                        .map_or(key.clone(), |f| f.name().to_owned());
                    named.push((field, u64_arg(&env, &key, &value)?));
                }
            }
        }
        let timestamp = timestamp.ok_or_else(|| wrong_type(&env, "parts.timestampMs", "given"))?;
        let sequence = sequence.ok_or_else(|| wrong_type(&env, "parts.sequence", "given"))?;
        layout
            .compose_named(
                timestamp,
                sequence,
                named.iter().map(|(n, v)| (n.as_str(), *v)),
            )
            .or_throw(&env)
    })
}

/// A one-argument native `(id) => void` that writes `[timestampMs, sequence,
/// ...node fields]` of `id` into `out` (see fast.rs; used by `decode` in polyflake.js).
#[napi(
    js_name = "_bindDecode",
    ts_return_type = "(id: bigint | string | number) => void"
)]
pub fn bind_decode<'env>(
    env: &'env Env,
    #[napi(ts_arg_type = "Layout | PresetName")] layout: Unknown<'_>,
    #[napi(ts_arg_type = "Float64Array")] out: Unknown<'_>,
) -> Result<Unknown<'env>> {
    let layout = with_layout(env, &layout, |layout| Ok(layout.clone()))?;
    crate::fast::bind_decode(env, layout, out)
}

/// One labelled run of an ID's bits.
#[napi(object)]
pub struct Segment {
    /// `unused`, `time`, a node field (camelCase) or `sequence`.
    pub name: String,
    /// `unused`, `time`, `node` or `sequence`.
    pub kind: String,
    pub msb: u32,
    pub lsb: u32,
    pub width: u32,
    pub value: BigInt,
    /// The segment's bits, most significant first.
    pub bits: String,
}

/// The ID's 64 bits as labelled segments, most significant first.
#[napi(catch_unwind)]
pub fn explain(
    env: Env,
    #[napi(ts_arg_type = "bigint | string | number")] id: Unknown<'_>,
    #[napi(ts_arg_type = "Layout | PresetName")] layout: Unknown<'_>,
) -> Result<Vec<Segment>> {
    let id = u64_arg(&env, "id", &id)?;
    with_layout(&env, &layout, |layout| {
        Ok(layout
            .explain(id)
            .or_throw(&env)?
            .into_iter()
            .map(|s| Segment {
                kind: s.kind.name().to_owned(),
                bits: s.bits(),
                width: u32::from(s.width()),
                name: camel(&s.name),
                msb: u32::from(s.msb),
                lsb: u32::from(s.lsb),
                value: BigInt::from(s.value),
            })
            .collect())
    })
}

/// The first ID of the tick holding `timestampMs`.
#[napi(catch_unwind)]
pub fn min_id(
    env: Env,
    #[napi(ts_arg_type = "Layout | PresetName")] layout: Unknown<'_>,
    #[napi(ts_arg_type = "number | bigint | string | Date")] timestamp_ms: Unknown<'_>,
) -> Result<u64> {
    let ts = timestamp_arg(&env, "timestampMs", &timestamp_ms)?;
    with_layout(&env, &layout, |layout| layout.min_id(ts).or_throw(&env))
}

/// The last ID of the tick holding `timestampMs`.
#[napi(catch_unwind)]
pub fn max_id(
    env: Env,
    #[napi(ts_arg_type = "Layout | PresetName")] layout: Unknown<'_>,
    #[napi(ts_arg_type = "number | bigint | string | Date")] timestamp_ms: Unknown<'_>,
) -> Result<u64> {
    let ts = timestamp_arg(&env, "timestampMs", &timestamp_ms)?;
    with_layout(&env, &layout, |layout| layout.max_id(ts).or_throw(&env))
}
