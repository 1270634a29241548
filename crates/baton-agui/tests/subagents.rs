//! Subagents on the AG-UI wire: `SUBAGENT_STARTED` names one (and its
//! parent, for nesting), and `subagentRunId` on a tool call says it was made
//! through it. The call reaches the engine with its chain, outermost first.

mod common;

use common::sse;

use baton_agui::{AgUiTurn, DEFAULT_MAX_EVENT_BYTES};
use baton_core::*;
use serde_json::{json, Value};

fn calls(events: &[Value]) -> Vec<(String, Vec<String>)> {
    let mut turn = AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES);
    let mut verifier = TurnVerifier::new(StreamLimits::default());
    let mut out = turn.feed(&sse(events), &mut verifier);
    out.extend(turn.finish(&mut verifier));
    out.into_iter()
        .filter_map(|item| match item {
            Verified::Inbound(Inbound::ToolCall { call, via, .. }) => Some((call.to_string(), via)),
            _ => None,
        })
        .collect()
}

fn call(id: &str, subagent: Option<&str>) -> Vec<Value> {
    let mut start =
        json!({"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": "tasks__rename"});
    let mut args = json!({"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": "{}"});
    let mut end = json!({"type": "TOOL_CALL_END", "toolCallId": id});
    if let Some(subagent) = subagent {
        for event in [&mut start, &mut args, &mut end] {
            event["subagentRunId"] = json!(subagent);
        }
    }
    vec![start, args, end]
}

#[test]
fn ag_32_a_call_inside_a_subagent_carries_the_chain_outermost_first() {
    let mut events = vec![
        json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
        json!({"type": "SUBAGENT_STARTED", "subagentRunId": "sa-1", "name": "researcher"}),
        json!({"type": "SUBAGENT_STARTED", "subagentRunId": "sa-2", "name": "scribe", "parentSubagentRunId": "sa-1"}),
    ];
    events.extend(call("c1", Some("sa-1")));
    events.extend(call("c2", Some("sa-2")));
    events.push(json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "sa-2"}));
    events.push(json!({"type": "SUBAGENT_FINISHED", "subagentRunId": "sa-1"}));
    events.extend(call("c3", None));
    events.push(json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}));
    assert_eq!(
        calls(&events),
        [
            ("c1".to_owned(), vec!["researcher".to_owned()]),
            (
                "c2".to_owned(),
                vec!["researcher".to_owned(), "scribe".to_owned()]
            ),
            ("c3".to_owned(), vec![]),
        ]
    );
}
