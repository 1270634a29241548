//! Approve with edits: the person changes a planned call's arguments in
//! review. Refused as proposed arguments would be (AG-15, AG-16), journalled
//! as the person's act behind the revision fence, previewed again (AG-31);
//! the call runs with the edited arguments and the acting party hears them.

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

/// A plan of one rename under review, its preview shown.
fn under_review() -> (Sim, RunId) {
    let mut sim = sim_with(Autonomy::Auto, &[previewing_tasks()]);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    sim.preview(&run, "c1-1", Ok(json!({"id": "c1-1"})));
    (sim, run)
}

#[test]
fn the_person_edits_a_planned_call_the_authorization_binds_it_and_the_acting_party_hears_it() {
    let (mut sim, run) = under_review();
    let shown = sim.revision(&run);
    let call = CallId::new("c1-1");
    sim.engine
        .handle(
            sim.now,
            EditCall {
                run: run.clone(),
                revision: shown,
                call: call.clone(),
                arguments: json!({"id": "c7"}),
            },
        )
        .unwrap();
    sim.drain();
    // Journalled as the person's act; the revision moved.
    let edits: Vec<(Actor, serde_json::Value)> = sim
        .engine
        .run(&run)
        .unwrap()
        .journal()
        .iter()
        .filter_map(|record| match &record.entry {
            JournalEntry::CallEdited { arguments, .. } => {
                Some((record.actor.clone(), arguments.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(edits, [(Actor::Person, json!({"id": "c7"}))]);
    assert!(sim.revision(&run) > shown);
    // Previewed again; the sheet says it was edited.
    let sheet = sim.engine.run(&run).and_then(|run| run.review()).unwrap();
    assert!(sheet.items[0].edited);
    assert_eq!(sheet.items[0].change, ProposedChange::Pending);
    assert!(matches!(
        sim.effects_of(
            |e| matches!(e, Effect::Preview { arguments, .. } if *arguments == json!({"id": "c7"}))
        )
        .as_slice(),
        [_]
    ));
    // What was shown before cannot be authorized: the fence.
    assert!(matches!(
        sim.authorize_at(&run, shown, Authorization::default()),
        Err(CommandError::StaleRevision { .. })
    ));
    sim.engine
        .handle(
            sim.now,
            Report::Preview {
                run: run.clone(),
                call: call.clone(),
                change: Ok(json!({"id": "c7"})),
            },
        )
        .unwrap();
    sim.drain();
    sim.authorize(&run);
    sim.give_marks();
    // The call runs with the edited arguments.
    let dispatched = sim.effects_of(|e| matches!(e, Effect::Invoke { .. }));
    assert!(
        matches!(dispatched.as_slice(), [Effect::Invoke { arguments, .. }] if *arguments == json!({"id": "c7"})),
        "{dispatched:?}"
    );
    sim.apply();
    // The acting party hears, with the result, what the person set.
    let request = sim.last_request();
    assert_eq!(request.results.len(), 1);
    assert_eq!(request.results[0].edited, Some(json!({"id": "c7"})));
}

#[test]
fn ag_15_an_edit_is_refused_as_proposed_arguments_would_be_and_changes_nothing() {
    let (mut sim, run) = under_review();
    let shown = sim.revision(&run);
    let call = CallId::new("c1-1");
    let refused = sim
        .engine
        .handle(
            sim.now,
            EditCall {
                run: run.clone(),
                revision: shown,
                call: call.clone(),
                arguments: json!({"id": 7}),
            },
        )
        .unwrap_err();
    assert_eq!(refused.code(), "invalid-arguments");
    assert_eq!(refused.requirement(), Some("AG-15"));
    let too_long = sim
        .engine
        .handle(
            sim.now,
            EditCall {
                run: run.clone(),
                revision: shown,
                call: call.clone(),
                arguments: json!({"id": "x".repeat(100)}),
            },
        )
        .unwrap_err();
    assert!(matches!(too_long, CommandError::InvalidEdit { .. }));
    assert_eq!(sim.revision(&run), shown, "nothing changed");
    assert!(
        !sim.engine
            .run(&run)
            .and_then(|run| run.review())
            .unwrap()
            .items[0]
            .edited
    );
    // A call that is not before the person cannot be edited.
    let elsewhere = sim
        .engine
        .handle(
            sim.now,
            EditCall {
                run: run.clone(),
                revision: shown,
                call: CallId::new("c9"),
                arguments: json!({"id": "c7"}),
            },
        )
        .unwrap_err();
    assert_eq!(elsewhere.code(), "not-under-review");
    // Nor can a run that is no longer under review.
    sim.authorize(&run);
    let late = sim
        .engine
        .handle(
            sim.now,
            EditCall {
                run: run.clone(),
                revision: sim.revision(&run),
                call: call.clone(),
                arguments: json!({"id": "c7"}),
            },
        )
        .unwrap_err();
    assert_eq!(late.code(), "not-under-review");
}
