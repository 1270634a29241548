//! The JS `Engine`: the core's engine driven by the browser — its clock and
//! random source as inputs, participants' behaviour (possibly async) as the
//! answers to the core's effects, `setTimeout` for the core's timers, and the
//! page's one live region for what the person hears.
//!
//! Everything that decides stays in `baton-core`; this module only carries
//! events out and reports back in. Here: opening an engine and its state.
//! Beside it: `drive` (the one place that state is changed, and the step
//! loop: journal to storage, announcements to the region, events to
//! subscribers), `api` (the JS API of an engine),
//! `effects` (carrying out the core's effects), `participant` (a registered
//! participant's handle), `grants`, `persist` and `writes` (the store),
//! `timers` (the core's deadlines as one `setTimeout`), `page` (what spans
//! the page and the origin's tabs) and `words` (what the person hears).

use baton_core::{Adopt, Disable, Enable, InterruptAll, Reconcile};
use std::rc::Rc;

use baton_core::{
    Attention, Autonomy, CallResult, DeepRead, Delegation, Effect, EngineConfig, HostEvent,
    MarkToken, ParticipantId, ReadCandidate, ReadRef, RunId, TurnId, TurnRequest, Verified,
};
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::calls::{call, call_then, get, message_of, settled, CallError};
use crate::convert::{self, to_js};
use crate::errors::{error, error_for, refused, wrapped, Code, Coded};
use crate::live_region::LiveRegion;
use crate::transport::{TurnHost, TurnSink};

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
    /// How much one turn may stream, lane by lane: `{ maxTextBytes,
    /// maxStateBytes, maxCustomBytes, maxReasoningBytes, maxArgumentsBytes,
    /// maxOpen, maxCalls, maxMessages }`, each defaulting to 1 MiB (256
    /// open items, 256 tool calls, 256 messages).
    #[serde(default)]
    turn_limits: Option<baton_core::StreamLimits>,
}

/// Options that are live JS objects rather than JSON, taken out before the
/// rest is parsed.
const OBJECT_OPTIONS: [&str; 2] = ["liveRegionParent", "transport"];

/// A transport must declare the protocol it speaks (AG-45) and open turns.
fn check_transport(transport: &JsValue) -> Result<(), JsValue> {
    let declared = get(transport, "protocolVersion").as_string();
    baton_core::check_version(declared.as_deref()).map_err(|refusal| refused(&refusal))?;
    let own = crate::transport::Own::of(transport).is_some();
    if !own && !get(transport, "openTurn").is_function() {
        return Err(error(
            Code::InvalidTransport,
            "a transport needs an `openTurn(request, sink, signal)` method",
        ));
    }
    Ok(())
}

struct Inner {
    core: baton_core::Engine,
    /// Where the engine's steps are written.
    persistence: writes::Persistence,
    /// What the engine shows and tells in the page.
    page: page::Page,
    /// How the engine reaches the acting party.
    reach: Reach,
    /// The core's next deadline and the timeout armed for it (dropping it
    /// cancels it).
    timer: Option<(u64, gloo_timers::callback::Timeout)>,
}

/// A Baton engine in the page.
#[wasm_bindgen]
pub struct Engine {
    /// The engine's state; `None` once closed, when every method throws
    /// `closed` (as a closed engine's participants' handles do).
    inner: std::cell::Cell<Option<Shared>>,
}

use crate::clock::now;

fn window() -> Result<web_sys::Window, JsValue> {
    web_sys::window().ok_or_else(|| error(Code::NoWindow, "Baton runs in a browser window"))
}

/// `Engine.open`'s options: the plain ones, checked strictly, and the two
/// that are objects — the element to hold the live region and the
/// transport (its protocol version checked here, AG-45).
fn read_options(
    options: &JsValue,
) -> Result<(OpenOptions, Option<web_sys::Element>, Option<JsValue>), JsValue> {
    let (parent, transport) = if options.is_object() {
        let transport = get(options, "transport");
        let parent = get(options, "liveRegionParent");
        // An element, or nothing: a selector or a framework's ref object
        // is refused, not quietly replaced by `body`.
        let parent = match parent.dyn_into::<web_sys::Element>() {
            Ok(element) => Some(element),
            Err(other) if other.is_undefined() || other.is_null() => None,
            Err(_) => {
                return Err(error(
                    Code::InvalidOptions,
                    "`liveRegionParent` must be an element of the page",
                ))
            }
        };
        (
            parent,
            (!transport.is_undefined() && !transport.is_null()).then_some(transport),
        )
    } else {
        (None, None)
    };
    if let Some(transport) = &transport {
        check_transport(transport)?;
    }
    let plain: OpenOptions = if options.is_object() {
        let copy = js_sys::Object::assign(&js_sys::Object::new(), options.unchecked_ref());
        for key in OBJECT_OPTIONS {
            js_sys::Reflect::delete_property(&copy, &key.into())
                .map_err(|thrown| wrapped(Code::InvalidOptions, "the options", &thrown))?;
        }
        convert::from_js(&copy.into()).map_err(|e| e.thrown_as(Code::InvalidOptions))?
    } else if options.is_undefined() || options.is_null() {
        OpenOptions::default()
    } else {
        // Not an object: refused as JSON of the wrong shape.
        convert::from_js(options).map_err(|e| e.thrown_as(Code::InvalidOptions))?
    };
    // The session names every run and question it mints (`<session>/r<n>`):
    // one those ids could not be passed back with is refused here.
    if let Some(session) = &plain.session {
        if session.is_empty()
            || session.chars().count() > 256
            || session.chars().any(char::is_control)
        {
            let why = "the session must be 1 to 256 characters, with no control characters";
            return Err(error(Code::InvalidOptions, why));
        }
    }
    Ok((plain, parent, transport))
}

/// The database an engine opens: `dbName`, or `baton`.
fn db_name(options: &OpenOptions) -> &str {
    options.db_name.as_deref().unwrap_or("baton")
}

/// A key for actor references from the browser's cryptographic random
/// source (AG-33), and that source for the session id.
fn random_key() -> Result<(web_sys::Crypto, [u8; 32]), JsValue> {
    let crypto = window()?
        .crypto()
        .map_err(|thrown| wrapped(Code::NoWindow, "the cryptographic random source", &thrown))?;
    let mut key = [0u8; 32];
    crypto
        .get_random_values_with_u8_array(&mut key)
        .map_err(|thrown| wrapped(Code::NoWindow, "the cryptographic random source", &thrown))?;
    Ok((crypto, key))
}

impl Engine {
    /// Opens an engine (`Engine.open`): creates (or joins) the page's one
    /// polite live region before any message (AG-36), opens storage and
    /// reconciles what a reload or crash left behind, and uses the database's key for actor
    /// references (drawn from the browser's cryptographic random source the
    /// first time, AG-33).
    ///
    /// Options: `appName`, `actorName`, `session`, `ceiling`, `presence`,
    /// `transport` (AG-45 checked here), `storage` (`indexeddb` or
    /// `memory`), `dbName`, and `liveRegionParent` (an element to hold the
    /// region). A session another live engine drives is refused with
    /// `session-in-use`; IndexedDB failing is not an error (the engine runs
    /// in memory and says so).
    ///
    /// The database's open request goes out once the options are read
    /// (options refused touch no storage), and the engine sets itself up
    /// while the browser answers it. What the opening holds before the
    /// engine does — the session's lock, the connection — is in `held`, for
    /// a panic while opening to let go of ([`persist::Held`]).
    fn opening(
        options: JsValue,
        held: Rc<persist::Held>,
    ) -> impl std::future::Future<Output = Result<Engine, JsValue>> {
        crate::panic::install();
        crate::patterns::ensure();
        let read = read_options(&options).and_then(|read| Ok((read, random_key()?)));
        let opening = read.as_ref().ok().and_then(|((options, ..), (_, key))| {
            (options.storage == persist::StorageMode::Indexeddb).then(|| {
                let (connecting, opening) = crate::store::Store::open(db_name(options), *key);
                held.connecting(connecting);
                opening
            })
        });
        async move {
            let ((options, parent, transport), (crypto, key)) = read?;
            let db_name = db_name(&options).to_owned();
            let window = window()?;
            let document = window.document().ok_or_else(|| {
                error(Code::NoWindow, "Baton needs a document for its live region")
            })?;
            let region = LiveRegion::attach(&document, parent.as_ref())
                .map_err(|thrown| wrapped(Code::NoWindow, "the live region", &thrown))?;
            let session = options.session.unwrap_or_else(|| crypto.random_uuid());
            let mut config = EngineConfig::new(session);
            if let Some(ceiling) = options.ceiling {
                config.ceiling = ceiling;
            }
            if let Some(presence) = options.presence {
                config.presence = presence;
            }
            if let Some(limits) = options.turn_limits {
                config.turn_limits = limits;
            }
            // Without a transport only fixed plans run; the core refuses the rest (AG-50).
            config.transport = transport.is_some();
            let opened = persist::open(opening, &db_name, config, key, now(), &held).await?;
            crate::strike_here!("opened");
            let (busy, store_key, skipped) = (opened.busy, opened.key, opened.unreadable);
            let shared = Shared::new(Inner {
                core: opened.core,
                persistence: writes::Persistence::new(opened.store, opened.status, opened.release),
                page: page::Page::new(
                    region,
                    options.app_name.unwrap_or_else(|| "The application".into()),
                    options.actor_name.unwrap_or_else(|| "Assistant".into()),
                ),
                reach: Reach::new(transport),
                timer: None,
            });
            held.handed_to(shared.downgrade().abandoner());
            // Rows opening could not read: said to every subscriber.
            for (store, key, why) in skipped {
                unreadable(&shared.downgrade(), store, &key, &why);
            }
            listen_for_escape(&shared, &window);
            watch_version_changes(&shared);
            sweep_when_free(&shared, &db_name, busy, store_key);
            page::join(&shared);
            // Runs a reload or crash left active return `interrupted`, overdue
            // questions expire, lapsed grants drop — and that is written back.
            // A new session holds none of them: nothing to step (nor to
            // compile the step loop for, before anything happens).
            if shared.core(|core| core.has_anything_to_reconcile()) {
                shared.tell(Reconcile);
            }
            Ok(Engine {
                inner: std::cell::Cell::new(Some(shared)),
            })
        }
    }
}

#[cfg(test)]
impl Engine {
    /// [`Engine::opening`], what a panic would let go of kept nowhere.
    pub(crate) fn open(
        options: JsValue,
    ) -> impl std::future::Future<Output = Result<Engine, JsValue>> {
        Engine::opening(options, Rc::default())
    }
}

#[wasm_bindgen]
impl Engine {
    /// `Engine.open`: opens an engine (what it reads and does: `Engine::opening`
    /// in this crate).
    #[wasm_bindgen(js_name = open)]
    pub fn open_js(options: JsValue) -> js_sys::Promise {
        let held = Rc::new(persist::Held::default());
        let opening = Engine::opening(options, Rc::clone(&held));
        let let_go: crate::panic::Struck = Rc::new(move || held.let_go());
        crate::panic::promise(
            Box::pin(async move { Ok(opening.await?.into()) }),
            Some(let_go),
        )
    }

    /// Where the engine keeps its state: `{ mode: "indexeddb" | "memory",
    /// degraded?, dbName?, transactions, records, reconciled }`.
    #[wasm_bindgen(getter)]
    pub fn storage(&self) -> Result<JsValue, JsValue> {
        self.live()?
            .persistence(|persistence| to_js(persistence.status()))
    }

    /// A run's whole journal, oldest first, from IndexedDB — runs of
    /// earlier page loads included — or from memory without storage.
    pub fn history(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
    ) -> Result<js_sys::Promise, JsValue> {
        let run = convert::id(&run, "`run`")?;
        let live = self.live()?;
        let store = live.persistence(|persistence| persistence.store());
        let memory = self.journal(JsValue::from(&run));
        let engine = live.downgrade();
        Ok(engine.clone().promise(async move {
            let Some(store) = store else {
                return memory;
            };
            let records = store
                .journal(Some(&run))
                .await
                .map_err(|cause| error(Code::StorageFailed, &cause.to_string()))?;
            let array = js_sys::Array::new();
            let stored = !records.is_empty();
            for (place, text) in records.into_iter().enumerate() {
                // A damaged row is skipped and said: the others are read.
                let Ok(row) = js_sys::JSON::parse(&text) else {
                    let key = format!("{run}, row {place}");
                    unreadable(&engine, "journal", &key, "it is not JSON");
                    continue;
                };
                match row.dyn_ref::<js_sys::Array>() {
                    Some(chunk) => chunk.for_each(&mut |record, _, _| {
                        array.push(&record);
                    }),
                    None => {
                        array.push(&row);
                    }
                }
            }
            // Nothing stored (a run of this page not written yet): memory's.
            if !stored {
                return memory;
            }
            // Then what memory holds past the last record written: steps
            // still waiting behind a write.
            let revision = |record: &JsValue| crate::calls::get(record, "revision").as_f64();
            let last = revision(&array.get(array.length().saturating_sub(1)));
            if let (Ok(memory), Some(last)) = (memory, last) {
                js_sys::Array::from(&memory).for_each(&mut |record, _, _| {
                    if revision(&record).is_some_and(|at| at > last) {
                        array.push(&record);
                    }
                });
            }
            Ok(array.into())
        }))
    }

    /// The history of delegations, newest first and a page at a time: this
    /// engine's runs and every run IndexedDB holds (earlier page loads
    /// included), as the core lists them.
    pub fn runs(&self, options: JsValue) -> Result<js_sys::Promise, JsValue> {
        let value = convert::json(options, "runs()'s options")?;
        let query = baton_core::RunsQuery::from_options(&value).map_err(|e| refused(&e))?;
        let live = self.live()?;
        let mut listings: Vec<baton_core::RunListing> = live.core(|core| {
            let session = core.config().session.to_string();
            // What is in memory first: it is newer than what was last written.
            core.runs().map(|run| run.listing(&session)).collect()
        });
        let store = live.persistence(|persistence| persistence.store());
        let engine = live.downgrade();
        Ok(engine.clone().promise(async move {
            if let Some(store) = store {
                // Only the page is read: from the run it comes after (itself
                // included, to place the page), as many as it holds, one
                // more to know whether another follows, and one for each
                // run in memory, whose stored copy may stand in the page.
                let after = query.after.as_ref().map(|after| {
                    let known = listings.iter().find(|listing| listing.run == *after);
                    (known.map(|listing| listing.created_at), after.as_str())
                });
                let in_memory = listings.len();
                let base = query.limit + in_memory + 2;
                let mut count = base;
                loop {
                    let wanted = u32::try_from(count).unwrap_or(u32::MAX);
                    let rows = store
                        .runs_page(after, wanted, query.session.clone())
                        .await
                        .map_err(|cause| error(Code::StorageFailed, &cause.to_string()))?;
                    let (read, mut skipped) = (rows.len(), 0);
                    listings.truncate(in_memory);
                    for (id, session, text) in rows {
                        // A run in memory is listed as it is there; its stored
                        // copy is not even read.
                        if listings[..in_memory]
                            .iter()
                            .any(|listing| listing.run.as_str() == id)
                        {
                            continue;
                        }
                        // A damaged row is skipped and said: the others are listed.
                        match persist::parsed::<baton_core::Run>(&text) {
                            Ok(run) => listings.push(run.listing(&session)),
                            Err(cause) => {
                                skipped += 1;
                                unreadable(&engine, "runs", &id, &cause.to_string());
                            }
                        }
                    }
                    // Rows that could not be read took places in the page:
                    // read again with room for them, unless the history
                    // ended first.
                    if read < count || base + skipped <= count {
                        break;
                    }
                    count = base + skipped;
                }
            }
            let page = baton_core::page_of_runs(listings, &query).map_err(|e| refused(&e))?;
            to_js(&page)
        }))
    }

    /// The session this engine drives.
    #[wasm_bindgen(getter)]
    pub fn session(&self) -> Result<String, JsValue> {
        Ok(self.live()?.core(|core| core.config().session.to_string()))
    }

    /// Who acts, as the person hears it (`actorName` of `Engine.open`).
    #[wasm_bindgen(getter, js_name = actorName)]
    pub fn actor_name(&self) -> Result<String, JsValue> {
        Ok(self.live()?.page(|page| page.actor_name().to_owned()))
    }

    /// Closes the engine: its timer stops and it stops listening for
    /// Escape; from now on its methods throw `closed`. Closing again does
    /// nothing. The live region stays for the page's other engines.
    /// Subscribers hear `closed` last.
    pub fn close(&self) {
        // Said with the engine already closed: a subscriber that calls
        // back hears `closed`.
        if let Some(live) = self.inner.take().filter(|live| !live.poisoned()) {
            live.closing();
            effects::emit(&live, &HostEvent::Closed);
        }
    }
}

/// A stored row that could not be read: said once (`unreadable-row`) to
/// the engine's subscribers, and to every later one, if the engine is
/// still open.
fn unreadable(engine: &drive::WeakShared, store: &str, key: &str, reason: &str) {
    let Some(engine) = engine.upgrade() else {
        return;
    };
    if engine.persistence(|persistence| persistence.first_unreadable(store, key)) {
        let event = HostEvent::UnreadableRow {
            store: store.to_owned(),
            key: key.to_owned(),
            reason: reason.to_owned(),
        };
        // Told to later subscribers too.
        engine.page(|page| page.stand(event.clone()));
        effects::emit(&engine, &event);
    }
}

impl Drop for Inner {
    /// However the engine goes away (`close`, `free`, garbage collection),
    /// it leaves no timer and no listener behind.
    fn drop(&mut self) {
        // Dropping the timeout cancels it.
        self.timer.take();
        // Before the session's lock goes: the next engine reads after it.
        writes::write_queued_on_close(self);
    }
}

impl Engine {
    /// The engine's state, or `closed` once `close()` has been called.
    fn live(&self) -> Result<Shared, JsValue> {
        let state = self.inner.take();
        let live = state.clone();
        self.inner.set(state);
        match live {
            // A panic struck one of its steps: it closes itself now, its
            // runs left in storage as they stood, for the next engine of
            // the session to reconcile as cut off (AG-11).
            Some(live) if live.poisoned() => {
                live.let_go();
                drop(live);
                self.close();
                Err(crate::panic::closed_by_panic())
            }
            Some(live) => Ok(live),
            None => Err(error(Code::Closed, "the engine is closed")),
        }
    }

    /// Runs a command on the core at the current time, carries out what it
    /// caused (one step), and turns a refusal into a `BatonError` with its
    /// code and requirement.
    fn command<I, T, E>(&self, input: I) -> Result<T, JsValue>
    where
        I: baton_core::Input<Answer = Result<T, E>>,
        E: Coded,
    {
        let result = self.live()?.tell(input);
        result.map_err(|refusal| refused(&refusal))
    }

    /// Reads one run, or throws `unknown-run`.
    fn with_run<T>(
        &self,
        run: &str,
        read: impl FnOnce(&baton_core::Run) -> T,
    ) -> Result<T, JsValue> {
        let found = self
            .live()?
            .core(|core| core.run(&RunId::new(run)).map(|view| read(view.run())));
        found.ok_or_else(|| {
            let message = format!(
                "unknown run {run} (a run that finished before this page loaded, or one of \
                     this page's earlier finished runs, is history: `engine.history(run)`)"
            );
            error(Code::UnknownRun, &message)
        })
    }

    /// Disables or enables delegation; the header changes without a record.
    fn set_disabled(&self, disabled: bool) -> Result<(), JsValue> {
        let live = self.live()?;
        if disabled {
            live.tell(Disable);
        } else {
            live.tell(Enable);
        }
        Ok(())
    }
}

/// Sessions whose engine still held its lock when this one opened — a
/// reload, whose old page is not gone yet — are reconciled once their
/// lock frees up, in the background: their cut-off runs return
/// `interrupted` and subscribers hear `storage-reconciled`.
fn sweep_when_free(inner: &Shared, db_name: &str, sessions: Vec<String>, key: [u8; 32]) {
    let Some(store) = inner.persistence(|persistence| persistence.store()) else {
        return;
    };
    if sessions.is_empty() {
        return;
    }
    let Ok(controller) = web_sys::AbortController::new() else {
        return;
    };
    let signal = controller.signal();
    inner.persistence(|persistence| persistence.sweeping(controller));
    for session in sessions {
        let (store, signal, db_name) = (Rc::clone(&store), signal.clone(), db_name.to_owned());
        let weak = inner.downgrade();
        let own = inner.core(|core| core.config().session.to_string());
        weak.clone().spawn(async move {
            let sessions = (session.as_str(), own.as_str());
            let swept = persist::sweep_when_free(&store, &db_name, sessions, key, &signal).await;
            if let (Some(Err(error)), Some(inner)) = (&swept, weak.upgrade()) {
                let why = persist::left_as_they_stood(error);
                unreadable(&inner.downgrade(), "sessions", &session, &why);
            }
            if let (Some(Ok((ended, offered, skipped))), Some(inner)) = (swept, weak.upgrade()) {
                for (store, key, why) in skipped {
                    unreadable(&inner.downgrade(), store, &key, &why);
                }
                let event = HostEvent::StorageReconciled {
                    session: baton_core::SessionId::new(session),
                    ended,
                    offered: u32::try_from(offered.len()).unwrap_or(u32::MAX),
                };
                inner.persistence(|persistence| persistence.reconciled(ended));
                inner.page(|page| page.stand(event.clone()));
                // What it cut off while waiting for the person is this
                // engine's to offer again: written as its own at once, its
                // session's header beside it, so a reload before the person
                // does anything finds it.
                inner.tell(Adopt(offered));
                emit(&inner, &event);
            }
        });
    }
}

/// Another page upgrading the database closes this connection: the
/// engine goes on in memory and says so.
fn watch_version_changes(inner: &Shared) {
    let weak = inner.downgrade();
    if let Some(store) = inner.persistence(|persistence| persistence.store()) {
        store.on_version_change(move || {
            if let Some(inner) = weak.upgrade() {
                degrade(&inner, crate::store::StoreError::Upgraded);
            }
        });
    }
}

/// AG-42: Escape is the keyboard exit, carried out by the core's
/// `interrupt_all` (every active run stopped, announced as the person's
/// act). With no run active it changes nothing and prevents nothing.
///
/// The exit yields to the page: the engine listens on the window, where
/// a key arrives after the page's own handlers on its elements and its
/// document, and an Escape one of them used (`preventDefault()`: a
/// menu, an editor, a dialog closing) stops nothing.
fn listen_for_escape(inner: &Shared, window: &web_sys::Window) {
    let weak = inner.downgrade();
    let listener =
        Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(move |event: web_sys::KeyboardEvent| {
            if event.key() != "Escape" || event.default_prevented() {
                return;
            }
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let stopped = inner.feed(InterruptAll);
            if stopped == 0 {
                return;
            }
            pump(&inner);
        });
    if window
        .add_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref())
        .is_ok()
    {
        inner.page(|page| page.listen_for_escape(listener));
    }
}

/// Reports a refused registration once: an event for subscribers now and
/// later, and one console warning for the developer (AG-13).
fn refuse_registration(inner: &Shared, refused: &baton_core::RegistrationRefused) {
    let event = HostEvent::RegistrationRefused {
        participant: refused.participant.clone(),
        problems: refused.problems.clone(),
    };
    web_sys::console::warn_1(&JsValue::from_str(&format!("Baton: {refused}")));
    inner.page(|page| page.stand(event.clone()));
    emit(inner, &event);
}

mod api;
mod cut_off;
pub(crate) mod drive;
mod effects;
mod export;
mod grants;
mod page;
mod participant;
mod persist;
mod reach;
mod timers;
mod words;
mod writes;

use reach::Reach;

use drive::{pump, Shared, WeakShared};
use effects::{carry_out, emit, settle_calls};
pub use participant::Participant;
use timers::arm_timer;
use writes::{degrade, persist_step};

#[cfg(test)]
mod agui_tests;
#[cfg(test)]
mod edges_tests;
#[cfg(test)]
mod notify_tests;
#[cfg(test)]
mod panic_tests;
#[cfg(test)]
mod persist_tests;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod transport_tests;
#[cfg(test)]
mod turn_content_tests;
