//! The escalation sheet (AG-6, AG-7, AG-29): every escalation says why it
//! waits and offers the resolutions that end the wait, each accepted by the
//! engine at the sheet's revision.

mod common;

use baton_core::*;
use common::*;

fn exhausted() -> (Sim, RunId) {
    Sim::past_its_call_budget()
}

#[test]
fn ag_7_an_exhausted_budget_is_offered_raised_and_the_offer_is_accepted() {
    let (mut sim, run) = exhausted();
    let sheet = sim
        .engine
        .run(&run)
        .and_then(|run| run.escalation())
        .expect("escalated");
    assert_eq!(
        sheet.reason,
        EscalationReason::BudgetExhausted {
            limit: BudgetLimit::Calls
        }
    );
    assert_eq!(sheet.usage.calls, 1);
    assert_eq!(sheet.revision, sim.revision(&run));
    let raised = Budget {
        max_calls: 2,
        ..config().default_budget
    };
    assert_eq!(
        sheet.choices,
        [
            Resolution::Allow {
                budget: Some(raised)
            },
            Resolution::Return
        ]
    );
    // The first choice, as offered, is what lets the run go on.
    sim.resolve_at(&run, sheet.revision, sheet.choices[0].clone())
        .expect("the offered resolution is accepted");
    sim.drain();
    sim.apply_all();
    assert_eq!(sim.invoked(&archive()), 1);
    assert_eq!(
        sim.engine.run(&run).and_then(|run| run.escalation()),
        None,
        "no longer escalated"
    );
}

#[test]
fn ag_7_every_offered_way_out_ends_the_wait() {
    for choice in 0..2 {
        let (mut sim, run) = exhausted();
        let sheet = sim
            .engine
            .run(&run)
            .and_then(|run| run.escalation())
            .unwrap();
        sim.resolve_at(&run, sheet.revision, sheet.choices[choice].clone())
            .unwrap();
        sim.drain();
        assert!(
            !matches!(sim.state(&run), RunState::Escalated { .. }),
            "choice {choice}"
        );
    }
}

#[test]
fn ag_29_a_drifted_authorization_offers_review_or_return() {
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest(), settings_manifest()]);
    sim.publish("settings", "form", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), rename()]);
    sim.give_marks();
    // A read it was authorized on turns untrusted mid-run: the autonomy no longer holds.
    sim.publish("settings", "form", 2, Origin::ThirdParty);
    sim.apply();
    let sheet = sim
        .engine
        .run(&run)
        .and_then(|run| run.escalation())
        .expect("escalated on drift");
    assert!(
        matches!(sheet.reason, EscalationReason::Drift { .. }),
        "{sheet:?}"
    );
    assert_eq!(sheet.choices, [Resolution::Review, Resolution::Return]);
    // What the sheet does not offer is refused, and the run still waits:
    // drift is re-reviewed, never waved through (AG-29).
    for resolution in [Resolution::Allow { budget: None }, Resolution::Deny] {
        let refused = sim
            .resolve_at(&run, sheet.revision, resolution.clone())
            .expect_err("not offered");
        assert_eq!(
            refused.code(),
            ErrorCode::InvalidResolution,
            "{resolution:?}"
        );
        assert!(refused.to_string().starts_with("AG-29"), "{refused}");
        assert_eq!(
            sim.state(&run),
            RunState::Escalated {
                reason: sheet.reason.clone()
            }
        );
        assert_eq!(sim.revision(&run), sheet.revision, "nothing changed");
    }
    sim.resolve(&run, Resolution::Review);
    assert_eq!(sim.state(&run), RunState::Reviewing);
}

#[test]
fn ag_7_an_exhausted_budget_that_cannot_be_raised_offers_only_return() {
    let mut config = config();
    config.max_budget.max_calls = 1;
    let mut sim = Sim::with_config(config);
    let run = sim.delegate_with(
        Delegation::new("x", Initiative::User, Autonomy::Auto).with_budget(Budget {
            max_calls: 1,
            ..common::config().default_budget
        }),
    );
    sim.propose(&run, &[rename(), archive()]);
    sim.apply_all();
    let sheet = sim
        .engine
        .run(&run)
        .and_then(|run| run.escalation())
        .unwrap();
    assert_eq!(sheet.choices, [Resolution::Return]);
    let refused = sim
        .resolve_at(&run, sheet.revision, Resolution::Deny)
        .expect_err("not offered");
    assert_eq!(refused.code(), ErrorCode::InvalidResolution);
    assert!(matches!(sim.state(&run), RunState::Escalated { .. }));
}

#[test]
fn a_run_that_is_not_escalated_has_no_sheet() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Review);
    assert_eq!(sim.engine.run(&run).and_then(|run| run.escalation()), None);
    sim.propose(&run, &[rename()]);
    assert_eq!(sim.state(&run), RunState::Reviewing);
    assert_eq!(sim.engine.run(&run).and_then(|run| run.escalation()), None);
}
