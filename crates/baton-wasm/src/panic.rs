//! A Rust panic is a trap in WebAssembly: the call that panicked never
//! returns, and the module cannot unwind. What the module can do is set by
//! the panic hook, which runs before the trap: it keeps the panic's message
//! and poisons every engine that was in the middle of a step
//! ([`crate::engine::drive::poison_stepping`]). Such an engine closes itself
//! at its next call — its runs left in storage as they stood, for the next
//! engine of the session to reconcile as cut off (AG-11), its participants
//! left as they are — instead of staying half-alive; and the package's
//! entry point turns the trap itself into a `BatonError` of code `internal`.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use crate::errors::{error, Code};

thread_local! {
    /// The first panic's message.
    static MESSAGE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Sets the panic hook, once.
pub(crate) fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            // The payload as text and where it struck, without the
            // formatting machinery `PanicHookInfo`'s `Display` brings.
            let payload = info.payload();
            let what = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("a panic");
            let text = match info.location() {
                Some(at) => format!("{what} ({}:{})", at.file(), at.line()),
                None => what.to_owned(),
            };
            MESSAGE.with(|message| {
                if let Ok(mut message) = message.try_borrow_mut() {
                    message.get_or_insert(text);
                }
            });
            crate::engine::drive::poison_stepping();
        }));
    });
}

/// The message of the panic that struck the module, if one did (the
/// package's entry point puts it in the `internal` error it throws).
#[wasm_bindgen(js_name = panicMessage)]
pub fn panic_message() -> Option<String> {
    MESSAGE.with(|message| message.borrow().clone())
}

/// What a poisoned engine throws: `closed`, saying why.
pub(crate) fn closed_by_panic() -> JsValue {
    let why = panic_message().unwrap_or_default();
    error(
        Code::Closed,
        &format!("the engine closed itself after an internal error: {why}"),
    )
}

/// Notes a panic as the hook does, without one: what a test of the
/// poisoning calls from inside an engine's step.
#[cfg(test)]
pub(crate) fn as_if_panicked(message: &str) {
    MESSAGE.with(|kept| *kept.borrow_mut() = Some(message.to_owned()));
    crate::engine::drive::poison_stepping();
}
