//! A thread's transcript: the conversation the agent sees is the one that
//! happened — every delegation's intent, the agent's messages under its own
//! ids with their tool calls, and a `tool` message answering every call —
//! and every request on the thread carries all of it.

mod common;

use common::{next_turn_request, sse};

use baton_agui::{AgUiTurn, Thread, ThreadScope, DEFAULT_MAX_EVENT_BYTES};
use baton_core::*;
use serde_json::{json, Value};

/// The first turn request of a new delegation of `intent` on `engine`.
fn delegate(engine: &mut Engine, intent: &str) -> TurnRequest {
    engine
        .handle(
            0,
            Delegate(Delegation::new(intent, Initiative::User, Autonomy::Auto)),
        )
        .unwrap();
    next_turn_request(engine)
}

fn engine() -> Engine {
    let mut engine = Engine::new(EngineConfig::new("session-1"), ActorSecret::new([3; 32]));
    engine
        .handle(
            0,
            RegisterText {
                text: (include_str!("../../../tests/fixtures/task-board.json")).into(),
                instance: None,
            },
        )
        .expect("the shared fixture");
    engine
}

/// One turn of the agent: a sentence, then a call under the same message.
fn agent_turn(request: &TurnRequest, call: &str) -> Vec<Value> {
    let thread = ThreadScope::Session.thread_of(request);
    let mut turn = AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES).for_thread(thread.as_str());
    let mut verifier = TurnVerifier::for_turn(StreamLimits::default(), request);
    let tool = request.tools[0].name.replace('.', "__");
    turn.feed(
        &sse(&[
            json!({"type": "RUN_STARTED", "threadId": thread, "runId": "r"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "msg-a", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-a", "delta": "On it."}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "msg-a"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": tool, "parentMessageId": "msg-a"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": "{\"id\":\"7\",\"title\":\"x\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": call}),
            json!({"type": "RUN_FINISHED", "threadId": thread, "runId": "r"}),
        ]),
        &mut verifier,
    );
    turn.messages()
}

fn roles(input: &Value) -> Vec<String> {
    input["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| message["role"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_assistant_message_is_the_agents_own_with_its_call_under_its_parent_id() {
    let mut engine = engine();
    let request = delegate(&mut engine, "Rename card 7");
    let messages = agent_turn(&request, "call-1");
    assert_eq!(messages.len(), 1, "one message: the text and its call");
    assert_eq!(messages[0]["id"], "msg-a", "the agent's id, not Baton's");
    assert_eq!(messages[0]["content"], "On it.");
    assert_eq!(messages[0]["toolCalls"][0]["id"], "call-1");
    assert_eq!(
        messages[0]["toolCalls"][0]["function"]["arguments"],
        "{\"id\":\"7\",\"title\":\"x\"}"
    );
}

#[test]
fn every_delegation_on_a_thread_sends_the_whole_transcript() {
    let mut engine = engine();
    let first = delegate(&mut engine, "Rename card 7");
    let mut thread = Thread::new();
    let session = ThreadScope::Session.thread_of(&first);
    let input = thread.input(&session, &first);
    assert_eq!(roles(&input), ["user"]);
    thread.record(&first.run, agent_turn(&first, "call-1"));
    // The follow-up carries the result after the call it answers.
    let mut follow_up = first.clone();
    follow_up.turn = TurnId(2);
    follow_up.results = vec![CallReport {
        call: CallId::new("call-1"),
        capability: CapabilityRef::new("tasks", "rename"),
        result: CallResult::Applied {
            value: json!({"ok": true}),
        },
        edited: None,
    }];
    let input = thread.input(&session, &follow_up);
    assert_eq!(roles(&input), ["user", "assistant", "tool"]);
    assert_eq!(input["messages"][2]["toolCallId"], "call-1");
    assert_eq!(input["threadId"], "session-1");

    // A second delegation on the same thread: the first is all there, and
    // the agent may use the same call id again.
    let second = delegate(&mut engine, "Rename card 8");
    let input = thread.input(&session, &second);
    assert_eq!(roles(&input), ["user", "assistant", "tool", "user"]);
    assert_eq!(input["messages"][3]["content"], "Rename card 8");
    thread.record(&second.run, agent_turn(&second, "call-1"));
    let mut follow_up = second.clone();
    follow_up.turn = TurnId(2);
    follow_up.results = vec![CallReport {
        call: CallId::new("call-1"),
        capability: CapabilityRef::new("tasks", "rename"),
        result: CallResult::Applied {
            value: json!({"ok": 2}),
        },
        edited: None,
    }];
    let input = thread.input(&session, &follow_up);
    assert_eq!(
        roles(&input),
        ["user", "assistant", "tool", "user", "assistant", "tool"],
        "the reused id is answered in its own delegation"
    );
    assert_eq!(input["messages"][5]["content"], "{\"ok\":2}");
}

#[test]
fn a_call_never_carried_out_is_answered_with_an_error_before_the_next_delegation() {
    let mut engine = engine();
    let first = delegate(&mut engine, "Rename card 7");
    let mut thread = Thread::new();
    let session = ThreadScope::Session.thread_of(&first);
    thread.input(&session, &first);
    // The person rejected the plan: no follow-up of that run ever comes.
    thread.record(&first.run, agent_turn(&first, "call-1"));
    let second = delegate(&mut engine, "Something else");
    let input = thread.input(&session, &second);
    assert_eq!(roles(&input), ["user", "assistant", "tool", "user"]);
    let closed = &input["messages"][2];
    assert_eq!(closed["toolCallId"], "call-1");
    assert_eq!(closed["error"], "not carried out");
}

#[test]
fn the_agents_own_tool_and_its_result_stay_in_the_transcript() {
    let mut engine = engine();
    let request = delegate(&mut engine, "Find the ship date");
    let mut turn = AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES).for_thread("session-1");
    let mut verifier = TurnVerifier::for_turn(StreamLimits::default(), &request);
    let verified = turn.feed(
        &sse(&[
            json!({"type": "RUN_STARTED", "threadId": "session-1", "runId": "r"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "w1", "toolCallName": "web_search", "parentMessageId": "msg-w"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "w1", "delta": "{\"q\":\"ship\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "w1"}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "res-w1", "toolCallId": "w1", "content": "May 4", "role": "tool"}),
            json!({"type": "RUN_FINISHED", "threadId": "session-1", "runId": "r"}),
        ]),
        &mut verifier,
    );
    assert!(verified.iter().any(|item| matches!(
        item,
        Verified::Inbound(Inbound::AgentAct { tool, .. }) if tool == "web_search"
    )));
    assert!(!verified
        .iter()
        .any(|item| matches!(item, Verified::Inbound(Inbound::ToolCall { .. }))));
    let mut thread = Thread::new();
    thread.input("session-1", &request);
    thread.record(&request.run, turn.messages());
    let mut next = request.clone();
    next.turn = TurnId(2);
    let input = thread.input("session-1", &next);
    assert_eq!(roles(&input), ["user", "assistant", "tool"]);
    assert_eq!(input["messages"][1]["id"], "msg-w");
    assert_eq!(input["messages"][2]["id"], "res-w1");
    assert_eq!(input["messages"][2]["content"], "May 4");
    assert!(
        input["messages"][2].get("error").is_none(),
        "answered by the agent itself, never closed as not carried out"
    );
}

#[test]
fn an_agents_result_for_a_page_tool_never_stands_in_for_the_pages_own() {
    let mut engine = engine();
    let request = delegate(&mut engine, "Rename card 7");
    let thread = ThreadScope::Session.thread_of(&request);
    let mut turn = AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES).for_thread(thread.as_str());
    let mut verifier = TurnVerifier::for_turn(StreamLimits::default(), &request);
    let tool = request.tools[0].name.replace('.', "__");
    let verified = turn.feed(
        &sse(&[
            json!({"type": "RUN_STARTED", "threadId": thread, "runId": "r"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "call-1", "toolCallName": tool, "parentMessageId": "msg-a"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "call-1", "delta": "{\"id\":\"7\",\"title\":\"x\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "call-1"}),
            // The agent claims the page's call went through before the page ran it.
            json!({"type": "TOOL_CALL_RESULT", "messageId": "fake", "toolCallId": "call-1", "content": "renamed", "role": "tool"}),
            json!({"type": "RUN_FINISHED", "threadId": thread, "runId": "r"}),
        ]),
        &mut verifier,
    );
    assert!(verified
        .iter()
        .any(|item| matches!(item, Verified::Inbound(Inbound::ToolCall { .. }))));
    let mut transcript = Thread::new();
    transcript.input(&thread, &request);
    transcript.record(&request.run, turn.messages());
    let mut follow_up = request.clone();
    follow_up.turn = TurnId(2);
    follow_up.results = vec![CallReport {
        call: CallId::new("call-1"),
        capability: CapabilityRef::new("tasks", "rename"),
        result: CallResult::Refused {
            refusal: Refusal::Denied,
        },
        edited: None,
    }];
    let input = transcript.input(&thread, &follow_up);
    assert_eq!(roles(&input), ["user", "assistant", "tool"]);
    let answer = &input["messages"][2];
    assert_eq!(answer["toolCallId"], "call-1");
    assert_ne!(answer["id"], "fake", "{answer}");
    assert_ne!(
        answer["content"], "renamed",
        "the page's refusal is what the agent hears: {answer}"
    );
}

#[test]
fn a_thread_per_run_is_named_by_the_run() {
    let mut engine = engine();
    let request = delegate(&mut engine, "Rename card 7");
    assert_eq!(
        ThreadScope::Run.thread_of(&request),
        request.run.to_string()
    );
    assert_eq!(ThreadScope::Session.thread_of(&request), "session-1");
}

#[test]
fn a_rejected_plan_is_answered_with_the_persons_note() {
    let mut engine = engine();
    let first = delegate(&mut engine, "Rename card 7");
    let mut thread = Thread::new();
    thread.input("session-1", &first);
    thread.record(&first.run, agent_turn(&first, "call-1"));
    thread.settle(
        &first.run,
        &[CallReport {
            call: CallId::new("call-1"),
            capability: CapabilityRef::new("tasks", "rename"),
            result: CallResult::Refused {
                refusal: Refusal::NotCarriedOut {
                    reason: "rejected".into(),
                    note: Some("not that card".into()),
                },
            },
            edited: None,
        }],
    );
    let second = delegate(&mut engine, "Something else");
    let input = thread.input("session-1", &second);
    assert_eq!(roles(&input), ["user", "assistant", "tool", "user"]);
    let answered = &input["messages"][2];
    assert_eq!(answered["toolCallId"], "call-1");
    assert_eq!(
        answered["error"],
        "not carried out (rejected): not that card"
    );
}

/// A server that keeps the thread's history (LangGraph's checkpointer) says
/// what it holds with `MESSAGES_SNAPSHOT`, under its own ids: the transcript
/// becomes exactly that, so the next request sends nothing twice.
#[test]
fn the_agents_messages_snapshot_becomes_the_transcript() {
    let mut engine = engine();
    let request = delegate(&mut engine, "Find the ship date");
    let tool = request.tools[0].name.replace('.', "__");
    let mut turn = AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES).for_thread("session-1");
    let mut verifier = TurnVerifier::for_turn(StreamLimits::default(), &request);
    let intent = json!({"id": format!("{}/intent", request.run), "role": "user", "content": "Find the ship date"});
    let held = vec![
        intent.clone(),
        json!({"id": "lc_run--1", "role": "assistant", "toolCalls": [{"id": "w1", "type": "function", "function": {"name": "web_search", "arguments": "{}"}}]}),
        json!({"id": "0b6e-uuid", "role": "tool", "toolCallId": "w1", "content": "May 4"}),
        json!({"id": "lc_run--2", "role": "assistant", "toolCalls": [{"id": "c1", "type": "function", "function": {"name": tool, "arguments": "{\"id\":\"7\",\"title\":\"x\"}"}}]}),
    ];
    turn.feed(
        &sse(&[
            json!({"type": "RUN_STARTED", "threadId": "session-1", "runId": "r"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "w1", "toolCallName": "web_search", "parentMessageId": "lc_run--1"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "w1"}),
            // The result under the call's id, not the id the server keeps.
            json!({"type": "TOOL_CALL_RESULT", "messageId": "w1", "toolCallId": "w1", "content": "May 4"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": tool, "parentMessageId": "lc_run--2"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"id\":\"7\",\"title\":\"x\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            json!({"type": "MESSAGES_SNAPSHOT", "messages": held}),
            json!({"type": "RUN_FINISHED", "threadId": "session-1", "runId": "r"}),
        ]),
        &mut verifier,
    );
    let mut thread = Thread::new();
    thread.input("session-1", &request);
    thread.adopt(&request.run, turn.snapshot().expect("the snapshot"));
    thread.record(&request.run, turn.messages());
    assert_eq!(
        thread.messages(),
        held.as_slice(),
        "exactly what the agent holds"
    );
    let mut next = request.clone();
    next.turn = TurnId(2);
    next.results = vec![CallReport {
        call: CallId::new("c1"),
        capability: CapabilityRef::new("tasks", "rename"),
        result: CallResult::Applied {
            value: json!({"ok": true}),
        },
        edited: None,
    }];
    let input = thread.input("session-1", &next);
    assert_eq!(
        roles(&input),
        ["user", "assistant", "tool", "assistant", "tool"]
    );
    assert_eq!(
        input["messages"][2]["id"], "0b6e-uuid",
        "the agent's own id for its result"
    );
    assert_eq!(input["messages"][4]["toolCallId"], "c1");
}

/// A resumed run (a chained run with a new id) carries the results its
/// predecessor's agent had not heard: they answer the calls that run made,
/// once each, before the new delegation's intent closes anything.
#[test]
fn a_resumed_runs_carried_results_answer_the_calls_of_the_run_it_resumes() {
    let mut engine = engine();
    let first = delegate(&mut engine, "Rename card 7");
    let mut thread = Thread::new();
    thread.input("session-1", &first);
    thread.record(&first.run, agent_turn(&first, "call-1"));
    let mut resumed = delegate(&mut engine, "Rename card 7");
    resumed.results = vec![CallReport {
        call: CallId::new("call-1"),
        capability: CapabilityRef::new("tasks", "rename"),
        result: CallResult::Applied {
            value: json!({"ok": true}),
        },
        edited: None,
    }];
    let input = thread.input("session-1", &resumed);
    assert_eq!(roles(&input), ["user", "assistant", "tool", "user"]);
    let answered = &input["messages"][2];
    assert_eq!(answered["toolCallId"], "call-1");
    assert_eq!(
        answered["content"], "{\"ok\":true}",
        "the real result, not `not carried out`"
    );
    assert!(answered.get("error").is_none());
}

/// The person's decision about one of the agent's own calls goes out with
/// its record in the resume entry's `metadata.approval` (which the page's
/// transport signs); an ordinary answer has none.
#[test]
fn a_decision_about_the_agents_own_call_carries_its_record_in_the_resume() {
    let mut engine = engine();
    let mut request = delegate(&mut engine, "Tell ops");
    let record = r#"{"record":"baton.approval/1","interruptId":"int-1"}"#;
    request.answers = vec![
        AnswerReport {
            request: "int-1".into(),
            outcome: AnswerOutcome::Answered {
                answer: json!({"approved": false, "reason": "not today"}),
            },
            record: Some(record.into()),
        },
        AnswerReport {
            request: "int-2".into(),
            outcome: AnswerOutcome::Declined,
            record: None,
        },
    ];
    let input = Thread::new().input("session-1", &request);
    let resume = input["resume"].as_array().unwrap();
    assert_eq!(resume[0]["status"], "resolved");
    assert_eq!(resume[0]["payload"]["approved"], false);
    assert_eq!(resume[0]["metadata"]["approval"]["record"], record);
    assert_eq!(resume[1]["status"], "cancelled");
    assert_eq!(
        resume[1]["metadata"],
        json!({"baton": {"kind": "declined"}})
    );
}

/// A run whose delegation named a thread continues that conversation,
/// whatever the transport's default scope; one that named none takes the
/// scope's.
#[test]
fn a_named_thread_is_the_runs_thread_id_whatever_the_scope() {
    let mut engine = engine();
    let mut request = delegate(&mut engine, "Tidy");
    assert_eq!(ThreadScope::Session.thread_of(&request), "session-1");
    assert_eq!(
        ThreadScope::Run.thread_of(&request),
        request.run.to_string()
    );
    request.thread = Some("support-42".into());
    for scope in [ThreadScope::Session, ThreadScope::Run] {
        assert_eq!(scope.thread_of(&request), "support-42");
    }
    let input = Thread::new().input(&ThreadScope::Run.thread_of(&request), &request);
    assert_eq!(input["threadId"], "support-42");
}
