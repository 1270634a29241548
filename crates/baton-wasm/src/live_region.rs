//! The page's one polite live region (contract AG-36).
//!
//! It is created once, visually hidden, before any message, in the parent
//! the application names or in `document.body`; a second engine on the same
//! page finds and reuses it instead of adding another, and shares its queue:
//! the engines' messages are written in the order they were said. Every
//! message goes in a fresh node, so a repeated message is announced again,
//! and the first message waits a moment after the region appears so screen
//! readers have noticed the region before anything is written to it. A
//! region the page took out of the document (its parent removed, `body`
//! swapped by a router) is found or made again in `body` before the next
//! message, so nothing is said into a detached node. Nothing here moves
//! focus (AG-38).

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement};

/// Marks the region so every engine on the page finds the same one.
const MARKER: &str = "data-baton-live-region";
/// How long the region exists before its first message is written.
pub(crate) const FIRST_WRITE_DELAY_MS: i32 = 150;

/// Handle to the page's live region; every handle of the page shares it.
#[derive(Debug, Clone)]
pub(crate) struct LiveRegion(Rc<RefCell<Region>>);

#[derive(Debug)]
struct Region {
    element: HtmlElement,
    /// When the region was created (ms, `performance.now()` base of `Date.now`).
    created_at: f64,
    /// Messages held back by the first-write delay, in order; one timer
    /// writes them all, so they can never land out of order.
    pending: Vec<String>,
}

thread_local! {
    /// The page's region, while an engine holds it.
    static PAGE: RefCell<Weak<RefCell<Region>>> = const { RefCell::new(Weak::new()) };
}

impl Region {
    /// The page's region in `document`, or a new one in `parent` (or `body`).
    fn find_or_make(document: &Document, parent: Option<&Element>) -> Result<Region, JsValue> {
        if let Some(existing) = document.query_selector(&format!("[{MARKER}]"))? {
            // Whole milliseconds: integers, so the runtime carries no float
            // printer or parser for them.
            let created_at = existing
                .get_attribute(MARKER)
                .and_then(|value| value.parse::<u64>().ok())
                .map_or(0.0, |ms| ms as f64);
            return Ok(Region {
                element: existing.dyn_into()?,
                created_at,
                pending: Vec::new(),
            });
        }
        let element: HtmlElement = document.create_element("div")?.dyn_into()?;
        let created_at = crate::clock::now_ms().floor();
        element.set_attribute(MARKER, &(created_at as u64).to_string())?;
        element.set_attribute("aria-live", "polite")?;
        element.set_attribute("aria-atomic", "true")?;
        element.set_attribute("role", "status")?;
        // Visually hidden, still read: the usual clip pattern.
        let style = element.style();
        for (property, value) in [
            ("position", "absolute"),
            ("width", "1px"),
            ("height", "1px"),
            ("margin", "-1px"),
            ("padding", "0"),
            ("overflow", "hidden"),
            ("clip", "rect(0 0 0 0)"),
            ("clip-path", "inset(50%)"),
            ("white-space", "nowrap"),
            ("border", "0"),
        ] {
            style.set_property(property, value)?;
        }
        let host: Element = match parent {
            Some(parent) => parent.clone(),
            None => document
                .body()
                .ok_or_else(|| JsValue::from_str("the document has no body"))?
                .into(),
        };
        host.append_child(&element)?;
        Ok(Region {
            element,
            created_at,
            pending: Vec::new(),
        })
    }
}

impl LiveRegion {
    /// Finds the page's live region, or creates it in `parent` (or `body`).
    pub(crate) fn attach(
        document: &Document,
        parent: Option<&Element>,
    ) -> Result<LiveRegion, JsValue> {
        if let Some(shared) = PAGE.with(|page| page.borrow().upgrade()) {
            if shared.borrow().element.is_connected() {
                return Ok(LiveRegion(shared));
            }
        }
        let shared = Rc::new(RefCell::new(Region::find_or_make(document, parent)?));
        PAGE.with(|page| *page.borrow_mut() = Rc::downgrade(&shared));
        Ok(LiveRegion(shared))
    }

    /// The region's element.
    #[cfg(test)]
    pub(crate) fn element(&self) -> HtmlElement {
        self.0.borrow().element.clone()
    }

    /// How long to wait before writing, so the region has existed for at
    /// least [`FIRST_WRITE_DELAY_MS`] when its first message lands.
    pub(crate) fn wait_before_write(&self, now: f64) -> i32 {
        // Clamped: a region whose recorded creation lies ahead (another
        // clock wrote it) waits no longer than a fresh one.
        let elapsed = (now - self.0.borrow().created_at).max(0.0);
        (f64::from(FIRST_WRITE_DELAY_MS) - elapsed).max(0.0).ceil() as i32
    }

    /// The region taken out of the document is found or made again in
    /// `body` (its parent is gone), so the next message is heard.
    fn in_document(&self) -> Result<(), JsValue> {
        let mut region = self.0.borrow_mut();
        if region.element.is_connected() {
            return Ok(());
        }
        let document = region
            .element
            .owner_document()
            .ok_or_else(|| JsValue::from_str("the live region is not in a document"))?;
        let found = Region::find_or_make(&document, None)?;
        region.element = found.element;
        region.created_at = found.created_at;
        Ok(())
    }

    /// Writes a message now, as a fresh node replacing the previous one.
    pub(crate) fn write(&self, message: &str) -> Result<(), JsValue> {
        self.in_document()?;
        let element = self.0.borrow().element.clone();
        let document = element
            .owner_document()
            .ok_or_else(|| JsValue::from_str("the live region is not in a document"))?;
        let node = document.create_element("div")?;
        node.set_text_content(Some(message));
        element.set_text_content(None);
        element.append_child(&node)?;
        Ok(())
    }

    /// Writes a message, after the first-write delay if the region is new.
    /// Messages held back by the delay — every engine's on the page — are
    /// written together, in order, in one node: the last of them (a run's
    /// outcome) is never overtaken.
    pub(crate) fn announce(&self, message: String) -> Result<(), JsValue> {
        self.in_document()?;
        let wait = self.wait_before_write(crate::clock::now_ms());
        let mut region = self.0.borrow_mut();
        let first = region.pending.is_empty();
        if first && wait == 0 {
            drop(region);
            return self.write(&message);
        }
        region.pending.push(message);
        if first {
            let region = self.clone();
            gloo_timers::callback::Timeout::new(wait.unsigned_abs(), move || {
                let messages = std::mem::take(&mut region.0.borrow_mut().pending);
                // A failure here has nobody to report to; the region stays
                // usable.
                let _ = region.write(&messages.join(" "));
            })
            .forget();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    fn document() -> Document {
        web_sys::window().unwrap().document().unwrap()
    }

    fn regions() -> u32 {
        document()
            .query_selector_all("[aria-live]")
            .unwrap()
            .length()
    }

    fn clean() {
        let list = document()
            .query_selector_all(&format!("[{MARKER}]"))
            .unwrap();
        for index in 0..list.length() {
            if let Some(node) = list.item(index) {
                let element: Element = node.dyn_into().unwrap();
                element.remove();
            }
        }
    }

    async fn sleep(ms: i32) {
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            web_sys::window()
                .unwrap()
                .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
                .unwrap();
        });
        wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
    }

    #[wasm_bindgen_test]
    async fn the_first_message_lands_after_the_delay_not_before() {
        clean();
        let region = LiveRegion::attach(&document(), None).unwrap();
        region
            .announce("Assistant is acting in Task board.".into())
            .unwrap();
        assert_eq!(
            region.element().text_content().as_deref(),
            Some(""),
            "not yet"
        );
        sleep(FIRST_WRITE_DELAY_MS + 100).await;
        assert_eq!(
            region.element().text_content().as_deref(),
            Some("Assistant is acting in Task board.")
        );
        // Once the region is established, messages are written at once.
        region
            .announce("Assistant finished: completed.".into())
            .unwrap();
        assert_eq!(
            region.element().text_content().as_deref(),
            Some("Assistant finished: completed.")
        );
        clean();
    }

    #[wasm_bindgen_test]
    async fn ag_39_messages_held_by_the_delay_land_in_order_and_the_outcome_last() {
        clean();
        let region = LiveRegion::attach(&document(), None).unwrap();
        // Written a fraction of a millisecond apart, each with its own
        // rounding of the remaining delay.
        for message in ["Assistant is acting.", "Assistant: done (completed)."] {
            region.announce(message.into()).unwrap();
        }
        sleep(FIRST_WRITE_DELAY_MS + 100).await;
        let text = region.element().text_content().unwrap_or_default();
        assert_eq!(text, "Assistant is acting. Assistant: done (completed).");
        assert!(text.ends_with("(completed)."), "the outcome is last");
        clean();
    }

    #[wasm_bindgen_test]
    fn ag_36_one_polite_region_however_many_engines_attach() {
        clean();
        let before = regions();
        let first = LiveRegion::attach(&document(), None).unwrap();
        let second = LiveRegion::attach(&document(), None).unwrap();
        assert_eq!(regions(), before + 1, "exactly one region was added");
        assert!(first.element().is_same_node(Some(&second.element())));
        assert_eq!(
            first.element().get_attribute("aria-live").as_deref(),
            Some("polite")
        );
        clean();
    }

    #[wasm_bindgen_test]
    fn ag_36_the_region_goes_where_the_application_says() {
        clean();
        let parent = document().create_element("section").unwrap();
        document().body().unwrap().append_child(&parent).unwrap();
        let region = LiveRegion::attach(&document(), Some(&parent)).unwrap();
        assert!(parent.contains(Some(&region.element())));
        parent.remove();
        clean();
    }

    #[wasm_bindgen_test]
    async fn ag_39_a_region_whose_parent_was_removed_is_made_again_and_still_heard() {
        clean();
        let parent = document().create_element("section").unwrap();
        document().body().unwrap().append_child(&parent).unwrap();
        let region = LiveRegion::attach(&document(), Some(&parent)).unwrap();
        sleep(FIRST_WRITE_DELAY_MS + 50).await;
        // A route change takes the parent, and the region, out of the page.
        parent.remove();
        region
            .announce("Assistant: “Rename the cards” is done.".into())
            .unwrap();
        sleep(FIRST_WRITE_DELAY_MS + 100).await;
        let live = document()
            .query_selector(&format!("[{MARKER}]"))
            .unwrap()
            .expect("a region in the page again");
        assert!(live.is_connected());
        assert_eq!(
            live.text_content().as_deref(),
            Some("Assistant: “Rename the cards” is done.")
        );
        let marked = document()
            .query_selector_all(&format!("[{MARKER}]"))
            .unwrap()
            .length();
        assert_eq!(marked, 1, "one region, as ever");
        clean();
    }

    #[wasm_bindgen_test]
    async fn ag_39_two_engines_messages_held_by_the_delay_land_together_in_order() {
        clean();
        let first = LiveRegion::attach(&document(), None).unwrap();
        let second = LiveRegion::attach(&document(), None).unwrap();
        first.announce("Assistant is acting.".into()).unwrap();
        second.announce("Helper: done.".into()).unwrap();
        sleep(FIRST_WRITE_DELAY_MS + 100).await;
        assert_eq!(
            first.element().text_content().as_deref(),
            Some("Assistant is acting. Helper: done."),
            "neither overwrites the other"
        );
        clean();
    }

    #[wasm_bindgen_test]
    fn a_repeated_message_is_a_fresh_node() {
        clean();
        let region = LiveRegion::attach(&document(), None).unwrap();
        region
            .write("Assistant renamed 3 cards in Task board.")
            .unwrap();
        let first = region.element().first_element_child().unwrap();
        region
            .write("Assistant renamed 3 cards in Task board.")
            .unwrap();
        let second = region.element().first_element_child().unwrap();
        assert!(
            !first.is_same_node(Some(&second)),
            "the same words, a new node"
        );
        assert_eq!(region.element().child_element_count(), 1);
        assert_eq!(
            region.element().text_content().as_deref(),
            Some("Assistant renamed 3 cards in Task board.")
        );
        clean();
    }

    #[wasm_bindgen_test]
    fn the_first_message_waits_for_the_region_to_be_noticed() {
        clean();
        let region = LiveRegion::attach(&document(), None).unwrap();
        let created = crate::clock::now_ms();
        assert!(region.wait_before_write(created) > 0);
        assert_eq!(
            region.wait_before_write(created + f64::from(FIRST_WRITE_DELAY_MS) + 1.0),
            0
        );
        clean();
    }

    #[wasm_bindgen_test]
    fn ag_38_announcing_never_moves_focus() {
        clean();
        let input = document().create_element("input").unwrap();
        document().body().unwrap().append_child(&input).unwrap();
        let input: HtmlElement = input.dyn_into().unwrap();
        input.focus().unwrap();
        let focused = document().active_element();
        let region = LiveRegion::attach(&document(), None).unwrap();
        region.write("Assistant finished: completed.").unwrap();
        assert!(document().active_element() == focused);
        input.remove();
        clean();
    }
}
