//! A scripted registry for the tests of remote leases: it hands out the
//! node values it is given and keeps the tenure for the test to drive.

use std::sync::{Arc, Mutex};

use polyflake::identity::tenure::Generation;
use polyflake::{
    Claim, Clock, Error, Layout, LeaseLostReason, MarkStore, RemoteLease, Result, Tenure,
};

#[derive(Debug, Default)]
pub struct MemoryMark {
    pub value: Mutex<Option<i64>>,
    pub broken: Mutex<bool>,
}

impl MarkStore for MemoryMark {
    fn load(&self) -> Result<Option<i64>> {
        Ok(*self.value.lock().unwrap())
    }
    fn persist(&self, until_ms: i64) -> Result<()> {
        if *self.broken.lock().unwrap() {
            return Err(Error::lease_lost(
                LeaseLostReason::Unreachable,
                "the registry refused the write".into(),
            ));
        }
        *self.value.lock().unwrap() = Some(until_ms);
        Ok(())
    }
}

/// Hands out node values from a script and keeps the tenure for the test.
#[derive(Debug)]
pub struct Scripted {
    pub first: Vec<u64>,
    pub mark: Arc<MemoryMark>,
    pub ttl_ms: i64,
    pub tenure: Mutex<Option<Arc<Tenure>>>,
}

impl RemoteLease for Scripted {
    fn start(&self, _: &Layout, clock: Arc<dyn Clock>, tenure: Arc<Tenure>) -> Result<Claim> {
        *self.tenure.lock().unwrap() = Some(tenure);
        Ok(Claim {
            nodes: self.first.clone(),
            mark: self.mark.clone(),
            source: "scripted node 0".into(),
            valid_until_ms: clock.now_ms() + self.ttl_ms,
        })
    }
}

impl Scripted {
    /// A lease that claims `first`, renewable for `ttl_ms` from the claim.
    pub fn new(first: &[u64], ttl_ms: i64) -> Arc<Scripted> {
        Arc::new(Scripted {
            first: first.to_vec(),
            mark: Arc::new(MemoryMark::default()),
            ttl_ms,
            tenure: Mutex::new(None),
        })
    }

    /// The tenure the generator's lease reports through, once started.
    pub fn tenure(&self) -> Arc<Tenure> {
        self.tenure.lock().unwrap().clone().expect("started")
    }
}

/// Offers node values `[0, n]` through `tenure`, whose previous holder's
/// mark stands at `mark_ms`: the mark and the offer's generation.
pub fn offer_marked(
    tenure: &Tenure,
    n: u64,
    mark_ms: i64,
    until_ms: i64,
) -> (Arc<MemoryMark>, Generation) {
    let mark = Arc::new(MemoryMark::default());
    mark.persist(mark_ms).unwrap();
    let generation = tenure.offer(Claim {
        nodes: vec![0, n],
        mark: mark.clone(),
        source: format!("scripted node {n}"),
        valid_until_ms: until_ms,
    });
    (mark, generation)
}

/// Asserts that `id` carries node values `[0, n]` in a tick past `mark_ms`.
pub fn assert_past_mark(layout: &Layout, id: u64, n: u64, mark_ms: i64) {
    let parts = layout.decode(id).unwrap();
    assert_eq!(parts.nodes(), &[0, n]);
    assert!(
        parts.timestamp_ms > mark_ms,
        "{} <= mark {mark_ms}",
        parts.timestamp_ms
    );
}
