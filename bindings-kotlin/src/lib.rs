//! The native half of the Kotlin package: uniffi scaffolding, one file per
//! core module, conversions and error mapping only (docs/adr/0001). The
//! idiomatic Kotlin API lives in src/main/kotlin.

mod check;
mod clock;
mod counts;
mod encoding;
mod error;
mod fast;
mod generator;
mod layout;
mod parts;
mod registry;
mod request;
mod service;

uniffi::setup_scaffolding!();
