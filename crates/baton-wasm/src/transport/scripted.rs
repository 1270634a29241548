//! A scripted acting party: it plays a `baton/1` script, one entry per turn
//! of each run, with the script's time offsets. It drives tests, fixtures
//! and the offline demo actor; the engine plays it in Rust (`own.rs`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use baton_core::{RunId, Script, TurnRequest, WireEvent};
use wasm_bindgen::prelude::*;

use super::{Own, TurnSink};
use crate::errors::{refused, Code};

/// What a scripted transport plays, and how far each run got.
pub(crate) struct Scripted {
    script: Script,
    played: RefCell<BTreeMap<RunId, usize>>,
}

impl Scripted {
    /// Plays the run's next scripted turn into `sink`. A run with no turn
    /// left in the script gets a `turn-error`.
    pub(super) async fn open_turn(
        &self,
        request: &TurnRequest,
        sink: &TurnSink,
        signal: &web_sys::AbortSignal,
    ) {
        let index = {
            let mut played = self.played.borrow_mut();
            let next = played.entry(request.run.clone()).or_insert(0);
            *next += 1;
            *next - 1
        };
        let Some(turn) = self.script.turns.get(index) else {
            sink.push_event(WireEvent::TurnError {
                message: format!("the script has no turn {}", index + 1),
                code: None,
            });
            return;
        };
        let mut elapsed = 0;
        for scripted in &turn.events {
            if scripted.at_ms > elapsed {
                let wait = u32::try_from(scripted.at_ms - elapsed).unwrap_or(u32::MAX);
                gloo_timers::future::TimeoutFuture::new(wait).await;
                elapsed = scripted.at_ms;
            }
            if signal.aborted() {
                return;
            }
            sink.push_event(scripted.event.clone());
        }
    }
}

/// A scripted acting party for tests, fixtures and offline demos.
#[wasm_bindgen]
pub struct ScriptedTransport {
    own: Rc<Scripted>,
    handle: u32,
}

impl Drop for ScriptedTransport {
    fn drop(&mut self) {
        Own::forget(self.handle);
    }
}

#[wasm_bindgen]
impl ScriptedTransport {
    /// A transport playing `script` (an object or JSON text). A script that
    /// is not `baton/1` throws `invalid-transport` (AG-45).
    #[wasm_bindgen(constructor)]
    pub fn new(script: JsValue) -> Result<ScriptedTransport, JsValue> {
        let text = crate::convert::json_text(&script, Code::InvalidTransport, "script")?;
        let script = Script::parse(&text).map_err(|refusal| refused(&refusal))?;
        let own = Rc::new(Scripted {
            script,
            played: RefCell::default(),
        });
        let handle = Own::register(Own::Scripted(Rc::clone(&own)));
        Ok(ScriptedTransport { own, handle })
    }

    /// The protocol it speaks (AG-45).
    #[wasm_bindgen(getter, js_name = protocolVersion)]
    pub fn protocol_version(&self) -> String {
        self.own.script.protocol.clone()
    }

    /// How the engine finds this transport's Rust side.
    #[wasm_bindgen(getter, js_name = batonTransport, skip_typescript)]
    pub fn handle(&self) -> u32 {
        self.handle
    }
}
