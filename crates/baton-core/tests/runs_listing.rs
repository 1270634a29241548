//! A person's history of delegations (`engine.runs()`): every run a store
//! holds, newest first, a page at a time, each entry saying what it was
//! asked, how it stands, when, and what can still be done with it.

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

/// `n` runs started a millisecond apart, each stopped at once.
fn history(n: usize) -> (Sim, Vec<RunId>) {
    let mut sim = Sim::new();
    let mut runs = Vec::new();
    for _ in 0..n {
        let run = sim.delegate(Autonomy::Review);
        sim.advance(1);
        sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
        sim.drain();
        sim.advance(1);
        runs.push(run);
    }
    (sim, runs)
}

fn listings(sim: &Sim, runs: &[RunId]) -> Vec<RunListing> {
    runs.iter()
        .map(|run| sim.engine.run(run).unwrap().listing("s"))
        .collect()
}

fn ids(page: &RunsPage) -> Vec<RunId> {
    page.runs
        .iter()
        .map(|listing| listing.run.clone())
        .collect()
}

#[test]
fn a_listing_says_what_was_asked_how_it_ended_and_when() {
    let (sim, runs) = history(1);
    let listing = sim.engine.run(&runs[0]).unwrap().listing("s");
    assert_eq!(listing.intent, "tidy the board");
    assert_eq!(listing.initiative, Initiative::User);
    assert_eq!(listing.session, "s");
    assert_eq!(listing.outcome, Some(Outcome::Aborted));
    assert!(matches!(listing.state, RunState::Returned { .. }));
    assert_eq!(listing.created_at, 1_000);
    // Stopped a millisecond after it started.
    assert_eq!(listing.ended_at, Some(1_001));
    assert!(!listing.reviewable_again && !listing.resumable && !listing.undone);
    // A run still going has neither an outcome nor an end.
    let mut sim = Sim::new();
    let live = sim.delegate(Autonomy::Review);
    let listing = sim.engine.run(&live).unwrap().listing("s");
    assert_eq!((listing.outcome, listing.ended_at), (None, None));
}

#[test]
fn when_a_run_ended_survives_its_stored_row() {
    let (sim, runs) = history(1);
    let row = serde_json::to_string(sim.engine.run(&runs[0]).unwrap().run()).unwrap();
    let back: Run = serde_json::from_str(&row).unwrap();
    assert_eq!(back.listing("s").ended_at, Some(1_001));
    // A row stored before the end time was kept reads back without one.
    let mut old: serde_json::Value = serde_json::from_str(&row).unwrap();
    old.as_object_mut().unwrap().remove("endedAt");
    let back: Run = serde_json::from_value(old).unwrap();
    assert_eq!(back.listing("s").ended_at, None);
}

#[test]
fn pages_list_newest_first_and_meet_without_gap_or_overlap() {
    let (sim, runs) = history(5);
    let query = RunsQuery {
        limit: 2,
        ..RunsQuery::default()
    };
    let first = page_of_runs(listings(&sim, &runs), &query).unwrap();
    assert_eq!(ids(&first), vec![runs[4].clone(), runs[3].clone()]);
    assert_eq!(first.next, Some(runs[3].clone()));
    let second = page_of_runs(
        listings(&sim, &runs),
        &RunsQuery {
            after: first.next.clone(),
            ..query.clone()
        },
    )
    .unwrap();
    assert_eq!(ids(&second), vec![runs[2].clone(), runs[1].clone()]);
    let last = page_of_runs(
        listings(&sim, &runs),
        &RunsQuery {
            after: second.next.clone(),
            ..query.clone()
        },
    )
    .unwrap();
    assert_eq!(ids(&last), vec![runs[0].clone()]);
    assert_eq!(last.next, None, "the last page says there is no more");
    // Exactly a page's worth: no next page promised.
    let exact = page_of_runs(listings(&sim, &runs[..2]), &query).unwrap();
    assert_eq!((exact.runs.len(), exact.next), (2, None));
}

#[test]
fn a_run_listed_twice_keeps_its_first_entry_and_runs_of_one_millisecond_have_an_order() {
    let (sim, runs) = history(2);
    let mut newer = sim.engine.run(&runs[0]).unwrap().listing("s");
    newer.undone = true;
    let mut stale = listings(&sim, &runs);
    stale.iter_mut().for_each(|listing| listing.created_at = 7);
    newer.created_at = 7;
    let page = page_of_runs(std::iter::once(newer).chain(stale), &RunsQuery::default()).unwrap();
    assert_eq!(page.runs.len(), 2);
    let first = page.runs.iter().find(|l| l.run == runs[0]).unwrap();
    assert!(
        first.undone,
        "the entry given first (what is in memory) wins"
    );
    // Same millisecond: by id, the later id first.
    assert_eq!(ids(&page), vec![runs[1].clone(), runs[0].clone()]);

    // What is in memory wins wherever its stored copy comes in the list.
    let (sim, runs) = history(3);
    let memory = listings(&sim, &runs);
    let mut stored = memory.clone();
    for listing in &mut stored {
        listing.intent = "as stored".into();
    }
    let given = memory.into_iter().chain(stored.into_iter().rev());
    let page = page_of_runs(given, &RunsQuery::default()).unwrap();
    assert_eq!(page.runs.len(), 3);
    assert!(
        page.runs
            .iter()
            .all(|listing| listing.intent == "tidy the board"),
        "{page:?}"
    );
}

#[test]
fn a_session_lists_only_its_own_runs_when_asked() {
    let (sim, runs) = history(2);
    let mut all = listings(&sim, &runs);
    all[0].session = "other".into();
    let query = RunsQuery {
        session: Some("other".into()),
        ..RunsQuery::default()
    };
    assert_eq!(
        ids(&page_of_runs(all, &query).unwrap()),
        vec![runs[0].clone()]
    );
}

#[test]
fn a_page_after_an_unknown_run_or_an_out_of_range_limit_is_refused() {
    let (sim, runs) = history(1);
    let query = RunsQuery {
        after: Some(RunId::new("nowhere/r9")),
        ..RunsQuery::default()
    };
    let refused = page_of_runs(listings(&sim, &runs), &query).unwrap_err();
    assert_eq!(refused.code(), "unknown-run");
    for options in [
        json!({"limit": 0}),
        json!({"limit": 101}),
        json!({"limit": "5"}),
        json!({"page": 1}),
    ] {
        let refused = RunsQuery::from_options(&options).unwrap_err();
        assert_eq!(refused.code(), "invalid-value", "{options}");
    }
    let query =
        RunsQuery::from_options(&json!({"limit": 5, "after": "s/r1", "session": "s"})).unwrap();
    assert_eq!(
        query,
        RunsQuery {
            limit: 5,
            after: Some(RunId::new("s/r1")),
            session: Some("s".into())
        }
    );
    assert_eq!(
        RunsQuery::from_options(&serde_json::Value::Null).unwrap(),
        RunsQuery::default()
    );
}
