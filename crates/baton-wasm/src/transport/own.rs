//! The transports that ship with Baton, reached by the engine in Rust: a
//! turn's request, its sink and its signal go to them as they are, and
//! their events reach the turn's verifier without crossing into JS values
//! and back. An application hands one to `Engine.open` like any other
//! transport; the engine finds its Rust side by the handle it carries.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use baton_core::{CallReport, RunId, TurnRequest};
use wasm_bindgen::JsValue;

use super::agui::AgUi;
use super::scripted::Scripted;
use super::TurnSink;
use crate::calls::get;

/// One of Baton's own transports.
#[derive(Clone)]
pub(crate) enum Own {
    AgUi(Rc<AgUi>),
    Scripted(Rc<Scripted>),
}

thread_local! {
    /// Every own transport whose JS object is alive, by handle. (A handful
    /// per page: a list.)
    static OWN: RefCell<Vec<(u32, Own)>> = const { RefCell::new(Vec::new()) };
    static NEXT: Cell<u32> = const { Cell::new(1) };
}

/// The property an own transport's JS object answers with its handle.
const HANDLE: &str = "batonTransport";

impl Own {
    /// Registers `own`; its JS object answers [`HANDLE`] with what this
    /// returns, and forgets it when it is freed ([`Own::forget`]).
    pub(super) fn register(own: Own) -> u32 {
        let handle = NEXT.with(|next| next.replace(next.get() + 1));
        OWN.with(|all| all.borrow_mut().push((handle, own)));
        handle
    }

    /// The JS object of `handle` was freed.
    pub(super) fn forget(handle: u32) {
        OWN.with(|all| all.borrow_mut().retain(|(id, _)| *id != handle));
    }

    /// The Rust side of `transport`, if it is one of Baton's own.
    pub(crate) fn of(transport: &JsValue) -> Option<Own> {
        let handle = get(transport, HANDLE).as_f64()?;
        OWN.with(|all| {
            all.borrow()
                .iter()
                .find(|(id, _)| f64::from(*id) == handle)
                .map(|(_, own)| own.clone())
        })
    }

    /// Runs the turn `request` opens into `sink`, until its stream ends
    /// (`Ok`) or breaks (`Err`, what went wrong).
    pub(crate) async fn open_turn(
        &self,
        request: TurnRequest,
        sink: TurnSink,
        signal: web_sys::AbortSignal,
    ) -> Result<(), String> {
        match self {
            Own::AgUi(agui) => agui.open_turn(request, sink, signal).await,
            Own::Scripted(scripted) => {
                scripted.open_turn(&request, &sink, &signal).await;
                Ok(())
            }
        }
    }

    /// What became of `run`'s calls its acting party had not heard of.
    pub(crate) fn settle(&self, run: &RunId, results: &[CallReport]) {
        if let Own::AgUi(agui) = self {
            agui.settle(run, results);
        }
    }
}
