//! The protocol checked exhaustively within the model's bounds, and each
//! seeded mistake found. `make test-model` runs it (release).

use std::time::Instant;

use polyflake_model::{Bug, Protocol};
use stateright::{Checker, Model};

const SAFE: &str = "no tick of the value issued by two holders, or out of order";

fn check(protocol: Protocol) -> (bool, usize, usize, Vec<&'static str>) {
    let started = Instant::now();
    let bug = protocol.bug;
    let checker = protocol.checker().spawn_bfs().join();
    let found = checker.discovery(SAFE);
    if let Some(path) = &found {
        println!(
            "counterexample ({} steps):",
            path.clone().into_actions().len()
        );
        for action in path.clone().into_actions() {
            println!("  {action:?}");
        }
    }
    let mut discovered: Vec<_> = checker.discoveries().into_keys().collect();
    discovered.sort_unstable();
    println!(
        "{:?}: {} states ({} unique), depth {}, {:.1} s",
        bug,
        checker.state_count(),
        checker.unique_state_count(),
        checker.max_depth(),
        started.elapsed().as_secs_f64()
    );
    (
        found.is_some(),
        checker.unique_state_count(),
        checker.max_depth(),
        discovered,
    )
}

#[test]
fn the_protocol_keeps_every_tick_to_one_holder() {
    let (violated, unique, depth, discovered) = check(Protocol::default());
    assert!(!violated);
    assert!(unique > 100_000, "the model explored {unique} states");
    assert!(depth > 20);
    // Not vacuous: handovers and restarts onto a clock behind happen in it.
    assert!(discovered.contains(&"a successor issues after its predecessor"));
    assert!(discovered.contains(&"a restart onto a clock behind what it issued"));
}

#[test]
fn the_mark_written_after_issuing_is_found() {
    let bug = Protocol {
        bug: Some(Bug::MarkAfterIssue),
        ..Protocol::default()
    };
    assert!(check(bug).0);
}

#[test]
fn a_deadline_stamped_at_the_answer_is_found() {
    let bug = Protocol {
        bug: Some(Bug::DeadlineFromReply),
        ..Protocol::default()
    };
    assert!(check(bug).0);
}

#[test]
fn a_successor_that_ignores_the_mark_is_found() {
    let bug = Protocol {
        bug: Some(Bug::SuccessorIgnoresMark),
        ..Protocol::default()
    };
    assert!(check(bug).0);
}
