//! The JS `Engine`: the core's engine driven by the browser — its clock and
//! random source as inputs, participants' behaviour (possibly async) as the
//! answers to the core's effects, `setTimeout` for the core's timers, and the
//! page's one live region for what the person hears.
//!
//! Everything that decides stays in `baton-core`; this module only carries
//! events out and reports back in.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};

use baton_core::{
    Autonomy, CallResult, DeepRead, Delegation, Effect, EngineConfig, Event, Inbound,
    JournalRecord, MarkToken, ParticipantId, ReadRef, Refusal, RunId, TurnId, TurnRequest,
    Verified,
};
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};

use crate::convert;
use crate::errors::{error, error_for, refused, wrapped, Code, Coded};
use crate::live_region::LiveRegion;
use crate::transport::{TurnHost, TurnSink};

/// The most deep-read content one turn carries, in bytes of JSON; reads are
/// taken in attention order (focus, then viewport) until it is spent.
const DEEP_READ_BYTES: usize = 64 * 1024;

/// Options of `Engine.open`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct OpenOptions {
    /// The application's name.
    #[serde(default)]
    app_name: Option<String>,
    /// Who acts, as the person hears it (`Assistant` by default).
    #[serde(default)]
    actor_name: Option<String>,
    /// The session to continue; a new one by default.
    #[serde(default)]
    session: Option<String>,
    /// The application's autonomy ceiling (AG-24); `review` by default.
    #[serde(default)]
    ceiling: Option<Autonomy>,
    /// `warn` (default) or `require`: acting with no presence attached (AG-35).
    #[serde(default)]
    presence: Option<baton_core::PresencePolicy>,
    /// `indexeddb` (default) or `memory`.
    #[serde(default)]
    storage: persist::StorageMode,
    /// The IndexedDB database (`baton` by default); every session of the
    /// origin may share it.
    #[serde(default)]
    db_name: Option<String>,
}

/// Options that are live JS objects rather than JSON, taken out before the
/// rest is parsed.
const OBJECT_OPTIONS: [&str; 2] = ["liveRegionParent", "transport"];

/// A transport must declare the protocol it speaks (AG-45) and open turns.
fn check_transport(transport: &JsValue) -> Result<(), JsValue> {
    let declared = get(transport, "protocolVersion").as_string();
    baton_core::check_version(declared.as_deref()).map_err(|refusal| refused(&refusal))?;
    if !get(transport, "openTurn").is_function() {
        return Err(error(
            Code::InvalidTransport,
            "a transport needs an `openTurn(request, sink, signal)` method",
        ));
    }
    Ok(())
}

struct Inner {
    core: baton_core::Engine,
    region: LiveRegion,
    app_name: String,
    actor_name: String,
    behaviours: BTreeMap<ParticipantId, JsValue>,
    subscribers: Vec<(u32, js_sys::Function)>,
    /// Attached presence surfaces; each gets every event at `handleEvent`.
    surfaces: Vec<(u32, JsValue)>,
    next_subscriber: u32,
    /// The core's one timer (dropping it cancels it).
    timer: Option<gloo_timers::callback::Timeout>,
    /// Where state is persisted; `None` in memory (by choice or fallen back).
    store: Option<Rc<crate::store::Store>>,
    storage: persist::StorageStatus,
    /// Releases this session's Web Lock.
    release: Option<js_sys::Function>,
    /// Step transactions not yet committed.
    writes_in_flight: u32,
    /// Set while a step's events are drained.
    pumping: bool,
    /// The `presence` object, made once.
    presence: Option<JsValue>,
    /// The header changed without a journal record (disable, enable).
    header_dirty: bool,
    /// The acting party's transport, if any (AG-50).
    transport: Option<JsValue>,
    /// Open turns' requests, to abort when the engine stops waiting.
    turns: BTreeMap<(RunId, TurnId), web_sys::AbortController>,
    busy: BTreeMap<ParticipantId, u32>,
    /// The promises of undos under way, resolved with their reports.
    undos: BTreeMap<RunId, js_sys::Function>,
    /// The document's Escape listener, removed on close.
    escape: Option<Closure<dyn FnMut(web_sys::KeyboardEvent)>>,
    /// `registration-refused` events, replayed to every new subscriber.
    refusals: Vec<Value>,
    #[cfg_attr(not(test), allow(dead_code))]
    announced: Vec<String>,
}

/// A Baton engine in the page.
#[wasm_bindgen]
pub struct Engine {
    inner: Rc<RefCell<Inner>>,
}

fn now() -> u64 {
    js_sys::Date::now() as u64
}

fn window() -> Result<web_sys::Window, JsValue> {
    web_sys::window().ok_or_else(|| error(Code::NoWindow, "Baton runs in a browser window"))
}

fn get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// Calls `object[method](...args)` now, synchronously; what it returned
/// (a value or a promise) as a promise. A missing method or a throw is an
/// error message.
fn call(object: &JsValue, method: &str, args: &[JsValue]) -> Result<js_sys::Promise, String> {
    let function = get(object, method);
    let Some(function) = function.dyn_ref::<js_sys::Function>() else {
        return Err(format!("`{method}` is missing"));
    };
    let array: js_sys::Array = args.iter().collect();
    function
        .apply(object, &array)
        .map(|returned| js_sys::Promise::resolve(&returned))
        .map_err(|thrown| message_of(&thrown))
}

/// What a [`call`] settled to.
async fn settled(called: Result<js_sys::Promise, String>) -> Result<JsValue, String> {
    JsFuture::from(called?)
        .await
        .map_err(|thrown| message_of(&thrown))
}

/// Calls `object[method](...args)` now and hands the (possibly async)
/// result to `done` later, never from inside the call.
fn call_then(
    object: &JsValue,
    method: &str,
    args: &[JsValue],
    done: impl FnOnce(Result<JsValue, String>) + 'static,
) {
    let called = call(object, method, args);
    spawn_local(async move { done(settled(called).await) });
}

pub(crate) fn message_of(thrown: &JsValue) -> String {
    thrown
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| thrown.as_string())
        .unwrap_or_else(|| "an exception without a message".into())
}

/// A participant declines a call — nothing changed, the acting party may
/// correct itself — by throwing an error whose message starts `declined:`.
/// Any other error is a failure of the call (AG-8).
fn declined_message(thrown_message: &str) -> Option<&str> {
    thrown_message.strip_prefix("declined:").map(str::trim)
}

#[wasm_bindgen]
impl Engine {
    /// Opens an engine: creates (or joins) the page's one polite live region
    /// before any message (AG-36), opens storage and reconciles what a
    /// reload or crash left behind, and uses the database's key for actor
    /// references (drawn from the browser's cryptographic random source the
    /// first time, AG-33).
    ///
    /// Options: `appName`, `actorName`, `session`, `ceiling`, `presence`,
    /// `transport` (AG-45 checked here), `storage` (`indexeddb` or
    /// `memory`), `dbName`, and `liveRegionParent` (an element to hold the
    /// region). A session another live engine drives is refused with
    /// `session-in-use`; IndexedDB failing is not an error (the engine runs
    /// in memory and says so).
    #[wasm_bindgen(js_name = open)]
    pub async fn open(options: JsValue) -> Result<Engine, JsValue> {
        let (parent, transport) = if options.is_object() {
            let transport = get(&options, "transport");
            (
                get(&options, "liveRegionParent")
                    .dyn_into::<web_sys::Element>()
                    .ok(),
                (!transport.is_undefined() && !transport.is_null()).then_some(transport),
            )
        } else {
            (None, None)
        };
        if let Some(transport) = &transport {
            check_transport(transport)?;
        }
        let options: OpenOptions = if options.is_object() {
            let copy = js_sys::Object::assign(&js_sys::Object::new(), options.unchecked_ref());
            for key in OBJECT_OPTIONS {
                js_sys::Reflect::delete_property(&copy, &key.into())
                    .map_err(|thrown| wrapped(Code::InvalidOptions, "the options", &thrown))?;
            }
            serde_wasm_bindgen::from_value(copy.into())
                .map_err(|e| error(Code::InvalidOptions, &e.to_string()))?
        } else {
            OpenOptions::default()
        };
        let document = window()?
            .document()
            .ok_or_else(|| error(Code::NoWindow, "Baton needs a document for its live region"))?;
        let region = LiveRegion::attach(&document, parent.as_ref())
            .map_err(|thrown| wrapped(Code::NoWindow, "the live region", &thrown))?;
        let crypto = window()?.crypto().map_err(|thrown| {
            wrapped(Code::NoWindow, "the cryptographic random source", &thrown)
        })?;
        let mut key = [0u8; 32];
        crypto
            .get_random_values_with_u8_array(&mut key)
            .map_err(|thrown| {
                wrapped(Code::NoWindow, "the cryptographic random source", &thrown)
            })?;
        let session = options.session.unwrap_or_else(|| crypto.random_uuid());
        let mut config = EngineConfig::new(session);
        if let Some(ceiling) = options.ceiling {
            config.ceiling = ceiling;
        }
        if let Some(presence) = options.presence {
            config.presence = presence;
        }
        let db_name = options.db_name.unwrap_or_else(|| "baton".into());
        let opened = persist::open(options.storage, &db_name, config, key, now()).await?;
        let engine = Engine {
            inner: Rc::new(RefCell::new(Inner {
                core: opened.core,
                store: opened.store,
                storage: opened.status,
                release: opened.release,
                writes_in_flight: 0,
                pumping: false,
                presence: None,
                header_dirty: false,
                region,
                app_name: options.app_name.unwrap_or_else(|| "The application".into()),
                actor_name: options.actor_name.unwrap_or_else(|| "Assistant".into()),
                behaviours: BTreeMap::new(),
                subscribers: Vec::new(),
                surfaces: Vec::new(),
                next_subscriber: 0,
                timer: None,
                transport,
                turns: BTreeMap::new(),
                busy: BTreeMap::new(),
                undos: BTreeMap::new(),
                escape: None,
                refusals: Vec::new(),
                announced: Vec::new(),
            })),
        }
        .listening_for_escape(&document);
        engine.watch_version_changes();
        page::join(&engine.inner);
        // Runs a reload or crash left active return `interrupted`, overdue
        // questions expire, lapsed grants drop — and that is written back.
        let reconciled = {
            let mut inner = engine.inner.borrow_mut();
            let at = now();
            inner.core.reconcile(at)
        };
        if reconciled.grants_dropped > 0 {
            engine.inner.borrow_mut().header_dirty = true;
        }
        pump(&engine.inner);
        Ok(engine)
    }

    /// Where the engine keeps its state: `{ mode: "indexeddb" | "memory",
    /// degraded?, dbName?, transactions, records, reconciled }`.
    #[wasm_bindgen(getter)]
    pub fn storage(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.borrow().storage)
    }

    /// A run's whole journal, oldest first, from IndexedDB — runs of
    /// earlier page loads included — or from memory without storage.
    pub fn history(&self, run: &str) -> js_sys::Promise {
        let store = self.inner.borrow().store.clone();
        let memory = self.journal(run);
        let run = run.to_owned();
        wasm_bindgen_futures::future_to_promise(async move {
            let Some(store) = store else {
                return memory;
            };
            let records = store
                .journal(&run)
                .await
                .map_err(|cause| error(Code::StorageFailed, &cause))?;
            let array = js_sys::Array::new();
            for text in records {
                array.push(&js_sys::JSON::parse(&text)?);
            }
            if array.length() == 0 {
                return memory;
            }
            Ok(array.into())
        })
    }

    /// The session this engine drives.
    #[wasm_bindgen(getter)]
    pub fn session(&self) -> String {
        self.inner.borrow().core.config().session.to_string()
    }

    /// Mounts a participant: its manifest (JSON text or object) and its
    /// behaviour `{ invoke, history: { mark, revertTo }, preview, element,
    /// instance }`. `invoke` declines a call, without failing it, by
    /// throwing an error whose message starts `declined:`. Inert (AG-12);
    /// with no transport the participant keeps working as before (AG-50).
    ///
    /// Never throws for a manifest's problems (AG-13): the returned handle's
    /// `problems` lists each, with its requirement and JSON path; the engine
    /// emits one `registration-refused` event (replayed to later
    /// subscribers) and one console warning; the participant offers no
    /// tools, and only a call to one of its capabilities fails, with those
    /// problems.
    pub fn register(&self, manifest: JsValue, behaviour: JsValue) -> Participant {
        let text = match manifest.as_string() {
            Some(text) => Ok(text),
            None => js_sys::JSON::stringify(&manifest)
                .ok()
                .and_then(|text| text.as_string())
                .ok_or_else(|| "the manifest is neither JSON text nor an object".to_owned()),
        };
        let instance = if behaviour.is_object() {
            get(&behaviour, "instance").as_string()
        } else {
            None
        };
        let registered = {
            let mut inner = self.inner.borrow_mut();
            let registered = match &text {
                Ok(text) => inner.core.register_text(text, instance.as_deref()),
                Err(message) => Err(baton_core::RegistrationRefused {
                    participant: None,
                    problems: vec![baton_core::ManifestProblem {
                        path: "$".into(),
                        requirement: Some("AG-12".into()),
                        message: message.clone(),
                    }],
                }),
            };
            if let Ok(id) = &registered {
                inner.behaviours.insert(id.clone(), behaviour);
            }
            registered
        };
        match registered {
            Ok(id) => Participant {
                engine: Rc::downgrade(&self.inner),
                id,
                problems: Vec::new(),
            },
            Err(refused) => {
                refuse_registration(&self.inner, &refused);
                Participant {
                    engine: Rc::downgrade(&self.inner),
                    id: refused
                        .participant
                        .unwrap_or_else(|| ParticipantId::new("")),
                    problems: refused.problems,
                }
            }
        }
    }

    /// Starts a delegation and returns its run id. With a fixed `plan` no
    /// acting party is involved (AG-3); without one, the acting party is
    /// reached through a transport, and with none configured this throws a
    /// `BatonError` with code `no-transport` (AG-50).
    pub fn delegate(&self, request: JsValue) -> Result<String, JsValue> {
        let request: Value = serde_wasm_bindgen::from_value(request)
            .map_err(|e| error(Code::InvalidDelegation, &e.to_string()))?;
        let delegation = Delegation::from_json(request).map_err(|refusal| refused(&refusal))?;
        if delegation.plan.is_none() && self.inner.borrow().transport.is_none() {
            return Err(error_for(
                Code::NoTransport,
                "AG-50",
                "AG-50: no transport is configured, so no acting party can be reached; participants keep working without one",
            ));
        }
        self.command(|core, now| core.delegate(now, delegation))
            .map(|run| run.to_string())
    }

    /// Authorizes a reviewed plan at the revision the person saw (AG-7,
    /// AG-31). `options` may narrow the allowlist (`["tasks.rename"]`), fix
    /// the budget, and make it a standing grant for a while
    /// (`grant: { ttlMs }`, AG-30).
    pub fn authorize(&self, run: &str, revision: f64, options: JsValue) -> Result<(), JsValue> {
        let revision = convert::whole(revision, "a revision")?;
        let options = convert::json(options, "the authorization")?;
        let authorization = if options.is_null() {
            baton_core::Authorization::default()
        } else {
            baton_core::Authorization::from_json(options).map_err(|refusal| refused(&refusal))?
        };
        let granted = authorization.grant_ms.is_some();
        self.command(|core, now| core.authorize(now, &RunId::new(run), revision, authorization))?;
        if granted {
            self.inner.borrow_mut().header_dirty = true;
            pump(&self.inner);
        }
        Ok(())
    }

    /// The person takes control back: the run returns `aborted` (AG-9).
    pub fn stop(&self, run: &str) -> Result<(), JsValue> {
        self.command(|core, now| core.stop(now, &RunId::new(run)))
    }

    /// Pauses a run: it returns, and a chained run can resume it (AG-11).
    pub fn pause(&self, run: &str) -> Result<(), JsValue> {
        self.command(|core, now| core.pause(now, &RunId::new(run)))
    }

    /// Resumes a run that was paused, or whose transport was lost with
    /// nothing rolled back: a new run, chained to it, carrying its context
    /// (AG-11). Nothing reconnects on its own; this is the person's choice.
    /// `budget` replaces the old one if given. Returns the new run's id.
    pub fn resume(&self, run: &str, budget: JsValue) -> Result<String, JsValue> {
        let budget = if budget.is_undefined() || budget.is_null() {
            None
        } else {
            Some(
                serde_wasm_bindgen::from_value::<baton_core::Budget>(budget)
                    .map_err(|e| error(Code::InvalidDelegation, &e.to_string()))?,
            )
        };
        self.command(|core, now| core.resume(now, &RunId::new(run), budget))
            .map(|id| id.to_string())
    }

    /// The global kill (AG-10): every active run of every engine in the
    /// page returns `aborted`, and so does every run of the origin's other
    /// tabs (told over a `BroadcastChannel`). Each run is journalled; the
    /// person hears it once, from this engine, for all of them. Returns how
    /// many runs of this page it ended.
    #[wasm_bindgen(js_name = killAll)]
    pub fn kill_all(&self) -> u32 {
        let ended = page::kill_page(Some(&self.inner));
        page::tell_other_tabs();
        ended
    }

    /// Calls `listener(event)` for every event the engine produces; returns
    /// a function that unsubscribes.
    pub fn subscribe(&self, listener: js_sys::Function) -> JsValue {
        let id = {
            let mut inner = self.inner.borrow_mut();
            inner.next_subscriber += 1;
            let id = inner.next_subscriber;
            inner.subscribers.push((id, listener.clone()));
            id
        };
        // A subscriber always learns that storage fell back to memory and
        // which registrations were refused, whenever it subscribes.
        let (degraded, refusals) = {
            let inner = self.inner.borrow();
            (inner.storage.degraded.clone(), inner.refusals.clone())
        };
        let standing = degraded
            .map(|cause| serde_json::json!({"type": "storage-degraded", "cause": cause}))
            .into_iter()
            .chain(refusals);
        for event in standing {
            if let Ok(event) = to_js(&event) {
                let _ = listener.call1(&JsValue::NULL, &event);
            }
        }
        let weak = Rc::downgrade(&self.inner);
        Closure::once_into_js(move || {
            if let Some(inner) = weak.upgrade() {
                inner
                    .borrow_mut()
                    .subscribers
                    .retain(|(other, _)| *other != id);
            }
        })
    }

    /// Presence surfaces (AG-35, AG-41): `engine.presence.attach(surface)`
    /// returns a function that detaches it. An attached surface receives
    /// every event at `surface.handleEvent(event)` — questions included, as
    /// non-modal events it can answer, decline, dismiss or postpone. While none is attached, a run above
    /// `suggest` that starts acting raises `presence-missing` (policy
    /// `warn`) or is refused (policy `require`).
    #[wasm_bindgen(getter)]
    pub fn presence(&self) -> JsValue {
        if let Some(made) = self.inner.borrow().presence.clone() {
            return made;
        }
        let weak = Rc::downgrade(&self.inner);
        let attach = Closure::<dyn FnMut(JsValue) -> JsValue>::new(move |surface: JsValue| {
            let Some(inner) = weak.upgrade() else {
                return JsValue::UNDEFINED;
            };
            let id = {
                let mut inner = inner.borrow_mut();
                inner.core.attach_presence();
                inner.next_subscriber += 1;
                let id = inner.next_subscriber;
                inner.surfaces.push((id, surface));
                id
            };
            let weak = Rc::downgrade(&inner);
            Closure::once_into_js(move || {
                if let Some(inner) = weak.upgrade() {
                    let mut inner = inner.borrow_mut();
                    inner.core.detach_presence();
                    inner.surfaces.retain(|(other, _)| *other != id);
                }
            })
        });
        let object = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&object, &"attach".into(), attach.as_ref());
        // Made once per engine; the function lives as long as the page may
        // call it.
        attach.forget();
        let object: JsValue = object.into();
        self.inner.borrow_mut().presence = Some(object.clone());
        object
    }

    /// The person rejects a plan under review, at the revision they saw.
    pub fn reject(&self, run: &str, revision: f64, note: Option<String>) -> Result<(), JsValue> {
        let note = note.unwrap_or_default();
        let revision = convert::whole(revision, "a revision")?;
        self.command(|core, now| core.reject(now, &RunId::new(run), revision, &note))
    }

    /// Answers a question (AG-41): bound to its id and request digest,
    /// validated against its schema, failing closed. Returns the acceptance.
    pub fn answer(
        &self,
        question: &str,
        digest: &str,
        answer: JsValue,
    ) -> Result<JsValue, JsValue> {
        let digest = baton_core::Digest::from_hex(digest).ok_or_else(|| {
            error_for(
                Code::DigestMismatch,
                "AG-41",
                "AG-41: the request digest is not 64 hex digits",
            )
        })?;
        let answer: Value = serde_wasm_bindgen::from_value(answer).map_err(|e| {
            error_for(
                Code::InvalidAnswer,
                "AG-41",
                &format!("AG-41: the answer is not JSON: {e}"),
            )
        })?;
        let acceptance = self.command(|core, now| {
            core.answer(now, &baton_core::QuestionId::new(question), &digest, answer)
        })?;
        to_js(&acceptance)
    }

    /// Declines a question; the run goes on without the answer.
    pub fn decline(&self, question: &str) -> Result<(), JsValue> {
        self.command(|core, now| core.decline(now, &baton_core::QuestionId::new(question)))
    }

    /// Dismisses a question: the person chose not to deal with it; the run
    /// goes on as if it had been declined, and the surface stops showing it.
    pub fn dismiss(&self, question: &str) -> Result<(), JsValue> {
        self.command(|core, now| core.dismiss(now, &baton_core::QuestionId::new(question)))
    }

    /// Resolves an escalation at the revision the person saw: `"allow"`,
    /// `"deny"`, `"review"`, `"return"`, or `{ kind: "allow", budget }`.
    #[wasm_bindgen(js_name = resolveEscalation)]
    pub fn resolve_escalation(
        &self,
        run: &str,
        revision: f64,
        resolution: JsValue,
    ) -> Result<(), JsValue> {
        let revision = convert::whole(revision, "a revision")?;
        let invalid = |e: &dyn std::fmt::Display| error(Code::InvalidResolution, &e.to_string());
        let value = match resolution.as_string() {
            Some(kind) => serde_json::json!({ "kind": kind }),
            None => serde_wasm_bindgen::from_value(resolution).map_err(|e| invalid(&e))?,
        };
        let resolution: baton_core::Resolution =
            serde_json::from_value(value).map_err(|e| invalid(&e))?;
        self.command(|core, now| {
            core.resolve_escalation(now, &RunId::new(run), revision, resolution)
        })
    }

    /// Sets the `to-agent` state every later turn carries to the acting
    /// party (AG-47; AG-UI `state`): context the application wants it to
    /// have, kept apart from the agent's own state. `null` sends none.
    #[wasm_bindgen(js_name = setAgentState)]
    pub fn set_agent_state(&self, state: JsValue) -> Result<(), JsValue> {
        let state: Value = serde_wasm_bindgen::from_value(state).map_err(|e| {
            error(
                Code::InvalidState,
                &format!("AG-47: the state is not JSON: {e}"),
            )
        })?;
        self.inner.borrow_mut().core.set_agent_state(state);
        Ok(())
    }

    /// Updates the `to-agent` state with a JSON Patch (RFC 6902) between
    /// turns; a patch that does not apply changes nothing and throws
    /// `invalid-state`.
    #[wasm_bindgen(js_name = patchAgentState)]
    pub fn patch_agent_state(&self, patch: JsValue) -> Result<(), JsValue> {
        let patch: Value = serde_wasm_bindgen::from_value(patch).map_err(|e| {
            error(
                Code::InvalidState,
                &format!("AG-47: the patch is not JSON: {e}"),
            )
        })?;
        self.inner
            .borrow_mut()
            .core
            .patch_agent_state(&patch)
            .map_err(|refusal| refused(&refusal))
    }

    /// The `to-agent` state the next turn carries.
    #[wasm_bindgen(getter, js_name = agentState)]
    pub fn agent_state(&self) -> Result<JsValue, JsValue> {
        to_js(self.inner.borrow().core.agent_state())
    }

    /// Disables delegation: no new run starts until `enable` (runs already
    /// active go on; `stop` or `killAll` ends them). Participants keep
    /// working.
    pub fn disable(&self) {
        self.set_disabled(true);
    }

    /// Enables delegation again.
    pub fn enable(&self) {
        self.set_disabled(false);
    }

    /// Undoes a whole delegation in one step (A.2): each participant it
    /// changed is reverted, through its own history, to the mark taken
    /// before the run first touched it — last touched first. Only a run that
    /// has returned can be undone, and only once; a run that was rolled back
    /// has nothing left to undo. Resolves to `{ run, reverted, failed }`.
    pub fn undo(&self, run: &str) -> Result<js_sys::Promise, JsValue> {
        let id = RunId::new(run);
        let mut resolver = None;
        let promise = js_sys::Promise::new(&mut |resolve, _| resolver = Some(resolve));
        // The core decides, journals and drives the undo through revert
        // effects; the promise settles with its report.
        let started = self.inner.borrow_mut().core.undo(now(), &id);
        if let (Ok(_), Some(resolve)) = (&started, resolver) {
            self.inner.borrow_mut().undos.insert(id, resolve);
        }
        pump(&self.inner);
        started
            .map(|_| promise)
            .map_err(|refusal| refused(&refusal))
    }

    /// The revision of a run, for commands fenced by it.
    pub fn revision(&self, run: &str) -> Result<f64, JsValue> {
        self.with_run(run, |run| run.revision() as f64)
    }

    /// The review sheet (with participants' previews) of a plan under
    /// review, or of the one call an escalation asks the person to allow
    /// (AG-31); otherwise `null`.
    pub fn review(&self, run: &str) -> Result<JsValue, JsValue> {
        match self.inner.borrow().core.review(&RunId::new(run)) {
            Some(sheet) => to_js(&sheet),
            None => Ok(JsValue::NULL),
        }
    }

    /// Every question the engine holds, open or settled.
    pub fn questions(&self) -> Result<JsValue, JsValue> {
        let inner = self.inner.borrow();
        let questions: Vec<_> = inner.core.questions().collect();
        to_js(&questions)
    }

    /// Postpones a question until `until` (ms since the epoch).
    pub fn postpone(&self, question: &str, until: f64) -> Result<(), JsValue> {
        let until = convert::whole(until, "a time")?;
        self.command(|core, now| core.postpone(now, &baton_core::QuestionId::new(question), until))
    }

    /// A run's journal records, oldest first.
    pub fn journal(&self, run: &str) -> Result<JsValue, JsValue> {
        self.with_run(run, |run| to_js(&run.journal()))?
    }

    /// What an actor reference names, or `null` for one this engine did not
    /// mint — forged, altered or foreign (AG-33).
    #[wasm_bindgen(js_name = resolveActor)]
    pub fn resolve_actor(&self, reference: &str) -> Result<JsValue, JsValue> {
        match self
            .inner
            .borrow()
            .core
            .resolve_actor(&baton_core::ActorRef::new(reference))
        {
            Some(identity) => to_js(&identity),
            None => Ok(JsValue::NULL),
        }
    }

    /// The state of a run, as JSON (`{state, outcome?, reason?}`).
    pub fn state(&self, run: &str) -> Result<JsValue, JsValue> {
        self.with_run(run, |run| to_js(run.state()))?
    }

    /// Content-free counts for a badge.
    pub fn counters(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.borrow().core.counters(now()))
    }

    /// Closes the engine: its timer stops and it stops listening for
    /// Escape. The live region stays for the page's other engines.
    pub fn close(self) {
        drop(self);
    }
}

impl Inner {
    fn has_listeners(&self) -> bool {
        !self.subscribers.is_empty() || !self.surfaces.is_empty()
    }

    /// Writes to the page's live region (and keeps the message for tests).
    fn say(&mut self, message: String) {
        // A failed DOM write leaves nobody to tell; the run itself goes on.
        let _ = self.region.announce(message.clone());
        self.announced.push(message);
    }
}

impl Drop for Inner {
    /// However the engine goes away (`close`, `free`, garbage collection),
    /// it leaves no timer and no listener behind.
    fn drop(&mut self) {
        // Dropping the timeout cancels it.
        self.timer.take();
        if let Some(release) = self.release.take() {
            let _ = release.call0(&JsValue::NULL);
        }
        if let Some(store) = self.store.take() {
            // Transactions already started still complete.
            store.close();
        }
        for (_, controller) in std::mem::take(&mut self.turns) {
            controller.abort();
        }
        if let Some(listener) = self.escape.take() {
            if let Some(document) = web_sys::window().and_then(|w| w.document()) {
                let _ = document.remove_event_listener_with_callback(
                    "keydown",
                    listener.as_ref().unchecked_ref(),
                );
            }
        }
    }
}

impl Engine {
    /// Runs a command on the core at the current time, carries out what it
    /// caused (one step), and turns a refusal into a `BatonError` with its
    /// code and requirement.
    fn command<T, E: Coded>(
        &self,
        body: impl FnOnce(&mut baton_core::Engine, u64) -> Result<T, E>,
    ) -> Result<T, JsValue> {
        let result = body(&mut self.inner.borrow_mut().core, now());
        pump(&self.inner);
        result.map_err(|refusal| refused(&refusal))
    }

    /// Reads one run, or throws `unknown-run`.
    fn with_run<T>(
        &self,
        run: &str,
        read: impl FnOnce(&baton_core::Run) -> T,
    ) -> Result<T, JsValue> {
        let inner = self.inner.borrow();
        inner
            .core
            .run(&RunId::new(run))
            .map(read)
            .ok_or_else(|| error(Code::UnknownRun, &format!("unknown run {run}")))
    }

    /// Disables or enables delegation; the header changes without a record.
    fn set_disabled(&self, disabled: bool) {
        {
            let mut inner = self.inner.borrow_mut();
            if disabled {
                inner.core.disable();
            } else {
                inner.core.enable();
            }
            inner.header_dirty = true;
        }
        pump(&self.inner);
    }

    /// Another page upgrading the database closes this connection: the
    /// engine goes on in memory and says so.
    fn watch_version_changes(&self) {
        let weak = Rc::downgrade(&self.inner);
        if let Some(store) = &self.inner.borrow().store {
            store.on_version_change(move || {
                if let Some(inner) = weak.upgrade() {
                    degrade(
                        &inner,
                        "another page upgraded the database; this one closed its connection".into(),
                    );
                }
            });
        }
    }

    /// AG-42: while any run is active, Escape returns control — every active
    /// run ends `returned{aborted, user-interrupt}`, announced. With no run
    /// active the engine leaves Escape alone (it neither acts nor prevents
    /// anything).
    fn listening_for_escape(self, document: &web_sys::Document) -> Engine {
        let weak = Rc::downgrade(&self.inner);
        let listener = Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(
            move |event: web_sys::KeyboardEvent| {
                if event.key() != "Escape" {
                    return;
                }
                let Some(inner) = weak.upgrade() else {
                    return;
                };
                let active: Vec<RunId> = inner
                    .borrow()
                    .core
                    .active_runs()
                    .map(|run| run.id().clone())
                    .collect();
                if active.is_empty() {
                    return;
                }
                for run in &active {
                    let _ = inner.borrow_mut().core.stop(now(), run);
                }
                pump(&inner);
            },
        );
        if document
            .add_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref())
            .is_ok()
        {
            self.inner.borrow_mut().escape = Some(listener);
        }
        self
    }
}

fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| error(Code::Internal, &e.to_string()))
}

/// Reports a refused registration once: an event for subscribers now and
/// later, and one console warning for the developer (AG-13).
fn refuse_registration(inner: &Rc<RefCell<Inner>>, refused: &baton_core::RegistrationRefused) {
    let event = serde_json::json!({
        "type": "registration-refused",
        "participant": refused.participant,
        "problems": refused.problems,
    });
    web_sys::console::warn_1(&JsValue::from_str(&format!("Baton: {refused}")));
    inner.borrow_mut().refusals.push(event.clone());
    emit(inner, event);
}

/// Carries every pending event out of the core, then arms its next timer.
///
/// Everything one pump drains is one engine step: its journal records are
/// written in one transaction, and the messages that close runs are said only
/// once that transaction has committed.
fn pump(inner: &Rc<RefCell<Inner>>) {
    // A listener or participant that calls back into the engine while a step
    // is drained must not start a second step: the loop below picks its
    // events up, in order, into this one.
    if std::mem::replace(&mut inner.borrow_mut().pumping, true) {
        return;
    }
    let mut records = Vec::new();
    let mut closings = Vec::new();
    loop {
        let event = inner.borrow_mut().core.poll_event();
        let Some(event) = event else {
            break;
        };
        notify(inner, &event);
        match event {
            Event::Journal(record) => records.push(record),
            Event::Announcement(announcement) => {
                let message = {
                    let inner = inner.borrow();
                    words::render(&announcement, &inner.actor_name, &inner.app_name)
                };
                if announcement.closes() {
                    closings.push(message);
                } else {
                    inner.borrow_mut().say(message);
                }
            }
            Event::Undone { report } => {
                let resolve = inner.borrow_mut().undos.remove(&report.run);
                if let (Some(resolve), Ok(value)) = (resolve, to_js(&report)) {
                    let _ = resolve.call1(&JsValue::NULL, &value);
                }
            }
            Event::Effect(effect) => carry_out(inner, effect),
            Event::Finding(_)
            | Event::Question(_)
            | Event::EscalationReceipt { .. }
            | Event::PresenceMissing { .. } => {}
        }
    }
    inner.borrow_mut().pumping = false;
    arm_timer(inner);
    persist_step(inner, &records, closings);
}

/// Writes a step (group commit) and then says what closes its runs. In
/// memory, or with nothing to write, the messages are said at once. A failed
/// write falls back to memory and says so; nothing already in memory is lost.
fn persist_step(inner: &Rc<RefCell<Inner>>, records: &[JournalRecord], closings: Vec<String>) {
    let (store, batch) = {
        let mut guard = inner.borrow_mut();
        let header = std::mem::take(&mut guard.header_dirty);
        match guard.store.clone() {
            Some(store) if header || !records.is_empty() => {
                (store, persist::batch(&guard.core, records, header))
            }
            _ => {
                drop(guard);
                say_closings(inner, closings);
                return;
            }
        }
    };
    if batch.is_empty() {
        say_closings(inner, closings);
        return;
    }
    let count = u32::try_from(batch.records.len()).unwrap_or(u32::MAX);
    // The transaction is opened and filled now; only its commit is awaited.
    let pending = match store.write(batch) {
        Ok(pending) => pending,
        Err(cause) => {
            degrade(inner, cause);
            say_closings(inner, closings);
            return;
        }
    };
    inner.borrow_mut().writes_in_flight += 1;
    let weak = Rc::downgrade(inner);
    spawn_local(async move {
        let written = pending.await;
        let Some(inner) = weak.upgrade() else {
            return;
        };
        inner.borrow_mut().writes_in_flight -= 1;
        match written {
            Ok(()) => {
                let mut guard = inner.borrow_mut();
                guard.storage.transactions += 1;
                guard.storage.records += count;
            }
            Err(cause) => degrade(&inner, cause),
        }
        say_closings(&inner, closings);
    });
}

fn say_closings(inner: &Rc<RefCell<Inner>>, closings: Vec<String>) {
    // Several runs closed in one step are one message: the region keeps only
    // its last write of a task.
    if !closings.is_empty() {
        inner.borrow_mut().say(closings.join(" "));
    }
}

/// IndexedDB failed: the engine goes on in memory, keeps everything it has,
/// and tells subscribers why — once.
fn degrade(inner: &Rc<RefCell<Inner>>, cause: String) {
    {
        let mut guard = inner.borrow_mut();
        if guard.store.is_none() {
            return;
        }
        if let Some(store) = guard.store.take() {
            store.close();
        }
        guard.storage.mode = "memory";
        guard.storage.degraded = Some(cause.clone());
    }
    emit(
        inner,
        serde_json::json!({"type": "storage-degraded", "cause": cause}),
    );
}

fn notify(inner: &Rc<RefCell<Inner>>, event: &Event) {
    if inner.borrow().has_listeners() {
        if let Ok(value) = to_js(event) {
            notify_value(inner, &value);
        }
    }
}

/// Hands an event to every subscriber and every attached presence surface.
fn notify_value(inner: &Rc<RefCell<Inner>>, value: &JsValue) {
    let (listeners, surfaces): (Vec<js_sys::Function>, Vec<JsValue>) = {
        let inner = inner.borrow();
        (
            inner.subscribers.iter().map(|(_, f)| f.clone()).collect(),
            inner.surfaces.iter().map(|(_, s)| s.clone()).collect(),
        )
    };
    // A listener or surface that throws must not stop the engine.
    for listener in listeners {
        let _ = listener.call1(&JsValue::NULL, value);
    }
    for surface in surfaces {
        if let Some(handle) = get(&surface, "handleEvent").dyn_ref::<js_sys::Function>() {
            let _ = handle.call1(&surface, value);
        }
    }
}

fn behaviour(inner: &Rc<RefCell<Inner>>, participant: &ParticipantId) -> JsValue {
    inner
        .borrow()
        .behaviours
        .get(participant)
        .cloned()
        .unwrap_or(JsValue::UNDEFINED)
}

/// AG-40: the participant's element is busy exactly while a call mutates it.
fn set_busy(inner: &Rc<RefCell<Inner>>, participant: &ParticipantId, delta: i32) {
    let element = get(&behaviour(inner, participant), "element");
    let count = {
        let mut inner = inner.borrow_mut();
        let entry = inner.busy.entry(participant.clone()).or_insert(0);
        *entry = entry.saturating_add_signed(delta);
        *entry
    };
    if let Some(element) = element.dyn_ref::<web_sys::Element>() {
        let _ = if count > 0 {
            element.set_attribute("aria-busy", "true")
        } else {
            element.remove_attribute("aria-busy")
        };
    }
}

fn carry_out(inner: &Rc<RefCell<Inner>>, effect: Effect) {
    let weak = Rc::downgrade(inner);
    match effect {
        Effect::Mark { run, participant } => {
            let history = get(&behaviour(inner, &participant), "history");
            call_then(&history, "mark", &[], move |result| {
                report(&weak, |core| {
                    let token = result.and_then(|value| {
                        serde_wasm_bindgen::from_value::<Value>(value)
                            .map_err(|e| {
                                format!("mark() returned something that is not a token: {e}")
                            })
                            .and_then(MarkToken::from_json)
                    });
                    let _ = core.handle_mark(now(), &run, &participant, token);
                });
            });
        }
        Effect::Invoke {
            run,
            call,
            capability,
            arguments,
            actor,
            ..
        } => {
            let participant = capability.participant.clone();
            set_busy(inner, &participant, 1);
            let args = to_js(&arguments).unwrap_or(JsValue::NULL);
            let name = JsValue::from_str(&capability.capability);
            let actor = JsValue::from_str(actor.as_str());
            call_then(
                &behaviour(inner, &participant),
                "invoke",
                &[name, args, actor],
                move |result| {
                    if let Some(inner) = weak.upgrade() {
                        set_busy(&inner, &participant, -1);
                    }
                    report(&weak, |core| {
                        let result = match result {
                            Ok(value) => CallResult::Applied {
                                value: serde_wasm_bindgen::from_value(value).unwrap_or(Value::Null),
                            },
                            Err(message) => match declined_message(&message) {
                                Some(reason) => CallResult::Refused {
                                    refusal: Refusal::Declined {
                                        message: reason.to_owned(),
                                    },
                                },
                                None => CallResult::Failed { message },
                            },
                        };
                        let _ = core.handle_call_result(now(), &run, &call, result);
                    });
                },
            );
        }
        Effect::Revert {
            run,
            participant,
            token,
        } => {
            let history = get(&behaviour(inner, &participant), "history");
            // A reverting participant is being changed, as by a call (AG-40).
            set_busy(inner, &participant, 1);
            call_then(
                &history,
                "revertTo",
                &[to_js(&token.to_json()).unwrap_or(JsValue::UNDEFINED)],
                move |result| {
                    if let Some(inner) = weak.upgrade() {
                        set_busy(&inner, &participant, -1);
                    }
                    report(&weak, |core| {
                        let _ = core.handle_revert_result(
                            now(),
                            &run,
                            &participant,
                            result.map(|_| ()),
                        );
                    });
                },
            );
        }
        Effect::Preview {
            run,
            call,
            capability,
            arguments,
        } => {
            let args = to_js(&arguments).unwrap_or(JsValue::NULL);
            let name = JsValue::from_str(&capability.capability);
            call_then(
                &behaviour(inner, &capability.participant),
                "preview",
                &[name, args],
                move |result| {
                    report(&weak, |core| {
                        let result = result.map(|value| {
                            serde_wasm_bindgen::from_value(value).unwrap_or(Value::Null)
                        });
                        let _ = core.handle_preview(now(), &run, &call, result);
                    });
                },
            );
        }
        Effect::OpenTurn {
            run, turn, request, ..
        } => open_turn(inner, run, turn, *request),
        Effect::CancelTurn { run, turn } => {
            // Released before aborting: abort listeners run synchronously
            // and may call back into the engine.
            let controller = inner.borrow_mut().turns.remove(&(run, turn));
            if let Some(controller) = controller {
                controller.abort();
            }
        }
    }
}

/// Opens a turn with the transport: the deep reads are gathered first (a
/// participant's `read` may be async), then `openTurn(request, sink, signal)`
/// is called outside the engine loop. The promise it returns settling ends
/// the stream; a rejection, unless the engine aborted the request, is
/// `transport-lost`.
fn open_turn(inner: &Rc<RefCell<Inner>>, run: RunId, turn: TurnId, mut request: TurnRequest) {
    let Some(transport) = inner.borrow().transport.clone() else {
        // A fixed plan never opens a turn, and delegating to an acting party
        // without a transport is refused up front; fail rather than hang.
        inner.borrow_mut().core.handle_inbound(
            now(),
            &run,
            turn,
            Inbound::TurnFailed {
                message: "AG-50: no transport is configured".into(),
            },
        );
        return;
    };
    let Ok(controller) = web_sys::AbortController::new() else {
        return;
    };
    let signal = controller.signal();
    inner
        .borrow_mut()
        .turns
        .insert((run.clone(), turn), controller);
    let weak = Rc::downgrade(inner);
    spawn_local(async move {
        request.reads = deep_reads(&weak, &request).await;
        if signal.aborted() || weak.upgrade().is_none() {
            // Stopped while the reads were gathered: the turn is not sent.
            return;
        }
        let sink = TurnSink::new(Box::new(EngineHost(weak.clone())), run.clone(), turn);
        let ended = match to_js(&request) {
            Err(thrown) => Err(message_of(&thrown)),
            Ok(value) => {
                let args = [value, JsValue::from(sink.clone()), signal.clone().into()];
                settled(call(&transport, "openTurn", &args)).await
            }
        };
        if signal.aborted() {
            // The engine stopped waiting (a stop, a kill, a deadman turn).
            return;
        }
        match ended {
            Ok(_) => sink.finish(),
            Err(message) => sink.lost(message),
        }
        if let Some(inner) = weak.upgrade() {
            inner.borrow_mut().turns.remove(&(run, turn));
        }
    });
}

/// Deep reads for a turn, in attention order — participants holding focus
/// first, then those in the viewport, then the rest — until
/// [`DEEP_READ_BYTES`] are spent. A read whose participant has no `read`,
/// or whose `read` fails, is left to the index entry alone.
async fn deep_reads(weak: &Weak<RefCell<Inner>>, request: &TurnRequest) -> Vec<DeepRead> {
    let mut candidates = Vec::new();
    for stamp in &request.context.reads {
        let Some(inner) = weak.upgrade() else {
            return Vec::new();
        };
        let behaviour = behaviour(&inner, &stamp.read.participant);
        if !get(&behaviour, "read").is_function() {
            continue;
        }
        let rank = attention(&get(&behaviour, "element"));
        candidates.push((rank, stamp.clone(), behaviour));
    }
    candidates.sort_by_key(|(rank, stamp, _)| (*rank, stamp.read.clone()));
    let mut reads = Vec::new();
    let mut spent = 0;
    for (_, stamp, behaviour) in candidates {
        let name = JsValue::from_str(&stamp.read.read);
        let Ok(value) = settled(call(&behaviour, "read", &[name])).await else {
            continue;
        };
        let Some(text) = js_sys::JSON::stringify(&value)
            .ok()
            .and_then(|text| text.as_string())
        else {
            continue;
        };
        if spent + text.len() > DEEP_READ_BYTES {
            continue;
        }
        let Ok(content) = serde_json::from_str(&text) else {
            continue;
        };
        spent += text.len();
        reads.push(DeepRead {
            id: ReadRef::to_string(&stamp.read),
            stamp,
            content,
        });
    }
    reads
}

/// 0 for an element holding focus, 1 for one in the viewport, 2 otherwise.
fn attention(element: &JsValue) -> u8 {
    let Some(element) = element.dyn_ref::<web_sys::Element>() else {
        return 2;
    };
    let document = web_sys::window().and_then(|w| w.document());
    if let Some(active) = document.and_then(|d| d.active_element()) {
        if element.contains(Some(&active)) {
            return 0;
        }
    }
    let rect = element.get_bounding_client_rect();
    let height = web_sys::window()
        .and_then(|w| w.inner_height().ok())
        .and_then(|h| h.as_f64())
        .unwrap_or(0.0);
    if rect.bottom() > 0.0 && rect.top() < height && rect.width() > 0.0 {
        1
    } else {
        2
    }
}

/// The engine as the receiver of a turn's traffic.
struct EngineHost(Weak<RefCell<Inner>>);

impl TurnHost for EngineHost {
    fn stray(&self, run: &RunId, turn: TurnId) {
        if let Some(inner) = self.0.upgrade() {
            inner
                .borrow_mut()
                .core
                .handle_stray_traffic(now(), run, turn);
            pump(&inner);
        }
    }

    fn deliver(&self, run: &RunId, turn: TurnId, items: Vec<Verified>) {
        let Some(inner) = self.0.upgrade() else {
            return;
        };
        for item in items {
            // A turn the engine stopped waiting for says nothing more.
            let open = inner.borrow().core.run(run).and_then(|r| r.open_turn()) == Some(turn);
            if !open && !matches!(item, Verified::Inbound(_)) {
                continue;
            }
            match item {
                Verified::Inbound(inbound) => {
                    inner
                        .borrow_mut()
                        .core
                        .handle_inbound(now(), run, turn, inbound);
                    pump(&inner);
                }
                // Text and state reach subscribers and presence surfaces;
                // they are never announced one by one (AG-37).
                Verified::Text { message, delta } => emit(
                    &inner,
                    serde_json::json!({"type": "text", "run": run, "message": message, "delta": delta}),
                ),
                Verified::State { direction, event } => emit(
                    &inner,
                    serde_json::json!({"type": "state", "run": run, "direction": direction, "event": event}),
                ),
                Verified::Custom { name, value } => emit(
                    &inner,
                    serde_json::json!({"type": "custom", "run": run, "name": name, "value": value}),
                ),
            }
        }
    }
}

/// An adapter event (not the core's) for subscribers and surfaces.
fn emit(inner: &Rc<RefCell<Inner>>, event: Value) {
    if inner.borrow().has_listeners() {
        if let Ok(value) = to_js(&event) {
            notify_value(inner, &value);
        }
    }
}

/// Reports back to the core, if the engine is still open, then pumps.
fn report(weak: &Weak<RefCell<Inner>>, body: impl FnOnce(&mut baton_core::Engine)) {
    let Some(inner) = weak.upgrade() else {
        return;
    };
    body(&mut inner.borrow_mut().core);
    pump(&inner);
}

/// Arms one timeout for the core's next deadline; nothing busy-waits.
fn arm_timer(inner: &Rc<RefCell<Inner>>) {
    let next = {
        let mut inner = inner.borrow_mut();
        // Replacing the old timeout cancels it.
        inner.timer.take();
        inner.core.poll_timeout()
    };
    let Some(at) = next else {
        return;
    };
    let delay = u32::try_from(at.saturating_sub(now()).min(i32::MAX as u64)).unwrap_or(u32::MAX);
    let weak = Rc::downgrade(inner);
    let timeout = gloo_timers::callback::Timeout::new(delay, move || {
        if let Some(inner) = weak.upgrade() {
            inner.borrow_mut().timer = None;
            let at = now();
            inner.borrow_mut().core.handle_timeout(at);
            pump(&inner);
        }
    });
    inner.borrow_mut().timer = Some(timeout);
}

/// A mounted participant's handle, returned by `Engine.register`.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Participant {
    engine: Weak<RefCell<Inner>>,
    id: ParticipantId,
    /// Why the registration was refused; empty when it was mounted.
    problems: Vec<baton_core::ManifestProblem>,
}

/// A read's stamp as a participant publishes it. The origin may only make
/// the declared one less trusted; left out, the declared one applies.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PublishedStamp {
    version: u64,
    #[serde(default)]
    origin: Option<baton_core::Origin>,
}

#[wasm_bindgen]
impl Participant {
    /// The mounted id (`tasks`, or `tasks#board-2` for an instance); for a
    /// refused registration, the id it would have had (empty if the manifest
    /// does not say).
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.id.to_string()
    }

    /// Why the registration was refused: `[{ path, requirement, message }]`,
    /// empty when the participant is mounted (AG-13).
    #[wasm_bindgen(getter)]
    pub fn problems(&self) -> JsValue {
        to_js(&self.problems).unwrap_or(JsValue::UNDEFINED)
    }

    /// Publishes a read's current version and origin (AG-20, AG-27):
    /// `{ version, origin }`. The origin can only make the read less trusted
    /// than its declaration says (the least trusted of the two counts);
    /// left out, the declared one applies. An undeclared read is refused
    /// with `invalid-read`. On a refused registration this does nothing
    /// (the component keeps working, AG-13). Acts planned
    /// against an older version are refused as stale; the next turn's
    /// context carries the new stamp, and its content is pulled through the
    /// behaviour's `read(name)` when the turn opens.
    pub fn publish(&self, read: &str, stamp: JsValue) -> Result<(), JsValue> {
        let stamp: PublishedStamp = serde_wasm_bindgen::from_value(stamp)
            .map_err(|e| error(Code::InvalidRead, &e.to_string()))?;
        if !self.problems.is_empty() {
            return Ok(());
        }
        let engine = self.engine()?;
        let published = engine
            .borrow_mut()
            .core
            .publish_read(baton_core::ReadStamp {
                read: ReadRef {
                    participant: self.id.clone(),
                    read: read.to_owned(),
                },
                version: stamp.version,
                // The core keeps the least trusted of this and the declared origin.
                origin: stamp.origin.unwrap_or(baton_core::Origin::Author),
            });
        published.map_err(|refusal| refused(&refusal))?;
        pump(&engine);
        Ok(())
    }

    /// Withdraws a read: it leaves the context of the next turn.
    pub fn withdraw(&self, read: &str) -> Result<(), JsValue> {
        let engine = self.engine()?;
        engine.borrow_mut().core.withdraw_read(&ReadRef {
            participant: self.id.clone(),
            read: read.to_owned(),
        });
        pump(&engine);
        Ok(())
    }

    /// Unmounts the participant; the acting party no longer sees it.
    pub fn unregister(&self) -> Result<(), JsValue> {
        let engine = self.engine()?;
        {
            let mut inner = engine.borrow_mut();
            inner.core.unregister(&self.id);
            inner.behaviours.remove(&self.id);
        }
        pump(&engine);
        Ok(())
    }
}

impl Participant {
    fn engine(&self) -> Result<Rc<RefCell<Inner>>, JsValue> {
        self.engine.upgrade().ok_or_else(|| {
            error(
                Code::Closed,
                "the engine this participant was registered with is closed",
            )
        })
    }
}

mod grants;
mod page;
mod persist;
mod words;

#[cfg(test)]
mod persist_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod transport_tests;
