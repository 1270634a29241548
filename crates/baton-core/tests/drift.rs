//! Drift (AG-29): an authorization is bound to a fingerprint of the reads
//! it was computed on and to a lifetime; when the reads change it is
//! recomputed, the approved concrete changes rendered again, and the person
//! asked again when anything they approved would now differ.

mod common;

use baton_core::*;
use common::*;
use serde_json::{json, Value};

/// Stamps keyed by their read, as a run keeps them.
fn by_read(stamps: &[ReadStamp]) -> std::collections::BTreeMap<ReadRef, ReadStamp> {
    stamps
        .iter()
        .map(|stamp| (stamp.read.clone(), stamp.clone()))
        .collect()
}

fn authorized_fingerprints(sim: &Sim, run: &RunId) -> Vec<Digest> {
    sim.engine
        .run(run)
        .unwrap()
        .journal()
        .iter()
        .filter_map(|r| match &r.entry {
            JournalEntry::Authorized { fingerprint, .. } => Some(*fingerprint),
            JournalEntry::Reauthorized { fingerprint, .. } => Some(*fingerprint),
            _ => None,
        })
        .collect()
}

#[test]
fn ag_29_authorization_binds_a_fingerprint_and_recomputes_on_drift() {
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest(), settings_manifest()]);
    sim.publish("tasks", "board", 1, Origin::Author);
    sim.publish("settings", "form", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), archive(), rename(), archive()]);
    let seen = [
        ReadStamp {
            read: ReadRef::new("settings", "form"),
            version: 1,
            origin: Origin::Author,
        },
        ReadStamp {
            read: ReadRef::new("tasks", "board"),
            version: 1,
            origin: Origin::Author,
        },
    ];
    // Authorized (here by the engine, at `auto`) against exactly what was seen.
    assert_eq!(
        authorized_fingerprints(&sim, &run),
        [fingerprint(&by_read(&seen))]
    );
    sim.give_marks();
    // While the first call runs, someone else changes another participant's
    // read. Same origins: the recomputed authorization is identical, and it
    // is re-approved under a new fingerprint before the next dispatch.
    sim.publish("settings", "form", 2, Origin::Author);
    sim.apply();
    assert_eq!(sim.state(&run), RunState::Acting);
    let after_version = [
        ReadStamp {
            read: ReadRef::new("settings", "form"),
            version: 2,
            origin: Origin::Author,
        },
        seen[1].clone(),
    ];
    assert_eq!(
        authorized_fingerprints(&sim, &run)[1],
        fingerprint(&by_read(&after_version))
    );
    // A change of origin recomputes differently: back to the person.
    sim.publish("settings", "form", 3, Origin::ThirdParty);
    sim.apply();
    assert!(sim.take_invoke().is_none());
    assert_eq!(
        sim.state(&run),
        RunState::Escalated {
            reason: EscalationReason::Drift {
                reads: vec![ReadRef::new("settings", "form")]
            }
        }
    );
    sim.resolve(&run, Resolution::Review);
    assert_eq!(sim.state(&run), RunState::Reviewing);
    let sheet = sim.engine.run(&run).and_then(|run| run.review()).unwrap();
    assert_eq!(
        sheet.items.len(),
        2,
        "the acts not yet done are reviewed again"
    );
    assert_eq!(
        sheet.again,
        Some(ReviewAgain::Drift {
            reads: vec![ReadRef::new("settings", "form")]
        }),
        "the sheet says why it is shown again"
    );
}

/// A reviewed, authorized plan of two renames with previews; the first
/// call is in flight when the settings form drifts.
fn approved_then_drifted() -> (Sim, RunId, Value) {
    let mut sim = sim_with(Autonomy::Auto, &[previewing_tasks(), settings_manifest()]);
    sim.publish("settings", "form", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename(), rename()]);
    let second = json!({"card": "c1-2", "title": {"from": "Draft", "to": "Ship"}});
    for (call, diff) in [("c1-1", json!({"card": "c1-1"})), ("c1-2", second.clone())] {
        sim.engine
            .handle(
                sim.now,
                Report::Preview {
                    run: run.clone(),
                    call: CallId::new(call),
                    change: Ok(diff),
                },
            )
            .unwrap();
    }
    sim.authorize(&run);
    sim.give_marks();
    sim.publish("settings", "form", 2, Origin::Author);
    sim.apply();
    (sim, run, second)
}

fn previews_asked_for(sim: &Sim, call: &str) -> usize {
    sim.effects_of(|e| matches!(e, Effect::Preview { call: c, .. } if c.as_str() == call))
        .len()
}

#[test]
fn ag_29_drift_recomputes_the_approved_previews_and_reapproves_only_identical_ones() {
    let (mut sim, run, second) = approved_then_drifted();
    // The remaining call's change is rendered again; nothing is dispatched meanwhile.
    assert_eq!(
        previews_asked_for(&sim, "c1-2"),
        2,
        "once for review, once after drift"
    );
    assert!(
        sim.take_invoke().is_none(),
        "held until the new preview arrives"
    );
    // Identical (key order aside): re-approved, and the call goes ahead.
    let reordered = json!({"title": {"to": "Ship", "from": "Draft"}, "card": "c1-2"});
    assert_eq!(reordered, second);
    sim.engine
        .handle(
            sim.now,
            Report::Preview {
                run: run.clone(),
                call: CallId::new("c1-2"),
                change: Ok(reordered),
            },
        )
        .unwrap();
    sim.drain();
    assert_eq!(sim.state(&run), RunState::Acting);
    assert_eq!(
        authorized_fingerprints(&sim, &run).len(),
        2,
        "re-approved under a new fingerprint"
    );
    assert!(sim.take_invoke().is_some(), "dispatched");
}

#[test]
fn ag_29_a_different_change_after_drift_goes_back_to_review() {
    let (mut sim, run, _) = approved_then_drifted();
    let changed = json!({"card": "c1-2", "title": {"from": "Draft", "to": "Ship it now"}});
    sim.engine
        .handle(
            sim.now,
            Report::Preview {
                run: run.clone(),
                call: CallId::new("c1-2"),
                change: Ok(changed.clone()),
            },
        )
        .unwrap();
    sim.drain();
    assert_eq!(
        sim.state(&run),
        RunState::Reviewing,
        "the person reviews again"
    );
    assert!(sim.take_invoke().is_none());
    assert!(sim.log.iter().any(|event| matches!(
        event,
        Event::Journal(JournalRecord {
            entry: JournalEntry::Transition {
                to: RunState::Escalated {
                    reason: EscalationReason::Drift { .. }
                },
                ..
            },
            ..
        })
    )));
    // The review shows the new change, and authorizing it binds the reads
    // as they are now: the run goes on instead of drifting again.
    sim.engine
        .handle(
            sim.now,
            Report::Preview {
                run: run.clone(),
                call: CallId::new("c1-2"),
                change: Ok(changed.clone()),
            },
        )
        .unwrap();
    let sheet = sim.engine.run(&run).and_then(|run| run.review()).unwrap();
    assert_eq!(
        sheet.items[0].change,
        ProposedChange::Preview { value: changed }
    );
    assert_eq!(
        sheet.again,
        Some(ReviewAgain::Drift {
            reads: vec![ReadRef::new("settings", "form")]
        }),
        "a review after drift is not mistaken for the first one"
    );
    sim.authorize(&run);
    assert_eq!(sim.state(&run), RunState::Acting);
    sim.give_marks();
    assert!(
        sim.take_invoke().is_some(),
        "dispatched after the re-review"
    );
}

#[test]
fn ag_29_the_review_sheet_shows_the_fingerprint_it_binds() {
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest()]);
    sim.publish("tasks", "board", 5, Origin::Author);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    let sheet = sim.engine.run(&run).and_then(|run| run.review()).unwrap();
    assert_eq!(sheet.again, None, "a first review");
    let seen = [ReadStamp {
        read: ReadRef::new("tasks", "board"),
        version: 5,
        origin: Origin::Author,
    }];
    assert_eq!(sheet.fingerprint, fingerprint(&by_read(&seen)));
    sim.authorize(&run);
    assert_eq!(authorized_fingerprints(&sim, &run), [sheet.fingerprint]);
}

#[test]
fn ag_29_an_authorization_lapses_after_its_time_to_live() {
    let mut config = config();
    config.authorization_ttl_ms = 5_000;
    let mut sim = Sim::with_config(config);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    sim.authorize(&run);
    sim.apply();
    sim.now += 5_000;
    let invoked = sim.invoked(&rename());
    sim.propose(&run, &[rename()]);
    assert_eq!(
        sim.state(&run),
        RunState::Escalated {
            reason: EscalationReason::AuthorizationExpired
        }
    );
    sim.give_marks();
    assert_eq!(
        sim.invoked(&rename()),
        invoked,
        "nothing goes out on a lapsed authorization"
    );
    // The person confirms again: a fresh authorization with a fresh lifetime.
    sim.resolve(&run, Resolution::Allow { budget: None });
    sim.apply();
    assert_eq!(sim.invoked(&rename()), invoked + 1);
    let expiries: Vec<u64> = sim.journal_of(&run, |entry| match entry {
        JournalEntry::Authorized { expires_at, .. } => Some(*expires_at),
        _ => None,
    });
    assert_eq!(expiries, [1_000 + 5_000, sim.now + 5_000]);
}

#[test]
fn ag_29_a_lapsed_authorization_sent_back_to_review_says_why() {
    let mut config = config();
    config.authorization_ttl_ms = 5_000;
    let mut sim = Sim::with_config(config);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    assert_eq!(
        sim.engine
            .run(&run)
            .and_then(|run| run.review())
            .unwrap()
            .again,
        None
    );
    sim.authorize(&run);
    sim.apply();
    sim.now += 5_000;
    sim.propose(&run, &[rename()]);
    sim.resolve(&run, Resolution::Review);
    assert_eq!(sim.state(&run), RunState::Reviewing);
    assert_eq!(
        sim.engine
            .run(&run)
            .and_then(|run| run.review())
            .unwrap()
            .again,
        Some(ReviewAgain::AuthorizationExpired),
        "the sheet says the plan is back because the approval ran out"
    );
    // Approved again, the run goes on, and the reason is spent.
    sim.authorize(&run);
    sim.give_marks();
    assert!(sim.take_invoke().is_some());
}
