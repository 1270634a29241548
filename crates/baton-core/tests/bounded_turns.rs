//! Deterministic simulations of the bounded-turn rules (DESIGN.md §3), driven
//! by a hand-advanced clock.

mod common;

use baton_core::*;
use common::*;

fn reason(sim: &Sim, run: &RunId) -> ReturnReason {
    match sim.state(run) {
        RunState::Returned { reason, .. } => reason,
        other => panic!("{run} has not returned: {other:?}"),
    }
}

#[test]
fn turn_charged_at_reservation() {
    let mut sim = Sim::new();
    let run = sim
        .engine
        .handle(
            sim.now,
            Delegate(Delegation::new("x", Initiative::User, Autonomy::Auto)),
        )
        .unwrap();
    // Charged before anything is sent: the usage and the journal record come
    // first, the effect that sends the turn after them.
    assert_eq!(sim.engine.run(&run).unwrap().usage().turns, 1);
    let events = sim.drain();
    let reserved = events
        .iter()
        .position(|e| {
            matches!(
                e,
                Event::Journal(JournalRecord {
                    entry: JournalEntry::TurnReserved { .. },
                    ..
                })
            )
        })
        .expect("reservation recorded");
    let sent = events
        .iter()
        .position(|e| matches!(e, Event::Effect(Effect::OpenTurn { .. })))
        .expect("turn sent");
    assert!(reserved < sent);
}

#[test]
fn deadman_consumes_turn() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.apply_all();
    assert_eq!(sim.engine.run(&run).unwrap().usage().turns, 2);
    // The acting party never answers the second turn.
    sim.advance(config().default_budget.turn_deadline_ms);
    sim.answer_reverts(|_| Ok(()));
    assert_eq!(reason(&sim, &run), ReturnReason::TurnDeadman);
    assert_eq!(
        sim.engine.run(&run).unwrap().usage().turns,
        2,
        "the dead turn stays charged"
    );
    // Its transport request is aborted.
    assert_eq!(
        sim.effects_of(|e| matches!(
            e,
            Effect::CancelTurn {
                turn: TurnId(2),
                ..
            }
        ))
        .len(),
        1
    );
}

#[test]
fn a_lost_transport_returns_an_error_and_nothing_reconnects() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.inbound(
        &run,
        Inbound::TransportLost {
            message: "the stream closed before the turn ended".into(),
        },
    );
    sim.advance(1_000_000);
    assert_eq!(sim.open_turns(&run), 1, "nothing reopened the turn");
    assert_eq!(
        sim.engine.run(&run).unwrap().state(),
        &RunState::Returned {
            outcome: Outcome::Error,
            reason: ReturnReason::TransportLost {
                message: "the stream closed before the turn ended".into()
            },
            refused: 0,
        }
    );
    let serialized = serde_json::to_value(sim.engine.run(&run).unwrap().state()).unwrap();
    assert_eq!(
        serialized["reason"]["kind"], "transport-lost",
        "{serialized}"
    );
    // The person may pick it up again: a chained run, with its context.
    let chained = sim
        .engine
        .handle(
            sim.now,
            Resume {
                run: run.clone(),
                budget: None,
            },
        )
        .unwrap();
    assert_eq!(
        sim.engine.run(&chained).unwrap().resumes(),
        Some(&run),
        "the new run names the one it resumes"
    );
    assert!(
        sim.engine
            .handle(
                sim.now,
                Resume {
                    run: run.clone(),
                    budget: None
                }
            )
            .is_err(),
        "once only"
    );
}

#[test]
fn a_lost_transport_after_a_rolled_back_change_is_not_resumable() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.give_marks();
    sim.apply_all();
    sim.inbound(
        &run,
        Inbound::TransportLost {
            message: "reset".into(),
        },
    );
    sim.answer_reverts(|_| Ok(()));
    assert!(matches!(
        sim.engine.run(&run).unwrap().state(),
        RunState::Returned {
            outcome: Outcome::RolledBack,
            ..
        }
    ));
    assert!(matches!(
        sim.engine.handle(
            sim.now,
            Resume {
                run: run.clone(),
                budget: None
            }
        ),
        Err(DelegateError::NotResumable { .. })
    ));
}

#[test]
fn no_automatic_retry_after_a_failed_turn() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.inbound(
        &run,
        Inbound::TurnFailed {
            message: "connection reset".into(),
        },
    );
    sim.advance(1_000_000);
    assert_eq!(sim.open_turns(&run), 1, "nothing retried the turn");
    assert!(matches!(
        reason(&sim, &run),
        ReturnReason::TurnFailed { .. }
    ));
    assert_eq!(sim.engine.run(&run).unwrap().usage().turns, 1);
}

#[test]
fn no_automatic_retry_after_a_deadman_turn() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.advance(1_000_000);
    assert_eq!(sim.open_turns(&run), 1);
    assert_eq!(reason(&sim, &run), ReturnReason::TurnDeadman);
}

#[test]
fn terminal_precedence_order_is_fixed() {
    let causes = [
        ReturnReason::IntegrityViolation {
            code: ProtocolViolation::NotAnEvent,
            finding: "x".into(),
        },
        ReturnReason::Finished,
        ReturnReason::TurnDeadman,
        ReturnReason::RunDeadline,
        ReturnReason::BudgetExhausted {
            limit: BudgetLimit::Turns,
        },
        ReturnReason::EscalationTimeout,
    ];
    for pair in causes.windows(2) {
        assert!(
            pair[0].precedence() < pair[1].precedence(),
            "{:?} must outrank {:?}",
            pair[0],
            pair[1]
        );
    }
}

/// A run whose turn deadline and run deadline fall on the same instant.
fn coinciding_deadlines() -> (Sim, RunId) {
    let mut sim = Sim::new();
    let run = sim.delegate_with(
        Delegation::new("x", Initiative::User, Autonomy::Auto).with_budget(Budget {
            run_deadline_ms: 10_000,
            turn_deadline_ms: 10_000,
            ..config().default_budget
        }),
    );
    (sim, run)
}

#[test]
fn terminal_precedence_deadman_beats_run_deadline() {
    let (mut sim, run) = coinciding_deadlines();
    sim.advance(10_000);
    assert_eq!(reason(&sim, &run), ReturnReason::TurnDeadman);
}

#[test]
fn terminal_precedence_explicit_close_beats_deadman_and_deadline() {
    let (mut sim, run) = coinciding_deadlines();
    let turn = sim.turn(&run);
    // The close arrives at the very instant both timers are due, before the
    // host got round to telling it `Signal::Timeout`.
    sim.now += 10_000;
    sim.engine
        .handle(sim.now, Signal::inbound(&run, turn, Inbound::TurnEnd));
    sim.drain();
    // A planning turn that proposes nothing is the acting party declining.
    assert_eq!(
        sim.state(&run),
        RunState::Cancelled {
            reason: CancelReason::NoPlan
        }
    );
}

#[test]
fn terminal_precedence_integrity_beats_deadman() {
    let (mut sim, run) = coinciding_deadlines();
    let turn = sim.turn(&run);
    sim.now += 10_000;
    sim.engine.handle(
        sim.now,
        Signal::inbound(
            &run,
            turn,
            Inbound::Malformed {
                code: ProtocolViolation::NotOpen,
                detail: "TOOL_CALL_ARGS for unknown id".into(),
            },
        ),
    );
    sim.drain();
    assert!(matches!(
        reason(&sim, &run),
        ReturnReason::IntegrityViolation {
            code: ProtocolViolation::NotOpen,
            ..
        }
    ));
}

#[test]
fn terminal_precedence_deadman_beats_a_late_ordinary_input() {
    let (mut sim, run) = coinciding_deadlines();
    let turn = sim.turn(&run);
    sim.now += 10_000;
    sim.engine.handle(
        sim.now,
        Signal::inbound(
            &run,
            turn,
            tool_call("late", rename(), serde_json::json!({})),
        ),
    );
    sim.drain();
    assert_eq!(reason(&sim, &run), ReturnReason::TurnDeadman);
    assert!(sim
        .engine
        .findings()
        .iter()
        .any(|f| f.reason == FindingReason::OutsideOpenTurn));
}

#[test]
fn terminal_precedence_run_deadline_beats_budget_exhausted() {
    let mut sim = Sim::new();
    let run = sim.delegate_with(
        Delegation::new("x", Initiative::User, Autonomy::Auto).with_budget(Budget {
            max_turns: 1,
            run_deadline_ms: config().escalation_timeout_ms,
            ..config().default_budget
        }),
    );
    sim.propose(&run, &[note()]);
    sim.apply_all();
    assert!(matches!(sim.state(&run), RunState::Escalated { .. }));
    // Escalation timeout and run deadline coincide.
    sim.now = sim.engine.run(&run).unwrap().deadline_at();
    sim.engine.handle(sim.now, Signal::Timeout);
    sim.drain();
    assert_eq!(reason(&sim, &run), ReturnReason::RunDeadline);
    // The exhaustion was never resolved, so the handoff still happened.
    assert_eq!(receipts(&sim), 1);
}

#[test]
fn terminal_precedence_person_stop_beats_due_timers() {
    let (mut sim, run) = coinciding_deadlines();
    sim.now += 20_000;
    sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
    sim.drain();
    assert_eq!(reason(&sim, &run), ReturnReason::UserInterrupt);
}

#[test]
fn arrival_never_starts_run() {
    let mut sim = Sim::new();
    // Traffic for a run nobody started.
    sim.engine.handle(
        sim.now,
        Signal::Inbound {
            run: RunId::new("s/r7"),
            turn: TurnId(1),
            inbound: tool_call("c", rename(), serde_json::json!({})),
        },
    );
    sim.drain();
    assert_eq!(sim.engine.runs().count(), 0);
    assert_eq!(sim.engine.findings()[0].reason, FindingReason::UnknownRun);
    assert!(sim.effects.is_empty());

    // Traffic for a finished run never revives it.
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.apply_all();
    let old_turn = TurnId(1);
    sim.engine
        .handle(sim.now, Signal::inbound(&run, old_turn, Inbound::TurnEnd));
    sim.drain();
    assert_eq!(
        sim.state(&run),
        RunState::Acting,
        "a stale turn changes nothing"
    );
    sim.propose(&run, &[]);
    let frozen = (sim.state(&run), sim.revision(&run));
    let effects_before = sim.log.len();
    for turn in [TurnId(1), TurnId(2), TurnId(3)] {
        sim.engine.handle(
            sim.now,
            Signal::inbound(
                &run,
                turn,
                tool_call("again", rename(), serde_json::json!({})),
            ),
        );
        sim.engine
            .handle(sim.now, Signal::inbound(&run, turn, Inbound::TurnEnd));
    }
    let fresh = sim.drain();
    assert_eq!((sim.state(&run), sim.revision(&run)), frozen);
    assert!(fresh.iter().all(|e| matches!(
        e,
        Event::Finding(Finding {
            reason: FindingReason::OutsideOpenTurn,
            ..
        })
    )));
    assert_eq!(sim.log.len() - effects_before, 6);
}

#[test]
fn hourly_quota_limits_non_user_starts() {
    let mut sim = Sim::new();
    let first = sim.now;
    for _ in 0..3 {
        sim.delegate_with(Delegation::new(
            "x",
            Initiative::Scheduled,
            Autonomy::Review,
        ));
        sim.now += 1_000;
    }
    let refused = sim.engine.handle(
        sim.now,
        Delegate(Delegation::new("x", Initiative::System, Autonomy::Review)),
    );
    assert_eq!(
        refused,
        Err(DelegateError::QuotaExceeded {
            quota: 3,
            retry_at: first + 3_600_000
        })
    );
    // The person is never throttled by the runaway guard.
    assert!(sim
        .engine
        .handle(
            sim.now,
            Delegate(Delegation::new("x", Initiative::User, Autonomy::Review))
        )
        .is_ok());
}

#[test]
fn hourly_quota_window_slides() {
    let mut sim = Sim::new();
    let first = sim.now;
    for _ in 0..3 {
        sim.delegate_with(Delegation::new("x", Initiative::System, Autonomy::Review));
        sim.now += 1_000;
    }
    sim.now = first + 3_600_000 - 1;
    assert!(sim
        .engine
        .handle(
            sim.now,
            Delegate(Delegation::new("x", Initiative::System, Autonomy::Review))
        )
        .is_err());
    sim.now = first + 3_600_000;
    assert!(sim
        .engine
        .handle(
            sim.now,
            Delegate(Delegation::new("x", Initiative::System, Autonomy::Review))
        )
        .is_ok());
    // That start used the freed slot; the window is full again.
    assert!(sim
        .engine
        .handle(
            sim.now,
            Delegate(Delegation::new("x", Initiative::System, Autonomy::Review))
        )
        .is_err());
}

#[test]
fn hourly_quota_survives_a_restore() {
    let mut sim = Sim::new();
    for _ in 0..3 {
        sim.delegate_with(Delegation::new("x", Initiative::System, Autonomy::Review));
    }
    let mut restored = Engine::restore(config(), secret(), sim.engine.snapshot());
    assert!(matches!(
        restored.handle(
            sim.now,
            Delegate(Delegation::new("x", Initiative::System, Autonomy::Review))
        ),
        Err(DelegateError::QuotaExceeded { .. })
    ));
}

fn receipts(sim: &Sim) -> usize {
    sim.log
        .iter()
        .filter(|e| matches!(e, Event::EscalationReceipt { .. }))
        .count()
}

/// A run escalated on exhausted turns, nobody answering.
fn exhausted() -> (Sim, RunId) {
    let mut sim = Sim::new();
    let run = sim.delegate_with(
        Delegation::new("x", Initiative::User, Autonomy::Auto).with_budget(Budget {
            max_turns: 1,
            ..config().default_budget
        }),
    );
    sim.propose(&run, &[note()]);
    sim.apply_all();
    assert_eq!(
        sim.state(&run),
        RunState::Escalated {
            reason: EscalationReason::BudgetExhausted {
                limit: BudgetLimit::Turns
            }
        }
    );
    (sim, run)
}

#[test]
fn escalation_receipt_exactly_once() {
    let (mut sim, run) = exhausted();
    assert_eq!(receipts(&sim), 0, "not before the escalation is abandoned");
    sim.advance(config().escalation_timeout_ms);
    assert_eq!(
        reason(&sim, &run),
        ReturnReason::BudgetExhausted {
            limit: BudgetLimit::Turns
        }
    );
    assert_eq!(receipts(&sim), 1);
    // Replayed inputs: the same timeout again, a kill, later timeouts.
    sim.engine.handle(sim.now, Signal::Timeout);
    sim.engine.handle(sim.now, Kill::ALL);
    sim.advance(1_000_000);
    assert_eq!(receipts(&sim), 1);
    // A restore from the persisted snapshot replays nothing either.
    let mut restored = Engine::restore(config(), secret(), sim.engine.snapshot());
    restored.handle(sim.now, Signal::Timeout);
    restored.handle(sim.now + 1_000_000, Signal::Timeout);
    restored.handle(sim.now, Reconcile);
    assert!(std::iter::from_fn(|| restored.poll_event())
        .all(|e| !matches!(e, Event::EscalationReceipt { .. })));
}

#[test]
fn escalation_receipt_once_when_restored_mid_escalation() {
    let (mut sim, _run) = exhausted();
    // The page reloads while the escalation is open; the restored engine
    // returns the interrupted run and hands off exactly once.
    let mut restored = Engine::restore(config(), secret(), sim.engine.snapshot());
    restored.handle(sim.now + config().escalation_timeout_ms, Signal::Timeout);
    restored.handle(sim.now + config().escalation_timeout_ms, Signal::Timeout);
    let count = std::iter::from_fn(|| restored.poll_event())
        .filter(|e| matches!(e, Event::EscalationReceipt { .. }))
        .count();
    assert_eq!(count, 1);
    sim.drain();
}

#[test]
fn escalation_receipt_once_when_a_reload_cuts_the_escalation_off() {
    let (sim, run) = exhausted();
    // The page went away while the escalation was open; the engine that
    // reconciles it ends the run, and that hands off to the person once.
    let mut restored = Engine::restore(config(), secret(), sim.engine.snapshot());
    restored.handle(sim.now + 1, Reconcile);
    restored.handle(sim.now + config().escalation_timeout_ms, Signal::Timeout);
    let count = std::iter::from_fn(|| restored.poll_event())
        .filter(|e| matches!(e, Event::EscalationReceipt { .. }))
        .count();
    assert_eq!(
        count, 1,
        "an unresolved exhaustion is receipted exactly once"
    );
    let view = restored.run(&run).unwrap();
    assert!(
        view.journal()
            .iter()
            .any(|record| matches!(record.entry, JournalEntry::EscalationReceipt { .. })),
        "the receipt is ledgered on the run"
    );
}

#[test]
fn escalation_receipt_not_emitted_when_the_person_resolves() {
    let (mut sim, run) = exhausted();
    sim.resolve(&run, Resolution::Return);
    sim.advance(1_000_000);
    assert_eq!(reason(&sim, &run), ReturnReason::EscalationReturned);
    assert_eq!(receipts(&sim), 0);
}

#[test]
fn commands_are_revision_fenced() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    let seen = sim.revision(&run) - 1;
    assert_eq!(
        sim.authorize_at(&run, seen, Authorization::default()),
        Err(CommandError::StaleRevision {
            run: run.clone(),
            expected: seen,
            actual: seen + 1
        })
    );
    assert_eq!(sim.state(&run), RunState::Reviewing);
}

#[test]
fn journal_records_actor_time_cause_and_gapless_revisions() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Review);
    sim.now += 5;
    sim.propose(&run, &[rename()]);
    sim.now += 5;
    sim.authorize(&run);
    sim.apply_all();
    sim.propose(&run, &[]);
    let journal = sim.engine.run(&run).unwrap().run().journal();
    let revisions: Vec<u64> = journal.iter().map(|r| r.revision).collect();
    assert_eq!(revisions, (1..=journal.len() as u64).collect::<Vec<_>>());
    assert!(journal.windows(2).all(|w| w[0].at <= w[1].at));
    let authorized = journal
        .iter()
        .find(|r| {
            matches!(
                &r.entry,
                JournalEntry::Transition {
                    to: RunState::Authorized,
                    ..
                }
            )
        })
        .unwrap();
    assert_eq!(authorized.actor, Actor::Person);
    assert_eq!(authorized.at, 1_010);
    let planned = journal
        .iter()
        .find(|r| {
            matches!(
                &r.entry,
                JournalEntry::Transition {
                    to: RunState::Planned,
                    ..
                }
            )
        })
        .unwrap();
    assert_eq!(planned.actor, Actor::ActingParty);
    // Every journal record was also emitted as an event, in the same order.
    let emitted: Vec<&JournalRecord> = sim
        .log
        .iter()
        .filter_map(|e| match e {
            Event::Journal(record) if record.run == run => Some(record),
            _ => None,
        })
        .collect();
    assert_eq!(emitted, journal.iter().collect::<Vec<_>>());
}

#[test]
fn undeclared_capability_is_correctable_and_charged() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[CapabilityRef::new("tasks", "teleport"), rename()]);
    sim.apply_all();
    assert_eq!(sim.state(&run), RunState::Acting, "the run goes on");
    assert_eq!(sim.engine.run(&run).unwrap().usage().calls, 2);
    let Some(Effect::OpenTurn { request, .. }) = sim
        .effects_of(|e| matches!(e, Effect::OpenTurn { .. }))
        .pop()
    else {
        panic!()
    };
    let results = request.results;
    assert!(matches!(
        &results[0].result,
        CallResult::Refused {
            refusal: Refusal::UndeclaredCapability
        }
    ));
}

#[test]
fn reconcile_returns_interrupted_runs_idempotently() {
    let mut sim = Sim::new();
    let acting = sim.delegate(Autonomy::Auto);
    sim.propose(&acting, &[rename()]);
    sim.give_marks();
    let done = sim.delegate(Autonomy::Auto);
    sim.engine.handle(sim.now, Stop(done.clone())).unwrap();
    let mut restored = Engine::restore(config(), secret(), sim.engine.snapshot());
    assert_eq!(restored.handle(sim.now, Reconcile).interrupted, 1);
    assert_eq!(
        restored.handle(sim.now, Reconcile),
        Reconciliation::default()
    );
    assert_eq!(
        restored.run(&acting).unwrap().state(),
        &returned(Outcome::Aborted, ReturnReason::Interrupted)
    );
}

#[test]
fn a_new_engine_has_nothing_to_reconcile_until_it_holds_a_run() {
    let fresh = Engine::new(config(), secret());
    assert!(!fresh.has_anything_to_reconcile());
    let mut sim = Sim::new();
    assert!(!sim.engine.has_anything_to_reconcile());
    let run = sim.delegate(Autonomy::Auto);
    assert!(sim.engine.has_anything_to_reconcile());
    let mut restored = Engine::restore(config(), secret(), sim.engine.snapshot());
    assert!(restored.has_anything_to_reconcile());
    assert_eq!(
        restored.handle(sim.now, Reconcile).interrupted,
        1,
        "{run} was acting"
    );
}

#[test]
fn a_header_with_live_rows_restores_what_a_whole_snapshot_does() {
    let mut sim = Sim::new();
    let acting = sim.delegate(Autonomy::Auto);
    sim.propose(&acting, &[rename()]);
    sim.give_marks();
    let done = sim.delegate(Autonomy::Auto);
    sim.engine.handle(sim.now, Stop(done.clone())).unwrap();
    let header = sim.engine.header();
    assert!(header.runs.is_empty(), "a header carries no runs");
    // A store restores the live rows only: history stays in the journal.
    let live: Vec<Run> = sim
        .engine
        .runs()
        .filter(|run| !run.state().is_terminal())
        .cloned()
        .collect();
    assert_eq!(live.len(), 1);
    let snapshot = header.with_rows(live, Vec::new());
    assert_eq!(snapshot.next_run, sim.engine.snapshot().next_run);
    let mut restored = Engine::restore(config(), secret(), snapshot);
    assert_eq!(restored.handle(sim.now, Reconcile).interrupted, 1);
    assert!(
        restored.run(&done).is_none(),
        "terminal history is not loaded"
    );
    // New runs continue the numbering rather than reuse an id.
    let next = restored
        .handle(
            sim.now,
            Delegate(Delegation::new("again", Initiative::User, Autonomy::Auto)),
        )
        .unwrap();
    assert_ne!(next, acting);
    assert_ne!(next, done);
}
