//! # polyflake
//!
//! Snowflake IDs with one set of rules for every language: bit-exact preset
//! layouts (`twitter`, `snowflake`, `discord`, `instagram`, `sonyflake`) and
//! validated custom ones; an exact compose/decode round trip that refuses
//! out-of-range input instead of masking it; text encodings; and a lock-free
//! [`Generator`] that waits rather than wraps, has an explicit policy for a
//! clock going backwards, and never issues the same ID twice.
//!
//! ```
//! use polyflake::{Encoding, Generator, Layout};
//!
//! let layout = Layout::twitter();
//! let generator = Generator::builder(layout.clone())
//!     .node("datacenter_id", 1)
//!     .node("machine_id", 7)
//!     .build()?;
//! let id = generator.next_id()?;
//! let parts = layout.decode(id)?;
//! assert_eq!(parts.get(&layout, "machine_id"), Some(7));
//! assert_eq!(layout.compose(parts.timestamp_ms, parts.sequence, parts.nodes())?, id);
//! assert_eq!(Encoding::Base58.parse(Encoding::Base58.format(id))?, id);
//! # Ok::<(), polyflake::Error>(())
//! ```

pub mod check;
pub mod clock;
pub mod encoding;
pub mod error;
pub mod generator;
pub mod identity;
pub mod layout;
pub mod lease;
pub mod mark;
pub mod parts;
mod plan;
pub mod reclaim;
pub mod registry;
#[cfg(feature = "serde")]
pub mod serde_id;
pub mod tenure;

pub use check::NodeCheck;
pub use clock::{Clock, ManualClock, MonotonicClock, WallClock};
pub use encoding::{is_id_key, Encoded, Encoding};
pub use error::{Error, Result};
pub use generator::{
    BackwardsPolicy, Generator, GeneratorBuilder, GeneratorStats, IdBlock, TryNext,
};
pub use identity::{EnvChoice, Environment, Identity, ProcessEnvironment, WorkerIdentity};
pub use layout::{Layout, LayoutBuilder, NodeField, MAX_NODE_FIELDS, PRESETS};
pub use lease::LocalLease;
pub use mark::{FileMark, MarkStore};
pub use parts::{Parts, Segment, SegmentKind};
pub use reclaim::ReclaimingLease;
pub use registry::{LeaseConnector, RegistrySettings};
pub use tenure::{Claim, LeaseStats, RemoteLease, Tenure};

/// The README's Rust examples, run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;
