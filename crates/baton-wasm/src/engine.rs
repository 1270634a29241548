//! The JS `Engine`: the core's engine, the page's live region, and the
//! browser's clock and random source as its inputs.
//!
//! This is the first slice of the browser adapter: opening an engine,
//! mounting participants, the global kill, counters and closing. Delegation,
//! transports, presence and persistence arrive on top of it.

use baton_core::{ActorSecret, EngineConfig, Outcome, RunState};
use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::errors::error;
use crate::live_region::LiveRegion;

/// Options of `Engine.open`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct OpenOptions {
    /// The application's name, for announcements.
    #[serde(default)]
    app_name: Option<String>,
    /// The session to continue; a new one by default.
    #[serde(default)]
    session: Option<String>,
}

/// A Baton engine in the page.
#[wasm_bindgen]
pub struct Engine {
    core: baton_core::Engine,
    region: LiveRegion,
    app_name: String,
}

fn now() -> u64 {
    js_sys::Date::now() as u64
}

fn crypto() -> Result<web_sys::Crypto, JsValue> {
    web_sys::window()
        .ok_or_else(|| error("no-window", "Baton runs in a browser window"))?
        .crypto()
}

#[wasm_bindgen]
impl Engine {
    /// Opens an engine: creates (or joins) the page's one polite live region
    /// before any message (AG-36) and draws the key for actor references
    /// from the browser's cryptographic random source (AG-33).
    ///
    /// `options.liveRegionParent` is an element to hold the region.
    #[wasm_bindgen(js_name = open)]
    pub async fn open(options: JsValue) -> Result<Engine, JsValue> {
        let parent = if options.is_object() {
            js_sys::Reflect::get(&options, &"liveRegionParent".into())?
                .dyn_into::<web_sys::Element>()
                .ok()
        } else {
            None
        };
        let rest = if options.is_object() {
            let copy = js_sys::Object::assign(&js_sys::Object::new(), options.unchecked_ref());
            js_sys::Reflect::delete_property(&copy, &"liveRegionParent".into())?;
            JsValue::from(copy)
        } else {
            JsValue::UNDEFINED
        };
        let options: OpenOptions = if rest.is_undefined() || rest.is_null() {
            OpenOptions::default()
        } else {
            serde_wasm_bindgen::from_value(rest)
                .map_err(|e| error("invalid-options", &e.to_string()))?
        };
        let document = web_sys::window()
            .and_then(|window| window.document())
            .ok_or_else(|| error("no-document", "Baton needs a document for its live region"))?;
        let region = LiveRegion::attach(&document, parent.as_ref())?;
        let crypto = crypto()?;
        let mut key = [0u8; 32];
        crypto.get_random_values_with_u8_array(&mut key)?;
        let session = match options.session {
            Some(session) => session,
            None => crypto.random_uuid(),
        };
        Ok(Engine {
            core: baton_core::Engine::new(EngineConfig::new(session), ActorSecret::new(key)),
            region,
            app_name: options.app_name.unwrap_or_else(|| "The application".into()),
        })
    }

    /// The session this engine drives.
    #[wasm_bindgen(getter)]
    pub fn session(&self) -> String {
        self.core.config().session.to_string()
    }

    /// Mounts a participant from its manifest (a JSON string or object).
    /// Inert (AG-12). Returns the mounted id. A refused manifest throws a
    /// `BatonError` with code `invalid-manifest`, every problem in its
    /// message and the first requirement broken as `requirement`.
    pub fn register(
        &mut self,
        manifest: JsValue,
        instance: Option<String>,
    ) -> Result<String, JsValue> {
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
        let parsed = self
            .core
            .parse_manifest(&text)
            .map_err(|problems| error("invalid-manifest", &problems.to_string()))?;
        let id = self
            .core
            .register(parsed, instance.as_deref())
            .map_err(|refused| error("registration-refused", &refused.to_string()))?;
        Ok(id.to_string())
    }

    /// The global kill (AG-10): every active run returns `aborted`, and the
    /// live region says so in one message. Returns how many runs it ended.
    #[wasm_bindgen(js_name = killAll)]
    pub fn kill_all(&mut self) -> Result<u32, JsValue> {
        let ended = self.core.kill_all(now());
        while self.core.poll_event().is_some() {}
        if ended > 0 {
            let noun = if ended == 1 {
                "delegation"
            } else {
                "delegations"
            };
            self.region.announce(format!(
                "{}: stopped {ended} {noun}; control is back with you.",
                self.app_name
            ))?;
        }
        Ok(u32::try_from(ended).unwrap_or(u32::MAX))
    }

    /// Content-free counts for a badge.
    pub fn counters(&self) -> Result<JsValue, JsValue> {
        serde_wasm_bindgen::to_value(&self.core.counters(now()))
            .map_err(|e| error("internal", &e.to_string()))
    }

    /// How many runs ended in `error` (a cheap check for a status light).
    #[wasm_bindgen(js_name = failedRuns)]
    pub fn failed_runs(&self) -> u32 {
        let count = self
            .core
            .runs()
            .filter(|run| {
                matches!(
                    run.state(),
                    RunState::Returned {
                        outcome: Outcome::Error,
                        ..
                    }
                )
            })
            .count();
        u32::try_from(count).unwrap_or(u32::MAX)
    }

    /// Closes the engine. The live region stays for the page's other engines.
    pub fn close(self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_futures::JsFuture;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    fn regions() -> u32 {
        web_sys::window()
            .unwrap()
            .document()
            .unwrap()
            .query_selector_all("[aria-live]")
            .unwrap()
            .length()
    }

    #[wasm_bindgen_test]
    async fn ag_36_two_engines_share_the_one_polite_region() {
        let first = Engine::open(JsValue::UNDEFINED).await.unwrap();
        let after_first = regions();
        let second = Engine::open(JsValue::UNDEFINED).await.unwrap();
        assert_eq!(regions(), after_first, "the second engine added no region");
        assert!(after_first >= 1);
        assert_ne!(
            first.session(),
            second.session(),
            "each engine has its own session"
        );
        first.close();
        second.close();
    }

    #[wasm_bindgen_test]
    async fn register_refuses_a_bad_manifest_with_a_typed_error() {
        let mut engine = Engine::open(JsValue::UNDEFINED).await.unwrap();
        let manifest = serde_json::json!({
            "id": "tasks", "label": "Tasks", "tier": "reads-only", "history": "native",
            "description": "TODO"
        });
        let thrown = engine
            .register(JsValue::from_str(&manifest.to_string()), None)
            .unwrap_err();
        assert!(thrown.is_instance_of::<js_sys::Error>());
        let get = |key: &str| {
            js_sys::Reflect::get(&thrown, &key.into())
                .unwrap()
                .as_string()
        };
        assert_eq!(get("code").as_deref(), Some("invalid-manifest"));
        assert_eq!(get("requirement").as_deref(), Some("AG-14"));
        let good = serde_json::json!({
            "id": "tasks", "label": "Tasks", "tier": "reads-only", "history": "native",
            "description": "The team's task board.",
            "reads": [{"name": "board", "description": "Every card with its column."}]
        });
        let object = js_sys::JSON::parse(&good.to_string()).unwrap();
        assert_eq!(engine.register(object, None).unwrap(), "tasks");
    }

    #[wasm_bindgen_test]
    async fn kill_all_with_nothing_running_says_nothing() {
        let mut engine = Engine::open(JsValue::UNDEFINED).await.unwrap();
        assert_eq!(engine.kill_all().unwrap(), 0);
        let counters = engine.counters().unwrap();
        let action = js_sys::Reflect::get(&counters, &"actionRequired".into()).unwrap();
        assert_eq!(action.as_f64(), Some(0.0));
        assert_eq!(engine.failed_runs(), 0);
        // The promise-returning open resolves in the same task queue as the test.
        JsFuture::from(js_sys::Promise::resolve(&JsValue::NULL))
            .await
            .unwrap();
    }
}
