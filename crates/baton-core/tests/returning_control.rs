//! The person takes control back (contract §2): a stop (AG-9), the
//! keyboard exit (AG-42), the global kill (AG-10), pause and resume
//! (AG-11) — each a return, never an error.

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

// ----- AG-9 -------------------------------------------------------------------

#[test]
fn ag_9_user_interruption_is_a_return_never_an_error() {
    let mut sim = Sim::new();
    let offered = sim.delegate(Autonomy::Review);
    let reviewing = sim.delegate(Autonomy::Review);
    sim.propose(&reviewing, &[rename()]);
    let acting = sim.delegate(Autonomy::Auto);
    sim.propose(&acting, &[rename(), archive()]);
    sim.apply();
    let escalated = sim.delegate(Autonomy::Review);
    sim.propose(&escalated, &[rename()]);
    sim.authorize(&escalated);
    sim.apply_all();
    sim.propose(&escalated, &[theme()]);
    for run in [&offered, &reviewing, &acting, &escalated] {
        assert!(!sim.state(run).is_terminal());
        sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
        sim.drain();
        assert_eq!(
            sim.state(run),
            returned(Outcome::Aborted, ReturnReason::UserInterrupt),
            "{run}"
        );
    }
    // What the interrupted run did stays (one undo step for the person): no reverts.
    assert!(sim.take_reverts().is_empty());
}

// ----- AG-42 ------------------------------------------------------------------

#[test]
fn ag_42_the_keyboard_exit_stops_every_active_run_as_the_persons_act() {
    let mut sim = Sim::new();
    // With nothing active the exit does nothing (the page keeps its key).
    assert_eq!(sim.engine.handle(sim.now, InterruptAll), 0);
    assert!(sim.drain().is_empty());
    let offered = sim.delegate(Autonomy::Review);
    let acting = sim.delegate(Autonomy::Auto);
    sim.propose(&acting, &[rename(), archive()]);
    sim.apply();
    let finished = sim.delegate(Autonomy::Review);
    sim.engine.handle(sim.now, Stop(finished.clone())).unwrap();
    sim.drain();
    assert_eq!(sim.engine.handle(sim.now, InterruptAll), 2);
    let events = sim.drain();
    for run in [&offered, &acting] {
        assert_eq!(
            sim.state(run),
            returned(Outcome::Aborted, ReturnReason::UserInterrupt),
            "{run}"
        );
        let said_by_person = events.iter().any(|event| {
            matches!(event, Event::Announcement(a) if a.runs == vec![run.clone()] && a.speaker == Speaker::Person)
        });
        assert!(said_by_person, "{run}: announced as the person's act");
    }
    // A run already ended is left as it was; what the stopped run did stays.
    assert_eq!(
        sim.state(&finished),
        returned(Outcome::Aborted, ReturnReason::UserInterrupt)
    );
    assert!(sim.take_reverts().is_empty());
    assert_eq!(sim.engine.handle(sim.now, InterruptAll), 0);
}

// ----- AG-10 ------------------------------------------------------------------

#[test]
fn ag_10_global_kill_returns_every_active_run_and_disable_refuses_new_ones() {
    let mut sim = Sim::new();
    let a = sim.delegate(Autonomy::Review);
    let b = sim.delegate(Autonomy::Auto);
    sim.propose(&b, &[rename()]);
    sim.give_marks();
    let c = sim.delegate_with(
        Delegation::new("macro", Initiative::Scheduled, Autonomy::Review).with_plan(vec![
            PlannedCall {
                capability: theme(),
                arguments: json!({}),
            },
        ]),
    );
    sim.engine.handle(0, Disable);
    assert_eq!(sim.engine.handle(sim.now, Kill::ALL), 3);
    sim.drain();
    for run in [&a, &b, &c] {
        assert_eq!(
            sim.state(run),
            returned(Outcome::Aborted, ReturnReason::Kill)
        );
    }
    let refused = sim.engine.handle(
        sim.now,
        Delegate(Delegation::new("x", Initiative::User, Autonomy::Auto)),
    );
    assert_eq!(refused, Err(DelegateError::Disabled));
    assert!(refused.unwrap_err().to_string().starts_with("AG-10:"));
    sim.engine.handle(0, Enable);
    assert!(sim
        .engine
        .handle(
            sim.now,
            Delegate(Delegation::new("x", Initiative::User, Autonomy::Auto))
        )
        .is_ok());
}

// ----- AG-11 ------------------------------------------------------------------

#[test]
fn ag_11_pause_is_a_return_and_resume_is_a_fresh_chained_run() {
    let mut sim = Sim::new();
    let first = sim.delegate(Autonomy::Auto);
    sim.propose(&first, &[rename(), archive()]);
    sim.apply();
    sim.engine.handle(sim.now, Pause(first.clone())).unwrap();
    sim.drain();
    assert_eq!(
        sim.state(&first),
        returned(Outcome::Aborted, ReturnReason::Paused)
    );
    assert!(sim.engine.run(&first).unwrap().is_resumable());

    let second = sim.resume(&first);
    let chained = sim.engine.run(&second).unwrap();
    assert_ne!(second, first);
    assert_eq!(chained.resumes(), Some(&first));
    assert_eq!(chained.intent(), "tidy the board");
    assert!(second.as_str().starts_with("s/"), "same session");
    assert_eq!(
        chained.state(),
        &RunState::Offered,
        "no new state: a fresh run"
    );
    // The resumable context: what the acting party had not heard yet.
    let Some(Effect::OpenTurn { request, .. }) = sim
        .effects_of(|e| matches!(e, Effect::OpenTurn { run, .. } if *run == second))
        .pop()
    else {
        panic!("the chained run opened its turn");
    };
    let results = request.results;
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].capability, rename());
    // The paused run stays terminal, and only resumes once.
    assert!(sim.state(&first).is_terminal());
    assert_eq!(
        sim.engine.handle(
            sim.now,
            Resume {
                run: first.clone(),
                budget: None
            }
        ),
        Err(DelegateError::NotResumable { run: first.clone() })
    );
    // A run that was stopped, not paused, is not resumable.
    sim.engine.handle(sim.now, Stop(second.clone())).unwrap();
    assert!(sim
        .engine
        .handle(
            sim.now,
            Resume {
                run: second.clone(),
                budget: None
            }
        )
        .is_err());
}

/// A delegation may name its conversation with the acting party
/// (`delegate({ thread })`): every turn request of the run says so, a
/// stored run keeps it, and the run that resumes it continues it.
#[test]
fn a_named_thread_goes_with_every_turn_of_the_run_and_of_the_run_resuming_it() {
    let mut sim = Sim::new();
    let mut delegation = Delegation::new("tidy the board", Initiative::User, Autonomy::Auto);
    delegation.thread = Some("support-42".into());
    let first = sim.delegate_with(delegation);
    sim.drain();
    assert_eq!(sim.last_request().thread.as_deref(), Some("support-42"));
    assert_eq!(sim.engine.run(&first).unwrap().thread(), Some("support-42"));
    // Stored and read back, as after a reload.
    let row = serde_json::to_value(sim.engine.run(&first).unwrap().run()).unwrap();
    assert_eq!(row["thread"], "support-42");
    sim.propose(&first, &[rename()]);
    sim.apply();
    sim.pause(&first);
    let second = sim.resume(&first);
    assert_eq!(
        sim.engine.run(&second).unwrap().thread(),
        Some("support-42")
    );
    assert_eq!(sim.last_request().thread.as_deref(), Some("support-42"));
    // A delegation that names none leaves the transport its default.
    let other = sim.delegate(Autonomy::Auto);
    sim.drain();
    assert_eq!(sim.engine.run(&other).unwrap().thread(), None);
    assert_eq!(sim.last_request().thread, None);
}
