//! AG-UI 1.0 over HTTP, in wasm end to end: the engine hands the turn's
//! request to it in Rust, the response's bytes go to the sans-IO AG-UI
//! decoder and through the turn's own verifier (lent by its [`TurnSink`]),
//! so the limits the app set hold on this transport as on any other;
//! nothing crosses into JS values on the way, in or out.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use baton_agui::{AgUiTurn, Thread, ThreadScope, DEFAULT_MAX_EVENT_BYTES};
use baton_core::{Inbound, RunId, TraceContext, TurnRequest, Verified};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::{Own, TurnSink};
use crate::errors::Code;

#[wasm_bindgen(module = "/src/page_apis.js")]
extern "C" {
    #[wasm_bindgen(js_name = publicJwk)]
    fn public_jwk() -> js_sys::Promise;
    /// The request body `input` (JSON text) with the decision records of
    /// its resume entries signed in place (`metadata.approval`: `alg`,
    /// `kid`, `signature` beside its `record`; `unsigned`, saying why, when
    /// it cannot be). Never rejects.
    #[wasm_bindgen(js_name = signApprovals)]
    fn sign_approvals(input: String) -> js_sys::Promise;
    /// The start of an error response's body (500 characters at most),
    /// read to 2 KiB and the rest cancelled. Never rejects.
    #[wasm_bindgen(js_name = errorBody)]
    fn error_body(response: &web_sys::Response) -> js_sys::Promise;
}

/// `approvalKey()`: the public half of this origin's approval key, as a JWK
/// (`kty`, `crv`, `x`, `y`, its RFC 7638 thumbprint as `kid`, `alg:
/// "ES256"`). The AG-UI transport signs every decision the person makes
/// about an agent's own call with the private half, which WebCrypto keeps
/// non-extractable in IndexedDB; the app publishes this for agent servers
/// to verify the records with.
#[wasm_bindgen(js_name = approvalKey)]
pub fn approval_key() -> js_sys::Promise {
    public_jwk()
}

/// Options of [`AgUiTransport`].
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AgUiOptions {
    url: String,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// `"session"` (the default) or `"run"`.
    #[serde(default)]
    thread: Scope,
}

#[derive(serde::Deserialize, Default, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Scope {
    #[default]
    Session,
    Run,
}

impl From<Scope> for ThreadScope {
    fn from(scope: Scope) -> ThreadScope {
        match scope {
            Scope::Session => ThreadScope::Session,
            Scope::Run => ThreadScope::Run,
        }
    }
}

/// Each thread's transcript, by thread id: a handful (one per session, or
/// one per run), so a list.
type Threads = Rc<RefCell<Vec<(String, Thread)>>>;

/// The transcript of `thread`, begun if it is new.
fn transcript<'a>(threads: &'a mut Vec<(String, Thread)>, thread: &str) -> &'a mut Thread {
    let index = match threads.iter().position(|(id, _)| id == thread) {
        Some(index) => index,
        None => {
            threads.push((thread.to_owned(), Thread::new()));
            threads.len() - 1
        }
    };
    &mut threads[index].1
}

/// What an AG-UI transport keeps: where the agent is, each thread's
/// transcript, and which thread each run's turns went to.
pub(crate) struct AgUi {
    options: Rc<AgUiOptions>,
    threads: Threads,
    /// The thread each run's turns went to.
    runs: RefCell<Vec<(RunId, String)>>,
}

impl AgUi {
    /// What became of a run's calls its agent had not heard of when the run
    /// ended: each is answered in the thread's transcript with a `tool`
    /// message — a rejected plan's calls with `error` saying so, and the
    /// person's note — so the next request on the thread tells the agent.
    pub(super) fn settle(&self, run: &RunId, results: &[baton_core::CallReport]) {
        let thread = (self.runs.borrow().iter())
            .find(|(id, _)| id == run)
            .map(|(_, thread)| thread.clone());
        if let Some(thread) = thread {
            transcript(&mut self.threads.borrow_mut(), &thread).settle(run, results);
        }
    }

    /// Runs one AG-UI run for the turn: `Ok` when the response ends (or the
    /// agent answered with an HTTP error, which the turn hears), `Err` when
    /// the request fails or the connection breaks.
    pub(super) async fn open_turn(
        &self,
        request: TurnRequest,
        sink: TurnSink,
        signal: web_sys::AbortSignal,
    ) -> Result<(), String> {
        let thread = ThreadScope::from(self.options.thread).thread_of(&request);
        {
            let mut runs = self.runs.borrow_mut();
            if !runs.iter().any(|(run, _)| *run == request.run) {
                runs.push((request.run.clone(), thread.clone()));
            }
        }
        let input = transcript(&mut self.threads.borrow_mut(), &thread).input(&thread, &request);
        let approvals = (input.get("resume").and_then(|r| r.as_array())).is_some_and(|resume| {
            resume
                .iter()
                .any(|e| e.pointer("/metadata/approval").is_some())
        });
        let body = input.to_string();
        let mut spoken = Transcript {
            threads: Rc::clone(&self.threads),
            thread: thread.clone(),
            run: request.run.clone(),
            recorded: false,
        };
        // The person's decisions about the agent's own calls go out signed.
        let body = match approvals {
            true => JsFuture::from(sign_approvals(body.clone()))
                .await
                .ok()
                .and_then(|signed| signed.as_string())
                .unwrap_or(body),
            false => body,
        };
        let mut turn = AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES).for_thread(thread);
        let trace = request.trace.as_ref();
        let outcome = stream(
            &self.options,
            trace,
            &body,
            &signal,
            &mut turn,
            &sink,
            &mut spoken,
        )
        .await;
        // A turn the engine cut off is not part of the conversation: what it
        // streamed may stop mid-call (arguments that are not JSON).
        if !signal.aborted() {
            spoken.record(&turn);
        }
        match outcome {
            Ok(()) => {
                let out = sink.verify(|verifier| turn.finish(verifier));
                sink.deliver(out);
                Ok(())
            }
            Err(Failure::Http { status, message }) => {
                sink.deliver(vec![Verified::Inbound(Inbound::AgentError {
                    status,
                    message,
                })]);
                Ok(())
            }
            Err(Failure::Lost(message)) => Err(message),
        }
    }
}

/// AG-UI 1.0 over HTTP: each turn POSTs a `RunAgentInput` with `fetch` and
/// feeds the response's Server-Sent Events, as bytes, to the sans-IO AG-UI
/// decoder in wasm. One AG-UI run is one Baton turn. A thread — by default
/// one per engine session, or one per delegation (`thread: "run"`) — keeps
/// one transcript, and every request on it carries the whole of it. The
/// engine drives it in Rust (`transport/own.rs`): the turn's request, its events and
/// the calls settled after a run reach it without crossing into JS values.
#[wasm_bindgen]
pub struct AgUiTransport {
    handle: u32,
}

impl Drop for AgUiTransport {
    fn drop(&mut self) {
        Own::forget(self.handle);
    }
}

#[wasm_bindgen]
impl AgUiTransport {
    /// `new AgUiTransport({ url, headers, thread })`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<AgUiTransport, JsValue> {
        let options: AgUiOptions =
            crate::convert::from_js(&options).map_err(|e| e.thrown_as(Code::InvalidTransport))?;
        let own = Rc::new(AgUi {
            options: Rc::new(options),
            threads: Rc::default(),
            runs: RefCell::default(),
        });
        let handle = Own::register(Own::AgUi(own));
        Ok(AgUiTransport { handle })
    }

    /// What it speaks toward the engine: `baton/1` (AG-45); AG-UI stays on
    /// the wire.
    #[wasm_bindgen(getter, js_name = protocolVersion)]
    pub fn protocol_version(&self) -> String {
        baton_agui::PROTOCOL_VERSION.to_owned()
    }

    /// How the engine finds this transport's Rust side.
    #[wasm_bindgen(getter, js_name = batonTransport, skip_typescript)]
    pub fn handle(&self) -> u32 {
        self.handle
    }
}

/// What one turn adds to its thread's transcript, recorded once: as soon
/// as its stream is over and before the engine hears so, because the
/// engine may open the next turn — whose request carries the transcript —
/// the moment it does.
struct Transcript {
    threads: Threads,
    thread: String,
    run: RunId,
    recorded: bool,
}

impl Transcript {
    fn record(&mut self, turn: &AgUiTurn) {
        if std::mem::replace(&mut self.recorded, true) {
            return;
        }
        let mut threads = self.threads.borrow_mut();
        let thread = transcript(&mut threads, &self.thread);
        if let Some(snapshot) = turn.snapshot() {
            thread.adopt(&self.run, snapshot);
        }
        thread.record(&self.run, turn.messages());
        thread.await_resume(&self.run, turn.approvals());
    }
}

/// The most bytes of a network read decoded in one call (see [`decode`]).
const SLICE_BYTES: u32 = 16 * 1024;

/// One network read through the turn's decoder and verifier. A read can
/// hold a megabyte: it is decoded a slice at a time, each a call of its
/// own, because the browser optimises a hot function for the calls after
/// its optimised code is ready, never for one under way. Out of the
/// stream's own (large) function, so that only this small loop and the
/// decoder are what the browser optimises.
#[inline(never)]
fn decode(
    turn: &mut AgUiTurn,
    sink: &TurnSink,
    bytes: &js_sys::Uint8Array,
    slice: &mut Vec<u8>,
) -> Vec<Verified> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < bytes.length() {
        let end = bytes.length().min(start + SLICE_BYTES);
        slice.resize((end - start) as usize, 0);
        bytes.subarray(start, end).copy_to(slice);
        out.extend(sink.verify(|verifier| turn.feed(slice, verifier)));
        start = end;
    }
    out
}

enum Failure {
    /// The agent answered, with an HTTP error.
    Http { status: u16, message: String },
    /// No answer, or the connection broke.
    Lost(String),
}

async fn stream(
    options: &AgUiOptions,
    trace: Option<&TraceContext>,
    body: &str,
    signal: &web_sys::AbortSignal,
    turn: &mut AgUiTurn,
    sink: &TurnSink,
    transcript: &mut Transcript,
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
    // The turn's span, so the agent server's spans join the page's trace.
    if let Some(trace) = trace {
        headers
            .set("traceparent", trace.traceparent())
            .map_err(lost)?;
        if let Some(state) = trace.tracestate() {
            headers.set("tracestate", state).map_err(lost)?;
        }
    }
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(body));
    init.set_signal(Some(signal));
    let window = web_sys::window().ok_or_else(|| Failure::Lost("no window".into()))?;
    let response: web_sys::Response =
        JsFuture::from(window.fetch_with_str_and_init(&options.url, &init))
            .await
            .map_err(lost)?
            .unchecked_into();
    if !response.ok() {
        let body = JsFuture::from(error_body(&response))
            .await
            .ok()
            .and_then(|body| body.as_string())
            .unwrap_or_default();
        let status = response.status();
        return Err(Failure::Http {
            status,
            message: format!("the agent answered HTTP {status}: {body}"),
        });
    }
    let body = response
        .body()
        .ok_or_else(|| Failure::Lost("the response has no body".into()))?;
    let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut slice = Vec::new();
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(lost)?;
        if js_sys::Reflect::get(&chunk, &"done".into())
            .map(|done| done.is_truthy())
            .unwrap_or(true)
        {
            return Ok(());
        }
        let value = js_sys::Reflect::get(&chunk, &"value".into()).map_err(lost)?;
        // A chunk is a `Uint8Array` of this page, read where it is; any
        // other (another realm's, an `ArrayBuffer` from a wrapped `fetch`)
        // is copied into one.
        let bytes = match value.dyn_into::<js_sys::Uint8Array>() {
            Ok(bytes) => bytes,
            Err(value) => js_sys::Uint8Array::new(&value),
        };
        let out = decode(turn, sink, &bytes, &mut slice);
        let over = sink.is_over();
        if over {
            transcript.record(turn);
        }
        sink.deliver(out);
        if turn.events_after_end() > 0 {
            sink.stray();
        }
        if over {
            let _ = JsFuture::from(reader.cancel()).await;
            return Ok(());
        }
    }
}
