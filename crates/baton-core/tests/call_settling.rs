//! Which call a participant's change is (A.2): the first change a
//! participant publishes while a state-changing call to it runs, or within
//! `CALL_SETTLES_MS` after that call returns, is the call's; any other is
//! the person's. Bindings read the rule from `engine.actors().calling(now, participant)`.

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

fn tasks() -> ParticipantId {
    ParticipantId::new("tasks")
}

/// A run of the task board whose rename is dispatched, not yet answered.
fn a_rename_under_way(sim: &mut Sim) -> (RunId, ActorRef) {
    sim.publish("tasks", "board", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.give_marks();
    let actor = sim
        .engine
        .run(&run)
        .and_then(|run| run.actor())
        .expect("the rename is in flight");
    (run, actor)
}

#[test]
fn ag_32_a_change_published_while_the_call_runs_is_the_calls_once() {
    let mut sim = Sim::new();
    let (run, actor) = a_rename_under_way(&mut sim);
    assert_eq!(
        sim.engine.actors().calling(sim.now, &tasks()),
        Some(actor.clone())
    );
    sim.publish_as(&actor, "tasks", "board", 2);
    assert_eq!(
        sim.engine.actors().calling(sim.now, &tasks()),
        None,
        "a second change while the call runs is the person's"
    );
    sim.apply();
    assert_eq!(
        sim.engine.actors().calling(sim.now, &tasks()),
        None,
        "its change was published: returning opens no window"
    );
    assert_eq!(
        sim.engine.changes().last(&tasks()),
        Some(&ChangedBy::Run { run })
    );
}

#[test]
fn ag_32_the_first_change_just_after_the_call_returns_is_the_calls() {
    let mut sim = Sim::new();
    let (run, actor) = a_rename_under_way(&mut sim);
    sim.apply();
    sim.advance(CALL_SETTLES_MS / 2);
    assert_eq!(
        sim.engine.actors().calling(sim.now, &tasks()),
        Some(actor.clone())
    );
    sim.publish_as(&actor, "tasks", "board", 2);
    assert_eq!(sim.engine.actors().calling(sim.now, &tasks()), None, "once");
    assert_eq!(
        sim.engine.changes().last(&tasks()),
        Some(&ChangedBy::Run { run: run.clone() })
    );
    // The run ends; nothing holds its undo back.
    sim.propose(&run, &[]);
    assert!(sim.state(&run).is_terminal());
    sim.undo(&run).unwrap();
}

#[test]
fn after_the_window_a_change_is_the_persons() {
    let mut sim = Sim::new();
    let (_, _) = a_rename_under_way(&mut sim);
    sim.apply();
    sim.advance(CALL_SETTLES_MS);
    assert!(
        sim.engine.actors().calling(sim.now, &tasks()).is_some(),
        "the window's last moment"
    );
    sim.advance(1);
    assert_eq!(sim.engine.actors().calling(sim.now, &tasks()), None);
}

#[test]
fn a_refused_call_a_query_and_another_participant_give_no_actor() {
    let mut sim = Sim::new();
    let (_, _) = a_rename_under_way(&mut sim);
    assert_eq!(
        sim.engine
            .actors()
            .calling(sim.now, &ParticipantId::new("notes")),
        None,
        "the call is not to this participant"
    );
    sim.answer(CallResult::Refused {
        refusal: Refusal::Declined {
            message: "the card is locked".into(),
        },
    });
    assert_eq!(
        sim.engine.actors().calling(sim.now, &tasks()),
        None,
        "a refused call changed nothing"
    );

    let mut board = tasks_manifest();
    board["capabilities"].as_array_mut().unwrap().push(json!({
        "name": "search",
        "description": "Find the cards whose title contains the text given as `id`.",
        "arguments": {"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": false},
        "argumentLimits": {"id": 200},
        "effects": [],
        "readOnly": true
    }));
    let mut sim = sim_with(Autonomy::Auto, &[board]);
    let searched = sim.delegate(Autonomy::Auto);
    sim.propose(&searched, &[CapabilityRef::new("tasks", "search")]);
    sim.give_marks();
    assert_eq!(
        sim.engine.actors().calling(sim.now, &tasks()),
        None,
        "a query changes nothing"
    );
    sim.apply();
    assert_eq!(sim.engine.actors().calling(sim.now, &tasks()), None);
}

#[test]
fn ag_32_two_runs_calling_one_participant_each_keep_their_own_window() {
    let mut sim = Sim::new();
    let (first, first_actor) = a_rename_under_way(&mut sim);
    let second = sim.delegate(Autonomy::Auto);
    sim.propose(&second, &[archive()]);
    sim.give_marks();
    let second_actor = sim
        .engine
        .run(&second)
        .and_then(|run| run.actor())
        .expect("the archive is in flight");
    assert_ne!(first_actor, second_actor);
    // The first run's change is published: the next one is the second's.
    sim.publish_as(&first_actor, "tasks", "board", 2);
    assert_eq!(
        sim.engine.actors().calling(sim.now, &tasks()),
        Some(second_actor.clone())
    );
    // The second call returns; the first is still in flight, its change
    // published: it is not handed out again.
    let call = sim
        .engine
        .run(&second)
        .and_then(|run| run.run().call_in_flight())
        .map(|call| call.call.clone())
        .expect("the second run's call");
    sim.engine
        .handle(
            sim.now,
            Report::Call {
                run: second.clone(),
                call,
                result: CallResult::Applied { value: json!({}) },
            },
        )
        .unwrap();
    assert_eq!(
        sim.engine.actors().calling(sim.now, &tasks()),
        Some(second_actor.clone())
    );
    sim.publish_as(&second_actor, "tasks", "board", 3);
    assert_eq!(
        sim.engine.actors().calling(sim.now, &tasks()),
        None,
        "each call's change once: the person's next edit is the person's"
    );
    assert!(sim.engine.run(&first).unwrap().call_in_flight().is_some());
}

#[test]
fn ag_33_a_reference_kept_past_its_window_vouches_for_nothing() {
    let mut sim = Sim::new();
    let (run, actor) = a_rename_under_way(&mut sim);
    sim.apply();
    sim.advance(CALL_SETTLES_MS + 1);
    // A binding kept the reference and passes it with the person's later edit.
    sim.publish_as(&actor, "tasks", "board", 2);
    assert_eq!(
        sim.engine.changes().last(&tasks()),
        Some(&ChangedBy::Person),
        "the edit is the person's, not the run's"
    );
    sim.propose(&run, &[]);
    assert!(sim.state(&run).is_terminal());
    let held = sim
        .undo(&run)
        .expect_err("the person's edit holds the undo back");
    assert!(matches!(held, CommandError::UndoConflict { .. }), "{held}");
}

#[test]
fn ag_33_a_reference_vouches_for_its_calls_first_change_alone() {
    let mut sim = Sim::new();
    let (run, actor) = a_rename_under_way(&mut sim);
    sim.publish_as(&actor, "tasks", "board", 2);
    assert_eq!(
        sim.engine.changes().last(&tasks()),
        Some(&ChangedBy::Run { run: run.clone() })
    );
    // The person edits while the call still runs; the same reference is passed again.
    sim.publish_as(&actor, "tasks", "board", 3);
    assert_eq!(
        sim.engine.changes().last(&tasks()),
        Some(&ChangedBy::Person)
    );
}
