//! The wire protocol `baton/1` (contract §7, AG-45 … AG-49) and its stream
//! verifier.

mod common;

use baton_core::*;
use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};

fn events(list: Value) -> Vec<WireEvent> {
    serde_json::from_value(list).expect("baton/1 events")
}

fn verify(list: Value) -> Vec<Verified> {
    let mut verifier = TurnVerifier::new(StreamLimits::default());
    let mut out = Vec::new();
    for event in events(list) {
        out.extend(verifier.push(event));
    }
    out.extend(verifier.close());
    out
}

fn inbound(out: &[Verified]) -> Vec<Inbound> {
    out.iter()
        .filter_map(|v| match v {
            Verified::Inbound(i) => Some(i.clone()),
            _ => None,
        })
        .collect()
}

/// The violation a stream was refused for: its code and its detail.
fn malformed(out: &[Verified]) -> Option<(ProtocolViolation, String)> {
    inbound(out).into_iter().find_map(|i| match i {
        Inbound::Malformed { code, detail } => Some((code, detail)),
        _ => None,
    })
}

#[test]
fn ag_45_a_transport_declares_its_version_and_a_mismatch_is_refused() {
    assert_eq!(check_version(Some("baton/1")), Ok(()));
    let error = check_version(Some("baton/2")).unwrap_err();
    assert_eq!(
        error,
        ProtocolError::VersionMismatch {
            declared: "baton/2".into()
        }
    );
    assert!(error.to_string().starts_with("AG-45:"));
    assert_eq!(check_version(None), Err(ProtocolError::NoVersion));
    let script = json!({"protocol": "ag-ui/1", "turns": []}).to_string();
    assert!(matches!(
        Script::parse(&script),
        Err(ScriptError::Protocol(_))
    ));
}

#[test]
fn ag_46_turn_lifecycle_text_tool_calls_and_an_escape_hatch() {
    let out = verify(json!([
        {"type": "turn-started"},
        {"type": "message-start", "message": "m1"},
        {"type": "message-delta", "message": "m1", "delta": "Renaming"},
        {"type": "message-delta", "message": "m1", "delta": " the card."},
        {"type": "message-end", "message": "m1"},
        {"type": "tool-call-start", "call": "c1", "tool": "tasks.rename"},
        {"type": "tool-call-args", "call": "c1", "delta": "{\"id\": \"7\","},
        {"type": "tool-call-args", "call": "c1", "delta": " \"title\": \"Ship\"}"},
        {"type": "tool-call-end", "call": "c1"},
        {"type": "custom", "name": "vendor.tokens", "value": {"used": 12}},
        {"type": "turn-finished", "outcome": "completed"}
    ]));
    let text: String = out
        .iter()
        .filter_map(|v| match v {
            Verified::Text { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "Renaming the card.");
    assert!(out.contains(&Verified::Custom {
        name: "vendor.tokens".into(),
        value: json!({"used": 12})
    }));
    assert_eq!(
        inbound(&out),
        [
            // The whole message, for the run's history.
            Inbound::Said {
                message: "m1".into(),
                text: "Renaming the card.".into()
            },
            Inbound::ToolCall {
                call: CallId::new("c1"),
                capability: CapabilityRef::new("tasks", "rename"),
                arguments: json!({"id": "7", "title": "Ship"}),
                via: Vec::new(),
            },
            Inbound::TurnEnd
        ]
    );
    let out = verify(
        json!([{"type": "turn-started"}, {"type": "turn-error", "message": "quota", "code": "429"}]),
    );
    assert_eq!(
        inbound(&out),
        [Inbound::TurnFailed {
            message: "quota".into()
        }]
    );
}

#[test]
fn ag_47_state_has_a_typed_direction_and_the_acting_party_sends_only_its_own() {
    let from_agent =
        json!({"type": "state-snapshot", "direction": "from-agent", "snapshot": {"n": 1}});
    let out = verify(
        json!([{"type": "turn-started"}, from_agent, {"type": "turn-finished", "outcome": "completed"}]),
    );
    assert!(matches!(
        out[0],
        Verified::State {
            direction: Direction::FromAgent,
            ..
        }
    ));
    // Context flows the other way, in the turn request; it never arrives on the stream.
    let out = verify(json!([
        {"type": "turn-started"},
        {"type": "state-delta", "direction": "to-agent", "patch": []}
    ]));
    assert_eq!(
        malformed(&out).unwrap().0,
        ProtocolViolation::WrongDirection
    );
    // The direction is part of the event, never implied.
    assert!(
        serde_json::from_value::<WireEvent>(json!({"type": "state-snapshot", "snapshot": {}}))
            .is_err()
    );
    // `to-agent` context travels in the turn request, apart from the stream.
    let mut sim = Sim::new();
    sim.delegate(Autonomy::Auto);
    let request = sim.last_request();
    assert_eq!(
        request.state,
        Value::Null,
        "the host fills in its `to-agent` state"
    );
    assert!(serde_json::to_value(&request)
        .unwrap()
        .get("state")
        .is_some());
}

#[test]
fn the_turn_request_carries_tools_an_index_and_the_context() {
    let mut sim = Sim::new();
    sim.publish("tasks", "board", 3, Origin::Imported);
    let run = sim.delegate(Autonomy::Review);
    let request = sim.last_request();
    assert_eq!(request.protocol, PROTOCOL_VERSION);
    assert_eq!((request.run.clone(), request.turn), (run, TurnId(1)));
    assert_eq!(request.intent, "tidy the board");
    assert_eq!(request.tools.len(), 4);
    let board = request
        .index
        .iter()
        .find(|e| e.id == "tasks.board")
        .expect("the read is indexed");
    assert_eq!(
        (board.kind.as_str(), board.version, board.origin),
        ("read", Some(3), Some(Origin::Imported))
    );
    assert_eq!(board.summary, "Every card with its column and title.");
    let participants: Vec<(&str, &str)> = request
        .index
        .iter()
        .filter(|e| e.kind == "participant")
        .map(|e| (e.id.as_str(), e.label.as_str()))
        .collect();
    assert_eq!(
        participants,
        [
            ("mail", "Inbox"),
            ("notes", "Notes"),
            ("settings", "Settings"),
            ("tasks", "Task board")
        ]
    );
    assert_eq!(
        request
            .context
            .get(&ReadRef::new("tasks", "board"))
            .unwrap()
            .version,
        3
    );
}

#[test]
fn ag_48_elicitation_keeps_its_reserved_shape_end_to_end() {
    let out = verify(json!([
        {"type": "turn-started"},
        {"type": "elicitation", "request": "q1", "prompt": "Which column?", "schema": {"enum": ["todo", "done"]}},
        {"type": "turn-finished", "outcome": "interrupted"}
    ]));
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    let turn = sim.turn(&run);
    for input in inbound(&out) {
        sim.engine
            .handle(sim.now, Signal::inbound(&run, turn, input));
    }
    sim.drain();
    let question = sim.last_question();
    assert_eq!(
        question.asker,
        Asker::ActingParty {
            request: "q1".into(),
            approval: None,
        }
    );
    assert_eq!(question.prompt, "Which column?");
    assert_eq!(question.schema, Some(json!({"enum": ["todo", "done"]})));
    // Its shape is fixed: unknown fields are refused, not repurposed.
    assert!(serde_json::from_value::<WireEvent>(
        json!({"type": "elicitation", "request": "q", "prompt": "p", "choices": []})
    )
    .is_err());
}

#[test]
fn ag_49_the_machine_sees_only_baton_1_whatever_the_dialect() {
    // The same turn, scripted as data, drives the machine through the same
    // states as any adapter must produce: the machine has no dialect.
    let script = Script::parse(
        &json!({"protocol": "baton/1", "turns": [{"events": [
            {"atMs": 0, "event": {"type": "turn-started"}},
            {"atMs": 5, "event": {"type": "tool-call-start", "call": "c1", "tool": "tasks.rename"}},
            {"atMs": 9, "event": {"type": "tool-call-args", "call": "c1", "delta": "{\"id\": \"7\"}"}},
            {"atMs": 9, "event": {"type": "tool-call-end", "call": "c1"}},
            {"atMs": 20, "event": {"type": "turn-finished", "outcome": "completed"}}
        ]}]})
        .to_string(),
    )
    .unwrap();
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    let turn = sim.turn(&run);
    let mut verifier = TurnVerifier::new(StreamLimits::default());
    for scripted in &script.turns[0].events {
        for verified in verifier.push(scripted.event.clone()) {
            if let Verified::Inbound(input) = verified {
                sim.engine
                    .handle(sim.now + scripted.at_ms, Signal::inbound(&run, turn, input));
            }
        }
    }
    sim.drain();
    assert_eq!(sim.state(&run), RunState::Acting);
    sim.give_marks();
    assert_eq!(
        sim.take_invoke().map(|(_, call, _)| call),
        Some(CallId::new("c1"))
    );
    // A script that goes back in time is refused.
    let backwards = json!({"protocol": "baton/1", "turns": [{"events": [
        {"atMs": 5, "event": {"type": "turn-started"}},
        {"atMs": 1, "event": {"type": "turn-finished", "outcome": "completed"}}
    ]}]});
    assert_eq!(
        Script::parse(&backwards.to_string()),
        Err(ScriptError::TimeGoesBack { turn: 0 })
    );
}

#[test]
fn an_event_with_an_unknown_type_or_field_is_refused_with_where() {
    let refused = WireEvent::from_value(
        &json!({"type": "turn-finished", "outcome": "completed", "extra": 1}),
    );
    assert!(matches!(refused, Err(WireEventError::Field { path, .. }) if path == "$.extra"));
    let refused = WireEvent::from_value(&json!({"type": "tool-call-start", "call": "c"}));
    assert!(
        matches!(refused, Err(WireEventError::Field { message, .. }) if message.contains("missing field `tool`"))
    );
    assert_eq!(
        WireEvent::from_value(&json!({"type": "teleport"})),
        Err(WireEventError::UnknownType("teleport".into()))
    );
    assert_eq!(
        WireEvent::from_value(&json!(["turn-started"])),
        Err(WireEventError::Untyped)
    );
    // Every variant with every optional field, as written.
    for event in [
        WireEvent::TurnError {
            message: "m".into(),
            code: Some("c".into()),
        },
        WireEvent::MessageStart {
            message: "m".into(),
            role: Some("assistant".into()),
        },
        WireEvent::ToolCallStart {
            call: "c".into(),
            tool: "t.r".into(),
            parent_message: Some("m".into()),
            via: Vec::new(),
        },
        WireEvent::ToolCallResult {
            call: "c".into(),
            content: json!({"ok": true}),
        },
        WireEvent::Elicitation {
            request: "q".into(),
            prompt: "p".into(),
            schema: Some(json!({"type": "string"})),
            expires_at: Some(5),
            call: None,
        },
        WireEvent::StateSnapshot {
            direction: Direction::FromAgent,
            snapshot: json!({"a": 1}),
        },
        WireEvent::StateDelta {
            direction: Direction::FromAgent,
            patch: json!([]),
        },
        WireEvent::Custom {
            name: "n".into(),
            value: json!(null),
        },
    ] {
        let value = serde_json::to_value(&event).unwrap();
        assert_eq!(WireEvent::from_value(&value).unwrap(), event, "{value}");
    }
}

#[test]
fn verifier_pairs_start_content_and_end_by_id() {
    let cases = [
        (
            json!([{"type": "message-start", "message": "m"}]),
            ProtocolViolation::OutOfOrder,
        ),
        (
            json!([{"type": "turn-started"}, {"type": "message-delta", "message": "m", "delta": "x"}]),
            ProtocolViolation::NotOpen,
        ),
        (
            json!([{"type": "turn-started"}, {"type": "message-end", "message": "m"}]),
            ProtocolViolation::NotOpen,
        ),
        (
            json!([{"type": "turn-started"}, {"type": "message-start", "message": "m"}, {"type": "message-start", "message": "m"}]),
            ProtocolViolation::AlreadyOpen,
        ),
        (
            json!([{"type": "turn-started"}, {"type": "tool-call-args", "call": "c", "delta": "{}"}]),
            ProtocolViolation::NotOpen,
        ),
        (
            json!([{"type": "turn-started"}, {"type": "tool-call-end", "call": "c"}]),
            ProtocolViolation::NotOpen,
        ),
        (
            json!([{"type": "turn-started"}, {"type": "tool-call-start", "call": "c", "tool": "t.x"}, {"type": "tool-call-end", "call": "c"}, {"type": "tool-call-start", "call": "c", "tool": "t.x"}]),
            ProtocolViolation::DuplicateCall,
        ),
        (
            json!([{"type": "turn-started"}, {"type": "message-start", "message": "m"}, {"type": "turn-finished", "outcome": "completed"}]),
            ProtocolViolation::LeftOpen,
        ),
        (
            json!([{"type": "turn-started"}, {"type": "tool-call-start", "call": "c", "tool": "t.x"}, {"type": "turn-finished", "outcome": "completed"}]),
            ProtocolViolation::LeftOpen,
        ),
        (
            json!([{"type": "turn-started"}, {"type": "turn-finished", "outcome": "completed"}, {"type": "custom", "name": "x", "value": 1}]),
            ProtocolViolation::OutOfOrder,
        ),
        (
            json!([{"type": "turn-started"}, {"type": "turn-started"}]),
            ProtocolViolation::OutOfOrder,
        ),
        (
            json!([{"type": "turn-started"}, {"type": "tool-call-start", "call": "c", "tool": "t.x"}, {"type": "tool-call-args", "call": "c", "delta": "{\"a\": "}, {"type": "tool-call-end", "call": "c"}]),
            ProtocolViolation::NotJson,
        ),
    ];
    for (stream, code) in cases {
        let out = verify(stream.clone());
        let (found, detail) = malformed(&out).unwrap_or_else(|| panic!("{stream} passed"));
        assert_eq!(found, code, "{stream}: {detail}");
        // One violation, reported once: the rest of the stream is ignored.
        let violations = inbound(&out)
            .iter()
            .filter(|i| matches!(i, Inbound::Malformed { .. }))
            .count();
        assert_eq!(violations, 1, "{stream}");
        assert!(
            matches!(inbound(&out).last(), Some(Inbound::Malformed { .. })),
            "{stream}"
        );
    }
}

#[test]
fn verifier_bounds_what_a_hostile_stream_can_accumulate() {
    let mut verifier = TurnVerifier::new(StreamLimits {
        max_arguments_bytes: 64,
        max_open: 3,
        ..StreamLimits::default()
    });
    verifier.push(WireEvent::TurnStarted);
    verifier.push(WireEvent::ToolCallStart {
        call: "c".into(),
        tool: "t.x".into(),
        parent_message: None,
        via: Vec::new(),
    });
    let mut out = Vec::new();
    for _ in 0..10 {
        out.extend(verifier.push(WireEvent::ToolCallArgs {
            call: "c".into(),
            delta: "0123456789".into(),
        }));
    }
    let (code, detail) = malformed(&out).unwrap();
    assert_eq!(code, ProtocolViolation::OverLimit, "{detail}");
    let mut verifier = TurnVerifier::new(StreamLimits {
        max_arguments_bytes: 64,
        max_open: 3,
        ..StreamLimits::default()
    });
    verifier.push(WireEvent::TurnStarted);
    let mut out = Vec::new();
    for i in 0..5 {
        out.extend(verifier.push(WireEvent::MessageStart {
            message: format!("m{i}"),
            role: None,
        }));
    }
    assert_eq!(malformed(&out).unwrap().0, ProtocolViolation::TooManyOpen);
}

#[test]
fn verifier_bounds_how_many_tool_calls_one_turn_makes() {
    let mut verifier = TurnVerifier::new(StreamLimits {
        max_calls: 5,
        ..StreamLimits::default()
    });
    verifier.push(WireEvent::TurnStarted);
    let mut out = Vec::new();
    // One call at a time, each closed before the next: the open bound never
    // trips, the turn's count does.
    for i in 0..6 {
        let call = format!("c{i}");
        out.extend(verifier.push(WireEvent::ToolCallStart {
            call: call.clone(),
            tool: "t.x".into(),
            parent_message: None,
            via: Vec::new(),
        }));
        out.extend(verifier.push(WireEvent::ToolCallArgs {
            call: call.clone(),
            delta: "{}".into(),
        }));
        out.extend(verifier.push(WireEvent::ToolCallEnd { call }));
    }
    let calls = inbound(&out)
        .iter()
        .filter(|item| matches!(item, Inbound::ToolCall { .. }))
        .count();
    assert_eq!(calls, 5, "the five within the bound reach the engine");
    let (code, detail) = malformed(&out).expect("the sixth breaks the turn");
    assert_eq!(code, ProtocolViolation::OverLimit, "{detail}");
    assert!(detail.contains("more than 5 tool calls"), "{detail}");
    assert_eq!(StreamLimits::default().max_calls, 256);
}

#[test]
fn verifier_bounds_how_many_messages_one_turn_starts() {
    let mut verifier = TurnVerifier::new(StreamLimits {
        max_messages: 5,
        ..StreamLimits::default()
    });
    verifier.push(WireEvent::TurnStarted);
    let mut out = Vec::new();
    // One empty message at a time, each ended before the next: no text and
    // nothing open, yet each is one more message the transcript keeps.
    for i in 0..6 {
        let message = format!("m{i}");
        out.extend(verifier.push(WireEvent::MessageStart {
            message: message.clone(),
            role: None,
        }));
        out.extend(verifier.push(WireEvent::MessageEnd { message }));
    }
    let (code, detail) = malformed(&out).expect("the sixth breaks the turn");
    assert_eq!(code, ProtocolViolation::OverLimit, "{detail}");
    assert!(detail.contains("more than 5 messages"), "{detail}");
    assert_eq!(StreamLimits::default().max_messages, 256);
}

#[test]
fn a_stream_that_closes_early_is_a_transport_failure_not_a_violation() {
    let mut verifier = TurnVerifier::new(StreamLimits::default());
    verifier.push(WireEvent::TurnStarted);
    let out = verifier.close();
    assert!(
        matches!(&inbound(&out)[..], [Inbound::TransportLost { .. }]),
        "{out:?}"
    );
    assert!(
        verifier.close().is_empty(),
        "closing twice says nothing more"
    );
}

fn arbitrary_event() -> impl Strategy<Value = WireEvent> {
    let id = prop_oneof![Just("a".to_owned()), Just("b".to_owned())];
    prop_oneof![
        Just(WireEvent::TurnStarted),
        Just(WireEvent::TurnFinished {
            outcome: TurnOutcome::Completed
        }),
        Just(WireEvent::TurnError {
            message: "x".into(),
            code: None
        }),
        id.clone().prop_map(|message| WireEvent::MessageStart {
            message,
            role: None
        }),
        (id.clone(), ".{0,4}")
            .prop_map(|(message, delta)| WireEvent::MessageDelta { message, delta }),
        id.clone()
            .prop_map(|message| WireEvent::MessageEnd { message }),
        id.clone().prop_map(|call| WireEvent::ToolCallStart {
            call,
            tool: "tasks.rename".into(),
            parent_message: None,
            via: Vec::new(),
        }),
        (
            id.clone(),
            prop_oneof![
                Just("{".to_owned()),
                Just("}".to_owned()),
                Just("\"a\":1".to_owned()),
                ".{0,3}"
            ]
        )
            .prop_map(|(call, delta)| WireEvent::ToolCallArgs { call, delta }),
        id.prop_map(|call| WireEvent::ToolCallEnd { call }),
        Just(WireEvent::Elicitation {
            request: "q".into(),
            prompt: "?".into(),
            schema: None,
            expires_at: None,
            call: None,
        }),
        Just(WireEvent::StateDelta {
            direction: Direction::ToAgent,
            patch: json!([])
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: generated_cases(5_000), ..ProptestConfig::default() })]

    /// Whatever arrives, the verifier never panics, ends the turn at most
    /// once, reports at most one violation, and says nothing after it.
    #[test]
    fn the_verifier_never_panics_and_never_speaks_after_a_violation(events in prop::collection::vec(arbitrary_event(), 0..40)) {
        let mut verifier = TurnVerifier::new(StreamLimits::default());
        let mut violations = 0;
        let mut ends = 0;
        for event in events {
            let violated = verifier.violation().is_some();
            let out = verifier.push(event);
            if violated {
                prop_assert!(out.is_empty());
            }
            for item in &out {
                match item {
                    Verified::Inbound(Inbound::Malformed { .. }) => violations += 1,
                    Verified::Inbound(Inbound::TurnEnd | Inbound::TurnFailed { .. }) => ends += 1,
                    _ => {}
                }
            }
        }
        for item in verifier.close() {
            if let Verified::Inbound(Inbound::TurnFailed { .. } | Inbound::TransportLost { .. }) = item { ends += 1; }
        }
        prop_assert!(violations <= 1);
        prop_assert!(ends <= 1);
    }

    /// Every event reads back exactly as it is written, through the text
    /// form and through a parsed value.
    #[test]
    fn every_event_reads_back_as_written(event in arbitrary_event()) {
        let text = serde_json::to_string(&event).unwrap();
        prop_assert_eq!(&serde_json::from_str::<WireEvent>(&text).unwrap(), &event);
        let value = serde_json::to_value(&event).unwrap();
        prop_assert_eq!(&WireEvent::from_value(&value).unwrap(), &event);
    }

    /// Arbitrary JSON never crashes the event parser.
    #[test]
    fn arbitrary_json_into_the_event_parser(text in ".{0,120}") {
        let _ = serde_json::from_str::<WireEvent>(&text);
        let _ = Script::parse(&text);
    }
}

#[test]
fn deltas_of_one_read_reach_surfaces_as_one_text_per_message_in_order() {
    let text = |message: &str, delta: &str| Verified::Text {
        message: message.into(),
        delta: delta.into(),
    };
    let joined = Verified::join_texts(vec![
        text("m1", "Hel"),
        text("m1", "lo"),
        text("m2", ", "),
        text("m2", "world"),
        Verified::Inbound(Inbound::TurnEnd),
        text("m2", "!"),
    ]);
    assert_eq!(
        joined,
        [
            text("m1", "Hello"),
            text("m2", ", world"),
            Verified::Inbound(Inbound::TurnEnd),
            text("m2", "!"),
        ],
        "nothing crosses another item, nothing is lost"
    );
}
