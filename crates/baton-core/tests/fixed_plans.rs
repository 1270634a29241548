//! A fixed plan (AG-3: a macro, a rule) has no acting party to correct a
//! refused call. A refusal there is a failure part-way (AG-8, AG-39): an
//! error if nothing was done yet, otherwise rolled back or closed partially
//! — never `completed`.

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

fn plan(calls: &[serde_json::Value]) -> Delegation {
    Delegation::new("tidy the board", Initiative::User, Autonomy::Auto).with_plan(
        calls
            .iter()
            .map(|arguments| PlannedCall {
                capability: rename(),
                arguments: arguments.clone(),
            })
            .collect(),
    )
}

fn closed_ending(sim: &Sim) -> Option<Ending> {
    sim.log.iter().rev().find_map(|event| match event {
        Event::Announcement(Announcement {
            said: Said::Closed { ending, .. },
            ..
        }) => Some(*ending),
        _ => None,
    })
}

#[test]
fn ag_3_a_fixed_plan_whose_only_call_is_refused_returns_error_not_completed() {
    let mut sim = Sim::new();
    let run = sim.delegate_with(plan(&[json!({"id": 3})]));
    assert_eq!(
        sim.apply_all(),
        0,
        "the refused call reaches no participant"
    );
    assert_eq!(
        sim.state(&run),
        RunState::Returned {
            outcome: Outcome::Error,
            reason: ReturnReason::PlanRefused {
                call: CallId::new("p1"),
                capability: rename(),
                refusal: "invalid-arguments".into(),
            },
            refused: 1,
        }
    );
    let refused: Vec<&'static str> = sim.journal_of(&run, |entry| match entry {
        JournalEntry::CallRefused { refusal, .. } => Some(refusal.code()),
        _ => None,
    });
    assert_eq!(
        refused,
        ["invalid-arguments"],
        "the refusal is journalled whole"
    );
    assert_eq!(
        closed_ending(&sim),
        Some(Ending::Failed),
        "said as a failure, in words"
    );
}

#[test]
fn ag_8_a_fixed_plan_refused_after_it_acted_is_rolled_back() {
    let mut sim = Sim::new();
    let run = sim.delegate_with(plan(&[json!({"id": "1"}), json!({"id": 2})]));
    assert_eq!(sim.apply_all(), 1, "the first call is applied");
    let reverted = sim.answer_reverts(|_| Ok(()));
    assert_eq!(reverted.len(), 1, "what it did is reverted");
    assert!(matches!(
        sim.state(&run),
        RunState::Returned {
            outcome: Outcome::RolledBack,
            reason: ReturnReason::PlanRefused { .. },
            ..
        }
    ));
    assert_eq!(closed_ending(&sim), Some(Ending::RolledBack));
}

#[test]
fn ag_21_with_an_acting_party_a_refusal_stays_correctable() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[CapabilityRef::new("tasks", "teleport")]);
    assert_eq!(sim.state(&run), RunState::Acting, "the run goes on");
}

#[test]
fn the_reason_reads_back_as_written() {
    let reason = ReturnReason::PlanRefused {
        call: CallId::new("p2"),
        capability: rename(),
        refusal: "stale".into(),
    };
    let text = serde_json::to_string(&reason).unwrap();
    assert_eq!(
        text,
        r#"{"kind":"plan-refused","call":"p2","capability":{"participant":"tasks","capability":"rename"},"refusal":"stale"}"#
    );
    assert_eq!(serde_json::from_str::<ReturnReason>(&text).unwrap(), reason);
}
