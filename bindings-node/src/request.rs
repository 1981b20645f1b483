//! What a constructor's options object says, as the core's
//! `GeneratorRequest` (core `generator/request.rs`): the clock, the backwards
//! policy, the check, and the identity's own keys (node fields, or the
//! registry's settings); the core's defaults where not given.

use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::{Env, ValueType};
use polyflake::{
    ArgumentKind, BackwardsPolicy, Error, GeneratorRequest, IdentityRequest, RegistryDuration,
    RegistrySettings,
};
use polyflake_connectors::ETCD;

use crate::args::{camel, u64_arg};
use crate::clock::JsManualClock;
use crate::error::{wrong_type, OrThrow};

/// Where the identity comes from, which decides the keys an options object
/// may hold beside the clock, the policy and the check.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Source {
    /// `new Generator`: node fields by camelCase name; no check.
    Given,
    /// `fromEnv`: nothing more.
    Environment,
    /// `fromEtcd`: the registry's settings.
    Registry,
}

/// `{ clock, onClockBackwards, maxBackwardsMs, check, ...node fields or etcd
/// settings }` as the core's request; what is not given is the core's default.
pub(crate) fn request(
    env: &Env,
    layout: &polyflake::Layout,
    options: Option<&Object<'_>>,
    source: Source,
) -> Result<GeneratorRequest> {
    let mut policy = None;
    let mut max_ms = BackwardsPolicy::DEFAULT_WAIT_MS;
    let mut nodes = Vec::new();
    let mut settings = RegistrySettings::new(Vec::<String>::new());
    let mut request = GeneratorRequest::new(layout.clone(), IdentityRequest::Environment);
    let duration = |key: &str| {
        RegistryDuration::ALL
            .into_iter()
            .find(|d| format!("{}Ms", camel(d.name())) == key)
    };
    let registry = source == Source::Registry;
    if let Some(options) = options {
        for (key, value) in crate::args::given_options(options)? {
            match key.as_str() {
                "onClockBackwards" => {
                    policy = Some(unsafe { value.cast::<String>() }.map_err(|_| {
                        wrong_type(env, "onClockBackwards", "'fail', 'wait' or 'logical'")
                    })?)
                }
                "maxBackwardsMs" => max_ms = u64_arg(env, "maxBackwardsMs", &value)?,
                "check" if source != Source::Given => {
                    request.check = Some(crate::check::check_arg(env, &value)?)
                }
                "clock" => {
                    request.clock = Some(if value.get_type()? == ValueType::String {
                        let name = unsafe { value.cast::<String>()? };
                        polyflake::clock::named_clock(&name, "clock").or_throw(env)?
                    } else {
                        let manual: ClassInstance<'_, JsManualClock> = unsafe { value.cast() }
                            .map_err(|_| {
                                wrong_type(env, "clock", "'monotonic', 'wall' or a ManualClock")
                            })?;
                        Arc::new(manual.inner.clone())
                    })
                }
                "endpoints" if registry => {
                    settings.endpoints = if value.get_type()? == ValueType::String {
                        polyflake::identity::registry::parse_endpoints(&unsafe {
                            value.cast::<String>()?
                        })
                    } else {
                        unsafe { value.cast::<Vec<String>>() }.map_err(|_| {
                            wrong_type(env, "endpoints", "a URL string or an array of them")
                        })?
                    }
                }
                "prefix" if registry => {
                    settings.prefix = unsafe { value.cast::<String>() }
                        .map_err(|_| wrong_type(env, "prefix", "a string"))?
                }
                "nodeRange" if registry => {
                    let pair: Vec<Unknown<'_>> = unsafe { value.cast() }
                        .map_err(|_| wrong_type(env, "nodeRange", "[start, stop]"))?;
                    let [start, stop] = pair.as_slice() else {
                        return Err(wrong_type(env, "nodeRange", "[start, stop]"));
                    };
                    settings.node_range = Some(
                        u64_arg(env, "nodeRange[0]", start)?..u64_arg(env, "nodeRange[1]", stop)?,
                    );
                }
                key if registry && duration(key).is_some() => {
                    let setting = duration(key).expect("matched");
                    *setting.slot(&mut settings) =
                        Duration::from_millis(u64_arg(env, key, &value)?);
                }
                _ if source == Source::Given => {
                    let field = layout
                        .node_fields()
                        .iter()
                        .find(|f| camel(f.name()) == key)
                        .map_or(key.clone(), |f| f.name().to_owned());
                    nodes.push((field, u64_arg(env, &key, &value)?));
                }
                _ => {
                    return Err(Error::invalid(
                        ArgumentKind::UnknownName,
                        format!(
                            "unknown option {key:?}: the identity is not given by the caller here"
                        ),
                    ))
                    .or_throw(env)
                }
            }
        }
    }
    let name = policy
        .as_deref()
        .unwrap_or(BackwardsPolicy::default().name());
    request.policy = BackwardsPolicy::parse(name, max_ms, "onClockBackwards").or_throw(env)?;
    request.identity = match source {
        Source::Given => IdentityRequest::Named(nodes),
        Source::Environment => IdentityRequest::Environment,
        Source::Registry => IdentityRequest::Registry {
            name: ETCD.to_owned(),
            settings,
        },
    };
    Ok(request)
}
