//! The native half of the Node package. One file per core module,
//! conversions and error mapping only (docs/adr/0001); `polyflake.js` adds
//! the idiomatic shapes that are cheaper to build on the JS side.

// napi registers exports only outside `cfg(test)`, so a test build sees them unused.
#![cfg_attr(test, allow(dead_code))]

mod args;
mod check;
mod clock;
mod counts;
mod encoding;
mod error;
mod fast;
mod generator;
mod layout;
mod parts;
mod request;
mod service;
