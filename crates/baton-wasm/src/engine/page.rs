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

use super::{Shared, WeakShared};

/// What an engine shows and tells in the page.
pub(super) struct Page {
    /// The page's one polite live region (AG-36).
    region: crate::live_region::LiveRegion,
    /// Who the person hears about: the application and the acting party.
    app_name: String,
    actor_name: String,
    /// The document's Escape listener, removed when the engine goes.
    escape: Option<Closure<dyn FnMut(web_sys::KeyboardEvent)>>,
    /// The `presence` object, made once.
    presence: Option<JsValue>,
    /// Attached presence surfaces; each gets every event at `handleEvent`.
    surfaces: Vec<(u32, JsValue)>,
    subscribers: Vec<(u32, js_sys::Function)>,
    next_subscriber: u32,
    /// Events every later subscriber hears too: `registration-refused`,
    /// `storage-reconciled`.
    standing: Vec<baton_core::HostEvent>,
    /// How many calls or reverts are changing each participant now (AG-40).
    busy: std::collections::BTreeMap<baton_core::ParticipantId, u32>,
}

impl Page {
    pub(super) fn new(
        region: crate::live_region::LiveRegion,
        app_name: String,
        actor_name: String,
    ) -> Page {
        Page {
            region,
            app_name,
            actor_name,
            escape: None,
            presence: None,
            surfaces: Vec::new(),
            subscribers: Vec::new(),
            next_subscriber: 0,
            standing: Vec::new(),
            busy: std::collections::BTreeMap::new(),
        }
    }

    /// Who acts, as the person hears it.
    pub(super) fn actor_name(&self) -> &str {
        &self.actor_name
    }

    /// What an announcement says, in the person's words.
    pub(super) fn words(&self, announcement: &baton_core::Announcement) -> String {
        super::words::render(announcement, &self.actor_name, &self.app_name)
    }

    /// The page's live region, which outlives the engine: what a write
    /// that commits after the engine closed still says its closings to.
    pub(super) fn region(&self) -> crate::live_region::LiveRegion {
        self.region.clone()
    }

    /// Writes to the page's live region.
    pub(super) fn say(&self, message: String) {
        // A failed DOM write leaves nobody to tell; the run itself goes on.
        let _ = self.region.announce(message);
    }

    /// Whether anyone hears the engine's events.
    pub(super) fn has_listeners(&self) -> bool {
        !self.subscribers.is_empty() || !self.surfaces.is_empty()
    }

    /// Everyone who hears the engine's events: subscribers, then surfaces.
    pub(super) fn listeners(&self) -> (Vec<js_sys::Function>, Vec<JsValue>) {
        let subscribers = self.subscribers.iter().map(|(_, f)| f.clone()).collect();
        let surfaces = self.surfaces.iter().map(|(_, s)| s.clone()).collect();
        (subscribers, surfaces)
    }

    /// A subscriber; its id unsubscribes it.
    pub(super) fn subscribe(&mut self, listener: js_sys::Function) -> u32 {
        self.next_subscriber += 1;
        self.subscribers.push((self.next_subscriber, listener));
        self.next_subscriber
    }

    pub(super) fn unsubscribe(&mut self, id: u32) {
        self.subscribers.retain(|(other, _)| *other != id);
    }

    /// A presence surface attached; its id detaches it.
    pub(super) fn attach(&mut self, surface: JsValue) -> u32 {
        self.next_subscriber += 1;
        self.surfaces.push((self.next_subscriber, surface));
        self.next_subscriber
    }

    pub(super) fn detach(&mut self, id: u32) {
        self.surfaces.retain(|(other, _)| *other != id);
    }

    /// How many presence surfaces are attached.
    #[cfg(test)]
    pub(super) fn surfaces_attached(&self) -> usize {
        self.surfaces.len()
    }

    /// An event every later subscriber hears too.
    pub(super) fn stand(&mut self, event: baton_core::HostEvent) {
        self.standing.push(event);
    }

    /// The events that stand, oldest first.
    pub(super) fn standing(&self) -> Vec<baton_core::HostEvent> {
        self.standing.clone()
    }

    /// The `presence` object, once made.
    pub(super) fn presence(&self) -> Option<JsValue> {
        self.presence.clone()
    }

    pub(super) fn made_presence(&mut self, presence: JsValue) {
        self.presence = Some(presence);
    }

    /// The document's Escape listener, removed when the engine goes.
    pub(super) fn listen_for_escape(
        &mut self,
        listener: Closure<dyn FnMut(web_sys::KeyboardEvent)>,
    ) {
        self.escape = Some(listener);
    }

    /// A call or revert starts (`delta` 1) or ends (-1) changing
    /// `participant`: how many were under way before and after.
    pub(super) fn busy(
        &mut self,
        participant: &baton_core::ParticipantId,
        delta: i32,
    ) -> (u32, u32) {
        let entry = self.busy.entry(participant.clone()).or_insert(0);
        let before = *entry;
        *entry = entry.saturating_add_signed(delta);
        (before, *entry)
    }
}

impl Drop for Page {
    /// The engine went away: it stops listening for Escape.
    fn drop(&mut self) {
        if let Some(listener) = self.escape.take() {
            if let Some(window) = web_sys::window() {
                let _ = window.remove_event_listener_with_callback(
                    "keydown",
                    listener.as_ref().unchecked_ref(),
                );
            }
        }
    }
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

/// Every engine that joined the page and is still there, poisoned or not
/// (what the panic hook looks through); none while the list is in use.
pub(super) fn joined() -> Vec<WeakShared> {
    ENGINES.with(|engines| {
        engines
            .try_borrow()
            .map(|engines| engines.clone())
            .unwrap_or_default()
    })
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
        let ended = engine.tell(Kill(KillScope::Silent));
        elsewhere = elsewhere.saturating_add(u32::try_from(ended).unwrap_or(u32::MAX));
    }
    let here = announcer.tell(Kill(KillScope::Announcing { elsewhere }));
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
