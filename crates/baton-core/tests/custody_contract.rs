//! The custody requirements of the Delegation Contract, §1–§2 (AG-1 … AG-8;
//! the person taking control back, AG-9 … AG-11 and AG-42, is in
//! `returning_control.rs`).

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

// ----- AG-1 -------------------------------------------------------------------

#[test]
fn ag_1_non_user_mutation_outside_a_run_is_refused() {
    let mut sim = Sim::new();
    // The person needs no envelope.
    assert_eq!(sim.engine.actors().admit(None), Ok(Attribution::Person));

    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), rename()]);
    sim.give_marks();
    let in_flight = sim
        .engine
        .run(&run)
        .and_then(|run| run.actor())
        .expect("a call is in flight");
    let identity = sim
        .engine
        .actors()
        .resolve(&in_flight)
        .expect("minted here");
    assert_eq!(identity.run, run);
    assert_eq!(
        sim.engine.actors().admit(Some(&in_flight)),
        Ok(Attribution::Delegated(identity))
    );

    // A reference this engine did not mint, or that names no call in flight.
    let invented = ActorRef::new(format!("{run}#c1-2"));
    assert!(matches!(
        sim.engine.actors().admit(Some(&invented)),
        Err(MutationRefused::OutsideRun { .. })
    ));
    // The same run and call in another engine (another secret): foreign.
    let mut other = Sim::with_config(config());
    other.engine = Engine::new(config(), ActorSecret::new([1; 32]));
    declare_all(&mut other.engine);
    let twin = other.delegate(Autonomy::Auto);
    assert_eq!(twin, run);
    other.propose(&twin, &[rename(), rename()]);
    other.give_marks();
    let foreign = other
        .engine
        .run(&twin)
        .and_then(|run| run.actor())
        .expect("in flight there too");
    assert_ne!(foreign, in_flight);
    assert!(sim.engine.actors().admit(Some(&foreign)).is_err());

    // Once the call has finished, its reference admits nothing more.
    sim.apply();
    assert!(sim.engine.actors().admit(Some(&in_flight)).is_err());

    // Nor after the run has returned.
    sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
    sim.drain();
    let error = sim.engine.actors().admit(Some(&in_flight)).unwrap_err();
    assert!(error.to_string().starts_with("AG-1:"), "{error}");
}

// ----- AG-2 -------------------------------------------------------------------

#[test]
fn ag_2_every_run_carries_its_initiative() {
    let mut sim = Sim::new();
    for initiative in [Initiative::User, Initiative::System, Initiative::Scheduled] {
        let run = sim.delegate_with(Delegation::new("x", initiative, Autonomy::Review));
        assert_eq!(sim.engine.run(&run).unwrap().initiative(), initiative);
        let created = &sim.engine.run(&run).unwrap().run().journal()[0];
        assert!(matches!(
            created.entry,
            JournalEntry::Created { initiative: recorded, .. } if recorded == initiative
        ));
    }
    // A request without an initiative is refused, never assumed to be the person's.
    let missing = Delegation::from_json(json!({"intent": "x", "autonomy": "review"}));
    assert_eq!(missing, Err(DelegateError::MissingInitiative));
}

// ----- AG-3 -------------------------------------------------------------------

#[test]
fn ag_3_single_auto_authorized_call_is_a_valid_run() {
    let mut sim = Sim::new();
    let run = sim.delegate_with(
        Delegation::new("rename task 3", Initiative::User, Autonomy::Auto).with_plan(vec![
            PlannedCall {
                capability: rename(),
                arguments: json!({"id": "3"}),
            },
        ]),
    );
    assert_eq!(sim.apply_all(), 1, "the one call is applied");
    assert_eq!(
        sim.state(&run),
        returned(Outcome::Completed, ReturnReason::PlanCompleted)
    );
    assert_eq!(
        sim.transitions(&run),
        vec![
            StateName::Offered,
            StateName::Planned,
            StateName::Authorized,
            StateName::Acting,
            StateName::Returned
        ]
    );
    // The same machine, no second system: no turn, one charged call.
    assert_eq!(sim.open_turns(&run), 0);
    let usage = sim.engine.run(&run).unwrap().usage();
    assert_eq!((usage.turns, usage.calls), (0, 1));
    assert_eq!(
        sim.engine.handle(
            sim.now,
            Delegate(Delegation::new("x", Initiative::User, Autonomy::Auto).with_plan(vec![]))
        ),
        Err(DelegateError::EmptyPlan)
    );
}

// ----- AG-4 -------------------------------------------------------------------

#[test]
fn ag_4_control_returns_on_every_path() {
    // Failure of a call.
    let mut sim = Sim::new();
    let failed = sim.delegate(Autonomy::Auto);
    sim.propose(&failed, &[rename()]);
    sim.fail("disk full");
    sim.answer_reverts(|_| Ok(()));
    // Turn deadman.
    let deadman = sim.delegate(Autonomy::Auto);
    // Budget exhaustion nobody resolves.
    let exhausted = sim.delegate_with(
        Delegation::new("x", Initiative::User, Autonomy::Auto).with_budget(Budget {
            max_turns: 1,
            ..config().default_budget
        }),
    );
    sim.propose(&exhausted, &[rename()]);
    sim.apply_all();
    assert!(matches!(sim.state(&exhausted), RunState::Escalated { .. }));
    sim.advance(config().default_budget.turn_deadline_ms);
    assert!(matches!(
        sim.state(&deadman),
        RunState::Returned {
            reason: ReturnReason::TurnDeadman,
            ..
        }
    ));
    // Kill.
    let killed = sim.delegate(Autonomy::Review);
    sim.propose(&killed, &[rename()]);
    sim.engine.handle(sim.now, Kill::ALL);
    sim.drain();
    // Time passes: every run has returned, none is left holding control.
    sim.advance(30_000);
    for run in [&failed, &deadman, &exhausted, &killed] {
        assert!(
            sim.state(run).is_terminal(),
            "{run} still holds control: {:?}",
            sim.state(run)
        );
    }
    assert_eq!(
        sim.engine
            .runs()
            .filter(|run| !run.state().is_terminal())
            .count(),
        0
    );
}

#[test]
fn ag_4_terminal_states_never_reopen() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    let revision = sim.revision(&run);
    sim.engine
        .handle(
            sim.now,
            Reject {
                run: run.clone(),
                revision,
                note: ("not now").into(),
            },
        )
        .unwrap();
    sim.drain();
    let frozen = (sim.state(&run), sim.revision(&run));
    let revision = sim.revision(&run);
    assert!(matches!(
        sim.authorize_at(&run, revision, Authorization::default()),
        Err(CommandError::IllegalTransition {
            state: StateName::Cancelled,
            ..
        })
    ));
    assert!(sim.engine.handle(sim.now, Stop(run.clone())).is_err());
    assert!(sim.engine.handle(sim.now, Pause(run.clone())).is_err());
    assert!(sim
        .engine
        .handle(
            sim.now,
            ResolveEscalation {
                run: run.clone(),
                revision,
                resolution: Resolution::Return
            }
        )
        .is_err());
    sim.engine
        .handle(sim.now, Signal::inbound(&run, TurnId(1), Inbound::TurnEnd));
    sim.engine.handle(sim.now, Kill::ALL);
    sim.advance(1_000_000);
    assert_eq!((sim.state(&run), sim.revision(&run)), frozen);
}

// ----- AG-5 -------------------------------------------------------------------

#[test]
fn ag_5_every_outcome_is_reachable_and_typed() {
    let mut sim = Sim::new();
    let completed = sim.delegate(Autonomy::Auto);
    sim.propose(&completed, &[rename()]);
    sim.apply_all();
    sim.propose(&completed, &[]);

    let partial = sim.delegate(Autonomy::Auto);
    sim.propose(&partial, &[note(), note()]);
    sim.apply();
    sim.fail("quota");

    let rolled_back = sim.delegate(Autonomy::Auto);
    sim.propose(&rolled_back, &[rename(), archive()]);
    sim.apply();
    sim.fail("conflict");
    sim.answer_reverts(|_| Ok(()));

    let aborted = sim.delegate(Autonomy::Auto);
    sim.engine.handle(sim.now, Stop(aborted.clone())).unwrap();

    let error = sim.delegate(Autonomy::Auto);
    let turn = sim.turn(&error);
    sim.engine.handle(
        sim.now,
        Signal::inbound(
            &error,
            turn,
            Inbound::TurnFailed {
                message: "HTTP 500".into(),
            },
        ),
    );
    sim.drain();

    let outcome = |run: &RunId| match sim.state(run) {
        RunState::Returned { outcome, .. } => outcome,
        other => panic!("{run} did not return: {other:?}"),
    };
    assert_eq!(outcome(&completed), Outcome::Completed);
    assert_eq!(outcome(&partial), Outcome::Partial);
    assert_eq!(outcome(&rolled_back), Outcome::RolledBack);
    assert_eq!(outcome(&aborted), Outcome::Aborted);
    assert_eq!(outcome(&error), Outcome::Error);

    // The wire form is typed: outcome and reason are tags, not prose.
    assert_eq!(
        serde_json::to_value(sim.state(&rolled_back)).unwrap(),
        json!({"state": "returned", "outcome": "rolled-back",
               "reason": {"kind": "call-failed",
                          "capability": {"participant": "tasks", "capability": "archive"},
                          "message": "conflict"}})
    );
}

// ----- AG-6 -------------------------------------------------------------------

#[test]
fn ag_6_escalation_is_non_terminal_typed_and_auto_returns() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    let revision = sim.revision(&run);
    sim.authorize_at(
        &run,
        revision,
        Authorization {
            allowlist: Some(vec![rename()]),
            budget: None,
            grant_ms: None,
        },
    )
    .unwrap();
    sim.drain();
    sim.apply_all();
    sim.propose(&run, &[theme()]);
    let state = sim.state(&run);
    assert_eq!(
        state,
        RunState::Escalated {
            reason: EscalationReason::OutOfScope {
                capability: theme()
            }
        }
    );
    assert!(!state.is_terminal());
    // Nobody answers: the escalation still has an exit.
    sim.advance(config().escalation_timeout_ms - 1);
    assert!(matches!(sim.state(&run), RunState::Escalated { .. }));
    sim.advance(1);
    sim.answer_reverts(|_| Ok(()));
    assert_eq!(
        sim.state(&run),
        returned(Outcome::RolledBack, ReturnReason::EscalationTimeout)
    );
}

#[test]
fn ag_6_escalation_resolved_by_the_person_goes_on() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    sim.authorize(&run);
    sim.apply_all();
    sim.propose(&run, &[theme()]);
    sim.resolve(&run, Resolution::Allow { budget: None });
    assert_eq!(sim.state(&run), RunState::Acting);
    let (_, _, capability) = sim.apply();
    assert_eq!(capability, theme());
    assert!(sim
        .engine
        .run(&run)
        .unwrap()
        .allowlist()
        .any(|c| *c == theme()));
}

// ----- AG-7 -------------------------------------------------------------------

#[test]
fn ag_7_call_outside_the_allowlist_escalates_and_never_proceeds() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    sim.authorize(&run);
    sim.apply_all();
    sim.propose(&run, &[archive(), rename()]);
    assert_eq!(
        sim.state(&run),
        RunState::Escalated {
            reason: EscalationReason::OutOfScope {
                capability: archive()
            }
        }
    );
    // Not dispatched, and not silently dropped: it waits at the head of the queue.
    assert_eq!(sim.invoked(&archive()), 0);
    // The person denies it: the acting party hears so, the run stays in scope.
    sim.resolve(&run, Resolution::Deny);
    sim.apply_all();
    assert_eq!(sim.invoked(&archive()), 0);
    assert_eq!(sim.invoked(&rename()), 2);
    let Some(Effect::OpenTurn { request, .. }) = sim
        .effects_of(|e| matches!(e, Effect::OpenTurn { .. }))
        .pop()
    else {
        panic!("a next turn opened");
    };
    let results = request.results;
    assert!(results.iter().any(|report| report.capability == archive()
        && matches!(
            &report.result,
            CallResult::Refused {
                refusal: Refusal::Denied
            }
        )));
}

#[test]
fn ag_7_call_beyond_the_budget_escalates_and_never_proceeds() {
    let (mut sim, run) = Sim::past_its_call_budget();
    assert_eq!(
        sim.state(&run),
        RunState::Escalated {
            reason: EscalationReason::BudgetExhausted {
                limit: BudgetLimit::Calls
            }
        }
    );
    assert_eq!(sim.invoked(&archive()), 0);
    // Raising the budget lets it go on; the same budget is refused.
    let revision = sim.revision(&run);
    assert!(matches!(
        sim.engine.handle(
            sim.now,
            ResolveEscalation {
                run: run.clone(),
                revision,
                resolution: Resolution::Allow { budget: None }
            }
        ),
        Err(CommandError::InvalidBudget(_))
    ));
    sim.resolve(
        &run,
        Resolution::Allow {
            budget: Some(Budget {
                max_calls: 2,
                ..config().default_budget
            }),
        },
    );
    sim.apply_all();
    assert_eq!(sim.invoked(&archive()), 1);
}

// ----- AG-8 -------------------------------------------------------------------

#[test]
fn ag_8_mid_sequence_failure_rolls_back_to_run_start_in_reverse_order() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), theme(), archive()]);
    sim.apply(); // tasks
    sim.apply(); // settings
    sim.fail("server said no"); // tasks again
    let marks: Vec<(ParticipantId, MarkToken)> = sim
        .engine
        .run(&run)
        .unwrap()
        .journal()
        .iter()
        .filter_map(|record| match &record.entry {
            JournalEntry::MarkTaken { participant, token } => {
                Some((participant.clone(), token.clone()))
            }
            _ => None,
        })
        .collect();
    assert!(!sim.state(&run).is_terminal(), "waits for the reverts");
    let order = sim.answer_reverts(|_| Ok(()));
    // Reverse order of first touch; each to the mark it gave when acting began.
    let participants: Vec<&str> = order.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(participants, ["settings", "tasks"]);
    for (participant, token) in &order {
        assert!(marks.contains(&(participant.clone(), token.clone())));
    }
    assert_eq!(
        sim.state(&run),
        returned(
            Outcome::RolledBack,
            ReturnReason::CallFailed {
                capability: archive(),
                message: "server said no".into()
            }
        )
    );
}

#[test]
fn ag_8_capability_accepting_partial_close_keeps_what_was_done() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[note(), note()]);
    sim.apply();
    sim.fail("rate limited");
    assert!(sim.take_reverts().is_empty());
    assert!(matches!(
        sim.state(&run),
        RunState::Returned {
            outcome: Outcome::Partial,
            ..
        }
    ));
}

#[test]
fn ag_8_partial_close_needs_every_capability_that_changed_state_to_accept_it() {
    // The person authorized the plan, not half of it: the failing call
    // accepts a partial close, but the rename before it does not.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), note()]);
    sim.apply();
    sim.fail("rate limited");
    let order = sim.answer_reverts(|_| Ok(()));
    let participants: Vec<&str> = order.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(participants, ["notes", "tasks"]);
    assert!(matches!(
        sim.state(&run),
        RunState::Returned {
            outcome: Outcome::RolledBack,
            ..
        }
    ));
}

#[test]
fn ag_8_a_failed_revert_is_reported_not_hidden() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), theme(), archive()]);
    sim.apply();
    sim.apply();
    sim.fail("boom");
    sim.answer_reverts(|participant| {
        if participant.as_str() == "settings" {
            Err("history was cleared".into())
        } else {
            Ok(())
        }
    });
    let RunState::Returned {
        outcome: Outcome::Error,
        reason:
            ReturnReason::RollbackFailed {
                cause,
                participants,
            },
        ..
    } = sim.state(&run)
    else {
        panic!(
            "expected a reported rollback failure, got {:?}",
            sim.state(&run)
        );
    };
    assert!(matches!(*cause, ReturnReason::CallFailed { .. }));
    assert_eq!(participants, vec![ParticipantId::new("settings")]);
    let journal = sim.engine.run(&run).unwrap().run().journal();
    assert!(journal.iter().any(|r| matches!(&r.entry,
        JournalEntry::Reverted { participant, error: Some(e) } if participant.as_str() == "settings" && e == "history was cleared")));
}

#[test]
fn ag_8_a_revert_that_never_answers_is_reported() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), archive()]);
    sim.apply();
    sim.fail("boom");
    assert_eq!(sim.take_reverts().len(), 1);
    sim.advance(config().revert_timeout_ms);
    assert!(matches!(
        sim.state(&run),
        RunState::Returned {
            outcome: Outcome::Error,
            reason: ReturnReason::RollbackFailed { .. },
            ..
        }
    ));
}

// ----- Context, undo group, and the clamp the machine applies itself -----------

#[test]
fn turn_opens_with_a_context_snapshot_of_versioned_origin_tagged_reads() {
    let mut sim = Sim::new();
    let board = ReadRef::new("tasks", "board");
    let inbox = ReadRef::new("mail", "inbox");
    sim.engine
        .handle(
            sim.now,
            PublishRead {
                stamp: ReadStamp {
                    read: board.clone(),
                    version: 7,
                    origin: Origin::Author,
                },
                actor: None,
            },
        )
        .unwrap();
    let run = sim.delegate(Autonomy::Auto);
    let context = |sim: &Sim| {
        sim.engine
            .run(&run)
            .unwrap()
            .open_turn_context()
            .unwrap()
            .clone()
    };
    let first = context(&sim);
    assert_eq!(first.get(&board).map(|s| s.version), Some(7));
    assert!(!first.has_untrusted_origin());
    sim.propose(&run, &[rename()]);
    sim.give_marks();
    // While the call runs, the board moves on (the call's own write) and a
    // third-party read appears: the open snapshot does not change…
    sim.engine
        .handle(
            sim.now,
            PublishRead {
                stamp: ReadStamp {
                    read: board.clone(),
                    version: 8,
                    origin: Origin::Author,
                },
                actor: None,
            },
        )
        .unwrap();
    sim.engine
        .handle(
            sim.now,
            PublishRead {
                stamp: ReadStamp {
                    read: inbox.clone(),
                    version: 1,
                    origin: Origin::ThirdParty,
                },
                actor: None,
            },
        )
        .unwrap();
    sim.apply();
    // …the next turn opens with both.
    let second = context(&sim);
    assert_eq!(second.get(&board).map(|s| s.version), Some(8));
    assert_eq!(
        second.get(&inbox).map(|s| s.origin),
        Some(Origin::ThirdParty)
    );
    assert!(second.has_untrusted_origin());
    let recorded: Vec<Context> = sim.journal_of(&run, |entry| match entry {
        JournalEntry::TurnReserved { context, .. } => Some(context.clone()),
        _ => None,
    });
    assert_eq!(recorded, vec![first, second]);
}

#[test]
fn a_run_is_one_undo_group() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), theme(), archive()]);
    sim.apply_all();
    sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
    let group = sim.engine.run(&run).unwrap().undo_group();
    let participants: Vec<&str> = group.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(participants, ["settings", "tasks"], "last touched first");
    let marks: Vec<MarkToken> = sim.journal_of(&run, |entry| match entry {
        JournalEntry::MarkTaken { token, .. } => Some(token.clone()),
        _ => None,
    });
    assert!(group.iter().all(|(_, token)| marks.contains(token)));
}

#[test]
fn undo_is_one_journalled_step_only_for_a_returned_run_and_only_once() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), theme()]);
    sim.apply_all();
    assert!(
        matches!(sim.undo(&run), Err(CommandError::NotUndoable { .. })),
        "still active"
    );
    sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
    let group = sim.undo(&run).unwrap();
    assert_eq!(group, sim.engine.run(&run).unwrap().undo_group());
    let undone: Vec<Vec<ParticipantId>> = sim.journal_of(&run, |entry| match entry {
        JournalEntry::Undone { participants, .. } => Some(participants.clone()),
        _ => None,
    });
    let expected: Vec<ParticipantId> = group.iter().map(|(p, _)| p.clone()).collect();
    assert_eq!(
        undone,
        vec![expected],
        "journalled once, attributed to the person"
    );
    assert!(
        matches!(sim.undo(&run), Err(CommandError::NotUndoable { .. })),
        "only once"
    );
    assert!(matches!(
        sim.engine.handle(
            sim.now,
            Undo {
                run: RunId::new("nope"),
                scope: UndoScope::Checked
            }
        ),
        Err(CommandError::UnknownRun(_))
    ));
    // A failure already rolled the run back: nothing is left to undo.
    let failed = sim.delegate(Autonomy::Auto);
    sim.propose(&failed, &[rename()]);
    sim.give_marks();
    sim.fail("the server said no");
    sim.answer_reverts(|_| Ok(()));
    assert!(matches!(
        sim.state(&failed),
        RunState::Returned {
            outcome: Outcome::RolledBack,
            ..
        }
    ));
    assert!(matches!(
        sim.undo(&failed),
        Err(CommandError::NotUndoable { .. })
    ));
}

#[test]
fn ag_26_non_user_initiative_never_runs_at_auto() {
    let mut sim = Sim::new();
    for initiative in [Initiative::System, Initiative::Scheduled] {
        let run = sim.delegate_with(Delegation::new("x", initiative, Autonomy::Auto));
        assert_eq!(sim.engine.run(&run).unwrap().autonomy(), Autonomy::Review);
        sim.propose(&run, &[rename()]);
        assert_eq!(sim.state(&run), RunState::Reviewing);
    }
    let run = sim.delegate_with(Delegation::new("x", Initiative::User, Autonomy::Auto));
    assert_eq!(sim.engine.run(&run).unwrap().autonomy(), Autonomy::Auto);
}

#[test]
fn ag_26_a_run_resuming_a_scheduled_run_is_clamped_as_it_was() {
    let mut sim = Sim::new();
    let first = sim.delegate_with(Delegation::new("x", Initiative::Scheduled, Autonomy::Auto));
    sim.propose(&first, &[rename(), archive()]);
    sim.authorize(&first);
    sim.apply();
    sim.pause(&first);
    let second = sim.resume(&first);
    let resumed = sim.engine.run(&second).unwrap();
    assert_eq!(resumed.initiative(), Initiative::Scheduled);
    assert_eq!(resumed.autonomy(), Autonomy::Review);
    sim.propose(&second, &[rename()]);
    assert_eq!(
        sim.state(&second),
        RunState::Reviewing,
        "AG-26: resuming a scheduled run does not lift it to auto"
    );
}

#[test]
fn a_run_with_reads_in_context_survives_its_snapshot_as_json() {
    // Persistence keeps every live run as JSON: a run that planned on
    // published reads must serialise (map keys that are not strings would
    // not) and come back equal.
    let mut sim = Sim::new();
    sim.publish("tasks", "board", 3, Origin::Author);
    sim.publish("mail", "inbox", 1, Origin::ThirdParty);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    let snapshot = sim.engine.snapshot();
    let text = serde_json::to_string(&snapshot).expect("a snapshot is JSON");
    let back: EngineSnapshot = serde_json::from_str(&text).expect("and reads back");
    // The same live state (the journal is kept beside it, not in it).
    assert_eq!(serde_json::to_string(&back).unwrap(), text);
    let stored = back.runs.iter().find(|r| r.id() == &run).unwrap();
    assert_eq!(stored.state(), sim.engine.run(&run).unwrap().state());
}
