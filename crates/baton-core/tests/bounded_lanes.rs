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
    sim.engine.handle(
        sim.now,
        Signal::inbound(
            &run,
            turn,
            Inbound::OverLimit {
                lane: TurnLane::Text,
                limit: 10,
            },
        ),
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

#[test]
fn reasoning_has_a_lane_of_its_own_bounded_by_max_reasoning_bytes() {
    let limits = StreamLimits {
        max_reasoning_bytes: 10,
        ..StreamLimits::default()
    };
    let thought = |delta: &str| WireEvent::Reasoning {
        message: "r1".into(),
        delta: delta.into(),
        encrypted: false,
    };
    let out = verified(limits, vec![thought("think "), thought("harder")]);
    assert_eq!(
        out,
        vec![
            Verified::Reasoning {
                message: "r1".into(),
                delta: "think ".into(),
                encrypted: false
            },
            over(TurnLane::Reasoning, 10),
        ]
    );
    // It is not the text lane: text still has its whole limit.
    let out = verified(
        StreamLimits {
            max_text_bytes: 10,
            ..StreamLimits::default()
        },
        vec![thought(&"x".repeat(100))],
    );
    assert!(!out
        .iter()
        .any(|v| matches!(v, Verified::Inbound(Inbound::OverLimit { .. }))));
    // An encrypted value counts too, and is carried as it came.
    let sealed = WireEvent::Reasoning {
        message: "r1".into(),
        delta: "gAAAAB".repeat(4),
        encrypted: true,
    };
    assert_eq!(
        verified(limits, vec![sealed]).last(),
        Some(&over(TurnLane::Reasoning, 10))
    );
    let limits: StreamLimits = serde_json::from_value(json!({"maxReasoningBytes": 7})).unwrap();
    assert_eq!(limits.max_reasoning_bytes, 7);
    assert_eq!(StreamLimits::default().max_reasoning_bytes, 1 << 20);
}

#[test]
fn activity_is_bounded_as_state() {
    let activity = WireEvent::Activity {
        message: "a1".into(),
        activity: "PLAN".into(),
        content: json!({"steps": ["x".repeat(50)]}),
        patch: false,
    };
    assert_eq!(
        verified(small(), vec![activity.clone()]).last(),
        Some(&over(TurnLane::State, 40))
    );
    assert!(matches!(
        verified(StreamLimits::default(), vec![activity]).last(),
        Some(Verified::Activity { .. })
    ));
}
