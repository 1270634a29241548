//! Arbitrary input never panics the dialect adapter and never grows its
//! memory beyond the configured bound.

use baton_agui::mapping::Delta;
use baton_agui::{AgUiMapper, AgUiTurn, SseDecoder, SseOutput};
use baton_core::{StreamLimits, TurnVerifier, Verified};
use proptest::prelude::*;
use serde_json::{json, Value};

const MAX_EVENT: usize = 256;

/// `BATON_GENERATED_CASES` when set (the documented long run, the manual,
/// "Generated input"), else the short run.
fn generated_cases(short: u32) -> u32 {
    std::env::var("BATON_GENERATED_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(short)
}

fn sse_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"data: ".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b": comment\n".to_vec()),
        Just(b"event: x\n".to_vec()),
        Just(b"id: 1\n".to_vec()),
        Just("é✓".as_bytes().to_vec()),
        Just(br#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_vec()),
        prop::collection::vec(any::<u8>(), 0..64),
        prop::collection::vec(Just(b'x'), 0..600),
    ];
    prop::collection::vec(piece, 0..30).prop_map(|pieces| pieces.concat())
}

fn agui_event() -> impl Strategy<Value = Value> {
    let kind = prop_oneof![
        Just("RUN_STARTED"),
        Just("RUN_FINISHED"),
        Just("RUN_ERROR"),
        Just("TEXT_MESSAGE_START"),
        Just("TEXT_MESSAGE_CONTENT"),
        Just("TEXT_MESSAGE_END"),
        Just("TEXT_MESSAGE_CHUNK"),
        Just("TOOL_CALL_START"),
        Just("TOOL_CALL_ARGS"),
        Just("TOOL_CALL_END"),
        Just("TOOL_CALL_CHUNK"),
        Just("STATE_SNAPSHOT"),
        Just("STATE_DELTA"),
        Just("STEP_STARTED"),
        Just("STEP_FINISHED"),
        Just("SUBAGENT_STARTED"),
        Just("SUBAGENT_FINISHED"),
        Just("REASONING_START"),
        Just("REASONING_END"),
        Just("CUSTOM"),
        Just("RAW"),
        Just("NONSENSE"),
    ];
    let id = prop_oneof![
        Just(json!("a")),
        Just(json!("b")),
        Just(json!(null)),
        Just(json!(3))
    ];
    (kind, id.clone(), id, any::<bool>()).prop_map(|(kind, first, second, with_outcome)| {
        let mut event = json!({
            "type": kind, "threadId": "t", "runId": "r", "messageId": first, "toolCallId": second,
            "toolCallName": "tasks.rename", "delta": "{\"a\":", "stepName": first, "subagentRunId": second,
            "name": "n", "message": "m", "snapshot": {"a": [1]},
        });
        if kind == "STATE_DELTA" {
            event["delta"] = json!([{"op": "add", "path": "/a/-", "value": 2}, {"op": "remove", "path": "/zz"}]);
        }
        if with_outcome {
            event["outcome"] = json!({"type": "interrupt", "interrupts": [{"id": "i", "reason": "r", "responseSchema": {"type": "object"}}]});
        }
        event
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: generated_cases(3_000), ..ProptestConfig::default() })]

    #[test]
    fn the_sse_decoder_never_panics_and_stays_bounded(bytes in sse_bytes(), cuts in prop::collection::vec(1usize..40, 1..20)) {
        let mut decoder = SseDecoder::new(MAX_EVENT);
        let mut rest = &bytes[..];
        let mut cut = cuts.iter().cycle();
        while !rest.is_empty() {
            let size = (*cut.next().unwrap()).min(rest.len());
            for output in decoder.feed(&rest[..size]) {
                if let SseOutput::Event(event) = output {
                    prop_assert!(event.data.len() <= MAX_EVENT);
                }
            }
            prop_assert!(decoder.buffered() <= MAX_EVENT + 1, "buffered {}", decoder.buffered());
            rest = &rest[size..];
        }
        let _ = decoder.finish();
    }

    #[test]
    fn chunking_never_changes_what_is_decoded(bytes in sse_bytes(), cut in 1usize..50) {
        let mut whole = SseDecoder::new(MAX_EVENT);
        let mut expected = whole.feed(&bytes);
        expected.extend(whole.finish());
        let mut pieces = SseDecoder::new(MAX_EVENT);
        let mut got = Vec::new();
        for chunk in bytes.chunks(cut) {
            got.extend(pieces.feed(chunk));
        }
        got.extend(pieces.finish());
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn the_mapper_never_panics_on_arbitrary_events(events in prop::collection::vec(agui_event(), 0..25)) {
        let mut mapper = AgUiMapper::new();
        for event in &events {
            let _ = mapper.map(event);
        }
        let _ = mapper.finish();
    }

    #[test]
    fn a_turn_never_panics_on_arbitrary_bytes(bytes in sse_bytes()) {
        let mut turn = AgUiTurn::new(MAX_EVENT);
        let mut verifier = TurnVerifier::new(StreamLimits { max_arguments_bytes: 512, max_open: 8, ..StreamLimits::default() });
        let _ = turn.feed(&bytes, &mut verifier);
        let _ = turn.finish(&mut verifier);
        prop_assert!(verifier.is_over());
    }
}

/// The JSON text of an event a long stream is made of, as agents write it
/// and not: a text or tool-call delta with its fields in any order, with an
/// escape, with another field, repeated, with a field of the wrong type —
/// and, between them, the events that open and close what they belong to.
fn streamed_text() -> impl Strategy<Value = String> {
    let id = prop_oneof![Just("a"), Just("b")];
    let delta = prop_oneof![
        Just(r#""x""#),
        Just(r#""\u00e9\n\"""#),
        Just("3"),
        Just("null")
    ];
    let shape = 0usize..10;
    (shape, id, delta).prop_map(|(shape, id, delta)| match shape {
        0 => format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":{delta}}}"#),
        1 => format!(r#"{{"delta":{delta},"messageId":"{id}","type":"TEXT_MESSAGE_CONTENT"}}"#),
        2 => format!(r#"{{"type":"TOOL_CALL_ARGS","toolCallId":"{id}","delta":{delta}}}"#),
        3 => format!(r#"{{"type":"TOOL_CALL_ARGS","toolCallId":"{id}","delta":{delta},"timestamp":1}}"#),
        4 => format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","messageId":"b","delta":{delta}}}"#),
        5 => format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","toolCallId":"{id}","messageId":"{id}","delta":{delta}}}"#),
        6 => format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{id}","role":"assistant"}}"#),
        7 => format!(r#"{{"type":"TOOL_CALL_START","toolCallId":"{id}","toolCallName":"tasks.rename"}}"#),
        8 => format!("\t{{ \"type\" :\"TEXT_MESSAGE_CONTENT\",\r\n\"messageId\":\"{id}\" ,\"delta\":{delta} }}\n"),
        _ => format!(r#"{{"type":"TEXT_MESSAGE_END","messageId":"{id}"}}"#),
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: generated_cases(2_000), ..ProptestConfig::default() })]

    /// A delta read the quick way (no `Value` built) is what the general
    /// way makes of the same text; what the quick way does not take, the
    /// general way reads.
    #[test]
    fn a_delta_read_without_a_value_is_what_the_general_reading_makes(
        texts in prop::collection::vec(streamed_text(), 0..30),
        finished in any::<bool>(),
    ) {
        let mut mapper = AgUiMapper::new();
        let started: Value = json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"});
        mapper.map(&started).unwrap();
        if finished {
            let _ = mapper.map(&json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}));
        }
        for text in &texts {
            let Ok(value) = serde_json::from_str::<Value>(text) else {
                // Not JSON: never read the quick way either.
                prop_assert_eq!(mapper.read_delta(text).map(Delta::into_event), None, "{}", text);
                continue;
            };
            if let Some(quick) = mapper.read_delta(text).map(Delta::into_event) {
                prop_assert_eq!(mapper.clone().map(&value), Ok(vec![quick]), "{}", text);
            }
            let _ = mapper.map(&value);
        }
    }
}

/// A text delta of message `a` or `b`, as agents write them.
fn text_delta() -> impl Strategy<Value = String> {
    (
        prop_oneof![Just("a"), Just("b")],
        prop_oneof![Just("x"), Just(r#"\u00e9\n\""#), Just("")],
    )
        .prop_map(|(id, delta)| {
            format!(r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"{id}","delta":"{delta}"}}"#)
        })
}

/// A stream's events as SSE bytes, one `Vec` per event: a run started, then
/// `texts`, then the run finished.
fn framed(texts: &[String]) -> Vec<Vec<u8>> {
    let started = r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#;
    let finished = r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#;
    std::iter::once(started)
        .chain(texts.iter().map(|text| text.trim()))
        .chain(std::iter::once(finished))
        .map(|data| format!("data: {data}\n\n").into_bytes())
        .collect()
}

/// What a turn yields, with consecutive text deltas of one message joined
/// (what the engine does before anyone sees them), and how many events
/// arrived after its end.
fn verified(reads: &[Vec<u8>], limit: usize) -> (Vec<Verified>, u32) {
    let mut turn = AgUiTurn::new(MAX_EVENT);
    let limits = StreamLimits {
        max_text_bytes: limit,
        ..StreamLimits::default()
    };
    let mut verifier = TurnVerifier::new(limits);
    let fed = reads
        .iter()
        .flat_map(|read| turn.feed(read, &mut verifier))
        .collect::<Vec<_>>();
    let out = Verified::join_texts(fed.into_iter().chain(turn.finish(&mut verifier)).collect());
    (out, turn.events_after_end())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: generated_cases(2_000), ..ProptestConfig::default() })]

    /// Consecutive text deltas of one message in one read go through the
    /// verifier joined: what is accepted, refused (a text limit crossed at
    /// the same delta) and counted after the end is what one delta at a
    /// time makes.
    #[test]
    fn joined_deltas_are_verified_as_one_by_one(
        texts in prop::collection::vec(prop_oneof![6 => text_delta(), 1 => streamed_text()], 0..40),
        limit in 0usize..32,
    ) {
        let opened = ["a", "b"].map(|id| format!(r#"{{"type":"TEXT_MESSAGE_START","messageId":"{id}"}}"#));
        let events = framed(&[opened.to_vec(), texts].concat());
        let one_read = verified(&[events.concat()], limit);
        let one_by_one = verified(&events, limit);
        prop_assert_eq!(one_read, one_by_one);
    }
}

#[test]
fn a_plain_delta_is_read_the_quick_way() {
    let mut mapper = AgUiMapper::new();
    mapper
        .map(&json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}))
        .unwrap();
    mapper
        .map(&json!({"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"}))
        .unwrap();
    let text = r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"caf\u00e9"}"#;
    assert_eq!(
        mapper.read_delta(text).map(Delta::into_event),
        Some(baton_core::WireEvent::MessageDelta {
            message: "m".into(),
            delta: "café".into()
        })
    );
    // Another field: the general way.
    let timed = r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":1}"#;
    assert_eq!(mapper.read_delta(timed), None);
}
