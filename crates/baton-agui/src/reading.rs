//! One read of an AG-UI stream on its way through the turn's verifier:
//! each event checked and mapped, and the text deltas of one message joined
//! before the verifier sees them.
//!
//! A long stream is mostly text deltas. Joined, they cost the verifier and
//! the engine once per read, not once per delta, and always within the
//! text lane's room, so what the verifier accepts and refuses is what it
//! would one delta at a time (a property test holds the two to it). The
//! per-delta path is [`Reading::event`] alone; the rest stays out of line
//! (`KEPT_WHOLE` in `crates/xtask/src/pkg.rs`), so the browser's optimising
//! compiler gets that path small, and early in a stream.

use std::borrow::Cow;

use baton_core::{Inbound, TurnVerifier, Verified, Violation, WireEvent};
use serde_json::Value;

use crate::mapping::{AgUiMapper, Delta};
use crate::spoken::Spoken;
use crate::violation::broke;
use crate::ProtocolViolation;

/// One read through the verifier.
pub(crate) struct Reading<'t> {
    mapper: &'t mut AgUiMapper,
    spoken: &'t mut Spoken,
    verifier: &'t mut TurnVerifier,
    out: Vec<Verified>,
    /// Consecutive text deltas of one message, not yet through the
    /// verifier: the message and its text.
    held: Option<(String, String)>,
}

impl<'t> Reading<'t> {
    pub(crate) fn new(
        mapper: &'t mut AgUiMapper,
        spoken: &'t mut Spoken,
        verifier: &'t mut TurnVerifier,
    ) -> Self {
        Reading {
            mapper,
            spoken,
            verifier,
            out: Vec::new(),
            held: None,
        }
    }

    /// What the read yields, with what it held sent through.
    pub(crate) fn finish(mut self) -> Vec<Verified> {
        let _ = self.flush();
        self.out
    }

    /// One event's JSON text, checked and mapped, through the verifier (a
    /// text delta joined to those held, which any other event sends through
    /// first). `false` if the turn was over before it, so it came after the
    /// end and is never acted on.
    pub(crate) fn event(&mut self, data: &str) -> bool {
        if self.verifier.is_over() {
            return false;
        }
        // A plain delta is read without building a `Value`; anything else
        // the general way.
        let event = match self.mapper.read_delta(data) {
            Some(Delta::Text { message, delta }) => {
                if self.join(&message, &delta) {
                    return true;
                }
                return self.start(message, delta);
            }
            Some(arguments) => arguments.into_event(),
            None => return self.general(data),
        };
        if self.flush() {
            return false;
        }
        self.send(event, &Value::Null);
        true
    }

    /// A violation found below the mapper (the SSE decoder's, or the
    /// event's JSON): the turn ends with it, after what was held.
    pub(crate) fn break_off(&mut self, violation: Violation) -> bool {
        if self.flush() {
            return false;
        }
        self.out.extend(self.verifier.break_off(violation));
        true
    }

    /// Takes `delta` of `message` in (`true`) if it continues what is held
    /// and the text lane has room for both.
    fn join(&mut self, message: &str, delta: &str) -> bool {
        let room = self.verifier.text_room();
        match &mut self.held {
            Some((held, text)) if held == message && text.len() + delta.len() <= room => {
                text.push_str(delta);
                true
            }
            _ => false,
        }
    }

    /// What is held through the verifier, then `delta` of `message` held
    /// in its place (or, over the text lane's room on its own, through the
    /// verifier now, which refuses it). Once per message change, not per
    /// delta.
    #[inline(never)]
    fn start(&mut self, message: Cow<'_, str>, delta: Cow<'_, str>) -> bool {
        if self.flush() {
            return false;
        }
        let (message, delta) = (message.into_owned(), delta.into_owned());
        if delta.len() <= self.verifier.text_room() {
            self.held = Some((message, delta));
        } else {
            self.send(WireEvent::MessageDelta { message, delta }, &Value::Null);
        }
        true
    }

    /// An event read the general way, through a `Value`.
    #[inline(never)]
    fn general(&mut self, data: &str) -> bool {
        let value: Value = match serde_json::from_str(data) {
            Ok(value) => value,
            Err(error) => {
                let why = format!("an event that is not JSON: {error}");
                return self.break_off(broke(ProtocolViolation::NotJson, why));
            }
        };
        let events = match self.mapper.map(&value) {
            Ok(events) => events,
            Err(violation) => return self.break_off(violation),
        };
        if self.flush() {
            return false;
        }
        for event in events {
            self.send(event, &value);
        }
        true
    }

    /// What is held, through the verifier: `true` if the turn is over
    /// after it.
    #[inline(never)]
    fn flush(&mut self) -> bool {
        if let Some((message, delta)) = self.held.take() {
            self.send(WireEvent::MessageDelta { message, delta }, &Value::Null);
        }
        self.verifier.is_over()
    }

    /// `event` (read from `raw`, or `Null` when read without a `Value`)
    /// through the verifier, and remembered for the thread if the verifier
    /// took it: what broke the turn is no part of the conversation.
    fn send(&mut self, event: WireEvent, raw: &Value) {
        match event {
            // Arguments the verifier refuses leave their call unfinished,
            // and an unfinished call is left out of the transcript whole.
            WireEvent::ToolCallArgs { .. } => {
                self.spoken.remember(&event, raw);
                self.out.extend(self.verifier.push(event));
            }
            // Text is remembered as the verifier passes it on.
            WireEvent::MessageDelta { .. } => {
                let out = self.verifier.push(event);
                if self.verifier.violation().is_none() {
                    for item in &out {
                        if let Verified::Text { message, delta } = item {
                            self.spoken.say(message, delta);
                        }
                    }
                }
                self.out.extend(out);
            }
            _ => {
                let kept = event.clone();
                let out = self.verifier.push(event);
                // A result is the agent's to give for its own calls only:
                // for a page's call, the page's result is what it hears.
                let own = match &kept {
                    WireEvent::ToolCallResult { .. } => out
                        .iter()
                        .any(|item| matches!(item, Verified::Inbound(Inbound::AgentAct { .. }))),
                    _ => true,
                };
                if own && self.verifier.violation().is_none() {
                    self.spoken.remember(&kept, raw);
                }
                self.out.extend(out);
            }
        }
    }
}
