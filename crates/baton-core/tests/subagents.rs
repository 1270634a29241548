//! Who acted is a chain: an acting party that works through subagents
//! (AG-UI's `SUBAGENT_*` and `subagentRunId`) makes its calls as the acting
//! party, then each subagent, outermost first. The chain is in the journal,
//! the review sheet, the announcement and the actor reference (AG-32 …
//! AG-34: still minted only by the engine, and keyed over the chain). A
//! subagent acts within its run's authorization, never beyond it.

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

fn through(sim: &mut Sim, run: &RunId, id: &str, capability: CapabilityRef, via: &[&str]) {
    sim.inbound(
        run,
        Inbound::ToolCall {
            call: CallId::new(id),
            capability,
            arguments: json!({"id": "c1"}),
            via: via.iter().map(|name| name.to_string()).collect(),
        },
    );
}

#[test]
fn ag_32_a_call_made_through_a_subagent_carries_the_chain_everywhere() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Review);
    through(&mut sim, &run, "c1", rename(), &["researcher"]);
    sim.end_turn(&run);
    let sheet = sim
        .engine
        .run(&run)
        .and_then(|run| run.review())
        .expect("under review");
    assert_eq!(sheet.items[0].via, ["researcher"]);
    sim.authorize(&run);
    sim.give_marks();
    let actor = sim
        .log
        .iter()
        .rev()
        .find_map(|event| match event {
            Event::Effect(Effect::Invoke { actor, .. }) => Some(actor.clone()),
            _ => None,
        })
        .expect("the call was invoked");
    // AG-33: the reference the participant gets names the chain, and only
    // this engine resolves it.
    let identity = sim.engine.actors().resolve(&actor).expect("genuine");
    assert_eq!(identity.via, ["researcher"]);
    assert_eq!(identity.call, CallId::new("c1"));
    let dispatched = sim.journal_of(&run, |entry| match entry {
        JournalEntry::CallDispatched { via, .. } => Some(via.clone()),
        _ => None,
    });
    assert_eq!(dispatched, [vec!["researcher".to_owned()]]);
    let acting = sim.log.iter().find_map(|event| match event {
        Event::Announcement(Announcement {
            said: Said::Acting { via, .. },
            ..
        }) => Some(via.clone()),
        _ => None,
    });
    assert_eq!(acting, Some(vec!["researcher".to_owned()]));
}

#[test]
fn ag_7_a_subagent_never_gets_more_autonomy_than_its_run() {
    // Authorized for renames only: a subagent's call outside the allowlist
    // escalates exactly as the acting party's own would.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.apply_all();
    through(&mut sim, &run, "c2", note(), &["researcher", "scribe"]);
    sim.end_turn(&run);
    assert!(
        matches!(
            sim.state(&run),
            RunState::Escalated {
                reason: EscalationReason::OutOfScope { .. },
                ..
            }
        ),
        "{:?}",
        sim.state(&run)
    );
}

#[test]
fn a_chain_of_nested_subagents_is_said_outermost_first_and_stored() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    through(&mut sim, &run, "c1", rename(), &["researcher", "scribe"]);
    sim.end_turn(&run);
    sim.give_marks();
    let call = sim.journal_of(&run, |entry| match entry {
        JournalEntry::CallDispatched { via, .. } => Some(via.clone()),
        _ => None,
    });
    assert_eq!(call, [vec!["researcher".to_owned(), "scribe".to_owned()]]);
    // A call of the acting party itself carries no chain, and its journal
    // entry reads as it always did.
    let plain = JournalEntry::CallDispatched {
        call: CallId::new("x"),
        capability: rename(),
        arguments: json!({}),
        planned_against: Vec::new(),
        via: Vec::new(),
        autonomy: None,
        clamped: false,
        tier: None,
    };
    assert!(serde_json::to_value(&plain).unwrap().get("via").is_none());
}
