//! Transports in JS: the port an application implements, and the two that
//! ship with Baton.
//!
//! A transport is any object with a `protocolVersion` (AG-45) and a method
//! `openTurn(request, sink, signal)`. The engine calls it once per turn with
//! the turn request, a [`TurnSink`] and an `AbortSignal`; the transport
//! pushes `baton/1` events into the sink as they arrive and settles the
//! promise it returns when the stream ends (resolve) or breaks (reject). A
//! stream that ends before its turn did is `transport-lost`; nothing
//! reconnects or retries on its own.
//!
//! Events cross into wasm as JSON text (an object is stringified once) and are
//! parsed, assembled and verified here: tool-call arguments never become JS
//! objects on their way to the validator.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

mod agui;
mod own;
mod scripted;

pub use agui::AgUiTransport;
pub(crate) use own::Own;
pub use scripted::ScriptedTransport;

use baton_core::{
    Inbound, ProtocolViolation, RunId, StreamLimits, TurnId, TurnRequest, TurnVerifier, Verified,
    Violation, WireEvent,
};
use wasm_bindgen::prelude::*;

/// Where a turn's verified traffic goes: the engine that opened the turn.
pub(crate) trait TurnHost {
    /// Hands verified traffic of `turn` to the engine.
    fn deliver(&self, run: &RunId, turn: TurnId, items: Vec<Verified>);
    /// Traffic arrived after `turn` ended; called once per turn.
    fn stray(&self, run: &RunId, turn: TurnId);
}

struct SinkState {
    host: Box<dyn TurnHost>,
    run: RunId,
    turn: TurnId,
    verifier: RefCell<TurnVerifier>,
    /// Set once the turn has ended one way or another; later traffic and the
    /// stream's end change nothing.
    over: Cell<bool>,
    /// Set once traffic after the end has been reported.
    stray_reported: Cell<bool>,
}

/// What a transport pushes a turn's events into. Created by the engine, one
/// per turn.
#[wasm_bindgen]
#[derive(Clone)]
pub struct TurnSink {
    state: Rc<SinkState>,
}

#[wasm_bindgen]
impl TurnSink {
    /// Pushes one `baton/1` event: JSON text, or an object (stringified once
    /// and parsed inside wasm). An event that is not `baton/1`, or that
    /// breaks the protocol, ends the turn as an integrity violation.
    pub fn push(&self, event: JsValue) {
        if self.state.over.get() {
            self.stray();
            return;
        }
        let not_json = |why: String| {
            Violation::new(
                ProtocolViolation::NotJson,
                format!("an event that is not JSON: {why}"),
            )
        };
        let parsed = crate::convert::text_or_stringify(&event)
            .map_err(|why| not_json(why.to_string()))
            .and_then(|text| {
                serde_json::from_str::<serde_json::Value>(&text)
                    .map_err(|e| not_json(e.to_string()))
            })
            .and_then(|value| {
                WireEvent::from_value(&value).map_err(|e| {
                    Violation::new(e.violation(), format!("an event that is not baton/1: {e}"))
                })
            });
        match parsed {
            Ok(event) => self.push_event(event),
            Err(violation) => self.break_off(violation),
        }
    }

    /// Reports a violation found by the transport's own decoder (a dialect
    /// adapter), in words: the turn ends as an integrity violation, its
    /// code `not-an-event`.
    pub fn report(&self, #[wasm_bindgen(unchecked_param_type = "string")] violation: JsValue) {
        // Whatever it is given, the turn ends: in its words, or in JSON's.
        let violation = crate::convert::text_or_stringify(&violation)
            .unwrap_or_else(|why| format!("a report that is not text: {why}"));
        self.break_off(Violation::new(ProtocolViolation::NotAnEvent, violation));
    }
}

impl TurnSink {
    fn break_off(&self, violation: Violation) {
        if self.state.over.get() {
            self.stray();
            return;
        }
        let out = self.state.verifier.borrow_mut().break_off(violation);
        self.forward(out);
    }
}

impl TurnSink {
    /// The sink of the turn `request` opens: its verifier — the turn's one
    /// — applies `limits` and knows the tools the turn declared.
    pub(crate) fn new(
        host: Box<dyn TurnHost>,
        request: &TurnRequest,
        limits: StreamLimits,
    ) -> TurnSink {
        TurnSink {
            state: Rc::new(SinkState {
                host,
                run: request.run.clone(),
                turn: request.turn,
                verifier: RefCell::new(TurnVerifier::for_turn(limits, request)),
                over: Cell::new(false),
                stray_reported: Cell::new(false),
            }),
        }
    }

    /// One parsed `baton/1` event, through the turn's verifier.
    pub(crate) fn push_event(&self, event: WireEvent) {
        if self.state.over.get() {
            self.stray();
            return;
        }
        let out = self.state.verifier.borrow_mut().push(event);
        self.forward(out);
    }

    /// Lends the turn's verifier to a dialect decoder (the AG-UI stream in
    /// wasm), which verifies as it decodes; hand what it yields to
    /// [`TurnSink::deliver`].
    pub(crate) fn verify(
        &self,
        decode: impl FnOnce(&mut TurnVerifier) -> Vec<Verified>,
    ) -> Vec<Verified> {
        decode(&mut self.state.verifier.borrow_mut())
    }

    /// Whether the turn's stream is over, as far as its verifier knows.
    pub(crate) fn is_over(&self) -> bool {
        self.state.over.get() || self.state.verifier.borrow().is_over()
    }

    /// Traffic the turn's verifier checked ([`TurnSink::verify`]).
    pub(crate) fn deliver(&self, out: Vec<Verified>) {
        if self.state.over.get() {
            if !out.is_empty() {
                self.stray();
            }
        } else {
            self.forward(out);
        }
    }

    /// Traffic after the turn ended: reported once, never acted on.
    pub(crate) fn stray(&self) {
        if !self.state.stray_reported.replace(true) {
            self.state.host.stray(&self.state.run, self.state.turn);
        }
    }

    /// The transport's stream ended. If the turn had not, the connection is
    /// lost.
    pub(crate) fn finish(&self) {
        if self.state.over.get() {
            return;
        }
        let out = self.state.verifier.borrow_mut().close();
        self.forward(out);
    }

    /// The transport failed; unless the turn already ended, the run returns
    /// `transport-lost` with what it said.
    pub(crate) fn lost(&self, message: String) {
        if self.state.over.get() {
            return;
        }
        self.forward(vec![Verified::Inbound(Inbound::TransportLost { message })]);
    }

    fn forward(&self, out: Vec<Verified>) {
        if out.is_empty() {
            return;
        }
        if out.iter().any(|item| {
            matches!(
                item,
                Verified::Inbound(
                    Inbound::TurnEnd
                        | Inbound::TurnFailed { .. }
                        | Inbound::TransportLost { .. }
                        | Inbound::Malformed { .. }
                )
            )
        }) {
            self.state.over.set(true);
        }
        self.state
            .host
            .deliver(&self.state.run, self.state.turn, out);
    }
}
