//! # baton-agui — the AG-UI 1.0 dialect for Baton
//!
//! Any AG-UI agent can be Baton's acting party. This crate translates, and
//! nothing else (contract AG-49: dialects belong in adapters): it is sans-IO
//! — bytes in, `baton/1` out — so the browser's `fetch` stream and a native
//! socket drive the same code.
//!
//! * [`SseDecoder`] turns response bytes into Server-Sent Events;
//! * [`AgUiMapper`] checks each AG-UI event against the protocol's rules and
//!   maps it to [`baton_core::WireEvent`]s (the table is on [`mapping`]);
//! * [`AgUiTurn`] puts both in front of a [`baton_core::TurnVerifier`] for one
//!   turn and yields what the engine consumes;
//! * [`Thread::input`] encodes the `RunAgentInput` the agent receives.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod input;
pub mod mapping;
mod sse;
mod violation;

use baton_core::{StreamLimits, TurnVerifier, Verified, WireEvent};
use serde_json::{json, Value};

pub use input::Thread;
pub use mapping::AgUiMapper;
pub use sse::{SseDecoder, SseEvent, SseOutput};
use violation::broke;
pub use violation::{ProtocolViolation, Violation};

/// What this adapter speaks toward the engine (AG-45): it turns AG-UI 1.0
/// on the wire into `baton/1`, the only protocol the custody machine reads.
pub const PROTOCOL_VERSION: &str = baton_core::PROTOCOL_VERSION;

/// The AG-UI version it speaks on the wire (`RunAgentInput.protocolVersion`).
pub const AGUI_VERSION: &str = "1.0.0";

/// The largest single SSE event accepted by default (1 MiB).
pub const DEFAULT_MAX_EVENT_BYTES: usize = 1 << 20;

/// A tool call the agent made this turn, as its history will tell it back.
#[derive(Debug, Clone)]
struct SpokenCall {
    id: String,
    /// The tool's name on the wire, as the agent called it.
    tool: String,
    /// The JSON arguments, as streamed.
    arguments: String,
}

/// One Baton turn over one AG-UI run: response bytes in, verified events out.
#[derive(Debug, Clone)]
pub struct AgUiTurn {
    sse: SseDecoder,
    mapper: AgUiMapper,
    verifier: TurnVerifier,
    text: String,
    message_id: Option<String>,
    calls: Vec<SpokenCall>,
    /// Events that arrived after the turn ended (never acted on).
    after_end: u32,
}

impl AgUiTurn {
    /// A turn with the given limits.
    pub fn new(max_event_bytes: usize, limits: StreamLimits) -> Self {
        AgUiTurn {
            sse: SseDecoder::new(max_event_bytes),
            mapper: AgUiMapper::new(),
            verifier: TurnVerifier::new(limits),
            text: String::new(),
            message_id: None,
            calls: Vec::new(),
            after_end: 0,
        }
    }

    /// The same turn, for a stream that must answer `thread` (the request's
    /// `threadId`): a run of another thread on it is a violation.
    pub fn for_thread(self, thread: impl Into<String>) -> Self {
        AgUiTurn {
            mapper: AgUiMapper::for_thread(thread),
            ..self
        }
    }

    /// Feeds response bytes, in chunks of any size.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Verified> {
        let mut out = Vec::new();
        for item in self.sse.feed(bytes) {
            match item {
                SseOutput::Finding(reason) => out.extend(
                    self.verifier
                        .break_off(broke(ProtocolViolation::Framing, format!("SSE: {reason}"))),
                ),
                SseOutput::Event(event) => out.extend(self.event(&event.data)),
            }
        }
        out
    }

    /// The response ended (or broke off).
    pub fn finish(&mut self) -> Vec<Verified> {
        let mut out = Vec::new();
        // What the decoder still held is an event cut off by the close: the
        // transport's failure (reported below as a lost stream), not a
        // protocol breach.
        let _cut_off = self.sse.finish();
        if !self.verifier.is_over() {
            match self.mapper.finish() {
                Ok(events) => {
                    for event in events {
                        out.extend(self.verifier.push(event));
                    }
                }
                Err(violation) => out.extend(self.verifier.break_off(violation)),
            }
        }
        out.extend(self.verifier.close());
        out
    }

    /// Whether the turn is over.
    pub fn is_over(&self) -> bool {
        self.verifier.is_over()
    }

    /// How many events arrived after the turn ended. They are never acted
    /// on; the host records them as a finding.
    pub fn events_after_end(&self) -> u32 {
        self.after_end
    }

    /// The `from-agent` state the stream built.
    pub fn state(&self) -> &Value {
        self.mapper.state()
    }

    /// What the agent said this turn, as an AG-UI assistant message for the
    /// next turn's history.
    pub fn assistant_message(&self, fallback_id: &str) -> Option<Value> {
        if self.text.is_empty() && self.calls.is_empty() {
            return None;
        }
        let mut message = json!({
            "id": self.message_id.clone().unwrap_or_else(|| fallback_id.to_owned()),
            "role": "assistant",
        });
        if !self.text.is_empty() {
            message["content"] = json!(self.text);
        }
        if !self.calls.is_empty() {
            message["toolCalls"] = self
                .calls
                .iter()
                .map(|call| json!({"id": call.id, "type": "function", "function": {"name": call.tool, "arguments": call.arguments}}))
                .collect();
        }
        Some(message)
    }

    fn event(&mut self, data: &str) -> Vec<Verified> {
        if self.verifier.is_over() {
            self.after_end = self.after_end.saturating_add(1);
            return Vec::new();
        }
        let value: Value = match serde_json::from_str(data) {
            Ok(value) => value,
            Err(error) => {
                return self.verifier.break_off(broke(
                    ProtocolViolation::NotJson,
                    format!("an event that is not JSON: {error}"),
                ))
            }
        };
        match self.mapper.map(&value) {
            Err(violation) => self.verifier.break_off(violation),
            Ok(events) => {
                let mut out = Vec::new();
                for event in events {
                    self.remember(&event);
                    out.extend(self.verifier.push(event));
                }
                out
            }
        }
    }

    /// Keeps the assistant message for the history. Text is appended per
    /// delta (amortised O(delta)); nothing accumulated is copied.
    fn remember(&mut self, event: &WireEvent) {
        match event {
            WireEvent::MessageStart { message, .. } if self.message_id.is_none() => {
                self.message_id = Some(message.clone());
            }
            WireEvent::MessageDelta { delta, .. } => self.text.push_str(delta),
            WireEvent::ToolCallStart { call, tool, .. } => {
                // The history speaks the wire's names, as the agent did.
                self.calls.push(SpokenCall {
                    id: call.clone(),
                    tool: crate::input::wire_name(tool),
                    arguments: String::new(),
                })
            }
            WireEvent::ToolCallArgs { call, delta } => {
                if let Some(spoken) = self.calls.iter_mut().rev().find(|c| c.id == *call) {
                    spoken.arguments.push_str(delta);
                }
            }
            _ => {}
        }
    }
}

/// Runs a whole AG-UI stream (already parsed events) through the mapper's
/// checks, as the reference client's `verifyEvents` would: `Ok` if the
/// stream keeps every rule, else the first rule it broke.
pub fn verify_agui_events(events: &[Value]) -> Result<(), Violation> {
    let mut mapper = AgUiMapper::new();
    for event in events {
        mapper.map(event)?;
    }
    mapper.finish().map(|_| ())
}
