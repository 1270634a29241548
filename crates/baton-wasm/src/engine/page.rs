//! An engine in the page: what it shows and tells there ([`Page`]: the one
//! live region, Escape, presence surfaces and subscribers), and what spans
//! every engine in the page and every tab of the origin: the global kill
//! (AG-10). `killAll()` on any engine ends every active run of
//! every engine in this page and tells the origin's other tabs to do the
//! same, over a `BroadcastChannel` (same-origin by construction). In each
//! page one engine announces the whole kill, once; the core decides what
//! that announcement says ([`baton_core::KillScope`]).

use baton_core::Kill;
use std::cell::RefCell;

use baton_core::KillScope;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::{now, Shared, WeakShared};

/// What an engine shows and tells in the page.
pub(super) struct Page {
    /// The page's one polite live region (AG-36).
    pub(super) region: crate::live_region::LiveRegion,
    /// The document's Escape listener, removed on close.
    pub(super) escape: Option<Closure<dyn FnMut(web_sys::KeyboardEvent)>>,
    /// The `presence` object, made once.
    pub(super) presence: Option<JsValue>,
    /// Attached presence surfaces; each gets every event at `handleEvent`.
    pub(super) surfaces: Vec<(u32, JsValue)>,
    pub(super) subscribers: Vec<(u32, js_sys::Function)>,
    pub(super) next_subscriber: u32,
    /// Events every later subscriber hears too: `registration-refused`,
    /// `storage-reconciled`.
    pub(super) standing: Vec<baton_core::HostEvent>,
    /// How many calls or reverts are changing each participant now (AG-40).
    pub(super) busy: std::collections::BTreeMap<baton_core::ParticipantId, u32>,
}

/// The channel every engine of the origin listens on.
const CHANNEL: &str = "baton-engine";
/// The one message it carries.
const KILL_ALL: &str = "baton/kill-all";

thread_local! {
    static ENGINES: RefCell<Vec<WeakShared>> = const { RefCell::new(Vec::new()) };
    static LISTENER: RefCell<Option<Listener>> = const { RefCell::new(None) };
}

/// The page's channel and the closure that answers it, kept for the page's life.
struct Listener {
    channel: web_sys::BroadcastChannel,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

/// An engine joins the page: a kill anywhere reaches it.
pub(super) fn join(inner: &Shared) {
    ENGINES.with(|engines| {
        let mut engines = engines.borrow_mut();
        engines.retain(|engine| engine.upgrade().is_some());
        engines.push(inner.downgrade());
    });
    LISTENER.with(|listener| {
        if listener.borrow().is_none() {
            *listener.borrow_mut() = listen();
        }
    });
}

/// Ends every active run of every engine in the page; `announcer` (or the
/// first engine) announces the whole kill once. Returns how many ran.
pub(super) fn kill_page(announcer: Option<&Shared>) -> u32 {
    let engines: Vec<Shared> = ENGINES.with(|engines| {
        engines
            .borrow()
            .iter()
            .filter_map(WeakShared::upgrade)
            .collect()
    });
    let Some(announcer) = announcer.cloned().or_else(|| engines.first().cloned()) else {
        return 0;
    };
    let mut elsewhere: u32 = 0;
    for engine in engines.iter().filter(|engine| !engine.same(&announcer)) {
        let ended = engine.step(|inner| inner.core.handle(now(), Kill(KillScope::Silent)));
        elsewhere = elsewhere.saturating_add(u32::try_from(ended).unwrap_or(u32::MAX));
    }
    let here = announcer.step(|inner| {
        inner
            .core
            .handle(now(), Kill(KillScope::Announcing { elsewhere }))
    });
    elsewhere.saturating_add(u32::try_from(here).unwrap_or(u32::MAX))
}

/// Tells the origin's other tabs to kill too. A channel does not hear its
/// own messages, so this page is not killed twice.
pub(super) fn tell_other_tabs() {
    LISTENER.with(|listener| {
        if let Some(listener) = listener.borrow().as_ref() {
            let message = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&message, &"type".into(), &KILL_ALL.into());
            let _ = listener.channel.post_message(&message);
        }
    });
}

fn listen() -> Option<Listener> {
    // Without BroadcastChannel the kill still spans the page.
    let channel = web_sys::BroadcastChannel::new(CHANNEL).ok()?;
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(|event: web_sys::MessageEvent| {
            let kind = js_sys::Reflect::get(&event.data(), &"type".into())
                .ok()
                .and_then(|kind| kind.as_string());
            // Only the one message is acted on; anything else is ignored.
            if kind.as_deref() == Some(KILL_ALL) {
                kill_page(None);
            }
        });
    channel.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    Some(Listener {
        channel,
        _on_message: on_message,
    })
}
