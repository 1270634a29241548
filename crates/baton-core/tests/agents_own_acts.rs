//! The acting party's own tools and words. Under AG-UI 1.0 a frontend tool
//! is one the client declared; a call to any other name, whose result the
//! acting party reports itself, is its own act: recorded as such, never
//! answered or refused by the engine, never a change in the page. A call to
//! an undeclared name left without a result was meant for the page, and is
//! refused as undeclared — correctably (AG-21).

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

/// The turn request of a new run's first turn.
fn first_request(sim: &mut Sim) -> (RunId, TurnRequest) {
    let run = sim.delegate(Autonomy::Auto);
    let request = sim
        .log
        .iter()
        .rev()
        .find_map(|event| match event {
            Event::Effect(Effect::OpenTurn { request, .. }) => Some((**request).clone()),
            _ => None,
        })
        .expect("a turn opened");
    (run, request)
}

fn call(id: &str, tool: &str, arguments: &str) -> Vec<WireEvent> {
    vec![
        WireEvent::ToolCallStart {
            call: id.into(),
            tool: tool.into(),
            parent_message: None,
            via: Vec::new(),
        },
        WireEvent::ToolCallArgs {
            call: id.into(),
            delta: arguments.into(),
        },
        WireEvent::ToolCallEnd { call: id.into() },
    ]
}

fn verify(verifier: &mut TurnVerifier, events: Vec<WireEvent>) -> Vec<Inbound> {
    let mut out = verifier.push(WireEvent::TurnStarted);
    for event in events {
        out.extend(verifier.push(event));
    }
    out.into_iter()
        .filter_map(|item| match item {
            Verified::Inbound(inbound) => Some(inbound),
            _ => None,
        })
        .collect()
}

/// Hands a verified turn's inbound traffic to the run's open turn, in order.
fn deliver(sim: &mut Sim, run: &RunId, inbound: Vec<Inbound>) {
    let turn = sim.turn(run);
    for item in inbound {
        sim.engine.handle(sim.now, Signal::inbound(run, turn, item));
    }
    sim.drain();
}

#[test]
fn ag_21_a_call_to_an_undeclared_tool_with_its_own_result_is_the_agents_act() {
    let mut sim = Sim::new();
    let (run, request) = first_request(&mut sim);
    let mut verifier = TurnVerifier::for_turn(StreamLimits::default(), &request);
    let mut events = call("w1", "web_search", r#"{"q":"ship dates"}"#);
    events.push(WireEvent::ToolCallResult {
        call: "w1".into(),
        content: json!("three results"),
    });
    events.extend(call("c1", &rename().to_string(), r#"{"id":"c9"}"#));
    events.push(WireEvent::TurnFinished {
        outcome: TurnOutcome::Completed,
    });
    let inbound = verify(&mut verifier, events);
    assert_eq!(
        inbound[0],
        Inbound::AgentAct {
            call: CallId::new("w1"),
            tool: "web_search".into(),
            arguments: json!({"q": "ship dates"}),
            result: json!("three results"),
        }
    );
    assert!(
        matches!(&inbound[1], Inbound::ToolCall { capability, .. } if *capability == rename()),
        "the declared tool is the page's: {inbound:?}"
    );
    assert_eq!(inbound[2], Inbound::TurnEnd);

    // The engine records the act as the acting party's and goes on with
    // the page's call: nothing refused, nothing ended.
    deliver(&mut sim, &run, inbound);
    let journal = sim.engine.run(&run).unwrap().journal().to_vec();
    let act = journal
        .iter()
        .find(|record| matches!(record.entry, JournalEntry::AgentActed { .. }))
        .expect("the act is journalled");
    assert_eq!(act.actor, Actor::ActingParty);
    assert!(!journal
        .iter()
        .any(|record| matches!(record.entry, JournalEntry::CallRefused { .. })));
    assert_eq!(sim.apply_all(), 1, "the page's call runs");
    assert_eq!(
        sim.invoked(&CapabilityRef::new("", "web_search")),
        0,
        "nothing in the page ran the agent's tool"
    );
    assert!(!sim.state(&run).is_terminal());
}

#[test]
fn ag_21_an_undeclared_call_left_without_a_result_is_refused_correctably() {
    let mut sim = Sim::new();
    let (run, request) = first_request(&mut sim);
    let mut verifier = TurnVerifier::for_turn(StreamLimits::default(), &request);
    let mut events = call("t1", "tasks.teleport", "{}");
    events.push(WireEvent::TurnFinished {
        outcome: TurnOutcome::Completed,
    });
    let inbound = verify(&mut verifier, events);
    assert!(
        matches!(&inbound[0], Inbound::ToolCall { capability, .. } if capability.capability == "teleport"),
        "held until the turn ended, then handed to the engine: {inbound:?}"
    );
    assert_eq!(inbound[1], Inbound::TurnEnd);
    deliver(&mut sim, &run, inbound);
    let refused = sim.journal_of(&run, |entry| match entry {
        JournalEntry::CallRefused { refusal, .. } => Some(refusal.clone()),
        _ => None,
    });
    assert_eq!(
        refused,
        vec![Refusal::UndeclaredCapability],
        "refused as undeclared (AG-21)"
    );
}

#[test]
fn a_verifier_that_knows_no_declared_tools_hands_every_call_to_the_page() {
    let mut verifier = TurnVerifier::new(StreamLimits::default());
    let inbound = verify(&mut verifier, call("w1", "web_search", "{}"));
    assert!(matches!(&inbound[0], Inbound::ToolCall { .. }));
}

#[test]
fn the_agents_words_are_in_the_runs_history_as_its_own() {
    let mut sim = Sim::new();
    let (run, request) = first_request(&mut sim);
    let mut verifier = TurnVerifier::for_turn(StreamLimits::default(), &request);
    let start = |id: &str, role: Option<&str>| WireEvent::MessageStart {
        message: id.into(),
        role: role.map(str::to_owned),
    };
    let delta = |id: &str, text: &str| WireEvent::MessageDelta {
        message: id.into(),
        delta: text.into(),
    };
    let end = |id: &str| WireEvent::MessageEnd { message: id.into() };
    let inbound = verify(
        &mut verifier,
        vec![
            start("m1", Some("assistant")),
            delta("m1", "Nothing to "),
            delta("m1", "change."),
            end("m1"),
            start("m2", Some("developer")),
            delta("m2", "not the agent's words to the person"),
            end("m2"),
            WireEvent::TurnFinished {
                outcome: TurnOutcome::Completed,
            },
        ],
    );
    assert_eq!(
        inbound,
        vec![
            Inbound::Said {
                message: "m1".into(),
                text: "Nothing to change.".into()
            },
            Inbound::TurnEnd
        ]
    );
    deliver(&mut sim, &run, inbound);
    let said: Vec<_> = sim
        .engine
        .run(&run)
        .unwrap()
        .journal()
        .iter()
        .filter_map(|record| match &record.entry {
            JournalEntry::Said { text, .. } => Some((record.actor.clone(), text.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        said,
        vec![(Actor::ActingParty, "Nothing to change.".to_owned())]
    );
}

#[test]
fn an_agent_that_answers_with_an_http_error_ends_the_run_typed_with_its_status() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.inbound(
        &run,
        Inbound::AgentError {
            status: 500,
            message: "the agent answered HTTP 500: Tool call not found".into(),
        },
    );
    assert!(matches!(
        sim.state(&run),
        RunState::Returned {
            outcome: Outcome::Error,
            reason: ReturnReason::AgentError { status: 500, .. },
            ..
        }
    ));
}

/// What a run's end settles for the acting party, if anything.
fn settled(sim: &Sim, run: &RunId) -> Vec<CallReport> {
    sim.log
        .iter()
        .filter_map(|event| match event {
            Event::CallsSettled { run: r, results } if r == run => Some(results.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn a_rejected_plan_is_told_to_the_acting_party_with_the_persons_note() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename(), archive()]);
    let revision = sim.revision(&run);
    sim.engine
        .handle(
            sim.now,
            Reject {
                run: run.clone(),
                revision,
                note: ("not those cards").into(),
            },
        )
        .unwrap();
    sim.drain();
    let results = settled(&sim, &run);
    assert_eq!(results.len(), 2, "each call of the plan: {results:?}");
    for report in &results {
        assert_eq!(
            report.result,
            CallResult::Refused {
                refusal: Refusal::NotCarriedOut {
                    reason: "rejected".into(),
                    note: Some("not those cards".into()),
                }
            }
        );
    }
}

#[test]
fn a_stop_tells_the_acting_party_the_results_it_had_not_heard_and_what_never_ran() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), archive()]);
    sim.give_marks();
    sim.apply();
    sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
    sim.drain();
    let results = settled(&sim, &run);
    let kinds: Vec<_> = results
        .iter()
        .map(|report| match &report.result {
            CallResult::Applied { .. } => "applied".to_owned(),
            CallResult::Refused { refusal } => refusal.code().to_owned(),
            CallResult::Failed { .. } => "failed".to_owned(),
        })
        .collect();
    assert!(kinds.contains(&"applied".to_owned()), "{kinds:?}");
}

#[test]
fn a_fixed_plan_has_no_one_to_tell() {
    let mut sim = Sim::new();
    let plan = vec![PlannedCall {
        capability: rename(),
        arguments: json!({"id": "c1"}),
    }];
    let run = sim.delegate_with(
        Delegation::new("rename", Initiative::User, Autonomy::Review).with_plan(plan),
    );
    let revision = sim.revision(&run);
    sim.engine
        .handle(
            sim.now,
            Reject {
                run: run.clone(),
                revision,
                note: "no".into(),
            },
        )
        .unwrap();
    sim.drain();
    assert!(settled(&sim, &run).is_empty());
}

/// An AG-UI interrupt about one of the acting party's own calls: the call
/// is put to the person as it was streamed, bound into the question's
/// digest, answered with AG-UI's `{approved, editedArgs}` — never refused as
/// undeclared, never carried out in the page.
#[test]
fn an_approval_of_the_agents_own_call_puts_that_call_to_the_person() {
    let mut sim = Sim::new();
    let (run, request) = first_request(&mut sim);
    let mut verifier = TurnVerifier::for_turn(StreamLimits::default(), &request);
    let mut events = call("e1", "send_email", r#"{"to":"ops@example.com"}"#);
    events.push(WireEvent::Elicitation {
        request: "int-e1".into(),
        prompt: "Send it?".into(),
        schema: None,
        expires_at: None,
        call: Some("e1".into()),
    });
    events.push(WireEvent::TurnFinished {
        outcome: TurnOutcome::Interrupted,
    });
    let inbound = verify(&mut verifier, events);
    assert!(
        !inbound
            .iter()
            .any(|item| matches!(item, Inbound::ToolCall { .. })),
        "the call is the question's: {inbound:?}"
    );
    deliver(&mut sim, &run, inbound);
    let question = sim.last_question();
    let Asker::ActingParty {
        approval: Some(approval),
        ..
    } = &question.asker
    else {
        panic!("an approval: {:?}", question.asker);
    };
    assert_eq!(approval.tool, "send_email");
    assert_eq!(approval.arguments, json!({"to": "ops@example.com"}));
    assert!(sim
        .journal_of(&run, |entry| match entry {
            JournalEntry::CallRefused { .. } => Some(()),
            _ => None,
        })
        .is_empty());
    // AG-UI's answer: a boolean `approved`, nothing else will do.
    assert!(sim.reply(&question, json!({"approved": "yes"})).is_err());
    sim.reply(
        &question,
        json!({"approved": true, "editedArgs": {"to": "dev@example.com"}}),
    )
    .unwrap();
    sim.drain();
    let resume = sim
        .effects_of(|effect| matches!(effect, Effect::OpenTurn { run: r, .. } if *r == run))
        .into_iter()
        .filter_map(|effect| match effect {
            Effect::OpenTurn { request, .. } => Some(request.answers.clone()),
            _ => None,
        })
        .next_back()
        .unwrap();
    assert_eq!(resume.len(), 1);
    assert_eq!(resume[0].request, "int-e1");
    assert_eq!(
        resume[0].outcome,
        AnswerOutcome::Answered {
            answer: json!({"approved": true, "editedArgs": {"to": "dev@example.com"}})
        }
    );
    // The decision, bound to what the person was shown, as the text a
    // transport signs: the question's digest, the call and the words as
    // shown, the decision and its time.
    let record: serde_json::Value =
        serde_json::from_str(resume[0].record.as_deref().expect("a decision record")).unwrap();
    assert_eq!(
        record,
        json!({
            "record": "baton.approval/1",
            "question": question.id,
            "interruptId": "int-e1",
            "shown": question.digest,
            "call": {"call": "e1", "tool": "send_email", "arguments": {"to": "ops@example.com"}},
            "prompt": "Send it?",
            "decision": {"kind": "answered", "answer": {"approved": true, "editedArgs": {"to": "dev@example.com"}}},
            "decidedAt": sim.now,
        })
    );
}

/// A run whose acting party asks the person to approve its own call
/// `send_email` to `to`, and the question put.
fn asked_to_approve(to: &str) -> (Sim, Question) {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.inbound(
        &run,
        Inbound::Question {
            request: "int-e1".into(),
            prompt: "Send it?".into(),
            schema: None,
            deadline_ms: None,
            expires_at: None,
            approval: Some(AgentCall {
                call: CallId::new("e1"),
                tool: "send_email".into(),
                arguments: json!({ "to": to }),
            }),
        },
    );
    sim.end_turn(&run);
    let question = sim.last_question();
    (sim, question)
}

/// A rejection is a decision too, recorded like an approval; a declined
/// approval is recorded as declined.
#[test]
fn every_decision_about_the_agents_own_call_is_recorded_and_only_those() {
    let decided = |decide: &dyn Fn(&mut Sim, &Question)| {
        let (mut sim, question) = asked_to_approve("ops@example.com");
        decide(&mut sim, &question);
        sim.drain();
        let report = sim.last_request().answers.pop().unwrap();
        let record: serde_json::Value =
            serde_json::from_str(report.record.as_deref().unwrap()).unwrap();
        record["decision"].clone()
    };
    let rejected = decided(&|sim, question| {
        sim.reply(question, json!({"approved": false, "reason": "not today"}))
            .unwrap();
    });
    assert_eq!(
        rejected,
        json!({"kind": "answered", "answer": {"approved": false, "reason": "not today"}})
    );
    let declined = decided(&|sim, question| {
        sim.engine
            .handle(sim.now, Decline(question.id.clone()))
            .unwrap()
    });
    assert_eq!(declined, json!({"kind": "declined"}));
}

#[test]
fn the_call_shown_for_approval_is_bound_into_the_questions_digest() {
    let digest = |to: &str| asked_to_approve(to).1.digest;
    assert_ne!(digest("ops@example.com"), digest("all@example.com"));
}

#[test]
fn a_run_a_reload_cut_off_keeps_what_its_agent_has_not_heard_for_the_run_that_picks_it_up() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), archive()]);
    sim.give_marks();
    sim.apply();
    // The page goes away with the first result unheard and the second call
    // queued; the next engine cuts the run off.
    sim.engine.handle(sim.now, Reconcile);
    sim.drain();
    assert!(sim.state(&run).is_terminal());
    assert!(
        settled(&sim, &run).is_empty(),
        "nothing settled as not carried out: a chained run may carry it on"
    );
}
