//! The engine's state and the one loop that changes it.
//!
//! [`Shared`] holds an engine's state ([`Inner`]) and is the only way to
//! reach it; this module is the only one that borrows it, each part for as
//! long as one closure runs: the core is told an input
//! ([`Shared::tell`], [`Shared::feed`]), read ([`Shared::core`]) or drained
//! of its outputs ([`Shared::outputs`]); the adapter's own parts —
//! [`Persistence`], [`Page`], [`Reach`], the timer — are used through their
//! methods. What a JS callback brings in (a participant's answer, a timer, a
//! transport's event, a key, a committed write) is told to the core and
//! then carried out: the core queues what it decided, and [`pump`] drains
//! that queue with the borrow released, so a listener or participant may
//! call back into the engine while it runs. A callback that arrives while a
//! step is drained feeds the core at once and leaves its events to the loop
//! already running: one step at a time, in order.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use baton_core::{Event, Input};
use gloo_timers::callback::Timeout;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::page::Page;
use super::writes::Persistence;
use super::{carry_out, now, persist, settle_calls, Inner, Reach};
use crate::calls::get;
use crate::convert::to_js;

/// An engine's state, shared by the engine and the callbacks it hands out.
#[derive(Clone)]
pub(super) struct Shared(Rc<State>);

/// A [`Shared`] that does not keep the engine alive (what callbacks hold).
#[derive(Clone)]
pub(super) struct WeakShared(Weak<State>);

struct State {
    inner: RefCell<Inner>,
    /// Set while a step's events are drained.
    draining: Cell<bool>,
    /// Set when a panic struck in the middle of one of its steps: its state
    /// may be half-changed, and it is never reached again.
    poisoned: Cell<bool>,
    /// Set when the app closed the engine: a step still draining (a
    /// listener closed it) carries nothing more out.
    closed: Cell<bool>,
    /// What lets go of the session's lock and closes the connection, kept
    /// outside the state: a panic leaks the state's last reference (a trap
    /// runs no destructor), and the session must still be let go.
    let_go: RefCell<Option<Box<dyn FnOnce()>>>,
}

/// A Rust panic is a trap in WebAssembly: the step it struck never ends,
/// and what it was changing may be half-changed. Called by the panic hook
/// (`crate::panic`), this marks every engine that was in the middle of a
/// step — its state borrowed, or its events being drained — as poisoned:
/// nothing reaches that state again, and the engine closes at its next call.
pub(crate) fn poison_stepping() {
    // The page's engines (`page::join`), poisoned or not.
    for state in super::page::joined()
        .iter()
        .filter_map(|engine| engine.0.upgrade())
    {
        if state.draining.get() || state.inner.try_borrow_mut().is_err() {
            state.poisoned.set(true);
        }
    }
}

impl Shared {
    pub(super) fn new(inner: Inner) -> Shared {
        let let_go = inner.persistence.let_go();
        let state = Rc::new(State {
            inner: RefCell::new(inner),
            draining: Cell::new(false),
            poisoned: Cell::new(false),
            closed: Cell::new(false),
            let_go: RefCell::new(Some(let_go)),
        });
        Shared(state)
    }

    /// The app closed the engine: nothing more is carried out, nor heard.
    pub(super) fn closing(&self) {
        self.0.closed.set(true);
    }

    /// Whether a panic struck in the middle of one of its steps.
    pub(super) fn poisoned(&self) -> bool {
        self.0.poisoned.get()
    }

    /// A poisoned engine lets go of its session (its lock, its connection)
    /// without reaching its state: the next engine of the session can open,
    /// and reconciles what it left.
    pub(super) fn let_go(&self) {
        if let Some(let_go) = self.0.let_go.borrow_mut().take() {
            let_go();
        }
    }

    /// The one mutable borrow of the engine's state, held while `change`
    /// runs. `change` calls no JS that could call back into the engine: what
    /// it leads to is carried out afterwards, by [`pump`]. A poisoned engine's
    /// state is never reached: the callback that tried throws `closed`.
    fn with<T>(&self, change: impl FnOnce(&mut Inner) -> T) -> T {
        self.unpoisoned();
        change(&mut self.0.inner.borrow_mut())
    }

    /// Reads the engine's state.
    fn read<T>(&self, look: impl FnOnce(&Inner) -> T) -> T {
        self.unpoisoned();
        look(&self.0.inner.borrow())
    }

    /// Runs `during` as if inside one of the engine's steps (its state
    /// borrowed): what a test of a panic striking a step calls.
    #[cfg(test)]
    pub(super) fn during_step(&self, during: impl FnOnce()) {
        self.with(|_| during());
    }

    fn unpoisoned(&self) {
        if self.poisoned() {
            wasm_bindgen::throw_val(crate::panic::closed_by_panic());
        }
    }

    /// Tells the core `input` now and carries out what it caused: one step.
    pub(super) fn tell<I: Input>(&self, input: I) -> I::Answer {
        let answer = self.feed(input);
        pump(self);
        answer
    }

    /// Tells the core `input` now, leaving what it caused to the step under
    /// way (or the next).
    pub(super) fn feed<I: Input>(&self, input: I) -> I::Answer {
        self.with(|inner| inner.core.handle(now(), input))
    }

    /// Takes the core's outputs (`poll_event`, `take_header_changed`).
    pub(super) fn outputs<T>(&self, take: impl FnOnce(&mut baton_core::Engine) -> T) -> T {
        self.with(|inner| take(&mut inner.core))
    }

    /// Reads the core.
    pub(super) fn core<T>(&self, look: impl FnOnce(&baton_core::Engine) -> T) -> T {
        self.read(|inner| look(&inner.core))
    }

    /// Where the engine's steps are written.
    pub(super) fn persistence<T>(&self, act: impl FnOnce(&mut Persistence) -> T) -> T {
        self.with(|inner| act(&mut inner.persistence))
    }

    /// What the engine shows and tells in the page.
    pub(super) fn page<T>(&self, act: impl FnOnce(&mut Page) -> T) -> T {
        self.with(|inner| act(&mut inner.page))
    }

    /// How the engine reaches the acting party, beside the core it reaches
    /// it for.
    pub(super) fn reach_by_core<T>(
        &self,
        act: impl FnOnce(&mut Reach, &baton_core::Engine) -> T,
    ) -> T {
        self.with(|inner| act(&mut inner.reach, &inner.core))
    }

    /// The timeout armed for the core's next deadline, and that deadline.
    pub(super) fn timer<T>(&self, act: impl FnOnce(&mut Option<(u64, Timeout)>) -> T) -> T {
        self.with(|inner| act(&mut inner.timer))
    }

    /// How the engine reaches the acting party.
    pub(super) fn reach<T>(&self, act: impl FnOnce(&mut Reach) -> T) -> T {
        self.with(|inner| act(&mut inner.reach))
    }

    pub(super) fn downgrade(&self) -> WeakShared {
        WeakShared(Rc::downgrade(&self.0))
    }

    /// Whether two handles hold the same engine.
    pub(super) fn same(&self, other: &Shared) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for WeakShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("(an engine)")
    }
}

impl WeakShared {
    /// The engine, unless it has gone away or a panic poisoned it: a
    /// callback of a poisoned engine does nothing.
    pub(super) fn upgrade(&self) -> Option<Shared> {
        self.0
            .upgrade()
            .filter(|state| !state.poisoned.get())
            .map(Shared)
    }

    /// What a panic striking one of the engine's tasks does: poisons it, as
    /// a panic in one of its steps does.
    pub(super) fn poisoner(&self) -> crate::panic::Struck {
        let state = self.0.clone();
        Rc::new(move || {
            if let Some(state) = state.upgrade() {
                state.poisoned.set(true);
            }
        })
    }

    /// What a panic while the engine is still being opened does to it: no
    /// app holds it to call it again, so it is poisoned and lets go of its
    /// session (its lock, its connection) at once.
    pub(super) fn abandoner(&self) -> crate::panic::Struck {
        let state = self.0.clone();
        Rc::new(move || {
            if let Some(state) = state.upgrade() {
                state.poisoned.set(true);
                let let_go = state
                    .let_go
                    .try_borrow_mut()
                    .ok()
                    .and_then(|mut it| it.take());
                if let Some(let_go) = let_go {
                    let_go();
                }
            }
        })
    }

    /// Runs a task of the engine's: a panic while it is worked on poisons
    /// the engine.
    pub(super) fn spawn(&self, task: impl std::future::Future<Output = ()> + 'static) {
        crate::panic::spawn(Box::pin(task), self.poisoner());
    }

    /// A promise the engine returns to the app: a panic while it is worked
    /// on poisons the engine and rejects it with `internal`.
    pub(super) fn promise(
        &self,
        future: impl std::future::Future<Output = Result<JsValue, JsValue>> + 'static,
    ) -> js_sys::Promise {
        crate::panic::promise(Box::pin(future), Some(self.poisoner()))
    }
}

/// Carries every pending event out of the core, then arms its next timer.
///
/// Everything one pump drains is one engine step: its journal records are
/// written in one transaction, and the messages that close runs are said only
/// once that transaction has committed.
pub(super) fn pump(inner: &Shared) {
    // A listener or participant that calls back into the engine while a step
    // is drained must not start a second step: the loop below picks its
    // events up, in order, into this one.
    if inner.0.draining.replace(true) {
        return;
    }
    let mut records = Vec::new();
    let mut closings = Vec::new();
    loop {
        let events: Vec<Event> =
            inner.outputs(|core| std::iter::from_fn(|| core.poll_event()).collect());
        if events.is_empty() {
            break;
        }
        // Each journal record is written as JSON once, for the subscribers
        // and for the store.
        let events: Vec<Drained> = events.into_iter().map(Drained::from).collect();
        // What the subscribers hear, crossing into JS as one array: one
        // text and one `JSON.parse` for the batch, not one per event.
        let heard = inner
            .page(|page| page.has_listeners())
            .then(|| heard(&events))
            .flatten();
        for (i, event) in events.into_iter().enumerate() {
            // Each event is heard before it is carried out, as if one at a
            // time. Once a listener closed the engine, the rest of the step
            // is only written: no participant is called, nobody hears more.
            let closed = inner.0.closed.get();
            match &heard {
                _ if closed => {}
                Some(values) => notify_value(inner, &values.get(i as u32)),
                None => notify(inner, &event),
            }
            match event {
                Drained::Other(Event::Effect(_)) if inner.0.closed.get() => {}
                event => carry(inner, event, &mut records, &mut closings),
            }
        }
    }
    inner.0.draining.set(false);
    super::arm_timer(inner);
    super::persist_step(inner, records, closings);
}

/// An event drained from the core, its journal record already written as
/// JSON.
enum Drained {
    Journal(persist::Journalled),
    Other(Event),
}

impl From<Event> for Drained {
    fn from(event: Event) -> Drained {
        match event {
            Event::Journal(record) => Drained::Journal(persist::Journalled::new(record)),
            other => Drained::Other(other),
        }
    }
}

impl Drained {
    /// The event as subscribers hear it, as JSON text.
    fn json(&self) -> Option<String> {
        match self {
            Drained::Journal(journalled) => journalled.event_json(),
            Drained::Other(event) => serde_json::to_string(event).ok(),
        }
    }
}

/// The events as one JS array, or `None` if one of them cannot be written
/// (then each is handed over alone, as [`notify`] does).
fn heard(events: &[Drained]) -> Option<js_sys::Array> {
    let mut text = String::from("[");
    for (i, event) in events.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&event.json()?);
    }
    text.push(']');
    js_sys::JSON::parse(&text).ok()?.dyn_into().ok()
}

/// Does what one drained event asks of the adapter.
fn carry(
    inner: &Shared,
    event: Drained,
    records: &mut Vec<persist::Journalled>,
    closings: &mut Vec<String>,
) {
    let event = match event {
        Drained::Journal(journalled) => {
            records.push(journalled);
            return;
        }
        Drained::Other(event) => event,
    };
    match event {
        Event::Announcement(announcement) => {
            let message = inner.page(|page| page.words(&announcement));
            if announcement.closes() {
                closings.push(message);
            } else {
                inner.page(|page| page.say(message));
            }
        }
        Event::Undone { report } => {
            let resolve = inner.reach(|reach| reach.undo_done(&report.run));
            if let (Some(resolve), Ok(value)) = (resolve, to_js(&report)) {
                let _ = resolve.call1(&JsValue::NULL, &value);
            }
        }
        Event::Effect(effect) => carry_out(inner, effect),
        settled @ Event::CallsSettled { .. } => settle_calls(inner, &settled),
        Event::Journal(_)
        | Event::Finding(_)
        | Event::Question(_)
        | Event::EscalationReceipt { .. }
        | Event::PresenceMissing { .. } => {}
    }
}

fn notify(inner: &Shared, event: &Drained) {
    if inner.page(|page| page.has_listeners()) {
        if let Some(Ok(value)) = event.json().map(|text| js_sys::JSON::parse(&text)) {
            notify_value(inner, &value);
        }
    }
}

/// Hands an event to every subscriber and every attached presence surface.
pub(super) fn notify_value(inner: &Shared, value: &JsValue) {
    let (listeners, surfaces) = inner.page(|page| page.listeners());
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

#[cfg(test)]
mod tests {
    use wasm_bindgen_test::wasm_bindgen_test;

    /// The engine's state is borrowed in this module alone (`with` and
    /// `read` are its own), and here only by the few accessors of its
    /// parts: a new place that needs the state uses one of them.
    #[wasm_bindgen_test]
    fn the_state_is_borrowed_in_a_handful_of_places() {
        let code = include_str!("drive.rs");
        let code = &code[..code.find("#[cfg(test)]\nmod tests").unwrap()];
        let borrows = code.matches("self.with(").count() + code.matches("self.read(").count();
        assert!(borrows > 0, "the scan sees the borrows");
        assert!(
            borrows <= 10,
            "the engine's state is borrowed in {borrows} places, at most 10"
        );
    }
}
