//! The elicitation channel (AG-41, AG-48): questions to the person, typed
//! and schema-validated answers, and what happens around them.

mod common;

use baton_core::*;
use common::*;
use serde_json::{json, Value};

fn column_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"column": {"enum": ["todo", "doing", "done"]}, "by": {"type": "string", "format": "date"}},
        "required": ["column"],
        "additionalProperties": false
    })
}

/// An acting run whose acting party asked a question after one call.
fn asked() -> (Sim, RunId, Question) {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.call(&run, "c1", rename());
    sim.ask(&run, "q-7", Some(column_schema()));
    sim.apply_all();
    let question = sim.last_question();
    (sim, run, question)
}

#[test]
fn ag_41_a_question_is_not_modal_and_can_be_dismissed_or_postponed() {
    let (mut sim, run, question) = asked();
    assert_eq!(
        sim.state(&run),
        RunState::Escalated {
            reason: EscalationReason::AwaitingAnswer {
                question: question.id.clone()
            }
        }
    );
    // Nothing else waits on it: another delegation runs to completion meanwhile.
    let other = sim.delegate(Autonomy::Auto);
    sim.propose(&other, &[theme()]);
    sim.apply_all();
    sim.propose(&other, &[]);
    assert!(matches!(
        sim.state(&other),
        RunState::Returned {
            outcome: Outcome::Completed,
            ..
        }
    ));
    // It can be put off, then dismissed; the run goes on either way.
    sim.engine
        .handle(
            sim.now,
            Postpone {
                question: question.id.clone(),
                until: sim.now + 1_000,
            },
        )
        .unwrap();
    assert!(sim
        .engine
        .questions()
        .get(&question.id)
        .unwrap()
        .state
        .is_open());
    sim.engine
        .handle(sim.now, Dismiss(question.id.clone()))
        .unwrap();
    sim.drain();
    assert_eq!(sim.state(&run), RunState::Acting);
    let TurnRequest { answers, .. } = sim.last_request();
    assert_eq!(
        answers,
        [AnswerReport {
            request: "q-7".into(),
            outcome: AnswerOutcome::Dismissed,
            record: None,
        }]
    );
}

#[test]
fn ag_48_the_question_keeps_its_reserved_shape() {
    let (_, run, question) = asked();
    assert_eq!(question.run, run);
    assert_eq!(
        question.asker,
        Asker::ActingParty {
            request: "q-7".into(),
            approval: None,
        }
    );
    assert_eq!(question.schema, Some(column_schema()));
    assert_eq!(question.prompt, "Which column should the cards go to?");
    assert_eq!(question.state, QuestionState::Open);
}

#[test]
fn elicitation_answer_reaches_the_acting_party_and_commits_with_the_state_change() {
    let (mut sim, run, question) = asked();
    let answer = json!({"column": "done", "by": "2026-12-01"});
    let acceptance = sim.reply(&question, answer.clone()).unwrap();
    // One step: the closing record, the state change and the next turn come
    // out together, with nothing in between.
    let step = sim.drain();
    let closing = step
        .iter()
        .position(|e| matches!(e, Event::Journal(JournalRecord { entry: JournalEntry::QuestionClosed { .. }, revision, .. }) if *revision == acceptance.revision))
        .expect("the answer was recorded");
    let acting = step
        .iter()
        .position(|e| {
            matches!(
                e,
                Event::Journal(JournalRecord {
                    entry: JournalEntry::Transition {
                        to: RunState::Acting,
                        ..
                    },
                    ..
                })
            )
        })
        .expect("the run went back to acting");
    assert!(closing < acting);
    assert_eq!(acceptance.answer_digest, Digest::of_json(&answer));
    let TurnRequest { answers, .. } = sim.last_request();
    assert_eq!(
        answers,
        [AnswerReport {
            request: "q-7".into(),
            outcome: AnswerOutcome::Answered { answer },
            // An ordinary question: no decision about a call to record.
            record: None,
        }]
    );
    assert_eq!(sim.state(&run), RunState::Acting);
    assert!(matches!(
        sim.engine.questions().get(&question.id).unwrap().state,
        QuestionState::Answered { .. }
    ));
}

#[test]
fn elicitation_wrong_digest_fails_closed() {
    let (mut sim, run, question) = asked();
    let before = sim.revision(&run);
    let wrong = Digest::of_bytes(b"another request");
    assert!(matches!(
        sim.engine.handle(
            sim.now,
            Answer {
                question: question.id.clone(),
                digest: wrong,
                answer: json!({"column": "done"})
            }
        ),
        Err(AnswerError::DigestMismatch { .. })
    ));
    assert_eq!(sim.revision(&run), before);
    assert!(sim
        .engine
        .questions()
        .get(&question.id)
        .unwrap()
        .state
        .is_open());
}

#[test]
fn elicitation_wrong_id_fails_closed() {
    let (mut sim, _, question) = asked();
    let error = sim
        .engine
        .handle(
            sim.now,
            Answer {
                question: QuestionId::new("s/q99"),
                digest: question.digest,
                answer: json!({"column": "done"}),
            },
        )
        .unwrap_err();
    assert_eq!(
        error,
        AnswerError::UnknownQuestion(QuestionId::new("s/q99"))
    );
    assert!(error.to_string().starts_with("AG-41:"));
    assert!(sim
        .engine
        .handle(sim.now, Decline(QuestionId::new("nope")))
        .is_err());
}

#[test]
fn elicitation_schema_failure_fails_closed_with_every_error() {
    let (mut sim, run, question) = asked();
    let before = sim.revision(&run);
    let Err(AnswerError::Schema { errors }) = sim.reply(
        &question,
        json!({"column": "later", "by": "tomorrow", "extra": 1}),
    ) else {
        panic!("the answer must fail the schema");
    };
    let mut keywords: Vec<&str> = errors.iter().map(|e| e.keyword.as_str()).collect();
    keywords.sort();
    assert_eq!(keywords, ["additionalProperties", "enum", "format"]);
    assert_eq!(sim.revision(&run), before);
    // A valid answer after a refused one is still accepted.
    assert!(sim.reply(&question, json!({"column": "todo"})).is_ok());
}

#[test]
fn elicitation_expired_question_returns_the_run_and_refuses_late_answers() {
    let (mut sim, run, question) = asked();
    assert_eq!(
        question.deadline_at,
        sim.now + config().escalation_timeout_ms
    );
    sim.advance(config().escalation_timeout_ms);
    sim.answer_reverts(|_| Ok(()));
    assert!(matches!(
        sim.state(&run),
        RunState::Returned {
            reason: ReturnReason::QuestionExpired,
            ..
        }
    ));
    assert!(matches!(
        sim.engine.questions().get(&question.id).unwrap().state,
        QuestionState::Expired { .. }
    ));
    assert_eq!(
        sim.reply(&question, json!({"column": "done"})),
        Err(AnswerError::Expired(question.id.clone()))
    );
}

#[test]
fn elicitation_an_answer_at_the_deadline_finds_it_expired() {
    let (mut sim, run, question) = asked();
    // The answer arrives at the deadline before the host ran its timer.
    let at = question.deadline_at;
    assert_eq!(
        sim.engine.handle(
            at,
            Answer {
                question: question.id.clone(),
                digest: question.digest,
                answer: json!({"column": "done"})
            }
        ),
        Err(AnswerError::Expired(question.id.clone()))
    );
    sim.drain();
    // It expired then and there: the run, which had changed a card, rolls back.
    assert!(matches!(
        sim.engine.questions().get(&question.id).unwrap().state,
        QuestionState::Expired { .. }
    ));
    assert!(sim.engine.run(&run).unwrap().is_rolling_back());
}

#[test]
fn elicitation_duplicate_retry_returns_the_original_acceptance() {
    let (mut sim, run, question) = asked();
    let answer = json!({"column": "doing"});
    let first = sim.reply(&question, answer.clone()).unwrap();
    sim.drain();
    let revision = sim.revision(&run);
    sim.now += 50;
    let retry = sim.reply(&question, answer).unwrap();
    assert_eq!(retry, first);
    assert!(sim.drain().is_empty(), "a retry changes nothing");
    assert_eq!(sim.revision(&run), revision);
}

#[test]
fn elicitation_conflicting_answer_is_refused() {
    let (mut sim, _, question) = asked();
    sim.reply(&question, json!({"column": "doing"})).unwrap();
    assert_eq!(
        sim.reply(&question, json!({"column": "done"})),
        Err(AnswerError::Conflict(question.id.clone()))
    );
    assert!(matches!(
        sim.engine.handle(sim.now, Decline(question.id.clone())),
        Err(AnswerError::Closed {
            state: "answered",
            ..
        })
    ));
}

#[test]
fn elicitation_postpone_hides_it_from_the_badge_until_due_but_not_past_its_deadline() {
    let (mut sim, _, question) = asked();
    assert_eq!(sim.engine.counters(sim.now).action_required, 1);
    let until = sim.now + 5_000;
    sim.engine
        .handle(
            sim.now,
            Postpone {
                question: question.id.clone(),
                until,
            },
        )
        .unwrap();
    assert_eq!(sim.engine.counters(sim.now).action_required, 0);
    assert_eq!(
        sim.engine.counters(until).action_required,
        1,
        "it comes back"
    );
    // Still answerable while postponed.
    assert!(sim.reply(&question, json!({"column": "todo"})).is_ok());
    // Postponing does not move the deadline.
    let (mut sim, run, question) = asked();
    sim.engine
        .handle(
            sim.now,
            Postpone {
                question: question.id.clone(),
                until: u64::MAX,
            },
        )
        .unwrap();
    sim.advance(config().escalation_timeout_ms);
    sim.answer_reverts(|_| Ok(()));
    assert!(sim.state(&run).is_terminal());
}

#[test]
fn elicitation_decline_tells_the_acting_party_and_goes_on() {
    let (mut sim, run, question) = asked();
    sim.engine
        .handle(sim.now, Decline(question.id.clone()))
        .unwrap();
    sim.drain();
    assert_eq!(sim.state(&run), RunState::Acting);
    let TurnRequest { answers, .. } = sim.last_request();
    assert_eq!(answers[0].outcome, AnswerOutcome::Declined);
    assert!(matches!(
        sim.engine.questions().get(&question.id).unwrap().state,
        QuestionState::Declined { .. }
    ));
}

#[test]
fn elicitation_a_question_without_schema_takes_text() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.ask(&run, "name", None);
    let question = sim.last_question();
    assert_eq!(
        sim.state(&run),
        RunState::Offered,
        "a planning question keeps the run offered"
    );
    assert_eq!(
        sim.reply(&question, json!({"name": "x"})),
        Err(AnswerError::NotText)
    );
    sim.reply(&question, json!("Sprint 12")).unwrap();
    sim.drain();
    // The answer travels in the next planning turn.
    assert_eq!(sim.engine.run(&run).unwrap().open_turn(), Some(TurnId(2)));
    let TurnRequest { answers, .. } = sim.last_request();
    assert_eq!(
        answers[0].outcome,
        AnswerOutcome::Answered {
            answer: json!("Sprint 12")
        }
    );
}

#[test]
fn elicitation_an_invalid_schema_is_refused_back_to_the_acting_party() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.ask(
        &run,
        "bad",
        Some(json!({"$ref": "https://example.org/remote.json"})),
    );
    assert_eq!(
        sim.engine.questions().iter().count(),
        0,
        "never put to the person"
    );
    let TurnRequest { answers, turn, .. } = sim.last_request();
    assert_eq!(turn, TurnId(2));
    assert!(
        matches!(&answers[0].outcome, AnswerOutcome::Refused { reason } if reason.contains("self-contained"))
    );
}

fn question(request: &str, expires_at: Option<u64>) -> Inbound {
    Inbound::Question {
        request: request.into(),
        prompt: format!("Question {request}?"),
        schema: None,
        deadline_ms: None,
        expires_at,
        approval: None,
    }
}

#[test]
fn elicitation_several_questions_of_a_turn_are_all_closed_before_the_next_turn() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    let turn = sim.turn(&run);
    for request in ["a", "b", "c"] {
        sim.engine.handle(
            sim.now,
            Signal::inbound(&run, turn, question(request, None)),
        );
    }
    sim.end_turn(&run);
    let turns = |sim: &Sim| {
        sim.effects_of(|e| matches!(e, Effect::OpenTurn { .. }))
            .len()
    };
    assert_eq!(turns(&sim), 1);
    // One at a time, in order; nothing is sent while any is open.
    let first = sim.last_question();
    assert_eq!(first.prompt, "Question a?");
    sim.reply(&first, json!("yes")).unwrap();
    sim.drain();
    let second = sim.last_question();
    assert_eq!(second.prompt, "Question b?");
    assert_eq!(turns(&sim), 1, "not while b and c are open");
    sim.engine
        .handle(sim.now, Decline(second.id.clone()))
        .unwrap();
    sim.drain();
    let third = sim.last_question();
    assert_eq!(third.prompt, "Question c?");
    sim.engine
        .handle(sim.now, Dismiss(third.id.clone()))
        .unwrap();
    sim.drain();
    // The next turn carries one report for every question.
    assert_eq!(turns(&sim), 2);
    let TurnRequest { answers, .. } = sim.last_request();
    let reported: Vec<(&str, &AnswerOutcome)> = answers
        .iter()
        .map(|answer| (answer.request.as_str(), &answer.outcome))
        .collect();
    assert_eq!(
        reported,
        [
            (
                "a",
                &AnswerOutcome::Answered {
                    answer: json!("yes")
                }
            ),
            ("b", &AnswerOutcome::Declined),
            ("c", &AnswerOutcome::Dismissed)
        ]
    );
}

#[test]
fn elicitation_questions_a_turn_may_ask_are_bounded_and_never_repeat_an_id() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    let turn = sim.turn(&run);
    for request in ["a", "a"] {
        sim.engine.handle(
            sim.now,
            Signal::inbound(&run, turn, question(request, None)),
        );
    }
    sim.drain();
    assert!(matches!(
        sim.state(&run),
        RunState::Returned {
            reason: ReturnReason::IntegrityViolation {
                code: ProtocolViolation::DuplicateQuestion,
                ..
            },
            ..
        }
    ));
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    let turn = sim.turn(&run);
    for index in 0..9 {
        sim.engine.handle(
            sim.now,
            Signal::inbound(&run, turn, question(&format!("q{index}"), None)),
        );
    }
    sim.drain();
    assert!(matches!(
        sim.state(&run),
        RunState::Returned {
            reason: ReturnReason::IntegrityViolation {
                code: ProtocolViolation::TooManyQuestions,
                ..
            },
            ..
        }
    ));
}

#[test]
fn elicitation_an_expiry_bounds_the_deadline_and_an_expired_question_is_never_put() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    let turn = sim.turn(&run);
    // One expired before it arrived; one that expires before the engine's own deadline.
    sim.engine.handle(
        sim.now,
        Signal::inbound(&run, turn, question("gone", Some(sim.now))),
    );
    sim.engine.handle(
        sim.now,
        Signal::inbound(&run, turn, question("soon", Some(sim.now + 5_000))),
    );
    sim.end_turn(&run);
    let asked: Vec<String> = sim
        .log
        .iter()
        .filter_map(|event| match event {
            Event::Question(question) => Some(question.prompt.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(asked, ["Question soon?"], "the expired one is never put");
    let open = sim.last_question();
    assert_eq!(
        open.deadline_at,
        sim.now + 5_000,
        "the earlier of the two deadlines"
    );
    assert!(config().escalation_timeout_ms > 5_000);
    let answer = sim.reply(&open, json!("ok"));
    assert!(answer.is_ok());
    sim.drain();
    let TurnRequest { answers, .. } = sim.last_request();
    assert_eq!(answers[0].request, "gone");
    assert_eq!(answers[0].outcome, AnswerOutcome::Expired);
    assert_eq!(answers[1].request, "soon");
}

#[test]
fn elicitation_the_question_closes_when_its_run_ends() {
    let (mut sim, run, question) = asked();
    sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
    sim.drain();
    assert!(matches!(
        sim.engine.questions().get(&question.id).unwrap().state,
        QuestionState::Withdrawn { .. }
    ));
    assert!(matches!(
        sim.reply(&question, json!({"column": "done"})),
        Err(AnswerError::Closed {
            state: "withdrawn",
            ..
        })
    ));
    assert_eq!(sim.engine.counters(sim.now).action_required, 0);
}

#[test]
fn elicitation_reconciliation_is_idempotent() {
    let (mut sim, run, question) = asked();
    let waiting = sim.delegate(Autonomy::Review);
    sim.propose(&waiting, &[rename()]);
    let later = question.deadline_at + 1;
    let snapshot = serde_json::to_string(&sim.engine.snapshot()).unwrap();
    let mut restored =
        Engine::restore(config(), secret(), serde_json::from_str(&snapshot).unwrap());
    declare_all(&mut restored);
    assert_eq!(
        restored.counters(later).overdue,
        1,
        "overdue is derived at read time"
    );
    let first = restored.handle(later, Reconcile);
    assert_eq!(
        first,
        Reconciliation {
            expired: 1,
            interrupted: 1,
            grants_dropped: 0
        }
    );
    assert!(matches!(
        restored.run(&run).unwrap().state(),
        RunState::Returned {
            reason: ReturnReason::QuestionExpired,
            ..
        }
    ));
    assert!(matches!(
        restored.run(&waiting).unwrap().state(),
        RunState::Returned {
            reason: ReturnReason::Interrupted,
            ..
        }
    ));
    let events = std::iter::from_fn(|| restored.poll_event()).count();
    assert!(events > 0);
    assert_eq!(restored.handle(later, Reconcile), Reconciliation::default());
    assert_eq!(
        restored.poll_event(),
        None,
        "the second reconciliation did nothing"
    );
    assert_eq!(restored.counters(later).overdue, 0);
}

#[test]
fn counters_are_content_free_and_track_what_is_pending() {
    let mut sim = Sim::new();
    assert_eq!(sim.engine.counters(sim.now), Counters::default());
    let planning = sim.delegate(Autonomy::Auto);
    let reviewing = sim.delegate(Autonomy::Review);
    sim.propose(&reviewing, &[rename()]);
    let (mut asked_sim, _, _) = asked();
    let counters = sim.engine.counters(sim.now);
    assert_eq!(
        (
            counters.awaiting_agent,
            counters.awaiting_review,
            counters.action_required
        ),
        (1, 1, 0)
    );
    let failing = sim.delegate(Autonomy::Auto);
    let turn = sim.turn(&failing);
    sim.engine.handle(
        sim.now,
        Signal::inbound(
            &failing,
            turn,
            Inbound::TurnFailed {
                message: "500".into(),
            },
        ),
    );
    assert_eq!(sim.engine.counters(sim.now).failed, 1);
    assert_eq!(asked_sim.engine.counters(asked_sim.now).action_required, 1);
    asked_sim.drain();
    let _ = planning;
}
