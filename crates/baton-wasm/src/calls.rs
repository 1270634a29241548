//! Calling into the page: a participant's or a transport's method, its
//! result settled whether it is a value or a promise, and what it threw as
//! a typed [`CallError`].

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// Why a call into JS gave no value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CallError {
    /// The object has no such method.
    #[error("`{0}` is missing")]
    Missing(String),
    /// The method threw.
    #[error("{0}")]
    Threw(String),
    /// The promise it returned was rejected.
    #[error("{0}")]
    Rejected(String),
}

impl CallError {
    /// What the page said, as the core records a failure.
    pub(crate) fn into_message(self) -> String {
        self.to_string()
    }
}

pub(crate) fn get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// What `object[method](...args)` returned now, synchronously: a value or
/// a promise. A missing method or a throw is an error message.
pub(crate) fn call(object: &JsValue, method: &str, args: &[JsValue]) -> Result<JsValue, CallError> {
    let function = get(object, method);
    let Some(function) = function.dyn_ref::<js_sys::Function>() else {
        return Err(CallError::Missing(method.to_owned()));
    };
    let array: js_sys::Array = args.iter().collect();
    function
        .apply(object, &array)
        .map_err(|thrown| CallError::Threw(message_of(&thrown)))
}

/// What a [`call`] settled to: a promise is awaited, a plain value is
/// taken as it is (no promise, no closures: most participants answer
/// synchronously).
pub(crate) async fn settled(called: Result<JsValue, CallError>) -> Result<JsValue, CallError> {
    let returned = called?;
    if !returned.is_instance_of::<js_sys::Promise>() && !is_thenable(&returned) {
        return Ok(returned);
    }
    JsFuture::from(js_sys::Promise::resolve(&returned))
        .await
        .map_err(|thrown| CallError::Rejected(message_of(&thrown)))
}

/// Whether a value has a callable `then`, as a foreign promise does.
fn is_thenable(value: &JsValue) -> bool {
    value.is_object() && get(value, "then").is_function()
}

/// Calls `object[method](...args)` now and hands the (possibly async)
/// result to `done` later, never from inside the call — a task guarded by
/// `struck` (what a panic while it runs does: poisons the engine it serves).
pub(crate) fn call_then(
    struck: crate::panic::Struck,
    object: &JsValue,
    method: &str,
    args: &[JsValue],
    done: impl FnOnce(Result<JsValue, CallError>) + 'static,
) {
    let called = call(object, method, args);
    let task = async move {
        let settled = settled(called).await;
        crate::strike_here!("report");
        done(settled)
    };
    crate::panic::spawn(Box::pin(task), struck);
}

/// The message of something JS threw: an `Error`'s, a thrown string, or
/// a placeholder.
pub(crate) fn message_of(thrown: &JsValue) -> String {
    thrown
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| thrown.as_string())
        .unwrap_or_else(|| "an exception without a message".into())
}
