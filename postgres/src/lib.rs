//! `CREATE EXTENSION polyflake`: the core's IDs in SQL, in the schema
//! `polyflake`. Each function converts and calls the core; every rule lives
//! there.
//!
//! IDs are SQL `bigint` with the ID's 64 bits, as Kotlin's `Long` (the
//! contract): an ID of a layout that uses bit 63 is a negative `bigint`.
//! Errors are SQL errors whose message starts with the contract's code, with
//! an SQLSTATE by kind; pgrx turns a Rust panic into an SQL error, so no
//! input ends a backend.

use pgrx::prelude::*;
use pgrx::JsonB;
use polyflake_core::{Encoding, Error, Layout};

mod custom;
mod generator;
mod lease_worker;
mod settings;

::pgrx::pg_module_magic!();

/// In the postmaster, loading the library from `shared_preload_libraries`:
/// registers the settings, the generator's shared memory and the
/// identities (`generator.rs`), and the lease worker if a layout's identity
/// is leased from a registry (`lease_worker.rs`).
#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    // SAFETY: a flag PostgreSQL sets while it preloads libraries. Loaded
    // later (CREATE EXTENSION alone), PostgreSQL takes no server-start
    // settings: next_id says so.
    if unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        settings::define();
        if generator::start() {
            lease_worker::register();
        }
    }
}

// The schema is the extension's: CREATE EXTENSION makes it, owned by the
// role that ran it. Without USAGE for PUBLIC an application's own role (a
// plain LOGIN role, as applications and analysts connect) could call no
// function of it, and only a column DEFAULT worked; a database that wants
// fewer callers revokes it (docs/postgres.md).
pgrx::extension_sql!(
    "GRANT USAGE ON SCHEMA @extschema@ TO PUBLIC;",
    name = "schema_usage_for_every_role",
    finalize
);

/// The SQLSTATE of each of the core's errors, by variant: what a client's
/// driver sees. A new variant stops this compiling until it is placed.
fn sqlstate(error: &Error) -> PgSqlErrorCode {
    match error {
        Error::FieldOutOfRange { .. }
        | Error::TimestampBeforeEpoch { .. }
        | Error::TimestampOverflow { .. } => PgSqlErrorCode::ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE,
        Error::InvalidEncoding { .. } => PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
        Error::InvalidLayout(_) | Error::InvalidArgument { .. } => {
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE
        }
        Error::ClockMovedBackwards { .. } | Error::LeaseLost { .. } => {
            PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE
        }
        Error::StateIo { .. } => PgSqlErrorCode::ERRCODE_IO_ERROR,
    }
}

/// Raises the core's error as an SQL error: the message starts with the
/// contract's code; a lost lease's reason is the error's detail
/// (`reason: exhausted`), as every binding carries it beside the message.
fn raise(error: Error) -> ! {
    let message = format!("{}: {}", error.code(), error);
    match detail(&error) {
        Some(detail) => {
            ereport!(ERROR, sqlstate(&error), message, detail);
        }
        None => {
            ereport!(ERROR, sqlstate(&error), message);
        }
    }
}

/// The SQL error's detail for `error`, if it has one.
pub(crate) fn detail(error: &Error) -> Option<String> {
    error
        .lease_lost_reason()
        .map(|reason| format!("reason: {}", reason.name()))
}

pub(crate) fn ok<T>(result: polyflake_core::Result<T>) -> T {
    result.unwrap_or_else(|e| raise(e))
}

/// The layout named `name`: a preset or a custom one (`custom.rs`).
fn layout(name: &str) -> Layout {
    ok(settings::layout(name))
}

/// The same 64 bits, read as the core's `u64`.
fn bits(id: i64) -> u64 {
    id as u64
}

/// The same 64 bits, as SQL's `bigint`.
pub(crate) fn bigint(id: u64) -> i64 {
    id as i64
}

/// The fields of an ID as `jsonb`: `id` and `layout`, `timestamp_ms`, each
/// node field, `sequence`. The ID and the time are strings (exact past 2^53).
#[pg_extern(immutable, parallel_safe)]
fn decode(id: i64, layout_name: default!(&str, "'snowflake'")) -> JsonB {
    let layout = layout(layout_name);
    let parts = ok(layout.decode(bits(id)));
    let mut out = serde_json::Map::new();
    out.insert("id".into(), bits(id).to_string().into());
    out.insert("layout".into(), layout_name.into());
    out.insert("timestamp_ms".into(), parts.timestamp_ms.to_string().into());
    for (name, value) in parts.fields(&layout) {
        out.insert(name.into(), value.into());
    }
    out.insert("sequence".into(), parts.sequence.into());
    JsonB(serde_json::Value::Object(out))
}

/// The ID of these fields: `nodes` names each node field of the layout
/// (`{"datacenter_id": 1, "machine_id": 5}`).
#[pg_extern(immutable, parallel_safe)]
fn compose(
    layout_name: &str,
    timestamp_ms: i64,
    sequence: i64,
    nodes: default!(JsonB, "'{}'"),
) -> i64 {
    let layout = layout(layout_name);
    let serde_json::Value::Object(fields) = nodes.0 else {
        raise(Error::invalid(
            polyflake_core::ArgumentKind::Usage,
            "nodes must be a JSON object naming each node field".into(),
        ))
    };
    let mut named = Vec::with_capacity(fields.len());
    for (name, value) in &fields {
        let Some(value) = value.as_u64() else {
            raise(Error::invalid(
                polyflake_core::ArgumentKind::Usage,
                format!("node field {name} must be a whole number ≥ 0, not {value}"),
            ))
        };
        named.push((name.as_str(), value));
    }
    let sequence = u64::try_from(sequence).unwrap_or_else(|_| {
        raise(Error::invalid(
            polyflake_core::ArgumentKind::Usage,
            format!("sequence must be a whole number ≥ 0, not {sequence}"),
        ))
    });
    bigint(ok(layout.compose_named(timestamp_ms, sequence, named)))
}

/// The start of the ID's tick.
#[pg_extern(immutable, parallel_safe)]
fn timestamp(id: i64, layout_name: default!(&str, "'snowflake'")) -> TimestampWithTimeZone {
    let parts = ok(layout(layout_name).decode(bits(id)));
    to_timestamptz(parts.timestamp_ms)
}

/// The smallest ID of the tick holding `at`: `WHERE id >= min_id(…)`.
#[pg_extern(immutable, parallel_safe)]
fn min_id(at: TimestampWithTimeZone, layout_name: default!(&str, "'snowflake'")) -> i64 {
    bigint(ok(layout(layout_name).min_id(unix_ms(at))))
}

/// The largest ID of the tick holding `at`: `WHERE id <= max_id(…)`.
#[pg_extern(immutable, parallel_safe)]
fn max_id(at: TimestampWithTimeZone, layout_name: default!(&str, "'snowflake'")) -> i64 {
    bigint(ok(layout(layout_name).max_id(unix_ms(at))))
}

/// The ID in a text encoding (`decimal`, `hex`, `base58`, …). `bytes` is
/// not text: `to_bytes` answers a `bytea` (hex text under the name `bytes`
/// would read back as nothing `parse` takes).
#[pg_extern(immutable, parallel_safe)]
fn format(id: i64, encoding: default!(&str, "'decimal'")) -> String {
    let encoding = ok(Encoding::from_name(encoding));
    if encoding == Encoding::Bytes {
        raise(Error::invalid(
            polyflake_core::ArgumentKind::Usage,
            "bytes are a bytea, not text: polyflake.to_bytes(bigint)".into(),
        ))
    }
    encoding.encode(bits(id)).to_string()
}

/// The ID a text encoding spells. `bytes` is not text: `from_bytes` takes a `bytea`.
#[pg_extern(immutable, parallel_safe)]
fn parse(text: &str, encoding: default!(&str, "'decimal'")) -> i64 {
    let encoding = ok(Encoding::from_name(encoding));
    if encoding == Encoding::Bytes {
        raise(Error::invalid(
            polyflake_core::ArgumentKind::Usage,
            "bytes are a bytea, not text: polyflake.from_bytes(bytea)".into(),
        ))
    }
    bigint(ok(encoding.parse(text)))
}

/// The ID's 8 bytes, big-endian, as a `bytea`.
#[pg_extern(immutable, parallel_safe)]
fn to_bytes(id: i64) -> Vec<u8> {
    Encoding::Bytes.encode(bits(id)).as_bytes().to_vec()
}

/// The ID of 8 big-endian bytes.
#[pg_extern(immutable, parallel_safe)]
fn from_bytes(bytes: &[u8]) -> i64 {
    bigint(ok(Encoding::Bytes.parse(bytes)))
}

/// The presets, then the custom layouts of `polyflake.custom_layouts`:
/// name, epoch, tick, widths. Stable: the custom ones are the server's.
#[pg_extern(stable, parallel_safe)]
fn layouts() -> TableIterator<
    'static,
    (
        name!(name, String),
        name!(epoch_ms, i64),
        name!(tick_ms, i64),
        name!(time_bits, i32),
        name!(node_fields, JsonB),
        name!(sequence_bits, i32),
    ),
> {
    let presets = polyflake_core::PRESETS
        .iter()
        .map(|name| ((*name).to_owned(), layout(name)));
    let custom = ok(settings::custom_layouts()).iter().cloned();
    TableIterator::new(presets.chain(custom).map(|(name, layout)| {
        let nodes = layout
            .node_fields()
            .iter()
            .map(|f| (f.name().to_string(), serde_json::Value::from(f.bits())))
            .collect::<serde_json::Map<_, _>>();
        (
            name,
            layout.epoch_ms(),
            layout.tick_ms() as i64,
            i32::from(layout.time_bits()),
            JsonB(serde_json::Value::Object(nodes)),
            i32::from(layout.sequence_bits()),
        )
    }))
}

/// PostgreSQL counts a `timestamptz` in microseconds from 2000-01-01 UTC.
const PG_EPOCH_UNIX_MS: i64 = 946_684_800_000;

/// Unix milliseconds of a `timestamptz`, floored (a microsecond before an
/// epoch millisecond belongs to the one before).
fn unix_ms(at: TimestampWithTimeZone) -> i64 {
    let micros: i64 = at.into_inner();
    micros.div_euclid(1000) + PG_EPOCH_UNIX_MS
}

fn to_timestamptz(unix_ms: i64) -> TimestampWithTimeZone {
    let micros = (unix_ms - PG_EPOCH_UNIX_MS).saturating_mul(1000);
    // SAFETY: any i64 is a valid Datum of a timestamptz (infinity at the ends).
    unsafe { TimestampWithTimeZone::from_datum(pgrx::pg_sys::Datum::from(micros), false).unwrap() }
}
