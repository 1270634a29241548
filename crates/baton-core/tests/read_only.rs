//! A capability that changes nothing (`"readOnly": true`, a query): it
//! declares no effects, may be all a `reads-only` participant exposes, and
//! its calls are no mutation — nothing to roll back or undo, and no one's
//! change to a participant (A.2).

mod common;

use baton_core::*;
use common::*;
use serde_json::{json, Value};

fn search() -> Value {
    json!({
        "name": "search",
        "description": "Find the cards whose title contains the text given as `id`.",
        "arguments": {
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "additionalProperties": false
        },
        "argumentLimits": {"id": 200},
        "effects": [],
        "readOnly": true
    })
}

fn problems_of(manifest: &Value) -> Vec<(String, Option<String>)> {
    let mut engine = Engine::new(config(), secret());
    match engine.handle(0, ParseManifest(manifest.to_string())) {
        Ok(_) => Vec::new(),
        Err(refused) => refused
            .problems
            .iter()
            .map(|problem| (problem.path.clone(), problem.requirement.clone()))
            .collect(),
    }
}

#[test]
fn ag_17_a_reads_only_participant_may_expose_queries_and_nothing_else() {
    let mut lookup = json!({
        "id": "lookup",
        "label": "Card lookup",
        "description": "Looks cards up on the team's board by their titles.",
        "tier": "reads-only",
        "history": "none",
        "capabilities": [search()]
    });
    assert_eq!(problems_of(&lookup), []);
    // A query that declares an effect is no query.
    lookup["capabilities"][0]["effects"] = json!([{"name": "scan", "reversible": false}]);
    assert_eq!(
        problems_of(&lookup),
        [(
            "$.capabilities[0].effects".to_owned(),
            Some("AG-18".to_owned())
        ),]
    );
    // A capability that changes something has no place in `reads-only`.
    lookup["capabilities"][0]["effects"] = json!([{"name": "scan", "reversible": false}]);
    lookup["capabilities"][0]["readOnly"] = json!(false);
    let problems = problems_of(&lookup);
    assert!(
        problems.contains(&("$.capabilities".to_owned(), Some("AG-17".to_owned()))),
        "{problems:?}"
    );
    // And one that changes something declares what.
    let mut board = tasks_manifest();
    board["capabilities"][0]["effects"] = json!([]);
    assert_eq!(
        problems_of(&board),
        [(
            "$.capabilities[0].effects".to_owned(),
            Some("AG-18".to_owned())
        )]
    );
}

#[test]
fn a_query_is_no_change_a_later_undo_is_not_held_back_by_it() {
    let mut board = tasks_manifest();
    board["capabilities"].as_array_mut().unwrap().push(search());
    let mut sim = sim_with(Autonomy::Auto, &[board]);
    // A run renames a card, and returns.
    let renamed = sim.delegate(Autonomy::Auto);
    sim.propose(&renamed, &[rename()]);
    sim.give_marks();
    sim.apply();
    sim.propose(&renamed, &[]);
    assert!(sim.state(&renamed).is_terminal());
    // A later run only searches the board.
    let searched = sim.delegate(Autonomy::Auto);
    sim.propose(&searched, &[CapabilityRef::new("tasks", "search")]);
    sim.give_marks();
    sim.apply();
    sim.propose(&searched, &[]);
    assert_eq!(
        sim.state(&searched),
        returned(Outcome::Completed, ReturnReason::Finished)
    );
    assert_eq!(
        sim.engine.changes().last(&ParticipantId::new("tasks")),
        Some(&ChangedBy::Run {
            run: renamed.clone()
        }),
        "the search changed nothing"
    );
    // Nothing of the search to revert; the rename's undo goes through.
    let reverts = sim.undo(&searched);
    assert_eq!(reverts, Ok(Vec::new()), "a query has nothing to undo");
    sim.drain();
    sim.undo(&renamed).expect("not held back by a query");
}

#[test]
fn ag_8_a_run_whose_only_call_in_flight_is_a_query_changed_nothing_to_roll_back() {
    let mut board = tasks_manifest();
    board["capabilities"].as_array_mut().unwrap().push(search());
    let mut sim = sim_with(Autonomy::Auto, &[board]);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[CapabilityRef::new("tasks", "search")]);
    sim.give_marks();
    assert!(
        sim.take_invoke().is_some(),
        "the search is in flight, unanswered"
    );
    // The run's deadline passes while it waits for the search.
    sim.advance(config().default_budget.run_deadline_ms);
    let RunState::Returned { outcome, .. } = sim.state(&run) else {
        panic!("returned: {:?}", sim.state(&run));
    };
    assert_eq!(
        outcome,
        Outcome::Error,
        "nothing changed, nothing to roll back"
    );
    assert!(
        sim.effects_of(|e| matches!(e, Effect::Revert { .. }))
            .is_empty(),
        "the board the run only searched is not reverted"
    );
    assert!(sim
        .journal_of(&run, |entry| matches!(
            entry,
            JournalEntry::RollbackStarted { .. }
        )
        .then_some(()))
        .is_empty());
}

#[test]
fn ag_8_a_query_in_flight_does_not_stop_a_partial_close() {
    let mut notes = notes_manifest();
    notes["capabilities"].as_array_mut().unwrap().push(search());
    let mut sim = sim_with(Autonomy::Auto, &[notes]);
    let run = sim.delegate(Autonomy::Auto);
    let add = CapabilityRef::new("notes", "add");
    sim.propose(&run, &[add, CapabilityRef::new("notes", "search")]);
    sim.give_marks();
    sim.apply();
    sim.give_marks();
    assert!(sim.take_invoke().is_some(), "the search is in flight");
    sim.advance(config().default_budget.run_deadline_ms);
    let RunState::Returned { outcome, .. } = sim.state(&run) else {
        panic!("returned: {:?}", sim.state(&run));
    };
    // The note added accepts a partial close; the search changed nothing.
    assert_eq!(outcome, Outcome::Partial);
}
