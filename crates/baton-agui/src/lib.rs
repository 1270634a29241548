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
//! * [`AgUiTurn`] puts both in front of the turn's own
//!   [`baton_core::TurnVerifier`] (lent by whoever opened the turn, so one
//!   verifier applies the turn's limits whatever the transport) and yields
//!   what the engine consumes, keeping what the agent said for the thread;
//! * [`Thread`] keeps one conversation's transcript and encodes the
//!   `RunAgentInput` the agent receives.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod input;
pub mod mapping;
mod reading;
mod spoken;
mod sse;
mod violation;

use baton_core::{TurnVerifier, Verified};
use serde_json::Value;

pub use input::{Thread, ThreadScope};
pub use mapping::AgUiMapper;
use reading::Reading;
use spoken::Spoken;
pub use sse::{SseDecoder, SseEvent, SseItem, SseOutput};
use violation::broke;
pub use violation::{ProtocolViolation, Violation};

/// What this adapter speaks toward the engine (AG-45): it turns AG-UI 1.0
/// on the wire into `baton/1`, the only protocol the custody machine reads.
pub const PROTOCOL_VERSION: &str = baton_core::PROTOCOL_VERSION;

/// The AG-UI version it speaks on the wire (`RunAgentInput.protocolVersion`).
pub const AGUI_VERSION: &str = "1.0.0";

/// The largest single SSE event accepted by default (1 MiB).
pub const DEFAULT_MAX_EVENT_BYTES: usize = 1 << 20;

/// One Baton turn over one AG-UI run: response bytes in, decoded and
/// checked against AG-UI's rules, then through the turn's own
/// [`TurnVerifier`] — the one that applies the turn's limits and decides
/// which calls are the page's. The verifier belongs to the turn, not to
/// this decoder: whoever opened the turn lends it to [`AgUiTurn::feed`].
#[derive(Debug, Clone)]
pub struct AgUiTurn {
    sse: SseDecoder,
    mapper: AgUiMapper,
    spoken: Spoken,
    /// Events that arrived after the turn ended (never acted on).
    after_end: u32,
}

impl AgUiTurn {
    /// A turn whose SSE events may be at most `max_event_bytes` long.
    pub fn new(max_event_bytes: usize) -> Self {
        AgUiTurn {
            sse: SseDecoder::new(max_event_bytes),
            mapper: AgUiMapper::new(),
            spoken: Spoken::default(),
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

    /// Feeds response bytes, in chunks of any size, through the turn's
    /// verifier. Consecutive text deltas of one message in `bytes` go
    /// through it joined, as one delta (within the text lane's room: what
    /// it accepts and refuses is the same as one by one), so a long stream
    /// costs the verifier and the engine once per read, not once per delta.
    pub fn feed(&mut self, bytes: &[u8], verifier: &mut TurnVerifier) -> Vec<Verified> {
        let AgUiTurn {
            sse,
            mapper,
            spoken,
            after_end,
        } = self;
        mapper.bound_state(verifier.max_state_bytes());
        let mut reading = Reading::new(mapper, spoken, verifier);
        sse.feed_each(bytes, |item| match item {
            SseItem::Finding(reason) => {
                reading.break_off(broke(ProtocolViolation::Framing, format!("SSE: {reason}")));
            }
            SseItem::Event { data, .. } => {
                if !reading.event(data) {
                    *after_end = after_end.saturating_add(1);
                }
            }
        });
        reading.finish()
    }

    /// The response ended (or broke off).
    pub fn finish(&mut self, verifier: &mut TurnVerifier) -> Vec<Verified> {
        let mut out = Vec::new();
        // What the decoder still held is an event cut off by the close: the
        // transport's failure (reported below as a lost stream), not a
        // protocol breach.
        let _cut_off = self.sse.finish();
        if !verifier.is_over() {
            match self.mapper.finish() {
                Ok(events) => {
                    for event in events {
                        out.extend(verifier.push(event));
                    }
                }
                Err(violation) => out.extend(verifier.break_off(violation)),
            }
        }
        out.extend(verifier.close());
        out
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

    /// What the agent said and did this turn, as AG-UI messages for the
    /// thread's transcript: each assistant message under the agent's own id
    /// with its tool calls, and a `tool` message for each of its own tools'
    /// results.
    pub fn messages(&self) -> Vec<Value> {
        self.spoken.messages()
    }

    /// The agent's own calls it asked the person to approve this turn
    /// (interrupts naming a `toolCallId`): answered by the next request's
    /// `resume`, never by a `tool` message ([`Thread::await_resume`]).
    pub fn approvals(&self) -> &[String] {
        self.spoken.approvals()
    }

    /// The whole conversation as the agent last said it holds it
    /// (`MESSAGES_SNAPSHOT`), if it said so this turn; [`AgUiTurn::messages`]
    /// are then only what came after it.
    pub fn snapshot(&self) -> Option<&[Value]> {
        self.spoken.snapshot()
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
