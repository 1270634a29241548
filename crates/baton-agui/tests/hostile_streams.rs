//! What a broken or hostile AG-UI stream cannot do: grow the page's memory
//! past the turn's limits, leave what the turn refused in the thread's
//! transcript, or lose its first event to a byte-order mark.

mod common;

use common::sse;

use baton_agui::{AgUiTurn, DEFAULT_MAX_EVENT_BYTES};
use baton_core::*;
use serde_json::{json, Value};

fn started() -> Value {
    json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"})
}

/// A turn under `limits` fed `events` as one response: the turn, its
/// verifier, and what the verifier yielded.
fn fed(limits: StreamLimits, events: &[Value]) -> (AgUiTurn, TurnVerifier, Vec<Verified>) {
    let mut turn = AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES);
    let mut verifier = TurnVerifier::new(limits);
    let out = turn.feed(&sse(events), &mut verifier);
    (turn, verifier, out)
}

fn violation(out: &[Verified]) -> Option<(ProtocolViolation, String)> {
    out.iter().find_map(|item| match item {
        Verified::Inbound(Inbound::Malformed { code, detail }) => Some((*code, detail.clone())),
        _ => None,
    })
}

/// The patches that grow a state exponentially in the number of their
/// operations: the whole document copied into itself, and two members
/// copied into each other by turns (neither inside its own source).
fn growing_patches(ops: usize) -> [Value; 2] {
    let into_itself = (0..ops)
        .map(|i| json!({"op": "copy", "from": "", "path": format!("/n{i}")}))
        .collect();
    let by_turns = (0..ops)
        .map(|i| {
            let (from, to) = if i % 2 == 0 { ("a", "b") } else { ("b", "a") };
            json!({"op": "copy", "from": format!("/{from}"), "path": format!("/{to}/x{i}")})
        })
        .collect();
    [Value::Array(into_itself), Value::Array(by_turns)]
}

#[test]
fn a_state_delta_that_would_outgrow_the_state_limit_ends_the_turn_and_is_not_applied() {
    let limits = StreamLimits {
        max_state_bytes: 16 * 1024,
        ..StreamLimits::default()
    };
    for patch in growing_patches(14) {
        let patch_bytes = patch.to_string().len();
        assert!(
            patch_bytes < limits.max_state_bytes / 4,
            "the patch itself is small"
        );
        let snapshot = json!({"a": {"s": "x".repeat(40)}, "b": {"s": "y".repeat(40)}});
        let (turn, _, out) = fed(
            limits,
            &[
                started(),
                json!({"type": "STATE_SNAPSHOT", "snapshot": snapshot}),
                json!({"type": "STATE_DELTA", "delta": patch}),
            ],
        );
        let (code, detail) = violation(&out).expect("the turn broke");
        assert_eq!(code, ProtocolViolation::OverLimit, "{detail}");
        assert!(detail.contains("16384"), "{detail}");
        assert_eq!(turn.state(), &snapshot, "the delta was not applied");
    }
}

#[test]
fn state_deltas_that_stay_within_the_limit_apply_however_many_there_are() {
    let limits = StreamLimits {
        max_state_bytes: 1 << 20,
        ..StreamLimits::default()
    };
    let mut events = vec![
        started(),
        json!({"type": "STATE_SNAPSHOT", "snapshot": {"log": []}}),
    ];
    // Each delta adds a line and removes it again: the state stays small.
    for i in 0..200 {
        events.push(json!({"type": "STATE_DELTA", "delta": [
            {"op": "add", "path": "/log/-", "value": "z".repeat(2000)},
            {"op": "replace", "path": "/log/0", "value": format!("line {i}")},
            {"op": "remove", "path": "/log/0"},
        ]}));
    }
    let (turn, _, out) = fed(limits, &events);
    assert_eq!(violation(&out), None);
    assert_eq!(turn.state(), &json!({"log": []}));
}

#[test]
fn a_tool_call_whose_arguments_the_turn_refused_is_not_in_the_transcript() {
    let limits = StreamLimits {
        max_arguments_bytes: 16,
        ..StreamLimits::default()
    };
    let (turn, _, out) = fed(
        limits,
        &[
            started(),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "On it."}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "m"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "web_search", "parentMessageId": "m"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"q\":"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "\"far more than sixteen bytes\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        ],
    );
    assert!(
        violation(&out).is_some()
            || out
                .iter()
                .any(|item| matches!(item, Verified::Inbound(Inbound::OverLimit { .. }))),
        "{out:?}"
    );
    // What the agent said before stays; the call it never finished does not.
    assert_eq!(
        turn.messages(),
        [json!({"id": "m", "role": "assistant", "content": "On it."})]
    );
}

#[test]
fn text_the_turn_refused_is_not_in_the_transcript() {
    let limits = StreamLimits {
        max_text_bytes: 10,
        ..StreamLimits::default()
    };
    let (turn, verifier, _) = fed(
        limits,
        &[
            started(),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Fine."}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "web_search", "parentMessageId": "m"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "web_search", "parentMessageId": "m"}),
        ],
    );
    assert!(
        verifier.violation().is_some(),
        "a call started twice breaks the turn"
    );
    let messages = turn.messages();
    let calls: Vec<&Value> = messages
        .iter()
        .filter_map(|message| message.get("toolCalls")?.as_array())
        .flatten()
        .collect();
    assert!(
        calls.is_empty(),
        "neither start of the call is kept: {messages:?}"
    );
    let (turn, verifier, _) = fed(
        limits,
        &[
            started(),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "Far more than ten bytes."}),
        ],
    );
    assert!(verifier.violation().is_some());
    assert_eq!(
        turn.messages(),
        Vec::<Value>::new(),
        "the refused text is not kept"
    );
}

#[test]
fn a_leading_byte_order_mark_is_not_part_of_the_first_field() {
    let mut bytes = "\u{FEFF}".as_bytes().to_vec();
    bytes.extend(sse(&[
        started(),
        json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
    ]));
    // Whole, and split inside the mark itself.
    for split in [0, 1, 2, 3, 5] {
        let mut turn = AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES);
        let mut verifier = TurnVerifier::new(StreamLimits::default());
        let mut out = turn.feed(&bytes[..split], &mut verifier);
        out.extend(turn.feed(&bytes[split..], &mut verifier));
        out.extend(turn.finish(&mut verifier));
        assert_eq!(violation(&out), None, "split at {split}: {out:?}");
        assert!(
            out.iter()
                .any(|item| matches!(item, Verified::Inbound(Inbound::TurnEnd))),
            "split at {split}: {out:?}"
        );
    }
    // Only one mark, and only at the start: a second is the field's own.
    let mut decoder = baton_agui::SseDecoder::new(1024);
    let events = decoder.feed("\u{FEFF}\u{FEFF}data: x\n\n".as_bytes());
    assert!(events.is_empty(), "{events:?}");
    let mut decoder = baton_agui::SseDecoder::new(1024);
    let events = decoder.feed(b"\xEF\xBBdata: x\n\n");
    assert!(
        !events
            .iter()
            .any(|out| matches!(out, baton_agui::SseOutput::Event(_))),
        "half a mark is no mark: {events:?}"
    );
}
