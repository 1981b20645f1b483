//! Bit layouts: the five presets of the contract and validated custom layouts.

use std::borrow::Cow;

use crate::error::{ArgumentKind, Error, Result};
pub(crate) use crate::id::plan::mask;
use crate::id::plan::Plan;
pub use crate::id::plan::MAX_NODE_FIELDS;

/// Names a node field may not take, because decoded parts already use them.
/// Names a node field cannot take: every binding's decoded parts carry these
/// beside the node fields (Python `to_dict`, Node `date`, Kotlin `instant`
/// and `nodes`), so a field of that name would be shadowed in one of them.
const RESERVED_NAMES: [&str; 12] = [
    "id",
    "time",
    "timestamp",
    "timestamp_ms",
    "sequence",
    "unused",
    "datetime",
    "layout",
    "date",
    "instant",
    "nodes",
    "to_dict",
];

/// A field name as the camelCase languages spell it: `datacenter_id` ->
/// `datacenterId`. Layouts refuse names whose camelCase spellings collide.
pub fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The preset names, in the contract's order.
pub const PRESETS: [&str; 5] = [SPECS[0].0, SPECS[1].0, SPECS[2].0, SPECS[3].0, SPECS[4].0];

/// One named node field (datacenter, machine, shard …).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NodeField {
    name: Cow<'static, str>,
    bits: u8,
    shift: u8,
    max: u64,
}

impl NodeField {
    /// The field's contract name, e.g. `machine_id`.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Width in bits.
    pub fn bits(&self) -> u8 {
        self.bits
    }
    /// Position of the field's lowest bit.
    pub fn shift(&self) -> u8 {
        self.shift
    }
    /// The largest value the field holds.
    #[inline]
    pub fn max(&self) -> u64 {
        self.max
    }
}

/// Where every bit of an ID goes. Cheap to clone; compare with `==`.
///
/// A preset borrows everything it holds from constants, so making one
/// allocates nothing and, where the compiler sees which preset it is (as in
/// `Layout::twitter().decode(id)`), its decode compiles to fixed shifts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    name: Cow<'static, str>,
    sequence_bits: u8,
    sequence_above_nodes: bool,
    nodes: Cow<'static, [NodeField]>,
    pub(crate) plan: Plan,
}

/// The five presets, each defined once here; a preset's layout and its
/// constant decode plan both come from its spec.
#[derive(Clone, Copy)]
enum Preset {
    Twitter,
    Snowflake,
    Discord,
    Instagram,
    Sonyflake,
}

/// A preset's definition: name, epoch (Unix ms), tick (ms), time bits, node
/// fields (most significant first), sequence bits, sequence above the nodes.
type Spec = (
    &'static str,
    i64,
    u64,
    u8,
    &'static [(&'static str, u8)],
    u8,
    bool,
);

/// The presets, in the order of [`Preset`] and [`PRESETS`].
#[rustfmt::skip]
const SPECS: [Spec; 5] = [
    ("twitter", 1_288_834_974_657, 1, 41, &[("datacenter_id", 5), ("machine_id", 5)], 12, false),
    ("snowflake", 1_288_834_974_657, 1, 41, &[("node_id", 10)], 12, false),
    ("discord", 1_420_070_400_000, 1, 42, &[("worker_id", 5), ("process_id", 5)], 12, false),
    ("instagram", 1_314_220_021_721, 1, 41, &[("shard_id", 13)], 10, false),
    ("sonyflake", 1_409_529_600_000, 10, 39, &[("machine_id", 16)], 8, true),
];

impl Preset {
    const fn spec(self) -> Spec {
        SPECS[self as usize]
    }

    const fn plan(self) -> Plan {
        let (_, epoch_ms, tick_ms, time_bits, nodes, sequence_bits, above) = self.spec();
        let mut bits = [0u8; MAX_NODE_FIELDS];
        let mut i = 0;
        while i < nodes.len() {
            bits[i] = nodes[i].1;
            i += 1;
        }
        Plan::place(
            epoch_ms,
            tick_ms,
            time_bits,
            sequence_bits,
            bits,
            nodes.len(),
            above,
        )
    }

    /// The preset's node fields, placed by its plan. `N` is the spec's count.
    const fn node_fields<const N: usize>(self) -> [NodeField; N] {
        let nodes = self.spec().4;
        let plan = self.plan();
        let mut fields = [const { NodeField::UNSET }; N];
        let mut i = 0;
        while i < N {
            let field = NodeField {
                name: Cow::Borrowed(nodes[i].0),
                bits: nodes[i].1,
                shift: plan.node_shift[i],
                max: plan.node_max[i],
            };
            // The replaced value borrows a constant: nothing to drop, and a
            // const fn may not run a destructor.
            std::mem::forget(std::mem::replace(&mut fields[i], field));
            i += 1;
        }
        fields
    }

    const fn layout(self, nodes: &'static [NodeField]) -> Layout {
        let (name, _, _, _, _, sequence_bits, above) = self.spec();
        Layout {
            name: Cow::Borrowed(name),
            sequence_bits,
            sequence_above_nodes: above,
            nodes: Cow::Borrowed(nodes),
            plan: self.plan(),
        }
    }
}

impl NodeField {
    const UNSET: NodeField = NodeField {
        name: Cow::Borrowed(""),
        bits: 0,
        shift: 0,
        max: 0,
    };
}

/// Each preset's layout, evaluated at compile time, and its node fields, with
/// their count taken from its spec.
macro_rules! preset_layouts {
    ($($layout:ident, $fields:ident = $preset:ident),*) => {$(
        static $fields: [NodeField; SPECS[Preset::$preset as usize].4.len()] =
            Preset::$preset.node_fields();
        const $layout: Layout = Preset::$preset.layout(&$fields);
    )*};
}
preset_layouts!(
    TWITTER_LAYOUT,
    TWITTER_FIELDS = Twitter,
    SNOWFLAKE_LAYOUT,
    SNOWFLAKE_FIELDS = Snowflake,
    DISCORD_LAYOUT,
    DISCORD_FIELDS = Discord,
    INSTAGRAM_LAYOUT,
    INSTAGRAM_FIELDS = Instagram,
    SONYFLAKE_LAYOUT,
    SONYFLAKE_FIELDS = Sonyflake
);

impl Layout {
    /// Twitter's original: 1 unused · 41 time · 5 datacenter · 5 machine · 12 sequence.
    #[inline]
    pub const fn twitter() -> Layout {
        TWITTER_LAYOUT
    }
    /// bwmarrin/snowflake: 1 unused · 41 time · 10 node · 12 sequence.
    #[inline]
    pub const fn snowflake() -> Layout {
        SNOWFLAKE_LAYOUT
    }
    /// Discord: 42 time · 5 worker · 5 process · 12 increment.
    #[inline]
    pub const fn discord() -> Layout {
        DISCORD_LAYOUT
    }
    /// Instagram: 41 time · 13 shard · 10 sequence.
    #[inline]
    pub const fn instagram() -> Layout {
        INSTAGRAM_LAYOUT
    }
    /// Sonyflake: 1 unused · 39 time in 10 ms ticks · 8 sequence · 16 machine.
    #[inline]
    pub const fn sonyflake() -> Layout {
        SONYFLAKE_LAYOUT
    }

    /// A preset by its contract name (`"twitter"` …).
    pub fn preset(name: &str) -> Result<Layout> {
        match name {
            "twitter" => Ok(Layout::twitter()),
            "snowflake" => Ok(Layout::snowflake()),
            "discord" => Ok(Layout::discord()),
            "instagram" => Ok(Layout::instagram()),
            "sonyflake" => Ok(Layout::sonyflake()),
            other => Err(Error::InvalidLayout(format!(
                "unknown preset {other:?} (presets: {})",
                PRESETS.join(", ")
            ))),
        }
    }

    /// Starts a custom layout; [`LayoutBuilder::build`] validates it.
    pub fn custom(epoch_ms: i64, time_bits: u8) -> LayoutBuilder {
        LayoutBuilder {
            epoch_ms,
            time_bits,
            tick_ms: 1,
            nodes: Vec::new(),
            sequence_bits: 12,
            sequence_above_nodes: false,
        }
    }

    /// The preset's name, or `"custom"`.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Unix milliseconds of tick 0.
    pub fn epoch_ms(&self) -> i64 {
        self.plan.epoch_ms
    }
    /// Length of one tick of the time field, in milliseconds.
    pub fn tick_ms(&self) -> u64 {
        self.plan.tick_ms
    }
    /// Width of the time field.
    pub fn time_bits(&self) -> u8 {
        self.plan.time_bits
    }
    /// Position of the time field's lowest bit.
    pub fn time_shift(&self) -> u8 {
        self.plan.time_shift
    }
    /// Width of the sequence.
    pub fn sequence_bits(&self) -> u8 {
        self.sequence_bits
    }
    /// Position of the sequence's lowest bit.
    pub fn sequence_shift(&self) -> u8 {
        self.plan.sequence_shift
    }
    /// Whether the sequence sits above the node fields (Sonyflake) instead of below.
    pub fn sequence_above_nodes(&self) -> bool {
        self.sequence_above_nodes
    }
    /// The node fields, most significant first.
    pub fn node_fields(&self) -> &[NodeField] {
        &self.nodes
    }
    /// Unused bits at the top of the ID (always zero in a valid ID).
    pub fn unused_bits(&self) -> u8 {
        64 - self.plan.time_bits - self.plan.time_shift
    }
    /// The largest sequence value.
    #[inline]
    pub fn max_sequence(&self) -> u64 {
        self.plan.max_sequence
    }
    /// The largest tick count the time field holds.
    pub fn max_ticks(&self) -> u64 {
        mask(self.plan.time_bits)
    }
    /// The last Unix millisecond the time field can encode.
    pub fn max_timestamp_ms(&self) -> i64 {
        // The sum fits (checked when the layout was built); the span alone may
        // not, under an epoch before 1970, so add in i128.
        (i128::from(self.plan.epoch_ms)
            + (i128::from(self.max_ticks()) + 1) * i128::from(self.plan.tick_ms)
            - 1) as i64
    }
    /// Every bit a valid ID may set.
    #[inline]
    pub fn id_mask(&self) -> u64 {
        self.plan.id_mask
    }
    /// Index of a node field by name.
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|f| f.name == name)
    }

    /// The tick a Unix timestamp falls in, range-checked.
    pub fn ticks_at(&self, timestamp_ms: i64) -> Result<u64> {
        if timestamp_ms < self.plan.epoch_ms {
            return Err(Error::TimestampBeforeEpoch {
                timestamp_ms,
                epoch_ms: self.plan.epoch_ms,
            });
        }
        let elapsed = timestamp_ms.abs_diff(self.plan.epoch_ms);
        let ticks = if self.plan.tick_ms == 1 {
            elapsed
        } else {
            elapsed / self.plan.tick_ms
        };
        if ticks > self.max_ticks() {
            return Err(Error::TimestampOverflow {
                timestamp_ms,
                max_timestamp_ms: self.max_timestamp_ms(),
            });
        }
        Ok(ticks)
    }

    /// The Unix millisecond at which a tick starts. `ticks` must fit the time field.
    #[inline]
    pub fn timestamp_of(&self, ticks: u64) -> i64 {
        self.plan.timestamp_of(ticks)
    }

    /// Range-checks node values given in layout order and packs them in place.
    pub fn node_bits(&self, values: &[u64]) -> Result<u64> {
        if values.len() != self.nodes.len() {
            return Err(Error::invalid(
                ArgumentKind::Usage,
                format!(
                    "layout {} has {} node fields ({}), got {} values",
                    self.name,
                    self.nodes.len(),
                    self.field_names(),
                    values.len()
                ),
            ));
        }
        let mut bits = 0;
        for (field, &value) in self.nodes.iter().zip(values) {
            if value > field.max() {
                return Err(Error::out_of_range(&field.name, value, field.max()));
            }
            bits |= value << field.shift;
        }
        Ok(bits)
    }

    /// Orders node values given by name into layout order. Every field must be
    /// named exactly once; an unknown name is an error, never ignored.
    pub fn node_values<'a, I>(&self, named: I) -> Result<[u64; MAX_NODE_FIELDS]>
    where
        I: IntoIterator<Item = (&'a str, u64)>,
    {
        let mut values = [0; MAX_NODE_FIELDS];
        let mut seen = [false; MAX_NODE_FIELDS];
        for (name, value) in named {
            let Some(i) = self.node_index(name) else {
                return Err(Error::invalid(
                    ArgumentKind::UnknownName,
                    format!(
                        "layout {} has no field {name:?} (fields: {})",
                        self.name,
                        self.field_names()
                    ),
                ));
            };
            if seen[i] {
                return Err(Error::invalid(
                    ArgumentKind::Usage,
                    format!("field {name:?} given twice"),
                ));
            }
            seen[i] = true;
            values[i] = value;
        }
        if let Some(missing) = self.nodes.iter().zip(seen).find(|(_, s)| !s) {
            return Err(Error::invalid(
                ArgumentKind::MissingField,
                format!(
                    "missing field {:?} for layout {}",
                    missing.0.name, self.name
                ),
            ));
        }
        Ok(values)
    }

    pub(crate) fn field_names(&self) -> String {
        let names: Vec<&str> = self.nodes.iter().map(|f| f.name()).collect();
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    }

    /// Places ticks and sequence; the caller has range-checked both.
    #[inline(always)]
    pub(crate) fn assemble(&self, ticks: u64, sequence: u64, node_bits: u64) -> u64 {
        (ticks << self.plan.time_shift) | (sequence << self.plan.sequence_shift) | node_bits
    }
}

/// A custom layout under construction. Defaults: 1 ms ticks, 12-bit sequence
/// below the node fields, no node fields.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct LayoutBuilder {
    epoch_ms: i64,
    time_bits: u8,
    tick_ms: u64,
    nodes: Vec<(String, u8)>,
    sequence_bits: u8,
    sequence_above_nodes: bool,
}

impl LayoutBuilder {
    /// Length of one tick in milliseconds (Sonyflake uses 10).
    pub fn tick_ms(mut self, tick_ms: u64) -> Self {
        self.tick_ms = tick_ms;
        self
    }
    /// Appends a node field below the ones already added.
    pub fn node(mut self, name: impl Into<String>, bits: u8) -> Self {
        self.nodes.push((name.into(), bits));
        self
    }
    /// Width of the sequence.
    pub fn sequence_bits(mut self, bits: u8) -> Self {
        self.sequence_bits = bits;
        self
    }
    /// Puts the sequence above the node fields, as Sonyflake does.
    pub fn sequence_above_nodes(mut self, above: bool) -> Self {
        self.sequence_above_nodes = above;
        self
    }

    /// Validates and builds. Fails with `INVALID_LAYOUT` when the fields do
    /// not fit 64 bits, the time or sequence has zero width, a node field is
    /// empty, duplicated, reserved or not `[a-z][a-z0-9_]*`, or the last tick
    /// would not be a representable Unix millisecond.
    pub fn build(self) -> Result<Layout> {
        let invalid = |reason: String| Err(Error::InvalidLayout(reason));
        if self.time_bits == 0 {
            return invalid("the time field needs at least one bit".into());
        }
        if self.sequence_bits == 0 {
            return invalid("the sequence needs at least one bit".into());
        }
        if self.tick_ms == 0 {
            return invalid("tick_ms must be at least 1".into());
        }
        if self.nodes.len() > MAX_NODE_FIELDS {
            return invalid(format!("at most {MAX_NODE_FIELDS} node fields"));
        }
        let mut total = u32::from(self.time_bits) + u32::from(self.sequence_bits);
        for (i, (name, bits)) in self.nodes.iter().enumerate() {
            if name.is_empty() {
                return invalid("a node field needs a name".into());
            }
            let mut chars = name.chars();
            let valid = chars.next().is_some_and(|c| c.is_ascii_lowercase())
                && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if !valid {
                return invalid(format!(
                    "node field name {name:?} must match [a-z][a-z0-9_]*"
                ));
            }
            if RESERVED_NAMES.contains(&name.as_str()) {
                return invalid(format!("node field name {name:?} is reserved"));
            }
            // `a__b` or `a_` read the same in camelCase as `a_b` or `a`.
            if name.contains("__") || name.ends_with('_') {
                return invalid(format!(
                    "node field name {name:?} has a doubled or trailing underscore"
                ));
            }
            let camel = camel_case(name);
            if let Some((other, _)) = self.nodes[..i].iter().find(|(o, _)| camel_case(o) == camel) {
                if other != name {
                    return invalid(format!(
                        "node fields {other:?} and {name:?} are both {camel:?} in camelCase"
                    ));
                }
            }
            if self.nodes[..i].iter().any(|(other, _)| other == name) {
                return invalid(format!("duplicate node field {name:?}"));
            }
            if *bits == 0 {
                return invalid(format!("node field {name:?} needs at least one bit"));
            }
            total += u32::from(*bits);
        }
        if total > 64 {
            return invalid(format!("the fields take {total} bits, more than 64"));
        }
        let last_ms = i128::from(self.epoch_ms)
            + (i128::from(mask(self.time_bits)) + 1) * i128::from(self.tick_ms)
            - 1;
        if last_ms > i128::from(i64::MAX) {
            return invalid("the time field runs past the largest Unix millisecond".into());
        }

        let mut bits = [0u8; MAX_NODE_FIELDS];
        for (slot, (_, width)) in bits.iter_mut().zip(&self.nodes) {
            *slot = *width;
        }
        let plan = Plan::place(
            self.epoch_ms,
            self.tick_ms,
            self.time_bits,
            self.sequence_bits,
            bits,
            self.nodes.len(),
            self.sequence_above_nodes,
        );
        let nodes = self
            .nodes
            .into_iter()
            .enumerate()
            .map(|(i, (name, bits))| NodeField {
                name: Cow::Owned(name),
                bits,
                shift: plan.node_shift[i],
                max: plan.node_max[i],
            })
            .collect();
        Ok(Layout {
            name: Cow::Borrowed("custom"),
            sequence_bits: self.sequence_bits,
            sequence_above_nodes: self.sequence_above_nodes,
            nodes,
            plan,
        })
    }
}

impl std::str::FromStr for Layout {
    type Err = Error;
    fn from_str(name: &str) -> Result<Layout> {
        Layout::preset(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_preset_is_what_the_builder_makes_of_its_spec() {
        // The presets are constants that skip `build`; this holds them to it.
        for (i, spec) in SPECS.iter().enumerate() {
            let (name, epoch_ms, tick_ms, time_bits, nodes, sequence_bits, above) = *spec;
            let mut builder = Layout::custom(epoch_ms, time_bits)
                .tick_ms(tick_ms)
                .sequence_bits(sequence_bits)
                .sequence_above_nodes(above);
            for &(field, bits) in nodes {
                builder = builder.node(field, bits);
            }
            let built = builder.build().unwrap();
            let preset = Layout::preset(name).unwrap();
            assert_eq!(preset.name(), PRESETS[i]);
            assert_eq!(preset.node_fields(), built.node_fields(), "{name}");
            assert_eq!(preset.plan, built.plan, "{name}");
            assert_eq!(preset.sequence_bits(), built.sequence_bits());
            assert_eq!(preset.sequence_above_nodes(), built.sequence_above_nodes());
            assert!(matches!(preset.nodes, Cow::Borrowed(_)), "{name} allocates");
        }
        // Usable where only constants are.
        const SONYFLAKE: Layout = Layout::sonyflake();
        assert_eq!(SONYFLAKE.tick_ms(), 10);
        assert_eq!(SONYFLAKE.node_fields()[0].name(), "machine_id");
    }

    #[test]
    fn an_epoch_before_1970_with_a_span_past_i64_max_has_exact_bounds() {
        // Found by the `layout` fuzz target: the span alone overflowed i64.
        let layout = Layout::custom(-6_620_572_793_545_219_051, 22)
            .tick_ms(2_199_090_364_640)
            .sequence_bits(31)
            .sequence_above_nodes(true)
            .node("q", 1)
            .build()
            .unwrap();
        let span = (i128::from(layout.max_ticks()) + 1) * 2_199_090_364_640 - 1;
        assert!(span > i128::from(i64::MAX));
        assert_eq!(
            i128::from(layout.max_timestamp_ms()),
            -6_620_572_793_545_219_051 + span
        );
        assert_eq!(
            layout.timestamp_of(layout.max_ticks()),
            (-6_620_572_793_545_219_051i128 + i128::from(layout.max_ticks()) * 2_199_090_364_640)
                as i64
        );
        assert_eq!(
            layout
                .compose(6_566_001_002_403_546_371, 0, &[0])
                .unwrap_err()
                .code(),
            "TIMESTAMP_OVERFLOW"
        );
    }

    #[test]
    fn presets_fill_64_bits_as_the_contract_says() {
        let t = Layout::twitter();
        assert_eq!(
            (t.unused_bits(), t.time_shift(), t.sequence_shift()),
            (1, 22, 0)
        );
        assert_eq!(t.node_fields()[0].shift(), 17);
        assert_eq!(t.node_fields()[1].shift(), 12);
        let s = Layout::sonyflake();
        assert_eq!(
            (s.unused_bits(), s.time_shift(), s.sequence_shift()),
            (1, 24, 16)
        );
        assert_eq!(s.node_fields()[0].shift(), 0);
        assert_eq!(Layout::discord().unused_bits(), 0);
        assert_eq!(Layout::instagram().time_shift(), 23);
    }

    #[test]
    fn custom_layouts_are_validated() {
        let code = |b: LayoutBuilder| b.build().unwrap_err().code();
        assert_eq!(code(Layout::custom(0, 0)), "INVALID_LAYOUT");
        assert_eq!(
            code(Layout::custom(0, 41).sequence_bits(0)),
            "INVALID_LAYOUT"
        );
        assert_eq!(code(Layout::custom(0, 41).node("a", 20)), "INVALID_LAYOUT");
        assert_eq!(
            code(Layout::custom(0, 41).node("a", 1).node("a", 1)),
            "INVALID_LAYOUT"
        );
        assert_eq!(code(Layout::custom(0, 41).node("", 1)), "INVALID_LAYOUT");
        assert_eq!(
            code(Layout::custom(0, 41).node("sequence", 1)),
            "INVALID_LAYOUT"
        );
        assert_eq!(code(Layout::custom(0, 41).node("Bad", 1)), "INVALID_LAYOUT");
        assert_eq!(code(Layout::custom(i64::MAX - 5, 41)), "INVALID_LAYOUT");
        assert!(Layout::custom(0, 41).node("a", 11).build().is_ok());
    }

    #[test]
    fn node_values_refuse_unknown_and_missing_names() {
        let t = Layout::twitter();
        assert_eq!(
            t.node_values([("datacenter_id", 1)]).unwrap_err().code(),
            "INVALID_ARGUMENT"
        );
        assert_eq!(
            t.node_values([("datacenter_id", 1), ("machine_id", 2), ("x", 3)])
                .unwrap_err()
                .code(),
            "INVALID_ARGUMENT"
        );
        let v = t
            .node_values([("machine_id", 2), ("datacenter_id", 1)])
            .unwrap();
        assert_eq!(&v[..2], &[1, 2]);
    }
}
