//! What the engine's browser tests share: the JS participants and probes
//! of `test_support.js`, the task board they mount, and waiting on the
//! engine as a page would.

use super::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/src/engine/test_support.js")]
extern "C" {
    pub(super) fn participant(element: &JsValue, delay_ms: u32, fail_on: u32) -> JsValue;
    #[wasm_bindgen(js_name = stateOf)]
    pub(super) fn state_of(participant: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = spyOnKeydown)]
    pub(super) fn spy_on_keydown() -> JsValue;
    pub(super) fn sleep(ms: u32) -> js_sys::Promise;
    #[wasm_bindgen(js_name = keepActors)]
    pub(super) fn keep_actors(participant: &JsValue) -> js_sys::Array;
    #[wasm_bindgen(js_name = pushingTransport)]
    pub(super) fn pushing_transport(turns: &JsValue, after: &str) -> JsValue;
    #[wasm_bindgen(js_name = logOf)]
    pub(super) fn log_of(transport: &JsValue) -> JsValue;
    pub(super) fn readable(participant: &JsValue, content: &str) -> JsValue;
    #[wasm_bindgen(js_name = focusInside)]
    pub(super) fn focus_inside(element: &web_sys::Element) -> web_sys::HtmlElement;
    #[wasm_bindgen(js_name = hangingTransport)]
    pub(super) fn hanging_transport() -> JsValue;
    #[wasm_bindgen(js_name = countReadwriteTransactions)]
    pub(super) fn count_readwrite_transactions() -> JsValue;
    #[wasm_bindgen(js_name = hideIndexedDb)]
    pub(super) fn hide_indexed_db() -> js_sys::Function;
    #[wasm_bindgen(js_name = fillTheDisk)]
    pub(super) fn fill_the_disk() -> js_sys::Function;
    #[wasm_bindgen(js_name = upgradeDatabase)]
    pub(super) fn upgrade_database(name: &str, version: u32) -> js_sys::Promise;
    pub(super) fn within(promise: &js_sys::Promise, ms: u32) -> js_sys::Promise;
    #[wasm_bindgen(js_name = databaseExists)]
    pub(super) fn database_exists(name: &str) -> js_sys::Promise;
    #[wasm_bindgen(js_name = holdOldConnection)]
    pub(super) fn hold_old_connection(name: &str) -> js_sys::Promise;
    #[wasm_bindgen(js_name = uniqueName)]
    pub(super) fn unique_name(prefix: &str) -> String;
    #[wasm_bindgen(js_name = hearRegion)]
    pub(super) fn hear_region() -> JsValue;
    #[wasm_bindgen(js_name = markingWith)]
    pub(super) fn marking_with(element: &JsValue, token: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = previewingMail)]
    pub(super) fn previewing_mail(delay_ms: u32) -> JsValue;
    #[wasm_bindgen(js_name = slowToRevert)]
    pub(super) fn slow_to_revert(element: &JsValue, delay_ms: u32) -> JsValue;
    #[wasm_bindgen(js_name = listenForKills)]
    pub(super) fn listen_for_kills() -> JsValue;
    #[wasm_bindgen(js_name = killFromAnotherTab)]
    pub(super) fn kill_from_another_tab(message: &JsValue);
    #[wasm_bindgen(js_name = countTransactions)]
    pub(super) fn count_transactions() -> JsValue;
    #[wasm_bindgen(js_name = journalRows)]
    pub(super) fn journal_rows(name: &str, run: &str) -> js_sys::Promise;
    #[wasm_bindgen(js_name = putJournalRow)]
    pub(super) fn put_journal_row(name: &str, key: JsValue, text: &str) -> js_sys::Promise;
    #[wasm_bindgen(js_name = pressEscapeIn)]
    pub(super) fn press_escape_in(element: &web_sys::Element, consume: bool) -> bool;
    #[wasm_bindgen(js_name = bigIntParticipant)]
    pub(super) fn big_int_participant(element: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = publishingBoard)]
    pub(super) fn publishing_board(element: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = attachHandle)]
    pub(super) fn attach_handle(board: &JsValue, handle: JsValue);
    #[wasm_bindgen(js_name = afterReadwriteTransactions)]
    pub(super) fn after_readwrite_transactions(count: u32, callback: &JsValue);
    #[wasm_bindgen(js_name = silenceIndexedDb)]
    pub(super) fn silence_indexed_db() -> js_sys::Function;
    #[wasm_bindgen(js_name = editAsPerson)]
    pub(super) fn edit_as_person(board: &JsValue);
    #[wasm_bindgen(js_name = countingParticipant)]
    pub(super) fn counting_participant(element: &JsValue, heard: &js_sys::Array) -> JsValue;
}

/// The task board every test of the engine mounts (the one manifest the
/// Rust and JS tests share).
pub(super) fn manifest() -> JsValue {
    JsValue::from_str(include_str!("../../../../tests/fixtures/task-board.json"))
}

pub(super) fn element() -> web_sys::Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let element = document.create_element("section").unwrap();
    document.body().unwrap().append_child(&element).unwrap();
    element
}

pub(super) async fn open() -> Engine {
    let options = js_sys::JSON::parse(r#"{"appName": "Board", "ceiling": "auto"}"#).unwrap();
    Engine::open(options).await.unwrap()
}

pub(super) fn plan(calls: usize) -> JsValue {
    let steps: Vec<Value> = (0..calls)
        .map(|i| serde_json::json!({"capability": "tasks.rename", "arguments": {"id": format!("card-{i}"), "title": "Ship"}}))
        .collect();
    let budget = serde_json::json!({"maxTurns": 1, "maxCalls": 64, "runDeadlineMs": 60_000, "turnDeadlineMs": 10_000});
    let request = serde_json::json!({"intent": "Rename the cards", "initiative": "user", "autonomy": "auto", "budget": budget, "plan": steps});
    js_sys::JSON::parse(&request.to_string()).unwrap()
}

/// Subscribes and collects the events of one type (or all of them).
pub(super) fn record(engine: &Engine, only: Option<&'static str>) -> js_sys::Array {
    let events = js_sys::Array::new();
    let sink = events.clone();
    let listener = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
        if only.is_none_or(|kind| get(&event, "type").as_string().as_deref() == Some(kind)) {
            sink.push(&event);
        }
    });
    let _unsubscribe = engine.subscribe(JsValue::from(
        listener
            .as_ref()
            .unchecked_ref::<js_sys::Function>()
            .clone(),
    ));
    listener.forget();
    events
}

pub(super) fn outcome(engine: &Engine, run: &str) -> Option<String> {
    let state = engine.state(JsValue::from(run)).unwrap();
    get(&state, "outcome").as_string()
}

/// What the page's polite live region says, message by message, from the
/// moment [`listen`] was called: read from its DOM.
pub(super) struct Heard(JsValue);

impl Heard {
    /// Every message written so far, in order.
    pub(super) fn messages(&self) -> Vec<String> {
        let messages = get(&self.0, "messages")
            .dyn_into::<js_sys::Function>()
            .unwrap()
            .call0(&self.0)
            .unwrap();
        js_sys::Array::from(&messages)
            .iter()
            .filter_map(|message| message.as_string())
            .collect()
    }
}

impl Drop for Heard {
    fn drop(&mut self) {
        if let Ok(stop) = get(&self.0, "stop").dyn_into::<js_sys::Function>() {
            let _ = stop.call0(&self.0);
        }
    }
}

/// Starts hearing the live region. A region that has just appeared holds
/// its first messages back and writes them together; its first-write
/// delay is waited out here, so every message lands in a node of its own.
pub(super) async fn listen() -> Heard {
    let document = web_sys::window().unwrap().document().unwrap();
    if document
        .query_selector("[data-baton-live-region]")
        .unwrap()
        .is_some()
    {
        let region = LiveRegion::attach(&document, None).unwrap();
        let wait = region.wait_before_write(crate::clock::now_ms());
        if wait > 0 {
            settle(wait.unsigned_abs() + 20).await;
        }
    }
    Heard(hear_region())
}

pub(super) async fn settle(ms: u32) {
    JsFuture::from(sleep(ms)).await.unwrap();
}

/// Waits (up to two seconds) until `done` holds; returns whether it did.
pub(super) async fn until(done: impl Fn() -> bool) -> bool {
    for _ in 0..200 {
        if done() {
            return true;
        }
        settle(10).await;
    }
    done()
}

/// Waits (up to two seconds) for the run to return and for its step to be
/// written (its closing message is said then), and gives its outcome.
pub(super) async fn returned(engine: &Engine, run: &str) -> Option<String> {
    for _ in 0..200 {
        if let Some(outcome) = outcome(engine, run) {
            if written_all(engine) {
                return Some(outcome);
            }
        }
        settle(10).await;
    }
    outcome(engine, run)
}

/// Whether every step the engine took is written.
pub(super) fn written_all(engine: &Engine) -> bool {
    engine
        .live()
        .unwrap()
        .persistence(|persistence| persistence.in_flight() == 0)
}

impl Engine {
    /// `register`, on an engine the test knows is open.
    pub(super) fn mount(&self, manifest: JsValue, behaviour: JsValue) -> Participant {
        self.register(manifest, behaviour).unwrap()
    }
}
