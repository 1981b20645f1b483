//! `Layout`: wraps `polyflake::Layout`.

use std::sync::LazyLock;

use napi::bindgen_prelude::*;
use napi::{Env, ValueType};
use napi_derive::napi;
use polyflake::{Layout, PRESETS};

use crate::args::{camel, exact_number, small_arg, text_arg, timestamp_arg, u64_arg};
use crate::error::{wrong_type, OrThrow};

static PRESET_LAYOUTS: LazyLock<Vec<Layout>> = LazyLock::new(|| {
    PRESETS
        .iter()
        .map(|n| Layout::preset(n).expect("presets exist"))
        .collect()
});

/// A node field of a custom layout.
#[napi(object)]
pub struct NodeFieldSpec {
    pub name: String,
    pub bits: u32,
}

/// The definition of a custom layout. Only its typing is used: `custom`
/// reads the object through the checked conversions.
#[napi(object)]
#[allow(dead_code)]
pub struct CustomLayoutSpec {
    /// Unix milliseconds of tick 0.
    pub epoch_ms: f64,
    pub time_bits: u32,
    /// Node fields, most significant first (names in snake_case; decoded parts use camelCase).
    pub nodes: Option<Vec<NodeFieldSpec>>,
    /// Default 12.
    pub sequence_bits: Option<u32>,
    /// Default 1.
    pub tick_ms: Option<u32>,
    /// Default false (Sonyflake puts it above).
    pub sequence_above_nodes: Option<bool>,
}

/// The keys `Layout.custom` takes.
const SPEC_KEYS: [&str; 6] = [
    "epochMs",
    "timeBits",
    "nodes",
    "sequenceBits",
    "tickMs",
    "sequenceAboveNodes",
];

/// A bit layout: a preset (`Layout.preset('twitter')`) or `Layout.custom({...})`.
#[napi(js_name = "Layout")]
pub struct JsLayout {
    pub(crate) inner: Layout,
}

/// Runs `f` on the layout an argument names: a `Layout` or a preset's name.
pub(crate) fn with_layout<R>(
    env: &Env,
    value: &Unknown<'_>,
    f: impl FnOnce(&Layout) -> Result<R>,
) -> Result<R> {
    match value.get_type()? {
        ValueType::String => {
            let name: String = unsafe { value.cast()? };
            match PRESETS.iter().position(|p| *p == name) {
                Some(i) => f(&PRESET_LAYOUTS[i]),
                None => Err(Layout::preset(&name).unwrap_err()).or_throw(env),
            }
        }
        ValueType::Object => {
            let layout: ClassInstance<'_, JsLayout> = unsafe { value.cast() }
                .map_err(|_| wrong_type(env, "layout", "a Layout or a preset name"))?;
            f(&layout.inner)
        }
        _ => Err(wrong_type(env, "layout", "a Layout or a preset name")),
    }
}

#[napi]
impl JsLayout {
    /// A preset by name: `twitter`, `snowflake`, `discord`, `instagram`, `sonyflake`.
    #[napi(factory, catch_unwind)]
    pub fn preset(env: Env, #[napi(ts_arg_type = "PresetName")] name: Unknown<'_>) -> Result<Self> {
        let name = text_arg(&env, "name", &name, "a preset's name (a string)")?;
        Ok(JsLayout {
            inner: Layout::preset(&name).or_throw(&env)?,
        })
    }

    /// A validated custom layout.
    #[napi(factory, catch_unwind)]
    pub fn custom(
        env: Env,
        #[napi(ts_arg_type = "CustomLayoutSpec")] spec: Unknown<'_>,
    ) -> Result<Self> {
        let spec = crate::args::object_arg(&env, "spec", spec)?;
        // Every field through the checked conversions: a width of 2**32 + 41
        // or 1.5, a negative tick, an unsafe epoch are refused, never wrapped.
        let field = |name: &str| -> Result<Option<Unknown<'_>>> {
            Ok(spec
                .get::<Unknown<'_>>(name)?
                .filter(|v| !matches!(v.get_type(), Ok(ValueType::Undefined))))
        };
        let required = |name: &str| -> Result<Unknown<'_>> {
            field(name)?.ok_or_else(|| wrong_type(&env, name, "given"))
        };
        let width = |name: &str, value: &Unknown<'_>| -> Result<u8> {
            Ok(small_arg(&env, name, value, 64)? as u8)
        };
        for key in Object::keys(&spec)? {
            if !SPEC_KEYS.contains(&key.as_str()) {
                return Err(polyflake::Error::invalid(
                    polyflake::ArgumentKind::UnknownName,
                    format!(
                        "unknown layout option {key:?} (expected one of {})",
                        SPEC_KEYS.join(", ")
                    ),
                ))
                .or_throw(&env);
            }
        }
        let epoch = timestamp_arg(&env, "epochMs", &required("epochMs")?)?;
        let mut builder = Layout::custom(epoch, width("timeBits", &required("timeBits")?)?);
        if let Some(above) = field("sequenceAboveNodes")? {
            let above: bool = unsafe { above.cast() }
                .map_err(|_| wrong_type(&env, "sequenceAboveNodes", "a boolean"))?;
            builder = builder.sequence_above_nodes(above);
        }
        if let Some(bits) = field("sequenceBits")? {
            builder = builder.sequence_bits(width("sequenceBits", &bits)?);
        }
        if let Some(tick) = field("tickMs")? {
            builder = builder.tick_ms(u64_arg(&env, "tickMs", &tick)?);
        }
        if let Some(nodes) = field("nodes")? {
            let nodes: Vec<Object<'_>> = unsafe { nodes.cast() }
                .map_err(|_| wrong_type(&env, "nodes", "an array of { name, bits }"))?;
            for node in nodes {
                let name: String = node
                    .get::<Unknown<'_>>("name")?
                    .and_then(|v| unsafe { v.cast::<String>() }.ok())
                    .ok_or_else(|| wrong_type(&env, "nodes[].name", "a string"))?;
                let bits = node
                    .get::<Unknown<'_>>("bits")?
                    .ok_or_else(|| wrong_type(&env, "nodes[].bits", "given"))?;
                builder = builder.node(name, width("nodes[].bits", &bits)?);
            }
        }
        Ok(JsLayout {
            inner: builder.build().or_throw(&env)?,
        })
    }

    /// The preset names.
    /// The preset names, from the core (`Layout.PRESETS` in polyflake.js).
    #[napi(ts_return_type = "PresetName[]")]
    pub fn preset_names() -> Vec<&'static str> {
        polyflake::PRESETS.to_vec()
    }
    #[napi(getter)]
    pub fn name(&self) -> String {
        self.inner.name().to_owned()
    }
    #[napi(getter)]
    pub fn epoch_ms(&self, env: Env) -> Result<f64> {
        exact_number(&env, "epochMs", i128::from(self.inner.epoch_ms()))
    }
    #[napi(getter)]
    pub fn tick_ms(&self, env: Env) -> Result<f64> {
        exact_number(&env, "tickMs", i128::from(self.inner.tick_ms()))
    }
    #[napi(getter)]
    pub fn time_bits(&self) -> u32 {
        u32::from(self.inner.time_bits())
    }
    #[napi(getter)]
    pub fn sequence_bits(&self) -> u32 {
        u32::from(self.inner.sequence_bits())
    }
    #[napi(getter)]
    pub fn sequence_above_nodes(&self) -> bool {
        self.inner.sequence_above_nodes()
    }
    #[napi(getter)]
    pub fn max_sequence(&self) -> u32 {
        self.inner.max_sequence() as u32
    }
    #[napi(getter)]
    pub fn unused_bits(&self) -> u32 {
        u32::from(self.inner.unused_bits())
    }
    /// Where `decode` in JS finds each field (ADR 0004: the core computes the
    /// positions, JS only applies them): unused bits, time shift, time bits,
    /// sequence shift, sequence bits, then each node field's shift and bits.
    #[napi(getter, js_name = "_decodePlan")]
    pub fn decode_plan(&self) -> Vec<u32> {
        let l = &self.inner;
        let mut plan = vec![
            u32::from(l.unused_bits()),
            u32::from(l.time_shift()),
            u32::from(l.time_bits()),
            u32::from(l.sequence_shift()),
            u32::from(l.sequence_bits()),
        ];
        for field in l.node_fields() {
            plan.extend([u32::from(field.shift()), u32::from(field.bits())]);
        }
        plan
    }
    #[napi(getter)]
    pub fn max_timestamp_ms(&self, env: Env) -> Result<f64> {
        exact_number(
            &env,
            "maxTimestampMs",
            i128::from(self.inner.max_timestamp_ms()),
        )
    }
    /// Node fields, most significant first, with their contract (snake_case) names.
    #[napi(getter)]
    pub fn nodes(&self) -> Vec<NodeFieldSpec> {
        self.inner
            .node_fields()
            .iter()
            .map(|f| NodeFieldSpec {
                name: f.name().to_owned(),
                bits: u32::from(f.bits()),
            })
            .collect()
    }
    /// The node fields' names as decoded parts carry them (camelCase).
    #[napi(getter)]
    pub fn field_names(&self) -> Vec<String> {
        self.inner
            .node_fields()
            .iter()
            .map(|f| camel(f.name()))
            .collect()
    }
    #[napi]
    pub fn equals(&self, other: &JsLayout) -> bool {
        self.inner == other.inner
    }
    #[napi(js_name = "toString")]
    pub fn describe(&self) -> String {
        format!("Layout({})", self.inner.name())
    }
}
