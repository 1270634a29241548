//! Tool names on the AG-UI wire follow the rule of the major model APIs
//! (`^[a-zA-Z0-9_-]{1,64}$`): Baton's `participant.capability` becomes
//! `participant__capability` in `RunAgentInput.tools` and comes back from
//! `toolCallName` the same way.

mod common;

use common::{next_turn_request, sse};

use baton_agui::{AgUiTurn, Thread, DEFAULT_MAX_EVENT_BYTES};
use baton_core::*;
use serde_json::json;

fn request() -> TurnRequest {
    let mut engine = Engine::new(EngineConfig::new("s"), ActorSecret::new([3; 32]));
    let manifest = json!({
        "id": "task-board", "label": "Tasks", "tier": "reversible-acts", "history": "native",
        "description": "The team's task board: cards in columns.",
        "capabilities": [{
            "name": "rename_card", "description": "Give one card a new title.",
            "arguments": {"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": false},
            "argumentLimits": {"id": 64},
            "effects": [{"name": "retitle", "reversible": true}]
        }]
    });
    engine
        .handle(
            0,
            RegisterText {
                text: manifest.to_string(),
                instance: None,
            },
        )
        .expect("a valid manifest");
    engine
        .handle(
            0,
            Delegate(Delegation::new("x", Initiative::User, Autonomy::Review)),
        )
        .unwrap();
    next_turn_request(&mut engine)
}

#[test]
fn tools_are_named_as_model_apis_accept() {
    let input = Thread::default().input("s", &request());
    let tools = input["tools"].as_array().unwrap();
    assert_eq!(tools[0]["name"], "task-board__rename_card");
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        assert!(
            !name.is_empty()
                && name.len() <= 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{name}"
        );
    }
}

#[test]
fn a_tool_call_by_its_wire_name_reaches_the_capability() {
    let mut turn = AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES);
    let mut verifier = TurnVerifier::new(StreamLimits::default());
    let verified = turn.feed(&sse(&[
        json!({"type": "RUN_STARTED", "threadId": "s", "runId": "r"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "task-board__rename_card"}),
        json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"id\": \"a\"}"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        json!({"type": "RUN_FINISHED", "threadId": "s", "runId": "r"}),
    ]), &mut verifier);
    let call = verified
        .iter()
        .find_map(|item| match item {
            Verified::Inbound(Inbound::ToolCall { capability, .. }) => Some(capability.clone()),
            _ => None,
        })
        .expect("the call arrived");
    assert_eq!(call, CapabilityRef::new("task-board", "rename_card"));
    // The next turn's history repeats the call under the name the agent used.
    let messages = turn.messages();
    assert_eq!(
        messages[0]["toolCalls"][0]["function"]["name"],
        "task-board__rename_card"
    );
}

#[test]
fn events_after_the_turn_ended_are_counted_and_never_delivered() {
    let mut turn = AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES);
    let mut verifier = TurnVerifier::new(StreamLimits::default());
    let verified = turn.feed(&sse(&[
        json!({"type": "RUN_STARTED", "threadId": "s", "runId": "r"}),
        json!({"type": "RUN_FINISHED", "threadId": "s", "runId": "r"}),
        json!({"type": "TOOL_CALL_START", "toolCallId": "c9", "toolCallName": "task-board__rename_card"}),
        json!({"type": "TOOL_CALL_END", "toolCallId": "c9"}),
    ]), &mut verifier);
    assert!(verified
        .iter()
        .all(|item| !matches!(item, Verified::Inbound(Inbound::ToolCall { .. }))));
    assert_eq!(turn.events_after_end(), 2);
}

#[test]
fn a_call_the_person_edited_tells_the_agent_its_edited_args_with_the_result() {
    let mut request = request();
    request.results = vec![
        CallReport {
            call: CallId::new("c1"),
            capability: CapabilityRef::new("task-board", "rename_card"),
            result: CallResult::Applied {
                value: json!({"ok": true}),
            },
            edited: Some(json!({"id": "b"})),
        },
        CallReport {
            call: CallId::new("c2"),
            capability: CapabilityRef::new("task-board", "rename_card"),
            result: CallResult::Applied {
                value: json!({"ok": true}),
            },
            edited: None,
        },
    ];
    let input = Thread::new().input("s", &request);
    let tool = |id: &str| {
        input["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|message| message["toolCallId"] == id)
            .cloned()
            .unwrap()
    };
    let edited: serde_json::Value =
        serde_json::from_str(tool("c1")["content"].as_str().unwrap()).unwrap();
    // AG-UI's approve-with-edits shape: a full replacement of the args.
    assert_eq!(
        edited,
        json!({"result": {"ok": true}, "editedArgs": {"id": "b"}})
    );
    assert_eq!(tool("c2")["content"], json!("{\"ok\":true}"), "as before");
}
