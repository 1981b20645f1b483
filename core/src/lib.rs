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

pub mod clock;
pub mod error;
pub mod fork;
pub mod generator;
pub mod id;
pub mod identity;

pub use clock::{Clock, ManualClock, MonotonicClock, WallClock};
pub use error::{ArgumentKind, Error, LeaseLostReason, Result};
pub use generator::{
    BackwardsPolicy, FirstUse, Generator, GeneratorBuilder, GeneratorRequest, GeneratorStats,
    IdBlock, IdentityRequest, SharedState, TryNext,
};
pub use id::encoding::{Encoded, Encoding};
pub use id::json::is_id_key;
pub use id::layout::{Layout, LayoutBuilder, NodeField, MAX_NODE_FIELDS, PRESETS};
pub use id::parts::{Parts, Segment, SegmentKind};
#[cfg(feature = "serde")]
pub use id::serde_id;
pub use identity::{
    Claim, EnvChoice, Environment, FileMark, Identity, LeaseConnector, LeaseStats, LocalLease,
    MarkStore, NodeCheck, ProcessEnvironment, ReclaimingLease, RegistryDuration, RegistrySettings,
    RemoteLease, Tenure, WorkerIdentity,
};

/// The README's Rust examples, run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;
