//! A generator whose worker identity is claimed at its first use, not when it
//! is made (ADR 0017). The natural code makes one generator at module level;
//! a pre-forking server (gunicorn `--preload`, uwsgi's master, celery's
//! prefork pool) imports that module in a parent that never issues an ID and
//! forks workers that do. Claimed at construction, the parent would hold a
//! value for ever without using it, and its workers' copies would refuse.
//! Claimed at first use, the parent claims nothing and each worker claims
//! its own.
//!
//! What can be checked without touching a file or the network (the
//! variables, the settings, the registry's presence in the build) is checked
//! when it is made, so a misconfigured process still fails at start.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use super::request::{GeneratorRequest, IdentityRequest};
use super::{closed, Generator};
use crate::error::Result;
use crate::identity::env::{choose_from_env, EnvChoice, ProcessEnvironment};
use crate::identity::registry::{check_registry, LeaseConnector};

/// A generator made from a request whose identity is resolved at the first
/// [`get`](FirstUse::get). A failed claim is tried again at the next one.
pub struct FirstUse {
    request: GeneratorRequest,
    connectors: &'static [&'static dyn LeaseConnector],
    claiming: Mutex<()>,
    generator: OnceLock<Generator>,
    /// Closed before it was ever used: it never claims.
    closed: AtomicBool,
}

impl std::fmt::Debug for FirstUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FirstUse")
            .field("request", &self.request)
            .field("claimed", &self.generator.get().is_some())
            .finish()
    }
}

impl FirstUse {
    /// Checks `request` as far as it can be without I/O, and keeps it to
    /// resolve with `connectors` at the first use. An identity given outright
    /// (node values) is built now: it claims nothing.
    pub fn new(
        request: GeneratorRequest,
        connectors: &'static [&'static dyn LeaseConnector],
    ) -> Result<FirstUse> {
        let generator = OnceLock::new();
        match &request.identity {
            IdentityRequest::Named(_) | IdentityRequest::Nodes(_) => {
                let _ = generator.set(request.clone().resolve(connectors)?);
            }
            IdentityRequest::Environment => {
                if let EnvChoice::Registry { name, settings } =
                    choose_from_env(&request.layout, &ProcessEnvironment)?
                {
                    check_registry(connectors, &name, &settings)?;
                }
            }
            IdentityRequest::Registry { name, settings } => {
                check_registry(connectors, name, settings)?;
            }
        }
        Ok(FirstUse {
            request,
            connectors,
            claiming: Mutex::new(()),
            generator,
            closed: AtomicBool::new(false),
        })
    }

    /// Resolves the request now, as a constructor that claims at once does:
    /// for a process that wants to fail at start if no identity is to be had.
    pub fn claimed(
        request: GeneratorRequest,
        connectors: &'static [&'static dyn LeaseConnector],
    ) -> Result<FirstUse> {
        let first_use = FirstUse::new(request, connectors)?;
        first_use.get()?;
        Ok(first_use)
    }

    /// The generator, claiming its identity first if this is its first use.
    #[inline]
    pub fn get(&self) -> Result<&Generator> {
        match self.generator.get() {
            Some(generator) => Ok(generator),
            None => self.claim(),
        }
    }

    #[cold]
    fn claim(&self) -> Result<&Generator> {
        let _one = self.claiming.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(generator) = self.generator.get() {
            return Ok(generator);
        }
        if self.closed.load(Ordering::Acquire) {
            return Err(closed());
        }
        let generator = self.request.clone().resolve(self.connectors)?;
        Ok(self.generator.get_or_init(|| generator))
    }

    /// The generator if its identity was claimed already, without claiming.
    pub fn claimed_generator(&self) -> Option<&Generator> {
        self.generator.get()
    }

    /// Closes the generator if it was claimed ([`Generator::close`]), and
    /// makes sure it never claims if it was not.
    pub fn close(&self) {
        let _one = self.claiming.lock().unwrap_or_else(|e| e.into_inner());
        self.closed.store(true, Ordering::Release);
        if let Some(generator) = self.generator.get() {
            generator.close();
        }
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// The request it was made from (its layout, policy, clock).
    pub fn request(&self) -> &GeneratorRequest {
        &self.request
    }
}
