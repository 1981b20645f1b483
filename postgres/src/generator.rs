//! `next_id()` and `next_ids(n)`: the core's generator with its words in
//! PostgreSQL's shared memory, so that every backend (a process of its own)
//! takes part in one compare-and-swap and no two connections get one ID.
//!
//! When the server starts, the postmaster (which loads the library through
//! `shared_preload_libraries`) resolves one identity per layout of
//! `polyflake.layouts` by the core's rules and holds its lease for the
//! server's life; the backends it forks inherit it. Each backend builds its
//! generator on the slot of shared words at its first `next_id`. After a
//! crash the postmaster makes the shared memory anew, and the first
//! generator on the fresh words starts them past the identity's mark.
//!
//! An identity leased from a registry (`POLYFLAKE_ETCD_ENDPOINTS`) cannot
//! be held by the postmaster, whose children cannot share a keep-alive
//! thread: the lease worker (`lease_worker.rs`) holds it and leads the
//! layout's words, and each backend's generator follows them (ADR 0016).

use std::sync::{Arc, OnceLock};

use pgrx::prelude::*;
use pgrx::{pg_shmem_init, JsonB, PGRXSharedMemory, PgAtomic};
use polyflake_connectors::CONNECTORS;
use polyflake_core::identity::lease::layout_key;
use polyflake_core::identity::registry::check_registry;
use polyflake_core::identity::{choose_from_env, EnvChoice};
use polyflake_core::{
    ArgumentKind, Clock, Error, Generator, Layout, MonotonicClock, RegistrySettings, Result,
    SharedState, TryNext, WorkerIdentity,
};

use crate::settings::{self, ServerEnvironment, MAX_LAYOUTS};
use crate::{bigint, ok};

/// One slot of words per layout of `polyflake.layouts`, in its order.
#[repr(C)]
struct Slots([SharedState; MAX_LAYOUTS]);

// SAFETY: lock-free atomics only, no pointers: valid at any address, in any
// process that maps them.
unsafe impl PGRXSharedMemory for Slots {}

static SLOTS: PgAtomic<Slots> = unsafe { PgAtomic::new(c"polyflake generator words") };

/// A layout the server issues for, and its identity (or why it has none).
pub(crate) struct Served {
    /// The layout's name in `polyflake.layouts` (a preset's or a custom one's).
    name: String,
    pub(crate) layout: Layout,
    identity: Result<Identity>,
}

/// Where a layout's identity is held.
enum Identity {
    /// Resolved in the postmaster and shared by its children.
    Shared(WorkerIdentity),
    /// Leased from the registry `name` by the lease worker, which leads the
    /// layout's words.
    Leased {
        name: String,
        settings: RegistrySettings,
    },
}

/// A layout whose identity the lease worker holds: its slot of words, the
/// registry's name and settings.
pub(crate) struct Lease<'a> {
    pub(crate) slot: usize,
    pub(crate) name: &'a str,
    pub(crate) layout: &'a Layout,
    pub(crate) registry: &'a str,
    pub(crate) settings: &'a RegistrySettings,
}

/// Set in the postmaster while preloading; `None` in a backend of a server
/// that did not preload the library.
static SERVED: OnceLock<Result<Vec<Served>>> = OnceLock::new();

/// This backend's generators, by slot, built at their first use.
static GENERATORS: [OnceLock<Generator>; MAX_LAYOUTS] = [const { OnceLock::new() }; MAX_LAYOUTS];

/// One clock for every process of the server: made in the postmaster, so
/// that the children it forks read it alike (a lease's deadline, stamped by
/// the lease worker, means the same moment in every backend).
static CLOCK: OnceLock<Arc<dyn Clock>> = OnceLock::new();

pub(crate) fn clock() -> Arc<dyn Clock> {
    Arc::clone(CLOCK.get_or_init(|| Arc::new(MonotonicClock::new())))
}

/// The words of slot `slot`.
pub(crate) fn words(slot: usize) -> &'static SharedState {
    &SLOTS.get().0[slot]
}

/// The file that orders the writers of `layout`'s mark.
pub(crate) fn mark_lock(layout: &Layout) -> std::path::PathBuf {
    ServerEnvironment::lock_dir().join(format!("{}.lock", layout_key(layout)))
}

/// The identity of `layout` by the core's rules: a registry is left to the
/// lease worker (if this build has it), anything else is resolved here.
fn resolve(layout: &Layout, env: &ServerEnvironment, clock: &Arc<dyn Clock>) -> Result<Identity> {
    if let EnvChoice::Registry { name, settings } = choose_from_env(layout, env)? {
        check_registry(CONNECTORS, &name, &settings)?;
        return Ok(Identity::Leased { name, settings });
    }
    WorkerIdentity::resolve_shared_from(layout, env, Arc::clone(clock)).map(Identity::Shared)
}

/// Called by `_PG_init` in the postmaster, from `shared_preload_libraries`;
/// answers whether a lease worker is needed.
pub(crate) fn start() -> bool {
    pg_shmem_init!(SLOTS = Slots([const { SharedState::new() }; MAX_LAYOUTS]));
    if let Err(e) = settings::custom_layouts() {
        warning!("polyflake: {}: {e}", e.code());
    }
    let clock = clock();
    let served = settings::layouts().map(|layouts| {
        let lock_dir = std::fs::create_dir_all(ServerEnvironment::lock_dir());
        layouts
            .into_iter()
            .map(|(name, layout)| {
                let identity = match &lock_dir {
                    Err(e) => Err(Error::invalid(
                        ArgumentKind::Usage,
                        format!(
                            "{} cannot be made: {e}",
                            ServerEnvironment::lock_dir().display()
                        ),
                    )),
                    Ok(()) => {
                        ServerEnvironment::new().and_then(|env| resolve(&layout, &env, &clock))
                    }
                };
                if let Err(e) = &identity {
                    warning!(
                        "polyflake: no identity for layout {name}, next_id will refuse: {}: {e}",
                        e.code()
                    );
                }
                Served {
                    name,
                    layout,
                    identity,
                }
            })
            .collect()
    });
    if let Err(e) = &served {
        warning!("polyflake: next_id will refuse: {}: {e}", e.code());
    }
    let _ = SERVED.set(served);
    leases().next().is_some()
}

/// The layouts whose identity the lease worker holds.
pub(crate) fn leases() -> impl Iterator<Item = Lease<'static>> {
    served()
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter_map(|(slot, served)| match &served.identity {
            Ok(Identity::Leased { name, settings }) => Some(Lease {
                slot,
                name: &served.name,
                layout: &served.layout,
                registry: name,
                settings,
            }),
            _ => None,
        })
}

fn served() -> Result<&'static [Served]> {
    match SERVED.get() {
        Some(Ok(served)) => Ok(served),
        Some(Err(e)) => Err(e.clone()),
        None => Err(Error::invalid(
            ArgumentKind::Usage,
            "next_id needs polyflake in shared_preload_libraries (postgresql.conf: shared_preload_libraries = 'polyflake', then restart the server)".into(),
        )),
    }
}

/// This backend's generator for `layout_name` (the first of
/// `polyflake.layouts` when `None`).
fn generator(layout_name: Option<&str>) -> Result<&'static Generator> {
    let served = served()?;
    let slot = match layout_name {
        None => 0,
        Some(name) => {
            // An unknown name is INVALID_LAYOUT, as in every other function.
            settings::layout(name)?;
            served
                .iter()
                .position(|s| s.name == name)
                .ok_or_else(|| {
                    let names: Vec<_> = served.iter().map(|s| s.name.as_str()).collect();
                    Error::invalid(
                        ArgumentKind::UnknownName,
                        format!(
                            "this server issues IDs of layouts {names:?} (polyflake.layouts), not {name}"
                        ),
                    )
                })?
        }
    };
    if let Some(generator) = GENERATORS[slot].get() {
        return Ok(generator);
    }
    let Served {
        layout, identity, ..
    } = &served[slot];
    let builder = Generator::builder(layout.clone()).on_clock_backwards(settings::policy()?);
    let generator = match identity.as_ref().map_err(Clone::clone)? {
        Identity::Shared(identity) => builder
            .identity(identity.share()?)
            .shared(words(slot), mark_lock(layout)),
        Identity::Leased { name, .. } => builder.shared_clock(clock()).follow(
            words(slot),
            format!("the {name} lease held by this server's polyflake lease worker"),
        ),
    }
    .build()?;
    Ok(GENERATORS[slot].get_or_init(|| generator))
}

/// Waits for `target_ms` in steps, answering a cancel or a shutdown between them.
fn wait(generator: &Generator, target_ms: i64) {
    loop {
        check_for_interrupts!();
        let now = generator.clock().now_ms();
        if now >= target_ms {
            return;
        }
        generator.wait_until(target_ms.min(now + 10));
    }
}

/// A new ID of `layout` (default: the first of `polyflake.layouts`), never
/// issued before by this server: `id bigint DEFAULT polyflake.next_id()`.
#[pg_extern(volatile, parallel_safe)]
fn next_id(layout: default!(Option<&str>, "NULL")) -> i64 {
    let generator = ok(generator(layout));
    loop {
        match ok(generator.try_next_id()) {
            TryNext::Id(id) => return bigint(id),
            TryNext::WaitUntil(ms) => wait(generator, ms),
        }
    }
}

/// `n` new IDs in increasing order.
#[pg_extern(volatile, parallel_safe)]
fn next_ids(n: i64, layout: default!(Option<&str>, "NULL")) -> SetOfIterator<'static, i64> {
    let n = ok(u64::try_from(n)
        .map_err(|_| Error::invalid(ArgumentKind::Usage, format!("n must be ≥ 0, not {n}")))
        .and_then(Generator::batch_size));
    let generator = ok(generator(layout));
    let mut ids = Vec::with_capacity(n);
    while ids.len() < n {
        check_for_interrupts!();
        let block = ok(generator.next_block((n - ids.len()) as u64));
        ids.extend(block.ids().map(bigint));
    }
    SetOfIterator::new(ids)
}

/// The server's identities: per layout of `polyflake.layouts`, its node
/// values and where they came from, or the error `next_id` answers.
#[pg_extern(volatile)]
// pgrx reads the columns' names from the signature: no type alias.
#[allow(clippy::type_complexity)]
fn identities() -> TableIterator<
    'static,
    (
        name!(layout, String),
        name!(nodes, Option<JsonB>),
        name!(source, Option<String>),
        name!(error, Option<String>),
    ),
> {
    let served = ok(served());
    TableIterator::new(served.iter().map(|s| {
        let name = s.name.clone();
        // What this backend's generator issues under, as next_id would.
        let generator = generator(Some(&s.name)).and_then(|g| g.ready().map(|()| g));
        match generator {
            Ok(g) => {
                let nodes = s
                    .layout
                    .node_fields()
                    .iter()
                    .zip(g.node_values())
                    .map(|(f, v)| (f.name().to_string(), serde_json::Value::from(v)))
                    .collect::<serde_json::Map<_, _>>();
                (
                    name,
                    Some(JsonB(serde_json::Value::Object(nodes))),
                    Some(g.identity_source()),
                    None,
                )
            }
            Err(e) => {
                let error = match crate::detail(&e) {
                    Some(detail) => format!("{}: {e} ({detail})", e.code()),
                    None => format!("{}: {e}", e.code()),
                };
                (name, None, None, Some(error))
            }
        }
    }))
}
