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
mod spoken;
mod sse;
mod violation;

use baton_core::{TurnVerifier, Verified, WireEvent};
use serde_json::Value;
use std::borrow::Cow;

pub use input::{Thread, ThreadScope};
pub use mapping::AgUiMapper;
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
        let mut out = Vec::new();
        let mut joined = Joined::default();
        let AgUiTurn {
            sse,
            mapper,
            spoken,
            after_end,
        } = self;
        sse.feed_each(bytes, |item| match item {
            SseItem::Finding(reason) => {
                let _ = joined.flush(spoken, verifier, &mut out);
                out.extend(
                    verifier.break_off(broke(ProtocolViolation::Framing, format!("SSE: {reason}"))),
                );
            }
            SseItem::Event { data, .. } => {
                if verifier.is_over()
                    || !event(mapper, spoken, data, verifier, &mut out, &mut joined)
                {
                    *after_end = after_end.saturating_add(1);
                }
            }
        });
        let _ = joined.flush(spoken, verifier, &mut out);
        out
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

/// Consecutive text deltas of one message, not yet through the verifier.
#[derive(Default)]
struct Joined(Option<(String, String)>);

impl Joined {
    /// Takes `delta` of `message` in (`true`) if it continues what is held
    /// and the text lane has `room` for both.
    fn join(&mut self, message: &str, delta: &str, room: usize) -> bool {
        match &mut self.0 {
            Some((held, text)) if held == message && text.len() + delta.len() <= room => {
                text.push_str(delta);
                true
            }
            _ => false,
        }
    }

    /// What is held through the verifier, then `delta` of `message` held
    /// in its place (or, over the text lane's room on its own, through the
    /// verifier now, which refuses it). `false` if what was held ended the
    /// turn (see [`event`]). Out of the per-delta path: once per message
    /// change, not per delta.
    #[inline(never)]
    fn start(
        &mut self,
        message: Cow<'_, str>,
        delta: Cow<'_, str>,
        spoken: &mut Spoken,
        verifier: &mut TurnVerifier,
        out: &mut Vec<Verified>,
    ) -> bool {
        if self.flush(spoken, verifier, out) {
            return false;
        }
        let (message, delta) = (message.into_owned(), delta.into_owned());
        if delta.len() <= verifier.text_room() {
            self.0 = Some((message, delta));
        } else {
            let event = WireEvent::MessageDelta { message, delta };
            spoken.remember(&event, &Value::Null);
            out.extend(verifier.push(event));
        }
        true
    }

    /// What is held, through the verifier into `out`: `true` if the turn
    /// is over after it.
    #[inline(never)]
    fn flush(
        &mut self,
        spoken: &mut Spoken,
        verifier: &mut TurnVerifier,
        out: &mut Vec<Verified>,
    ) -> bool {
        if let Some((message, delta)) = self.0.take() {
            let event = WireEvent::MessageDelta { message, delta };
            spoken.remember(&event, &Value::Null);
            out.extend(verifier.push(event));
        }
        verifier.is_over()
    }
}

/// One AG-UI event's JSON text, checked and mapped, through the turn's
/// verifier into `out` (a text delta joined to those before it in
/// `joined`, which any other event sends through first). `false` if what
/// was sent through first ended the turn, so this event came after its end.
fn event(
    mapper: &mut AgUiMapper,
    spoken: &mut Spoken,
    data: &str,
    verifier: &mut TurnVerifier,
    out: &mut Vec<Verified>,
    joined: &mut Joined,
) -> bool {
    // A plain delta is read without building a `Value`; anything else the
    // general way.
    let event = match mapper.read_delta(data) {
        Some(mapping::Delta::Text { message, delta }) => {
            if joined.join(&message, &delta, verifier.text_room()) {
                return true;
            }
            return joined.start(message, delta, spoken, verifier, out);
        }
        Some(mapping::Delta::Arguments { call, delta }) => WireEvent::ToolCallArgs {
            call: call.into_owned(),
            delta: delta.into_owned(),
        },
        None => return general(mapper, spoken, data, verifier, out, joined),
    };
    if joined.flush(spoken, verifier, out) {
        return false;
    }
    spoken.remember(&event, &Value::Null);
    out.extend(verifier.push(event));
    true
}

/// An event read the general way, through a `Value` (see [`event`]). Kept
/// out of the per-delta path, so the browser's optimising compiler gets
/// that path alone and small, and early in a long stream.
#[inline(never)]
fn general(
    mapper: &mut AgUiMapper,
    spoken: &mut Spoken,
    data: &str,
    verifier: &mut TurnVerifier,
    out: &mut Vec<Verified>,
    joined: &mut Joined,
) -> bool {
    let value: Value = match serde_json::from_str(data) {
        Ok(value) => value,
        Err(error) => {
            if joined.flush(spoken, verifier, out) {
                return false;
            }
            out.extend(verifier.break_off(broke(
                ProtocolViolation::NotJson,
                format!("an event that is not JSON: {error}"),
            )));
            return true;
        }
    };
    let events = match mapper.map(&value) {
        Ok(events) => events,
        Err(violation) => {
            if joined.flush(spoken, verifier, out) {
                return false;
            }
            out.extend(verifier.break_off(violation));
            return true;
        }
    };
    if joined.flush(spoken, verifier, out) {
        return false;
    }
    for event in events {
        spoken.remember(&event, &value);
        out.extend(verifier.push(event));
    }
    true
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
