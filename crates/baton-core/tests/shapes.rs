//! A sample of every serialised shape a host sees — journal records, events,
//! effects, states and every reason — produced by real scenarios where a
//! scenario reaches it and built by hand for the rest of the reasons. The
//! package's contract type test checks `pkg/baton.d.ts` (its data types
//! generated into `pkg/data.d.ts` by `tests/typescript.rs`) against these, both
//! ways: every sample is assignable to its declared type, and every declared
//! variant has a sample. With `BATON_SHAPES_OUT` set, the samples are written
//! there as JSON (`cargo xtask test` does, before the type test).
//!
//! The `*_kind` functions match exhaustively, so a new variant does not
//! compile until it is named here — and then fails `coverage` until a
//! sample of it exists.

mod common;

use baton_core::*;
use common::*;
use serde_json::{json, Value};

fn journal_kind(entry: &JournalEntry) -> &'static str {
    match entry {
        JournalEntry::Created { .. } => "created",
        JournalEntry::Transition { .. } => "transition",
        JournalEntry::TurnReserved { .. } => "turn-reserved",
        JournalEntry::TurnEnded { .. } => "turn-ended",
        JournalEntry::Authorized { .. } => "authorized",
        JournalEntry::Reauthorized { .. } => "reauthorized",
        JournalEntry::ReadsPulled { .. } => "reads-pulled",
        JournalEntry::ReviewSuperseded { .. } => "review-superseded",
        JournalEntry::MarkRequested { .. } => "mark-requested",
        JournalEntry::MarkTaken { .. } => "mark-taken",
        JournalEntry::CallDispatched { .. } => "call-dispatched",
        JournalEntry::CallFinished { .. } => "call-finished",
        JournalEntry::CallRefused { .. } => "call-refused",
        JournalEntry::PreviewRendered { .. } => "preview-rendered",
        JournalEntry::QuestionAsked { .. } => "question-asked",
        JournalEntry::QuestionPostponed { .. } => "question-postponed",
        JournalEntry::QuestionClosed { .. } => "question-closed",
        JournalEntry::RollbackStarted { .. } => "rollback-started",
        JournalEntry::Reverted { .. } => "reverted",
        JournalEntry::EscalationReceipt { .. } => "escalation-receipt",
        JournalEntry::Undone { .. } => "undone",
        JournalEntry::UndoHeld { .. } => "undo-held",
        JournalEntry::OfferedAgain { .. } => "offered-again",
        JournalEntry::OfferSettled { .. } => "offer-settled",
        JournalEntry::CallEdited { .. } => "call-edited",
        JournalEntry::Said { .. } => "said",
        JournalEntry::AgentActed { .. } => "agent-acted",
    }
}

fn event_kind(event: &Event) -> &'static str {
    match event {
        Event::Journal(_) => "journal",
        Event::Effect(_) => "effect",
        Event::Finding(_) => "finding",
        Event::Question(_) => "question",
        Event::PresenceMissing { .. } => "presence-missing",
        Event::EscalationReceipt { .. } => "escalation-receipt",
        Event::Announcement(_) => "announcement",
        Event::Undone { .. } => "undone",
        Event::CallsSettled { .. } => "calls-settled",
    }
}

fn effect_kind(effect: &Effect) -> &'static str {
    match effect {
        Effect::OpenTurn { .. } => "open-turn",
        Effect::CancelTurn { .. } => "cancel-turn",
        Effect::Mark { .. } => "mark",
        Effect::Invoke { .. } => "invoke",
        Effect::Preview { .. } => "preview",
        Effect::Revert { .. } => "revert",
    }
}

/// Events of scenarios that together reach every journal entry, event and
/// effect a host can see.
fn scenario_events() -> Vec<Event> {
    let mut log = Vec::new();

    // A plan acted on, a refusal, a stray, undone afterwards.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), CapabilityRef::new("tasks", "teleport")]);
    sim.apply_all();
    sim.engine.handle(
        sim.now,
        Signal::AfterTurn {
            run: run.clone(),
            turn: TurnId(1),
        },
    );
    sim.propose(&run, &[]);
    sim.undo(&run).unwrap();
    sim.drain();
    sim.answer_reverts(|_| Ok(()));
    log.extend(sim.log);

    // An undo held back by the person's edit since, then forced.
    let mut sim = Sim::new();
    sim.publish("tasks", "board", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.apply_all();
    sim.propose(&run, &[]);
    sim.publish("tasks", "board", 2, Origin::Author);
    assert!(sim.undo(&run).is_err());
    sim.engine
        .handle(
            sim.now,
            Undo {
                run: run.clone(),
                scope: UndoScope::Force,
            },
        )
        .unwrap();
    sim.drain();
    sim.answer_reverts(|_| Ok(()));
    log.extend(sim.log);

    // A plan under review cut off by a reload: offered again, and reviewed
    // again in a chained run.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    sim.engine.handle(sim.now, Reconcile);
    sim.engine
        .handle(sim.now, ReviewCutOff(run.clone()))
        .unwrap();
    sim.drain();
    log.extend(sim.log);

    // A planned call edited by the person, authorized, applied: the acting
    // party hears the edited arguments with the result.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    let revision = sim.revision(&run);
    sim.engine
        .handle(
            sim.now,
            EditCall {
                run: run.clone(),
                revision,
                call: CallId::new("c1-1"),
                arguments: json!({"id": "c9"}),
            },
        )
        .unwrap();
    sim.drain();
    sim.authorize(&run);
    sim.give_marks();
    sim.apply();
    log.extend(sim.log);

    // A question, postponed, answered; then a stop while a turn is open.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.ask(&run, "ask-1", None);
    let question = sim.last_question();
    sim.engine
        .handle(
            sim.now,
            Postpone {
                question: question.id.clone(),
                until: sim.now + 1_000,
            },
        )
        .unwrap();
    sim.reply(&question, json!("Done")).unwrap();
    sim.drain();
    sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
    sim.drain();
    log.extend(sim.log);

    // A failure rolled back.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), archive()]);
    sim.apply();
    sim.fail("the server said no");
    sim.answer_reverts(|_| Ok(()));
    log.extend(sim.log);

    // A budget exhausted and left unresolved: the one escalation receipt.
    let (mut sim, _) = Sim::past_its_call_budget();
    sim.now += config().escalation_timeout_ms;
    sim.engine.handle(sim.now, Signal::Timeout);
    sim.drain();
    log.extend(sim.log);

    // Reviewed with a preview; the reads drift and the same change is re-approved.
    let mut config = config();
    config.ceiling = Autonomy::Auto;
    let mut sim = Sim::with_config(config.clone());
    sim.engine = Engine::new(config, secret());
    let mut previewing = tasks_manifest();
    previewing["preview"] = json!(true);
    sim.mount(previewing, None);
    sim.mount(settings_manifest(), None);
    sim.publish("settings", "form", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename(), rename()]);
    for call in ["c1-1", "c1-2"] {
        sim.engine
            .handle(
                sim.now,
                Report::Preview {
                    run: run.clone(),
                    call: CallId::new(call),
                    change: Ok(json!({"card": call})),
                },
            )
            .unwrap();
    }
    sim.authorize(&run);
    sim.give_marks();
    sim.publish("settings", "form", 2, Origin::Author);
    sim.apply();
    sim.engine
        .handle(
            sim.now,
            Report::Preview {
                run: run.clone(),
                call: CallId::new("c1-2"),
                change: Ok(json!({"card": "c1-2"})),
            },
        )
        .unwrap();
    sim.drain();
    log.extend(sim.log);

    // The deep reads a turn carried; the person edits the board the plan
    // under review was planned on, which supersedes it.
    let mut sim = Sim::new();
    sim.engine = Engine::new(common::config(), secret());
    sim.mount(board_manifest(), None);
    sim.publish("tasks", "board", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Review);
    let turn = sim.engine.run(&run).unwrap().open_turn().unwrap();
    let board = ReadStamp {
        read: ReadRef::new("tasks", "board"),
        version: 1,
        origin: Origin::Author,
    };
    sim.engine.handle(
        sim.now,
        PullReads {
            run: run.clone(),
            turn,
            candidates: vec![ReadCandidate {
                stamp: board,
                attention: Attention::Focus,
                content: Ok((json!({"cards": []}), 12)),
            }],
        },
    );
    sim.propose(&run, &[rename()]);
    sim.publish("tasks", "board", 2, Origin::Author);
    sim.drain();
    log.extend(sim.log);

    // A plan the person rejected: the acting party hears of each call.
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
                note: ("not that card").into(),
            },
        )
        .unwrap();
    sim.drain();
    log.extend(sim.log);

    // The acting party's words, and a tool of its own.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.inbound(
        &run,
        Inbound::Said {
            message: "m1".into(),
            text: "Looking first.".into(),
        },
    );
    sim.inbound(
        &run,
        Inbound::AgentAct {
            call: CallId::new("w1"),
            tool: "web_search".into(),
            arguments: json!({"q": "x"}),
            result: json!("found"),
        },
    );
    log.extend(sim.log);

    // A kill: one announcement for all.
    let mut sim = Sim::new();
    sim.delegate(Autonomy::Auto);
    sim.engine.handle(sim.now, Kill::ALL);
    sim.drain();
    log.extend(sim.log);
    log
}

fn return_reasons() -> Vec<ReturnReason> {
    let tasks = CapabilityRef::new("tasks", "rename");
    let board = ParticipantId::new("tasks");
    vec![
        ReturnReason::Finished,
        ReturnReason::PlanCompleted,
        ReturnReason::UserInterrupt,
        ReturnReason::Kill,
        ReturnReason::Paused,
        ReturnReason::Interrupted,
        ReturnReason::EscalationReturned,
        ReturnReason::ReviewRejected { note: "no".into() },
        ReturnReason::EscalationTimeout,
        ReturnReason::QuestionExpired,
        ReturnReason::PresenceMissing,
        ReturnReason::BudgetExhausted {
            limit: BudgetLimit::Calls,
        },
        ReturnReason::TurnDeadman,
        ReturnReason::RunDeadline,
        ReturnReason::TurnFailed {
            message: "overloaded".into(),
        },
        ReturnReason::AgentError {
            status: 500,
            message: "the agent answered HTTP 500".into(),
        },
        ReturnReason::TransportLost {
            message: "reset".into(),
        },
        ReturnReason::IntegrityViolation {
            code: ProtocolViolation::DuplicateCall,
            finding: "duplicate call id".into(),
        },
        ReturnReason::TurnOverLimit {
            lane: TurnLane::Text,
            limit: 1 << 20,
        },
        ReturnReason::PlanRefused {
            call: CallId::new("p1"),
            capability: tasks.clone(),
            refusal: "invalid-arguments".into(),
        },
        ReturnReason::CallFailed {
            capability: tasks,
            message: "no".into(),
        },
        ReturnReason::MarkFailed {
            participant: board.clone(),
            message: "no".into(),
        },
        ReturnReason::RollbackFailed {
            cause: Box::new(ReturnReason::TurnDeadman),
            participants: vec![board],
        },
    ]
}

fn escalation_reasons() -> Vec<EscalationReason> {
    vec![
        EscalationReason::OutOfScope {
            capability: rename(),
        },
        EscalationReason::BudgetExhausted {
            limit: BudgetLimit::Turns,
        },
        EscalationReason::ReviewRequired {
            call: CallId::new("c1"),
            capability: rename(),
        },
        EscalationReason::Drift {
            reads: vec![ReadRef::new("tasks", "board")],
        },
        EscalationReason::AuthorizationExpired,
        EscalationReason::AwaitingAnswer {
            question: QuestionId::new("s/q1"),
        },
    ]
}

/// Every run state, every reason inside one.
fn run_states() -> Vec<RunState> {
    let mut states = vec![
        RunState::Offered,
        RunState::Planned,
        RunState::Reviewing,
        RunState::Authorized,
        RunState::Acting,
        RunState::Cancelled {
            reason: CancelReason::Rejected { note: "no".into() },
        },
        RunState::Cancelled {
            reason: CancelReason::NoPlan,
        },
    ];
    states.extend(
        escalation_reasons()
            .into_iter()
            .map(|reason| RunState::Escalated { reason }),
    );
    let outcomes = [
        Outcome::Completed,
        Outcome::Partial,
        Outcome::RolledBack,
        Outcome::Aborted,
        Outcome::Error,
    ];
    states.extend(
        return_reasons()
            .into_iter()
            .zip(outcomes.iter().cycle())
            .map(|(reason, outcome)| RunState::Returned {
                outcome: *outcome,
                reason,
                refused: 0,
            }),
    );
    states
}

fn refusals() -> Vec<Refusal> {
    vec![
        Refusal::UndeclaredCapability,
        Refusal::InvalidArguments {
            errors: vec![
                ArgumentError::NotAnObject,
                ArgumentError::TooLarge {
                    argument: "title".into(),
                    limit: 200,
                    size: 5_002,
                },
                ArgumentError::Schema(ValidationIssue {
                    instance_path: "/title".into(),
                    keyword: "maxLength".into(),
                    message: "\"x\" is longer than 0 characters".into(),
                }),
            ],
        },
        Refusal::Stale {
            read: ReadRef::new("tasks", "board"),
            planned: Some(1),
            current: None,
        },
        Refusal::Denied,
        Refusal::Declined {
            message: "no".into(),
        },
        Refusal::NotCarriedOut {
            reason: "rejected".into(),
            note: Some("not that card".into()),
        },
        Refusal::RegistrationRefused {
            problems: vec![ManifestProblem {
                path: "$.description".into(),
                requirement: Some("AG-14".into()),
                message: "a placeholder".into(),
            }],
        },
    ]
}

fn answer_outcomes() -> Vec<AnswerOutcome> {
    vec![
        AnswerOutcome::Answered {
            answer: json!({"title": "x"}),
        },
        AnswerOutcome::Declined,
        AnswerOutcome::Dismissed,
        AnswerOutcome::Refused {
            reason: "the schema was refused".into(),
        },
        AnswerOutcome::Expired,
    ]
}

/// Every code a violation may carry; the match makes a new one name itself here.
fn protocol_violations() -> Vec<ProtocolViolation> {
    use ProtocolViolation::*;
    let all = vec![
        NotJson,
        Framing,
        NotAnEvent,
        UnknownEventType,
        OutOfOrder,
        AlreadyOpen,
        NotOpen,
        LeftOpen,
        TooManyOpen,
        OverLimit,
        WrongDirection,
        WrongThread,
        DuplicateCall,
        DuplicateQuestion,
        TooManyQuestions,
        IllegalTransition,
        Unclassified,
    ];
    for code in &all {
        match code {
            NotJson | Framing | NotAnEvent | UnknownEventType | OutOfOrder | AlreadyOpen
            | NotOpen | LeftOpen | TooManyOpen | OverLimit | WrongDirection | WrongThread
            | DuplicateCall | DuplicateQuestion | TooManyQuestions | IllegalTransition
            | Unclassified => {}
        }
    }
    all
}

fn finding_reasons() -> Vec<FindingReason> {
    vec![
        FindingReason::UnknownRun,
        FindingReason::OutsideOpenTurn,
        FindingReason::AfterTurnEnded,
        FindingReason::Integrity {
            code: ProtocolViolation::NotJson,
            detail: "x".into(),
        },
        FindingReason::ReportRefused {
            code: ReportRefusal::RunEnded,
            detail: "run s/r1 has ended; the report was ignored".into(),
        },
        FindingReason::UnreadableResult {
            call: CallId::new("c1"),
            detail: "a BigInt".into(),
        },
    ]
}

/// Pages of the history: a run stopped and two still going, whole and
/// with a next page.
fn runs_pages() -> Vec<RunsPage> {
    let mut sim = Sim::new();
    let stopped = sim.delegate(Autonomy::Review);
    sim.engine.handle(sim.now, Stop(stopped.clone())).unwrap();
    sim.advance(1);
    sim.delegate(Autonomy::Review);
    sim.advance(1);
    sim.delegate(Autonomy::Review);
    let listings = sim
        .engine
        .runs()
        .map(|run| run.listing("s"))
        .collect::<Vec<_>>();
    [1, 3]
        .map(|limit| {
            let query = RunsQuery {
                limit,
                ..RunsQuery::default()
            };
            page_of_runs(listings.clone(), &query).unwrap()
        })
        .into()
}

fn samples() -> Value {
    let events = scenario_events();
    let journal: Vec<&JournalRecord> = events
        .iter()
        .filter_map(|event| match event {
            Event::Journal(record) => Some(record),
            _ => None,
        })
        .collect();
    json!({
        "journal": journal,
        "events": events,
        "runStates": run_states(),
        "returnReasons": return_reasons(),
        "escalationReasons": escalation_reasons(),
        "refusals": refusals(),
        "answerOutcomes": answer_outcomes(),
        "findingReasons": finding_reasons(),
        "runsPages": runs_pages(),
        "protocolViolations": protocol_violations(),
        "reportRefusals": [
            ReportRefusal::UnknownRun,
            ReportRefusal::RunEnded,
            ReportRefusal::NoSuchCall,
            ReportRefusal::NotWaitingFor,
        ],
    })
}

/// `value` reads back as itself from the JSON it writes.
fn reads_back<T>(value: &T)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let stored = serde_json::to_value(value).unwrap();
    assert_eq!(
        &serde_json::from_value::<T>(stored.clone()).unwrap(),
        value,
        "{stored}"
    );
}

/// The shapes a run or a question stores are read back by hand (not by
/// serde's derive): every sample above reads back exactly as it was written.
#[test]
fn every_stored_sample_reads_back_as_written() {
    for state in run_states() {
        reads_back(&state);
    }
    for refusal in refusals() {
        reads_back(&CallResult::Refused { refusal });
    }
    for outcome in answer_outcomes() {
        reads_back(&outcome);
    }
    let records: Vec<JournalRecord> = scenario_events()
        .into_iter()
        .filter_map(|event| match event {
            Event::Journal(record) => Some(record),
            _ => None,
        })
        .collect();
    assert!(!records.is_empty());
    for record in &records {
        reads_back(&record.actor);
        reads_back(record);
    }
}

#[test]
fn coverage_every_journal_entry_event_and_effect_has_a_sample() {
    let events = scenario_events();
    let mut seen = std::collections::BTreeSet::new();
    for event in &events {
        seen.insert(format!("event:{}", event_kind(event)));
        match event {
            Event::Journal(record) => {
                seen.insert(format!("journal:{}", journal_kind(&record.entry)));
            }
            Event::Effect(effect) => {
                seen.insert(format!("effect:{}", effect_kind(effect)));
            }
            _ => {}
        }
    }
    // Built from the exhaustive matches above, so nothing can be left out.
    let expected: Vec<String> = [("journal", 27), ("event", 9), ("effect", 6)]
        .iter()
        .map(|(kind, count)| {
            let found = seen
                .iter()
                .filter(|s| s.starts_with(&format!("{kind}:")))
                .count();
            assert_eq!(
                found, *count,
                "every {kind} variant has a sample; seen: {seen:?}"
            );
            kind.to_string()
        })
        .collect();
    assert_eq!(expected.len(), 3);
    if let Ok(path) = std::env::var("BATON_SHAPES_OUT") {
        let text = serde_json::to_string_pretty(&samples()).unwrap();
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
}
