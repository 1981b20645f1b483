//! The keep-alive thread: claims a node value, renews the lease, tells the
//! generator how long it may still issue IDs, and claims anew after a loss.

use std::collections::HashSet;
use std::sync::mpsc;
use std::sync::Arc;

use etcd_client::{
    Client, Compare, CompareOp, ConnectOptions, GetOptions, LeaseKeepAliveStream, LeaseKeeper,
    PutOptions, Txn, TxnOp,
};
use polyflake::identity::lease::layout_key;
use polyflake::identity::nodes::split_node_number;
use polyflake::identity::remote::{
    check_clock_gap, claim_range, ClaimOrder, Deadline, RateCheck, Reading, Verdict, PROBE_TTL_S,
};
use polyflake::identity::tenure::Generation;
use polyflake::{Claim, Clock, Error, Layout, LeaseLostReason, Result, Tenure};
use tokio::sync::watch;
use tokio::time::{sleep, sleep_until, timeout, Instant};

use crate::mark::EtcdMark;
use crate::owner::owner;
use crate::{Event, Events};
use polyflake::RegistrySettings as Settings;

pub(crate) struct Keeper {
    settings: Settings,
    layout: Layout,
    clock: Arc<dyn Clock>,
    tenure: Arc<Tenure>,
    events: Events,
    workers: String,
    marks: String,
}

/// The keeper's states: each step of [`Keeper::serve`] returns the next.
enum State {
    /// A value is held: renew it, keep its mark ahead.
    Holding,
    /// The value was lost or refused: claim another.
    Claiming,
    /// The generator is gone: settle the mark, revoke the lease.
    Stopping,
    /// This clock runs too slow for the lease: refuse until stopped.
    Halted,
}

/// What the keeper works with while it runs.
struct Session {
    client: Client,
    held: Held,
    stream: Option<KeepAlive>,
    renewal: Instant,
    renewals: u64,
    drifting: bool,
    /// When to try the mark again after etcd did not confirm it (a leader
    /// election, a member gone): soon, rather than at the next renewal.
    mark_retry: Option<Instant>,
    /// Values the application's check refused: never claimed again.
    excluded: HashSet<u64>,
    /// The probe lease and its readings (the core's `RateCheck`), once granted.
    rate: Option<(i64, RateCheck)>,
    /// Where this host's monotonic clock is read from for the rate check.
    epoch: Instant,
}

/// How soon a mark etcd did not confirm is tried again.
const MARK_RETRY: std::time::Duration = std::time::Duration::from_millis(250);

/// The lease and key this process holds now.
struct Held {
    lease_id: i64,
    number: u64,
    generation: Generation,
    mark: Arc<EtcdMark>,
    /// The claim's first deadline: its stamp on the generator's clock and
    /// the same moment on this host's monotonic clock.
    first_deadline: (i64, Instant),
}

type KeepAlive = (LeaseKeeper, LeaseKeepAliveStream);

impl Keeper {
    pub(crate) fn new(
        settings: Settings,
        layout: Layout,
        clock: Arc<dyn Clock>,
        tenure: Arc<Tenure>,
        events: Events,
    ) -> Self {
        let base = format!(
            "{}/{}",
            settings.prefix.trim_end_matches('/'),
            layout_key(&layout)
        );
        Keeper {
            workers: format!("{base}/workers/"),
            marks: format!("{base}/marks/"),
            settings,
            layout,
            clock,
            tenure,
            events,
        }
    }

    pub(crate) fn run(
        self,
        claimed: mpsc::Sender<Result<Claim>>,
        stop: watch::Receiver<bool>,
        refusals: tokio::sync::mpsc::UnboundedReceiver<u64>,
    ) {
        // Everything etcd is asked runs on this thread: generator threads
        // only read what it has confirmed.
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(e) => {
                let _ = claimed.send(Err(Error::lease_lost(
                    LeaseLostReason::Unreachable,
                    format!("cannot start the etcd runtime ({e})"),
                )));
                return;
            }
        };
        runtime.block_on(self.serve(claimed, stop, refusals));
    }

    async fn serve(
        self,
        claimed: mpsc::Sender<Result<Claim>>,
        mut stop: watch::Receiver<bool>,
        mut refusals: tokio::sync::mpsc::UnboundedReceiver<u64>,
    ) {
        let Some(mut session) = self.start(&claimed).await else {
            return;
        };
        let mut state = State::Holding;
        loop {
            state = match state {
                State::Holding => self.hold(&mut session, &mut stop, &mut refusals).await,
                State::Claiming => self.claim_again(&mut session, &mut stop).await,
                State::Halted => {
                    let _ = stop.changed().await;
                    break;
                }
                State::Stopping => break,
            };
        }
        // Clean shutdown (the generator is gone): bring the mark back to what
        // was used, then revoke the lease, which deletes the worker key at once.
        let s = &self.settings;
        let Session {
            mut client,
            held,
            rate,
            ..
        } = session;
        let _ = timeout(s.request_timeout, held.mark.settle(&mut client)).await;
        let _ = timeout(s.request_timeout, client.lease_revoke(held.lease_id)).await;
        if let Some((probe, _)) = rate {
            let _ = timeout(s.request_timeout, client.lease_revoke(probe)).await;
        }
    }

    /// Connects and claims the first value, and tells the generator the
    /// outcome; `None` when there is nothing to keep (refused, or nobody waits).
    async fn start(&self, claimed: &mpsc::Sender<Result<Claim>>) -> Option<Session> {
        let s = &self.settings;
        let options = ConnectOptions::new()
            .with_connect_timeout(s.request_timeout)
            .with_timeout(s.request_timeout);
        let first = match timeout(
            s.request_timeout * 2,
            Client::connect(&s.endpoints, Some(options)),
        )
        .await
        {
            Ok(Ok(mut client)) => self
                .claim(&mut client, &HashSet::new())
                .await
                .map(|c| (client, c)),
            Ok(Err(e)) => Err(self.unreachable(e)),
            Err(_) => {
                Err(self.unreachable(format!("no answer within {:?}", s.request_timeout * 2)))
            }
        };
        let (mut client, (held, claim)) = match first {
            Ok(ok) => ok,
            Err(e) => {
                let _ = claimed.send(Err(e));
                return None;
            }
        };
        if claimed.send(Ok(claim)).is_err() {
            let _ = client.lease_revoke(held.lease_id).await;
            return None;
        }
        self.watch_deadline(held.generation, held.first_deadline);
        Some(Session {
            client,
            held,
            stream: None,
            renewal: Instant::now() + s.keep_alive,
            renewals: 0,
            drifting: false,
            mark_retry: None,
            excluded: HashSet::new(),
            rate: None,
            epoch: Instant::now(),
        })
    }

    /// Holding: waits for the next renewal (extending the mark when the
    /// generator asks, releasing a value the check refused), renews, and says
    /// what comes next: holding on, claiming anew after a loss, or stopping.
    async fn hold(
        &self,
        session: &mut Session,
        stop: &mut watch::Receiver<bool>,
        refusals: &mut tokio::sync::mpsc::UnboundedReceiver<u64>,
    ) -> State {
        let s = &self.settings;
        let wanted = Arc::clone(&session.held.mark.wanted);
        let retry = session.mark_retry;
        tokio::select! {
            _ = stop.changed() => return State::Stopping,
            () = sleep_until(session.renewal) => {}
            () = wanted.notified() => {
                self.extend_mark(session).await;
                return State::Holding;
            }
            () = sleep_until(retry.unwrap_or(session.renewal)), if retry.is_some() => {
                self.extend_mark(session).await;
                return State::Holding;
            }
            Some(number) = refusals.recv() => {
                if number != session.held.number {
                    return State::Holding;
                }
                // The application's check refused the value: free it at
                // once and never claim it again.
                session.excluded.insert(number);
                let lease_id = session.held.lease_id;
                let _ = timeout(s.request_timeout, session.client.lease_revoke(lease_id)).await;
                session.stream = None;
                return State::Claiming;
            }
        }
        session.renewal = Instant::now() + s.keep_alive;
        let (sent_ms, sent_at) = (self.clock.now_ms(), Instant::now());
        let held = &session.held;
        match timeout(
            s.request_timeout,
            renew(&mut session.client, &mut session.stream, held.lease_id),
        )
        .await
        {
            Ok(Ok(ttl)) if ttl > 0 => {
                let deadline = self.deadline(sent_ms, sent_at, ttl);
                self.tenure.renewed(held.generation, deadline.0);
                self.watch_deadline(held.generation, deadline);
                // Keep the mark a lease's length ahead, so that the
                // generator never waits on etcd for it.
                self.extend_mark(session).await;
                session.renewals += 1;
                if session.renewals.is_multiple_of(10) {
                    self.report_drift(session).await;
                }
                if let Some(why) = self.check_rate(session).await {
                    // Stop issuing first, then free the value: a successor
                    // starts past the mark, which stays a lease ahead.
                    let held = &session.held;
                    self.tenure
                        .lost(held.generation, LeaseLostReason::ClockGap, why);
                    let lease_id = held.lease_id;
                    let _ = timeout(s.request_timeout, session.client.lease_revoke(lease_id)).await;
                    session.stream = None;
                    return State::Halted;
                }
                State::Holding
            }
            Ok(Ok(_)) => {
                self.tenure.lost(
                    held.generation,
                    LeaseLostReason::Lapsed,
                    format!(
                        "etcd lease {:x} on node {} expired before it could be renewed",
                        held.lease_id, held.number
                    ),
                );
                session.stream = None;
                State::Claiming
            }
            Ok(Err(why)) => {
                self.tenure
                    .trouble(format!("etcd keep-alive failed: {why}"));
                session.stream = None;
                State::Holding
            }
            Err(_) => {
                self.tenure.trouble(format!(
                    "etcd did not answer the keep-alive within {:?}",
                    s.request_timeout
                ));
                session.stream = None;
                State::Holding
            }
        }
    }

    /// Claiming: after a loss, claims a new value until etcd grants one
    /// (offered to the generator) or the keeper is stopped.
    async fn claim_again(&self, session: &mut Session, stop: &mut watch::Receiver<bool>) -> State {
        let s = &self.settings;
        loop {
            match timeout(
                s.request_timeout * 4,
                self.claim(&mut session.client, &session.excluded),
            )
            .await
            {
                Ok(Ok((next, claim))) => {
                    let generation = self.tenure.offer(claim);
                    self.watch_deadline(generation, next.first_deadline);
                    session.held = Held { generation, ..next };
                    session.renewal = Instant::now() + s.keep_alive;
                    return State::Holding;
                }
                Ok(Err(e)) => self
                    .tenure
                    .trouble(format!("claiming a new identity failed: {e}")),
                Err(_) => self.tenure.trouble("claiming a new identity timed out"),
            }
            tokio::select! {
                _ = stop.changed() => return State::Stopping,
                () = sleep(s.keep_alive) => {}
            }
        }
    }

    /// A running worker whose clock has drifted past the bound says so
    /// through the lease's event hook (once, and once more when it is back)
    /// and keeps issuing: the lease and the mark keep IDs unique; the bound
    /// is about their order.
    async fn report_drift(&self, session: &mut Session) {
        let Ok(Ok((_, peers))) = timeout(
            self.settings.request_timeout,
            self.listing(&mut session.client),
        )
        .await
        else {
            return;
        };
        let own = format!("node {} (", session.held.number);
        let others: Vec<(String, i64)> = peers
            .into_iter()
            .filter(|(p, _)| !p.starts_with(&own))
            .collect();
        match (self.agrees_with(&others), session.drifting) {
            (Err(e), false) => {
                (self.events)(&Event::ClockDrifted(e.to_string()));
                session.drifting = true;
            }
            (Ok(()), true) => {
                (self.events)(&Event::ClockBackInBound);
                session.drifting = false;
            }
            _ => {}
        }
    }

    /// The deadline of a grant or renewal of `ttl_s` for a request sent at
    /// `sent_ms` on the generator's clock and `sent_at` on this host's
    /// monotonic one (the core's rule, `Deadline`): its stamp and its moment.
    fn deadline(&self, sent_ms: i64, sent_at: Instant, ttl_s: i64) -> (i64, Instant) {
        let d = Deadline::of_grant(sent_ms, ttl_s, self.settings.safety_margin);
        (d.valid_until_ms, sent_at + d.after_sent)
    }

    /// Ends the deadline `stamp` of `generation` when this host's monotonic
    /// clock reaches it, unless it was renewed meanwhile: the generator
    /// compares stamps with its own clock, which may have gone back or stand
    /// still (a wall clock stepped, a custom clock), and would then issue
    /// past the moment etcd may give the value away.
    fn watch_deadline(&self, generation: Generation, (stamp, at): (i64, Instant)) {
        let tenure = Arc::clone(&self.tenure);
        let renewals = tenure.counts().renewals;
        tokio::spawn(async move {
            sleep_until(at).await;
            tenure.expired(generation, stamp, renewals);
        });
    }

    /// Reads the probe lease (granting it first) and says why this clock
    /// must not hold a lease, if the readings prove it too slow (the core's
    /// `identity/remote/rate.rs`).
    async fn check_rate(&self, session: &mut Session) -> Option<String> {
        let s = &self.settings;
        let epoch = session.epoch;
        let now = || epoch.elapsed().as_millis() as i64;
        let client = &mut session.client;
        let sent = now();
        let Some((probe, check)) = session.rate.as_mut() else {
            if let Ok(Ok(lease)) =
                timeout(s.request_timeout, client.lease_grant(PROBE_TTL_S, None)).await
            {
                let grant = Reading::grant(sent, now(), lease.ttl());
                let (ttl, margin) = (s.ttl.as_millis(), s.safety_margin.as_millis());
                session.rate = Some((lease.id(), RateCheck::new(ttl as i64, margin as i64, grant)));
            }
            return None;
        };
        let answer = timeout(s.request_timeout, client.lease_time_to_live(*probe, None)).await;
        let answered = now();
        let left = match answer {
            Ok(Ok(r)) => r.ttl(),
            Ok(Err(e)) if e.to_string().contains("not found") => -1,
            // No reading this time; the probe stays.
            _ => return None,
        };
        if left < s.ttl.as_secs() as i64 * 2 {
            // Expired, or soon: a new probe next time.
            let old = *probe;
            session.rate = None;
            let _ = timeout(s.request_timeout, client.lease_revoke(old)).await;
            return None;
        }
        match check.add(Reading::ttl(sent, answered, left)) {
            Verdict::Sound | Verdict::Restarted => None,
            Verdict::Slow { local_ms, registry_ms: etcd_ms } => Some(format!(
                "this host's clock ran {local_ms} ms while etcd's ran more than {etcd_ms} ms: it runs more than {}% slow, beyond what the safety margin covers ({:?} of a {:?} TTL), so this lease's deadline would fall after etcd's expiry; IDs are refused until the process is restarted on a sound clock",
                check.bound_percent(),
                s.safety_margin,
                s.ttl
            )),
        }
    }

    fn lead_ms(&self) -> i64 {
        self.settings.ttl.as_millis() as i64
    }

    /// Moves the mark a lease's length past the clock; if etcd does not
    /// confirm it, says so and tries again soon.
    async fn extend_mark(&self, session: &mut Session) {
        let held = &session.held;
        let extended = timeout(
            self.settings.request_timeout,
            held.mark
                .extend(&mut session.client, self.clock.now_ms(), self.lead_ms()),
        )
        .await;
        let failure = match extended {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(e.to_string()),
            Err(_) => Some(format!(
                "etcd did not confirm the high-water mark {} within {:?}",
                held.mark.key(),
                self.settings.request_timeout
            )),
        };
        session.mark_retry = failure.map(|why| {
            self.tenure.trouble(why);
            Instant::now() + MARK_RETRY
        });
    }

    fn unreachable(&self, why: impl std::fmt::Display) -> Error {
        let why =
            polyflake::identity::registry::scrubbed(&why.to_string(), &self.settings.endpoints);
        Error::lease_lost(
            LeaseLostReason::Unreachable,
            format!(
                "cannot reach etcd at {} ({why})",
                self.settings
                    .endpoints
                    .iter()
                    .map(|e| polyflake::identity::registry::redacted(e))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        )
    }

    /// Grants a lease and claims the lowest free node value with it.
    async fn claim(&self, client: &mut Client, excluded: &HashSet<u64>) -> Result<(Held, Claim)> {
        let s = &self.settings;
        let etcd = |e: etcd_client::Error| self.unreachable(e);
        let (sent_ms, sent_at) = (self.clock.now_ms(), Instant::now());
        let lease = client
            .lease_grant(s.ttl.as_secs() as i64, None)
            .await
            .map_err(etcd)?;
        let lease_id = lease.id();
        let first_deadline = self.deadline(sent_ms, sent_at, lease.ttl());
        let valid_until_ms = first_deadline.0;
        let range = claim_range(&self.layout, s.node_range.as_ref());
        let mut first_pass = true;
        // Pass after pass, in the core's order (`ClaimOrder`): list what is
        // held, then try the free values until one is ours. Exhaustion is
        // reported only when a listing shows every value held.
        loop {
            let (taken, peers) = self.listing(client).await?;
            if first_pass {
                first_pass = false;
                if let Err(e) = self.agrees_with(&peers) {
                    let _ = client.lease_revoke(lease_id).await;
                    return Err(e);
                }
            }
            let mut order = ClaimOrder::new(range.clone(), &taken, excluded);
            if order.is_exhausted() {
                break;
            }
            while let Some(number) = order.next_value() {
                let key = format!("{}{number}", self.workers);
                let txn = Txn::new()
                    .when([Compare::create_revision(key.as_str(), CompareOp::Equal, 0)])
                    .and_then([TxnOp::put(
                        key.as_str(),
                        owner(self.clock.now_ms()),
                        Some(PutOptions::new().with_lease(lease_id)),
                    )]);
                if !client.txn(txn).await.map_err(etcd)?.succeeded() {
                    order.lost_race();
                    continue;
                }
                let mark = match self.first_mark(client, key.clone(), number, lease_id).await {
                    Ok(mark) => Arc::new(mark),
                    Err(e) => {
                        let _ = client.lease_revoke(lease_id).await;
                        return Err(e);
                    }
                };
                let claim = Claim {
                    nodes: split_node_number(&self.layout, number, "node number")?,
                    mark: Arc::clone(&mark) as Arc<dyn polyflake::MarkStore>,
                    source: format!("etcd lease on node {number} ({key}, lease {lease_id:x})"),
                    valid_until_ms,
                };
                let held = Held {
                    lease_id,
                    number,
                    generation: 0,
                    mark,
                    first_deadline,
                };
                return Ok((held, claim));
            }
        }
        let _ = client.lease_revoke(lease_id).await;
        Err(Error::lease_lost(
            LeaseLostReason::Exhausted,
            format!(
                "every one of the {} node values {range:?} of layout {} is held in etcd under {}{}",
                range.end.saturating_sub(range.start),
                self.layout.name(),
                self.workers,
                if excluded.is_empty() {
                    String::new()
                } else {
                    format!(
                        " or was refused by the node check ({} of them)",
                        excluded.len()
                    )
                }
            ),
        ))
    }
}

impl Keeper {
    /// Reads the mark of a value just claimed and moves it a lease's length
    /// ahead, before the generator may use the value.
    async fn first_mark(
        &self,
        client: &mut Client,
        worker_key: String,
        number: u64,
        lease_id: i64,
    ) -> Result<EtcdMark> {
        let mark_key = format!("{}{number}", self.marks);
        let mark = EtcdMark::read(client, worker_key, mark_key, lease_id).await?;
        mark.extend(client, self.clock.now_ms(), self.lead_ms())
            .await?;
        Ok(mark)
    }

    /// The values worker keys hold, and the live workers' `(value, clock
    /// reading)` for the clock check.
    async fn listing(&self, client: &mut Client) -> Result<(HashSet<u64>, Vec<(String, i64)>)> {
        let listing = client
            .get(self.workers.as_str(), Some(GetOptions::new().with_prefix()))
            .await
            .map_err(|e| self.unreachable(e))?;
        let mut taken = HashSet::new();
        let mut peers = Vec::new();
        for kv in listing.kvs() {
            let Some(number) = std::str::from_utf8(kv.key())
                .ok()
                .and_then(|k| k.strip_prefix(&self.workers))
                .and_then(|n| n.parse::<u64>().ok())
            else {
                continue;
            };
            taken.insert(number);
            let value = String::from_utf8_lossy(kv.value()).into_owned();
            if let Some(clock) = value
                .split_whitespace()
                .find_map(|f| f.strip_prefix("clock="))
                .and_then(|c| c.parse::<i64>().ok())
            {
                peers.push((format!("node {number} ({value})"), clock));
            }
        }
        Ok((taken, peers))
    }

    /// The core's clock-gap rule (`check_clock_gap`) against the live peers.
    fn agrees_with(&self, peers: &[(String, i64)]) -> Result<()> {
        let s = &self.settings;
        check_clock_gap(
            self.clock.now_ms(),
            peers,
            s.max_clock_gap,
            s.keep_alive,
            &self.workers,
            "POLYFLAKE_ETCD_MAX_CLOCK_GAP_MS",
        )
    }
}

/// Renews the lease once; returns the TTL etcd gives it (0: it is gone).
async fn renew(
    client: &mut Client,
    stream: &mut Option<KeepAlive>,
    lease_id: i64,
) -> std::result::Result<i64, String> {
    if stream.is_none() {
        *stream = match client.lease_keep_alive(lease_id).await {
            Ok(opened) => Some(opened),
            // etcd-client reads the first answer itself and reports a TTL of 0 so.
            Err(etcd_client::Error::LeaseKeepAliveError(why)) if why == "lease not found" => {
                return Ok(0)
            }
            Err(e) => return Err(e.to_string()),
        };
    }
    let Some((keeper, responses)) = stream.as_mut() else {
        return Err("no keep-alive stream".into());
    };
    keeper.keep_alive().await.map_err(|e| e.to_string())?;
    match responses.message().await.map_err(|e| e.to_string())? {
        Some(response) => Ok(response.ttl()),
        None => Err("etcd closed the keep-alive stream".into()),
    }
}
