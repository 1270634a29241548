//! A Rust panic is a trap in WebAssembly: the call that panicked never
//! returns, and the module cannot unwind. What the module can do is set by
//! the panic hook, which runs before the trap: it keeps the panic's message
//! and poisons every engine that was in the middle of a step
//! ([`crate::engine::drive::poison_stepping`]). Such an engine closes itself
//! at its next call — its runs left in storage as they stood, for the next
//! engine of the session to reconcile as cut off (AG-11), its participants
//! left as they are — instead of staying half-alive; and the package's
//! entry point turns the trap itself into a `BatonError` of code `internal`.
//!
//! A panic can also strike while a future is polled, outside any call from
//! JS: then there is no caller to throw to. Every task the package spawns is
//! [`spawn`]ed guarded: while it is polled, what a panic there must do is on a stack
//! the hook reads — the engine the task serves is poisoned (it closes at its
//! next call), and a promise the package returned is rejected with
//! `internal` ([`promise`]), so nothing an app awaits is left unsettled.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use wasm_bindgen::prelude::*;

use crate::errors::{error, Code};

thread_local! {
    /// The first panic's message.
    static MESSAGE: RefCell<Option<String>> = const { RefCell::new(None) };
    /// What a panic does to the tasks being polled now, innermost last.
    static POLLED: RefCell<Vec<Struck>> = const { RefCell::new(Vec::new()) };
}

/// What a panic striking a task does: poisons its engine, rejects its
/// promise.
pub(crate) type Struck = Rc<dyn Fn()>;

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
            struck();
        }));
    });
}

/// The message of the panic that struck the module, if one did (the
/// package's entry point puts it in the `internal` error it throws).
#[wasm_bindgen(js_name = panicMessage)]
pub fn panic_message() -> Option<String> {
    MESSAGE.with(|message| message.borrow().clone())
}

/// What a panic does, after its message is kept: every engine in the
/// middle of a step is poisoned, and so is every task being polled.
fn struck() {
    crate::engine::drive::poison_stepping();
    // Each fires once: a trap does not come back to pop what it unwound.
    let polled = POLLED.with(|polled| {
        polled
            .try_borrow_mut()
            .map(|mut polled| std::mem::take(&mut *polled))
            .unwrap_or_default()
    });
    for struck in polled {
        struck();
    }
}

/// A task the package spawns, boxed: one type, so guarding costs one copy
/// of the code however many kinds of task there are.
pub(crate) type Task = Pin<Box<dyn Future<Output = ()>>>;

/// Runs `task`, with what a panic while it is polled does (`struck`) on the
/// stack the hook reads, for as long as each poll lasts.
pub(crate) fn spawn(task: Task, struck: Struck) {
    wasm_bindgen_futures::spawn_local(Guarded { task, struck });
}

/// `future`, with `struck` done too if a panic strikes while it is polled:
/// inside a task, what a part of it holds that the task's own `struck`
/// knows nothing of (another session's lock, held while it is swept).
pub(crate) fn guarded<F: Future + Unpin>(future: F, struck: Struck) -> Guarded<F> {
    Guarded {
        task: future,
        struck,
    }
}

/// A future with what a panic while it is polled does: a spawned task, or
/// a part of one ([`guarded`]).
pub(crate) struct Guarded<F> {
    task: F,
    struck: Struck,
}

impl<F: Future + Unpin> Future for Guarded<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let struck = Rc::clone(&self.struck);
        let depth = POLLED.with(|polled| {
            let mut polled = polled.borrow_mut();
            polled.push(struck);
            polled.len() - 1
        });
        let polled = Pin::new(&mut self.task).poll(cx);
        // Back to where this poll found it, whatever a poll inside left.
        POLLED.with(|polled| polled.borrow_mut().truncate(depth));
        polled
    }
}

/// A promise of what `future` gives, settled even if a panic strikes while
/// it is worked on: then it is rejected with `internal`, after `also` (what
/// the panic does to the engine it serves) has run.
pub(crate) fn promise(
    future: Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>,
    also: Option<Struck>,
) -> js_sys::Promise {
    let mut settle = None;
    let promise = js_sys::Promise::new(&mut |resolve, reject| settle = Some((resolve, reject)));
    let Some((resolve, reject)) = settle else {
        return promise;
    };
    let rejected = reject.clone();
    let struck: Struck = Rc::new(move || {
        if let Some(also) = &also {
            also();
        }
        let _ = rejected.call1(&JsValue::NULL, &internal());
    });
    let task = async move {
        let _ = match future.await {
            Ok(value) => resolve.call1(&JsValue::NULL, &value),
            Err(thrown) => reject.call1(&JsValue::NULL, &thrown),
        };
    };
    spawn(Box::pin(task), struck);
    promise
}

/// What a promise a panic struck is rejected with: `internal`, with the
/// panic's message, as the entry point says it of a call that trapped.
fn internal() -> JsValue {
    let why = panic_message().unwrap_or_default();
    error(
        Code::Internal,
        &format!("an internal error: {why}; an engine it struck closes itself"),
    )
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
    struck();
}

#[cfg(test)]
thread_local! {
    /// The places a test asked a panic to strike at ([`crate::strike_here`]).
    static ARMED: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
}

/// Has the next pass through `strike_here!(point)` panic, as far as a test
/// can tell (the hook's work done, the task never going on).
#[cfg(test)]
#[must_use = "the point is disarmed when the guard drops"]
pub(crate) fn arm(point: &'static str) -> Armed {
    ARMED.with(|armed| armed.borrow_mut().push(point));
    Armed(point)
}

/// A point armed by a test; disarmed when dropped, struck or not, so a
/// test that fails early leaves nothing armed for the next.
#[cfg(test)]
pub(crate) struct Armed(&'static str);

#[cfg(test)]
impl Drop for Armed {
    fn drop(&mut self) {
        armed(self.0);
    }
}

/// Whether a test armed `point`; disarms it.
#[cfg(test)]
pub(crate) fn armed(point: &str) -> bool {
    ARMED.with(|armed| {
        let mut armed = armed.borrow_mut();
        let found = armed.iter().position(|&at| at == point);
        found.map(|at| armed.remove(at)).is_some()
    })
}

/// In a task, a place a test can make a panic strike at ([`arm`]): what
/// the hook does, and the task goes no further, as after a trap. Nothing
/// outside tests.
#[macro_export]
#[doc(hidden)]
macro_rules! strike_here {
    ($point:literal) => {
        #[cfg(test)]
        {
            if $crate::panic::armed($point) {
                $crate::panic::as_if_panicked(concat!("boom at ", $point));
                std::future::pending::<()>().await;
            }
        }
    };
}
