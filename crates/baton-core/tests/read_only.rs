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
