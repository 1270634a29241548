//! Errors thrown to JS: always an `Error` subclass (`BatonError`) with a
//! stable `code` from the core's one enum ([`baton_core::ErrorCode`]) — one
//! code per refusal a UI would treat differently — and, where a requirement
//! of the Delegation Contract is enforced, its `requirement`, carried from
//! the core as data.

use std::fmt::Display;

pub(crate) use baton_core::ErrorCode as Code;
use baton_core::{
    AgentStateError, CommandError, DelegateError, GrantError, ProtocolError, PublishError,
    SchemaError, ScriptError,
};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = "
export class BatonError extends Error {
  constructor(code, message, requirement) {
    super(message);
    this.name = 'BatonError';
    this.code = code;
    if (requirement) this.requirement = requirement;
  }
}
export function makeError(code, message, requirement) {
  return new BatonError(code, message, requirement);
}
export function batonErrorClass() {
  return BatonError;
}
")]
extern "C" {
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(code: &str, message: &str, requirement: Option<String>) -> JsValue;
    #[wasm_bindgen(js_name = batonErrorClass)]
    fn baton_error_class() -> JsValue;
}

/// The `BatonError` class every error thrown to JS is an instance of, for
/// `instanceof` checks (the package exports it as `BatonError`).
#[wasm_bindgen(js_name = errorClass)]
pub fn error_class() -> JsValue {
    baton_error_class()
}

/// Every code a `BatonError` may carry, as the package's types list them
/// (`BatonErrorCode`); the package tests check the two agree.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> Vec<String> {
    Code::ALL
        .iter()
        .map(|code| code.as_str().to_owned())
        .collect()
}

/// An error that knows its code and the requirement it enforces.
pub(crate) trait Coded: Display {
    /// Its code.
    fn code(&self) -> Code;
    /// The requirement it enforces, from the core.
    fn requirement(&self) -> Option<&'static str>;
}

/// A JS `BatonError` for an error of the engine.
pub(crate) fn refused(refusal: &impl Coded) -> JsValue {
    make_error(
        refusal.code().as_str(),
        &refusal.to_string(),
        refusal.requirement().map(str::to_owned),
    )
}

/// A JS `BatonError` raised by the adapter itself.
pub(crate) fn error(code: Code, message: &str) -> JsValue {
    make_error(code.as_str(), message, None)
}

/// A JS `BatonError` for something the browser threw (a DOM or platform
/// error): never rethrown raw, always with a code and what failed.
pub(crate) fn wrapped(code: Code, what: &str, thrown: &JsValue) -> JsValue {
    let message = crate::calls::message_of(thrown);
    make_error(code.as_str(), &format!("{what} failed: {message}"), None)
}

/// A JS `BatonError` raised by the adapter for a requirement it enforces.
pub(crate) fn error_for(code: Code, requirement: &'static str, message: &str) -> JsValue {
    make_error(code.as_str(), message, Some(requirement.to_owned()))
}

/// Refusals whose code the core names: the adapter only carries it.
macro_rules! core_code {
    ($($error:ty,)*) => {$(
        impl Coded for $error {
            fn code(&self) -> Code {
                <$error>::code(self)
            }
            fn requirement(&self) -> Option<&'static str> {
                <$error>::requirement(self)
            }
        }
    )*};
}

core_code! {
    DelegateError,
    CommandError,
    PublishError,
    baton_core::AnswerError,
    baton_core::ListError,
}

/// Each error type that always maps to one code.
macro_rules! one_code {
    ($($error:ty => $code:ident,)*) => {$(
        impl Coded for $error {
            fn code(&self) -> Code {
                Code::$code
            }
            fn requirement(&self) -> Option<&'static str> {
                <$error>::requirement(self)
            }
        }
    )*};
}

one_code! {
    GrantError => InvalidGrant,
    AgentStateError => InvalidState,
    ProtocolError => InvalidTransport,
    ScriptError => InvalidTransport,
}

impl Coded for SchemaError {
    fn code(&self) -> Code {
        Code::InvalidSchema
    }
    fn requirement(&self) -> Option<&'static str> {
        baton_core::schema_requirement(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    fn get(value: &JsValue, key: &str) -> JsValue {
        js_sys::Reflect::get(value, &key.into()).unwrap()
    }

    #[wasm_bindgen_test]
    fn errors_are_error_subclasses_with_a_code_and_the_cores_requirement() {
        let thrown = refused(&DelegateError::MissingInitiative);
        assert!(thrown.is_instance_of::<js_sys::Error>());
        assert_eq!(
            get(&thrown, "code").as_string().as_deref(),
            Some("invalid-delegation")
        );
        assert_eq!(
            get(&thrown, "requirement").as_string().as_deref(),
            Some("AG-2")
        );
        let plain = error(Code::UnknownRun, "unknown run s/r9");
        assert!(get(&plain, "requirement").is_undefined());
        // The requirement is data, never read out of the message.
        let odd = error(
            Code::InvalidValue,
            "AG-16: looks like a requirement, is not one",
        );
        assert!(get(&odd, "requirement").is_undefined());
    }

    #[wasm_bindgen_test]
    fn a_ui_can_tell_refusals_apart() {
        let stale = CommandError::StaleRevision {
            run: baton_core::RunId::new("s/r1"),
            expected: 1,
            actual: 2,
        };
        let illegal = CommandError::IllegalTransition {
            run: baton_core::RunId::new("s/r1"),
            state: baton_core::StateName::Acting,
            command: "authorize",
        };
        assert_eq!(Coded::code(&stale), Code::StaleRevision);
        assert_eq!(Coded::code(&illegal), Code::IllegalTransition);
        let codes = error_codes();
        let unique: std::collections::BTreeSet<&String> = codes.iter().collect();
        assert_eq!(unique.len(), codes.len(), "no code twice");
    }
}
