//! The JS `Engine`: the core's engine driven by the browser — its clock and
//! random source as inputs, participants' behaviour (possibly async) as the
//! answers to the core's effects, `setTimeout` for the core's timers, and the
//! page's one live region for what the person hears.
//!
//! Everything that decides stays in `baton-core`; this module only carries
//! events out and reports back in.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::{Rc, Weak};

use baton_core::{
    ActorSecret, Autonomy, CallResult, CapabilityRef, Delegation, Effect, EngineConfig, Event,
    Initiative, JournalEntry, MarkToken, Outcome, ParticipantId, PlannedCall, Refusal, RunId,
    RunState,
};
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{spawn_local, JsFuture};

use crate::errors::error;
use crate::live_region::LiveRegion;

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
}

/// A delegation request from JS.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct DelegateRequest {
    intent: String,
    #[serde(default = "user")]
    initiative: Initiative,
    #[serde(default = "review")]
    autonomy: Autonomy,
    #[serde(default)]
    budget: Option<baton_core::Budget>,
    /// A fixed plan: `[{capability: "tasks.rename", arguments: {...}}]` (AG-3).
    #[serde(default)]
    plan: Option<Vec<PlanStep>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanStep {
    capability: String,
    #[serde(default)]
    arguments: Value,
}

fn user() -> Initiative {
    Initiative::User
}
fn review() -> Autonomy {
    Autonomy::Review
}

struct Inner {
    core: baton_core::Engine,
    region: LiveRegion,
    app_name: String,
    actor_name: String,
    behaviours: BTreeMap<ParticipantId, JsValue>,
    subscribers: Vec<(u32, js_sys::Function)>,
    next_subscriber: u32,
    timer: Option<i32>,
    busy: BTreeMap<ParticipantId, u32>,
    /// While set, closing messages are held back for one summary (a kill).
    summarizing: bool,
    /// The document's Escape listener, removed on close.
    escape: Option<Closure<dyn FnMut(web_sys::KeyboardEvent)>>,
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
    web_sys::window().ok_or_else(|| error("no-window", "Baton runs in a browser window"))
}

fn get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// Calls `object[method](...args)` and hands the (possibly async) result to
/// `done` as `Ok(value)` or `Err(message)`. A missing method is an error.
fn call_then(
    object: &JsValue,
    method: &str,
    args: &[JsValue],
    done: impl FnOnce(Result<JsValue, String>) + 'static,
) {
    let function = get(object, method);
    let Some(function) = function.dyn_ref::<js_sys::Function>() else {
        done(Err(format!("the participant has no `{method}`")));
        return;
    };
    let array: js_sys::Array = args.iter().collect();
    match function.apply(object, &array) {
        Err(thrown) => done(Err(message_of(&thrown))),
        Ok(value) => {
            let promise = js_sys::Promise::resolve(&value);
            spawn_local(async move {
                done(
                    JsFuture::from(promise)
                        .await
                        .map_err(|thrown| message_of(&thrown)),
                );
            });
        }
    }
}

fn message_of(thrown: &JsValue) -> String {
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
    /// before any message (AG-36) and draws the key for actor references
    /// from the browser's cryptographic random source (AG-33).
    ///
    /// Options: `appName`, `actorName`, `session`, `ceiling`, and
    /// `liveRegionParent` (an element to hold the region).
    #[wasm_bindgen(js_name = open)]
    pub async fn open(options: JsValue) -> Result<Engine, JsValue> {
        let parent = if options.is_object() {
            get(&options, "liveRegionParent")
                .dyn_into::<web_sys::Element>()
                .ok()
        } else {
            None
        };
        let options: OpenOptions = if options.is_object() {
            let copy = js_sys::Object::assign(&js_sys::Object::new(), options.unchecked_ref());
            js_sys::Reflect::delete_property(&copy, &"liveRegionParent".into())?;
            serde_wasm_bindgen::from_value(copy.into())
                .map_err(|e| error("invalid-options", &e.to_string()))?
        } else {
            OpenOptions::default()
        };
        let document = window()?
            .document()
            .ok_or_else(|| error("no-document", "Baton needs a document for its live region"))?;
        let region = LiveRegion::attach(&document, parent.as_ref())?;
        let crypto = window()?.crypto()?;
        let mut key = [0u8; 32];
        crypto.get_random_values_with_u8_array(&mut key)?;
        let session = options.session.unwrap_or_else(|| crypto.random_uuid());
        let mut config = EngineConfig::new(session);
        if let Some(ceiling) = options.ceiling {
            config.ceiling = ceiling;
        }
        if let Some(presence) = options.presence {
            config.presence = presence;
        }
        Ok(Engine {
            inner: Rc::new(RefCell::new(Inner {
                core: baton_core::Engine::new(config, ActorSecret::new(key)),
                region,
                app_name: options.app_name.unwrap_or_else(|| "The application".into()),
                actor_name: options.actor_name.unwrap_or_else(|| "Assistant".into()),
                behaviours: BTreeMap::new(),
                subscribers: Vec::new(),
                next_subscriber: 0,
                timer: None,
                busy: BTreeMap::new(),
                summarizing: false,
                escape: None,
                announced: Vec::new(),
            })),
        }
        .listening_for_escape(&document))
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
    /// Returns the mounted id.
    pub fn register(&mut self, manifest: JsValue, behaviour: JsValue) -> Result<String, JsValue> {
        let text = match manifest.as_string() {
            Some(text) => text,
            None => js_sys::JSON::stringify(&manifest)?
                .as_string()
                .ok_or_else(|| {
                    error(
                        "invalid-manifest",
                        "the manifest is neither JSON text nor an object",
                    )
                })?,
        };
        let instance = if behaviour.is_object() {
            get(&behaviour, "instance").as_string()
        } else {
            None
        };
        let mut inner = self.inner.borrow_mut();
        let parsed = inner
            .core
            .parse_manifest(&text)
            .map_err(|problems| error("invalid-manifest", &problems.to_string()))?;
        let id = inner
            .core
            .register(parsed, instance.as_deref())
            .map_err(|refused| error("registration-refused", &refused.to_string()))?;
        inner.behaviours.insert(id.clone(), behaviour);
        Ok(id.to_string())
    }

    /// Starts a delegation and returns its run id. With a fixed `plan` no
    /// acting party is involved (AG-3); without one, the acting party is
    /// reached through a transport, and with none configured this throws a
    /// `BatonError` with code `no-transport` (AG-50).
    pub fn delegate(&mut self, request: JsValue) -> Result<String, JsValue> {
        let request: DelegateRequest = serde_wasm_bindgen::from_value(request)
            .map_err(|e| error("invalid-delegation", &e.to_string()))?;
        let Some(plan) = request.plan else {
            return Err(error(
                "no-transport",
                "AG-50: no transport is configured, so no acting party can be reached; participants keep working without one",
            ));
        };
        let plan = plan
            .into_iter()
            .map(|step| {
                CapabilityRef::parse_tool_name(&step.capability)
                    .map(|capability| PlannedCall {
                        capability,
                        arguments: step.arguments,
                    })
                    .ok_or_else(|| {
                        error(
                            "invalid-delegation",
                            &format!("`{}` is not participant.capability", step.capability),
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut delegation =
            Delegation::new(request.intent, request.initiative, request.autonomy).with_plan(plan);
        delegation.budget = request.budget;
        let run = self
            .inner
            .borrow_mut()
            .core
            .delegate(now(), delegation)
            .map_err(|refused| error("delegation-refused", &refused.to_string()))?;
        pump(&self.inner);
        Ok(run.to_string())
    }

    /// Authorizes a reviewed plan at the revision the person saw.
    pub fn authorize(&mut self, run: &str, revision: f64) -> Result<(), JsValue> {
        let result = self.inner.borrow_mut().core.authorize(
            now(),
            &RunId::new(run),
            revision as u64,
            baton_core::Authorization::default(),
        );
        pump(&self.inner);
        result.map_err(|refused| error("command-refused", &refused.to_string()))
    }

    /// The person takes control back: the run returns `aborted` (AG-9).
    pub fn stop(&mut self, run: &str) -> Result<(), JsValue> {
        let result = self.inner.borrow_mut().core.stop(now(), &RunId::new(run));
        pump(&self.inner);
        result.map_err(|refused| error("command-refused", &refused.to_string()))
    }

    /// The global kill (AG-10): every active run returns `aborted`. Returns
    /// how many runs it ended.
    #[wasm_bindgen(js_name = killAll)]
    pub fn kill_all(&mut self) -> u32 {
        let ended = {
            let mut inner = self.inner.borrow_mut();
            inner.summarizing = true;
            inner.core.kill_all(now())
        };
        pump(&self.inner);
        let mut inner = self.inner.borrow_mut();
        inner.summarizing = false;
        if ended > 0 {
            // One message for all of them, not one per run (AG-37).
            let noun = if ended == 1 {
                "delegation"
            } else {
                "delegations"
            };
            let message = format!(
                "{}: stopped {ended} {noun}; control is back with you.",
                inner.app_name
            );
            inner.say(message);
        }
        u32::try_from(ended).unwrap_or(u32::MAX)
    }

    /// Calls `listener(event)` for every event the engine produces; returns
    /// a function that unsubscribes.
    pub fn subscribe(&mut self, listener: js_sys::Function) -> JsValue {
        let id = {
            let mut inner = self.inner.borrow_mut();
            inner.next_subscriber += 1;
            let id = inner.next_subscriber;
            inner.subscribers.push((id, listener));
            id
        };
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

    /// Presence surfaces (AG-35): `engine.presence.attach(surface)` returns
    /// a function that detaches it. While none is attached, a run above
    /// `suggest` that starts acting raises `presence-missing` (policy
    /// `warn`) or is refused (policy `require`).
    #[wasm_bindgen(getter)]
    pub fn presence(&self) -> JsValue {
        let weak = Rc::downgrade(&self.inner);
        let attach = Closure::<dyn FnMut(JsValue) -> JsValue>::new(move |_surface: JsValue| {
            let Some(inner) = weak.upgrade() else {
                return JsValue::UNDEFINED;
            };
            inner.borrow_mut().core.attach_presence();
            let weak = Rc::downgrade(&inner);
            Closure::once_into_js(move || {
                if let Some(inner) = weak.upgrade() {
                    inner.borrow_mut().core.detach_presence();
                }
            })
        });
        let object = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&object, &"attach".into(), attach.as_ref());
        // The function lives as long as the page may call it.
        attach.forget();
        object.into()
    }

    /// The person rejects a plan under review, at the revision they saw.
    pub fn reject(
        &mut self,
        run: &str,
        revision: f64,
        note: Option<String>,
    ) -> Result<(), JsValue> {
        let note = note.unwrap_or_default();
        let result =
            self.inner
                .borrow_mut()
                .core
                .reject(now(), &RunId::new(run), revision as u64, &note);
        pump(&self.inner);
        result.map_err(|refused| error("command-refused", &refused.to_string()))
    }

    /// Answers a question (AG-41): bound to its id and request digest,
    /// validated against its schema, failing closed. Returns the acceptance.
    pub fn answer(
        &mut self,
        question: &str,
        digest: &str,
        answer: JsValue,
    ) -> Result<JsValue, JsValue> {
        let digest = baton_core::Digest::from_hex(digest).ok_or_else(|| {
            error(
                "answer-refused",
                "AG-41: the request digest is not 64 hex digits",
            )
        })?;
        let answer: Value = serde_wasm_bindgen::from_value(answer)
            .map_err(|e| error("answer-refused", &e.to_string()))?;
        let result = self.inner.borrow_mut().core.answer(
            now(),
            &baton_core::QuestionId::new(question),
            &digest,
            answer,
        );
        pump(&self.inner);
        to_js(&result.map_err(|refused| error("answer-refused", &refused.to_string()))?)
    }

    /// Declines a question; the run goes on without the answer.
    pub fn decline(&mut self, question: &str) -> Result<(), JsValue> {
        let result = self
            .inner
            .borrow_mut()
            .core
            .decline(now(), &baton_core::QuestionId::new(question));
        pump(&self.inner);
        result.map_err(|refused| error("answer-refused", &refused.to_string()))
    }

    /// Postpones a question until `until` (ms since the epoch).
    pub fn postpone(&mut self, question: &str, until: f64) -> Result<(), JsValue> {
        let result = self.inner.borrow_mut().core.postpone(
            now(),
            &baton_core::QuestionId::new(question),
            until as u64,
        );
        pump(&self.inner);
        result.map_err(|refused| error("answer-refused", &refused.to_string()))
    }

    /// A run's journal records, oldest first.
    pub fn journal(&self, run: &str) -> Result<JsValue, JsValue> {
        let inner = self.inner.borrow();
        let run = inner
            .core
            .run(&RunId::new(run))
            .ok_or_else(|| error("unknown-run", &format!("unknown run {run}")))?;
        to_js(&run.journal())
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
        let inner = self.inner.borrow();
        let run = inner
            .core
            .run(&RunId::new(run))
            .ok_or_else(|| error("unknown-run", &format!("unknown run {run}")))?;
        to_js(run.state())
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
        if let Some(timer) = self.timer.take() {
            if let Ok(window) = window() {
                window.clear_timeout_with_handle(timer);
            }
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
        .map_err(|e| error("internal", &e.to_string()))
}

/// Carries every pending event out of the core, then arms its next timer.
fn pump(inner: &Rc<RefCell<Inner>>) {
    loop {
        let event = inner.borrow_mut().core.poll_event();
        let Some(event) = event else {
            break;
        };
        notify(inner, &event);
        match event {
            Event::Journal(record) => {
                if let JournalEntry::Transition { to, .. } = &record.entry {
                    announce_transition(inner, &record.run, to);
                }
            }
            Event::Effect(effect) => carry_out(inner, effect),
            Event::Finding(_)
            | Event::Question(_)
            | Event::EscalationReceipt { .. }
            | Event::PresenceMissing { .. } => {}
        }
    }
    arm_timer(inner);
}

fn notify(inner: &Rc<RefCell<Inner>>, event: &Event) {
    let listeners: Vec<js_sys::Function> = inner
        .borrow()
        .subscribers
        .iter()
        .map(|(_, f)| f.clone())
        .collect();
    if listeners.is_empty() {
        return;
    }
    let Ok(value) = to_js(event) else {
        return;
    };
    for listener in listeners {
        // A listener that throws must not stop the engine.
        let _ = listener.call1(&JsValue::NULL, &value);
    }
}

/// AG-37, AG-39: one attributed message when a plan starts acting (never one
/// per call), and one that carries the outcome when control returns.
fn announce_transition(inner: &Rc<RefCell<Inner>>, run: &RunId, to: &RunState) {
    let message = {
        let inner = inner.borrow();
        let Some(details) = inner.core.run(run) else {
            return;
        };
        let intent = details.intent().to_owned();
        match to {
            RunState::Acting => {
                let mut labels = BTreeSet::new();
                for call in details.plan() {
                    if let Some(mounted) = inner.core.registry().get(&call.capability.participant) {
                        labels.insert(mounted.manifest.label().to_owned());
                    }
                }
                let places = labels.into_iter().collect::<Vec<_>>().join(" and ");
                let count = details.plan().len();
                let noun = if count == 1 { "change" } else { "changes" };
                Some(format!(
                    "{} is acting in {places}: {count} {noun} for “{intent}”.",
                    inner.actor_name
                ))
            }
            RunState::Returned { outcome, reason } => {
                let reason = serde_json::to_value(reason)
                    .ok()
                    .and_then(|v| v.get("kind").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_default();
                let outcome = match outcome {
                    Outcome::Completed => "completed",
                    Outcome::Partial => "partly done",
                    Outcome::RolledBack => "failed and was undone",
                    Outcome::Aborted => "stopped; control is back with you",
                    Outcome::Error => "failed",
                };
                Some(format!(
                    "{}: “{intent}” {outcome} ({reason}).",
                    inner.actor_name
                ))
            }
            RunState::Cancelled { .. } => {
                Some(format!("{}: “{intent}” was cancelled.", inner.actor_name))
            }
            RunState::Escalated { .. } => {
                Some(format!("{}: “{intent}” needs you.", inner.actor_name))
            }
            _ => None,
        }
    };
    if let Some(message) = message {
        let mut inner = inner.borrow_mut();
        if inner.summarizing {
            return;
        }
        inner.say(message);
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
                    let token = result.map(|value| {
                        MarkToken::new(value.as_string().unwrap_or_else(|| format!("{value:?}")))
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
            call_then(
                &history,
                "revertTo",
                &[JsValue::from_str(token.as_str())],
                move |result| {
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
        Effect::OpenTurn { run, turn, .. } => {
            // Only reachable with a transport, which this slice does not
            // carry yet: the turn fails rather than hang.
            inner.borrow_mut().core.handle_inbound(
                now(),
                &run,
                turn,
                baton_core::Inbound::TurnFailed {
                    message: "AG-50: no transport is configured".into(),
                },
            );
        }
        Effect::CancelTurn { .. } => {}
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

/// Arms one `setTimeout` for the core's next deadline; nothing busy-waits.
fn arm_timer(inner: &Rc<RefCell<Inner>>) {
    let Ok(window) = window() else {
        return;
    };
    let next = {
        let mut inner = inner.borrow_mut();
        if let Some(timer) = inner.timer.take() {
            window.clear_timeout_with_handle(timer);
        }
        inner.core.poll_timeout()
    };
    let Some(at) = next else {
        return;
    };
    let delay = at.saturating_sub(now()).min(i32::MAX as u64) as i32;
    let weak = Rc::downgrade(inner);
    let fire = Closure::once_into_js(move || {
        if let Some(inner) = weak.upgrade() {
            inner.borrow_mut().timer = None;
            let at = now();
            inner.borrow_mut().core.handle_timeout(at);
            pump(&inner);
        }
    });
    if let Ok(handle) =
        window.set_timeout_with_callback_and_timeout_and_arguments_0(fire.unchecked_ref(), delay)
    {
        inner.borrow_mut().timer = Some(handle);
    }
}

#[cfg(test)]
mod tests;
