//! What the AG-UI tests share.
#![allow(dead_code)]

use baton_core::{Effect, Engine, Event, TurnRequest};
use serde_json::Value;

/// The request of the turn the engine opens next (a delegation's first).
pub fn next_turn_request(engine: &mut Engine) -> TurnRequest {
    std::iter::from_fn(|| engine.poll_event())
        .find_map(|event| match event {
            Event::Effect(Effect::OpenTurn { request, .. }) => Some(*request),
            _ => None,
        })
        .expect("the engine opened a turn")
}

/// AG-UI events as the bytes of one Server-Sent Events response.
pub fn sse(events: &[Value]) -> Vec<u8> {
    events
        .iter()
        .map(|event| format!("data: {event}\n\n"))
        .collect::<String>()
        .into_bytes()
}
