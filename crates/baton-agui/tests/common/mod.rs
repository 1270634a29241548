//! What the AG-UI tests share.

use serde_json::Value;

/// AG-UI events as the bytes of one Server-Sent Events response.
pub fn sse(events: &[Value]) -> Vec<u8> {
    events
        .iter()
        .map(|event| format!("data: {event}\n\n"))
        .collect::<String>()
        .into_bytes()
}
