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
use std::collections::BTreeMap;
use std::rc::Rc;

use baton_agui::{AgUiTurn, Thread, DEFAULT_MAX_EVENT_BYTES};
use baton_core::{
    Inbound, ProtocolViolation, RunId, Script, StreamLimits, TurnId, TurnRequest, TurnVerifier,
    Verified, Violation, WireEvent,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::errors::{error, refused, Code};

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
    pub fn report(&self, violation: String) {
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
    pub(crate) fn new(
        host: Box<dyn TurnHost>,
        run: RunId,
        turn: TurnId,
        limits: StreamLimits,
    ) -> TurnSink {
        TurnSink {
            state: Rc::new(SinkState {
                host,
                run,
                turn,
                verifier: RefCell::new(TurnVerifier::new(limits)),
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

    /// Traffic another verifier already checked (a dialect adapter that
    /// verifies as it decodes).
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

fn request_of(request: JsValue) -> Result<TurnRequest, JsValue> {
    crate::convert::from_js(&request)
        .map_err(|e| error(Code::InvalidTransport, &format!("not a turn request: {e}")))
}

/// A scripted acting party: it plays a `baton/1` script, one entry per turn
/// of each run, with the script's time offsets. It drives tests, fixtures
/// and the offline demo actor.
#[wasm_bindgen]
pub struct ScriptedTransport {
    script: Rc<Script>,
    played: Rc<RefCell<BTreeMap<RunId, usize>>>,
}

#[wasm_bindgen]
impl ScriptedTransport {
    /// A transport playing `script` (an object or JSON text). A script that
    /// is not `baton/1` throws `invalid-transport` (AG-45).
    #[wasm_bindgen(constructor)]
    pub fn new(script: JsValue) -> Result<ScriptedTransport, JsValue> {
        let text = crate::convert::json_text(&script, Code::InvalidTransport, "script")?;
        let script = Script::parse(&text).map_err(|refusal| refused(&refusal))?;
        Ok(ScriptedTransport {
            script: Rc::new(script),
            played: Rc::default(),
        })
    }

    /// The protocol it speaks (AG-45).
    #[wasm_bindgen(getter, js_name = protocolVersion)]
    pub fn protocol_version(&self) -> String {
        self.script.protocol.clone()
    }

    /// Plays the run's next scripted turn into `sink`. A run with no turn
    /// left in the script gets a `turn-error`.
    #[wasm_bindgen(js_name = openTurn)]
    pub fn open_turn(
        &self,
        request: JsValue,
        sink: &TurnSink,
        signal: web_sys::AbortSignal,
    ) -> Result<js_sys::Promise, JsValue> {
        let request = request_of(request)?;
        let index = {
            let mut played = self.played.borrow_mut();
            let next = played.entry(request.run.clone()).or_insert(0);
            *next += 1;
            *next - 1
        };
        let script = Rc::clone(&self.script);
        let sink = sink.clone();
        Ok(wasm_bindgen_futures::future_to_promise(async move {
            let Some(turn) = script.turns.get(index) else {
                sink.push_event(WireEvent::TurnError {
                    message: format!("the script has no turn {}", index + 1),
                    code: None,
                });
                return Ok(JsValue::UNDEFINED);
            };
            let mut elapsed = 0;
            for scripted in &turn.events {
                if scripted.at_ms > elapsed {
                    let wait = u32::try_from(scripted.at_ms - elapsed).unwrap_or(u32::MAX);
                    gloo_timers::future::TimeoutFuture::new(wait).await;
                    elapsed = scripted.at_ms;
                }
                if signal.aborted() {
                    return Ok(JsValue::UNDEFINED);
                }
                sink.push_event(scripted.event.clone());
            }
            Ok(JsValue::UNDEFINED)
        }))
    }
}

/// Options of [`AgUiTransport`].
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AgUiOptions {
    url: String,
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

/// AG-UI 1.0 over HTTP: each turn POSTs a `RunAgentInput` with `fetch` and
/// feeds the response's Server-Sent Events, as bytes, to the sans-IO AG-UI
/// decoder in wasm. One AG-UI run is one Baton turn; a Baton run keeps one
/// AG-UI thread of messages.
#[wasm_bindgen]
pub struct AgUiTransport {
    options: Rc<AgUiOptions>,
    threads: Rc<RefCell<BTreeMap<RunId, Thread>>>,
}

#[wasm_bindgen]
impl AgUiTransport {
    /// `new AgUiTransport({ url, headers })`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<AgUiTransport, JsValue> {
        let options: AgUiOptions =
            crate::convert::from_js(&options).map_err(|e| e.thrown_as(Code::InvalidTransport))?;
        Ok(AgUiTransport {
            options: Rc::new(options),
            threads: Rc::default(),
        })
    }

    /// What it speaks toward the engine: `baton/1` (AG-45); AG-UI stays on
    /// the wire.
    #[wasm_bindgen(getter, js_name = protocolVersion)]
    pub fn protocol_version(&self) -> String {
        baton_agui::PROTOCOL_VERSION.to_owned()
    }

    /// Runs one AG-UI run for the turn. Resolves when the response ends;
    /// rejects when the request fails or the connection breaks.
    #[wasm_bindgen(js_name = openTurn)]
    pub fn open_turn(
        &self,
        request: JsValue,
        sink: &TurnSink,
        signal: web_sys::AbortSignal,
    ) -> Result<js_sys::Promise, JsValue> {
        let request = request_of(request)?;
        let input = self
            .threads
            .borrow_mut()
            .entry(request.run.clone())
            .or_default()
            .input(&request);
        let options = Rc::clone(&self.options);
        let threads = Rc::clone(&self.threads);
        let sink = sink.clone();
        Ok(wasm_bindgen_futures::future_to_promise(async move {
            let mut turn = AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES, StreamLimits::default())
                .for_thread(request.session.as_str());
            let outcome = stream(&options, &input, &signal, &mut turn, &sink).await;
            if let Some(message) =
                turn.assistant_message(&format!("{}/{}", request.run, request.turn))
            {
                if let Some(thread) = threads.borrow_mut().get_mut(&request.run) {
                    thread.push_assistant(message);
                }
            }
            match outcome {
                Ok(()) => {
                    sink.deliver(turn.finish());
                    Ok(JsValue::UNDEFINED)
                }
                Err(Failure::Http(message)) => {
                    sink.deliver(vec![Verified::Inbound(Inbound::TurnFailed { message })]);
                    Ok(JsValue::UNDEFINED)
                }
                Err(Failure::Lost(message)) => Err(error(Code::TransportLost, &message)),
            }
        }))
    }
}

enum Failure {
    /// The agent answered, with an HTTP error.
    Http(String),
    /// No answer, or the connection broke.
    Lost(String),
}

async fn stream(
    options: &AgUiOptions,
    input: &serde_json::Value,
    signal: &web_sys::AbortSignal,
    turn: &mut AgUiTurn,
    sink: &TurnSink,
) -> Result<(), Failure> {
    let lost = |thrown: JsValue| Failure::Lost(crate::calls::message_of(&thrown));
    let headers = web_sys::Headers::new().map_err(lost)?;
    headers
        .set("Content-Type", "application/json")
        .map_err(lost)?;
    headers.set("Accept", "text/event-stream").map_err(lost)?;
    for (name, value) in &options.headers {
        headers.set(name, value).map_err(lost)?;
    }
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&input.to_string()));
    init.set_signal(Some(signal));
    let window = web_sys::window().ok_or_else(|| Failure::Lost("no window".into()))?;
    let response: web_sys::Response =
        JsFuture::from(window.fetch_with_str_and_init(&options.url, &init))
            .await
            .map_err(lost)?
            .unchecked_into();
    if !response.ok() {
        let body = match response.text() {
            Ok(promise) => JsFuture::from(promise)
                .await
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default(),
            Err(_) => String::new(),
        };
        let body: String = body.chars().take(500).collect();
        return Err(Failure::Http(format!(
            "the agent answered HTTP {}: {body}",
            response.status()
        )));
    }
    let body = response
        .body()
        .ok_or_else(|| Failure::Lost("the response has no body".into()))?;
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(lost)?;
        if js_sys::Reflect::get(&chunk, &"done".into())
            .map(|done| done.is_truthy())
            .unwrap_or(true)
        {
            return Ok(());
        }
        let value = js_sys::Reflect::get(&chunk, &"value".into()).map_err(lost)?;
        let bytes = js_sys::Uint8Array::new(&value).to_vec();
        sink.deliver(turn.feed(&bytes));
        if turn.events_after_end() > 0 {
            sink.stray();
        }
        if turn.is_over() {
            let _ = JsFuture::from(reader.cancel()).await;
            return Ok(());
        }
    }
}
