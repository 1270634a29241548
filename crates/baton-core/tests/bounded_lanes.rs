//! Bounded turns in every lane: a turn's text, state and custom events have
//! byte limits ([`StreamLimits`]), and going over one ends the turn — and
//! the run — with a typed reason, not only arguments and open items.

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

fn small() -> StreamLimits {
    StreamLimits {
        max_text_bytes: 10,
        max_state_bytes: 40,
        max_custom_bytes: 40,
        ..StreamLimits::default()
    }
}

/// What the verifier yields for `events` after the turn started.
fn verified(limits: StreamLimits, events: Vec<WireEvent>) -> Vec<Verified> {
    let mut verifier = TurnVerifier::new(limits);
    let mut out = verifier.push(WireEvent::TurnStarted);
    for event in events {
        out.extend(verifier.push(event));
    }
    out
}

fn over(lane: TurnLane, limit: u64) -> Verified {
    Verified::Inbound(Inbound::OverLimit { lane, limit })
}

fn delta(text: &str) -> WireEvent {
    WireEvent::MessageDelta {
        message: "m".into(),
        delta: text.into(),
    }
}

#[test]
fn text_over_its_limit_ends_the_turn_once_and_nothing_after_counts() {
    let start = WireEvent::MessageStart {
        message: "m".into(),
        role: None,
    };
    let out = verified(
        small(),
        vec![start, delta("hello "), delta("world"), delta("more")],
    );
    assert_eq!(
        out,
        vec![
            Verified::Text {
                message: "m".into(),
                delta: "hello ".into()
            },
            over(TurnLane::Text, 10),
        ],
        "the text up to the limit, then the typed end, then nothing"
    );
}

#[test]
fn state_and_custom_lanes_are_bounded_too() {
    let patch = WireEvent::StateDelta {
        direction: Direction::FromAgent,
        patch: json!([{"op": "add", "path": "/notes", "value": "x".repeat(50)}]),
    };
    assert_eq!(
        verified(small(), vec![patch]).last(),
        Some(&over(TurnLane::State, 40))
    );
    let custom = WireEvent::Custom {
        name: "reasoning".into(),
        value: json!("y".repeat(50)),
    };
    assert_eq!(
        verified(small(), vec![custom]).last(),
        Some(&over(TurnLane::Custom, 40))
    );
    // Under the defaults the same events pass.
    let fine = WireEvent::Custom {
        name: "reasoning".into(),
        value: json!("y".repeat(50)),
    };
    assert!(!verified(StreamLimits::default(), vec![fine])
        .iter()
        .any(|v| matches!(v, Verified::Inbound(Inbound::OverLimit { .. }))));
}

#[test]
fn limits_read_from_json_with_defaults_and_refuse_unknown_fields() {
    let limits: StreamLimits = serde_json::from_value(json!({"maxTextBytes": 10})).unwrap();
    assert_eq!(limits.max_text_bytes, 10);
    assert_eq!(
        limits.max_state_bytes,
        StreamLimits::default().max_state_bytes
    );
    assert!(serde_json::from_value::<StreamLimits>(json!({"maxTexts": 1})).is_err());
}

#[test]
fn a_run_whose_turn_goes_over_a_limit_returns_typed() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    let turn = sim.turn(&run);
    sim.engine.handle_inbound(
        sim.now,
        &run,
        turn,
        Inbound::OverLimit {
            lane: TurnLane::Text,
            limit: 10,
        },
    );
    sim.drain();
    assert_eq!(
        sim.state(&run),
        returned(
            Outcome::Error,
            ReturnReason::TurnOverLimit {
                lane: TurnLane::Text,
                limit: 10
            }
        )
    );
    let text = serde_json::to_string(&ReturnReason::TurnOverLimit {
        lane: TurnLane::State,
        limit: 40,
    })
    .unwrap();
    assert_eq!(
        text,
        r#"{"kind":"turn-over-limit","lane":"state","limit":40}"#
    );
    assert!(matches!(
        serde_json::from_str::<ReturnReason>(&text),
        Ok(ReturnReason::TurnOverLimit { .. })
    ));
}
