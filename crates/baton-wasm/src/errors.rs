//! Errors thrown to JS: always an `Error` subclass (`BatonError`) with a
//! stable `code` from one enum ([`Code`]) — one code per refusal a UI would
//! treat differently — and, where a requirement of the Delegation Contract
//! is enforced, its `requirement`, carried from the core as data.

use std::fmt::Display;

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

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident => $text:literal,)*) => {
        /// The stable code of a `BatonError`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Code {
            $($(#[$doc])* $variant,)*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code as JS sees it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)*
                }
            }

            /// The code the core names; one it does not know is internal
            /// (the package tests check the core's codes are all known).
            pub fn named(text: &str) -> Code {
                match text {
                    $($text => Code::$variant,)*
                    _ => Code::Internal,
                }
            }
        }
    };
}

codes! {
    /// `Engine.open` was given options it does not know or cannot use.
    InvalidOptions => "invalid-options",
    /// Not running in a browser window with a document.
    NoWindow => "no-window",
    /// Another live engine drives this session.
    SessionInUse => "session-in-use",
    /// Storage could not be opened.
    StorageFailed => "storage-failed",
    /// The engine a handle belongs to is closed.
    Closed => "closed",
    /// Something that cannot happen did; a bug to report.
    Internal => "internal",
    /// A transport is not usable: no `openTurn`, another protocol (AG-45), a bad script.
    InvalidTransport => "invalid-transport",
    /// A capability was to be invoked through an acting party, and there is no transport (AG-50).
    NoTransport => "no-transport",
    /// The transport broke off.
    TransportLost => "transport-lost",
    /// A delegation request is not of the expected shape, or lacks its initiative (AG-2).
    InvalidDelegation => "invalid-delegation",
    /// Delegation is disabled until `enable()` (AG-10).
    DelegationDisabled => "delegation-disabled",
    /// The hourly quota of non-user runs is used up.
    QuotaExceeded => "quota-exceeded",
    /// A budget over the engine's maximum, below what was used, or without deadlines.
    InvalidBudget => "invalid-budget",
    /// A fixed plan with no calls (AG-3).
    EmptyPlan => "empty-plan",
    /// Only a paused run (or one whose transport was lost) can be resumed (AG-11).
    NotResumable => "not-resumable",
    /// The run offers nothing to review again: it was not cut off while it
    /// waited for the person, or it was taken up or discarded already (AG-11).
    NotCutOff => "not-cut-off",
    /// Only a call the person is reviewing can be edited (approve with edits).
    NotUnderReview => "not-under-review",
    /// Edited arguments refused as proposed ones would be (AG-15, AG-16).
    InvalidArguments => "invalid-arguments",
    /// No run has this id.
    UnknownRun => "unknown-run",
    /// The command does not apply in the run's state; terminal states never reopen.
    IllegalTransition => "illegal-transition",
    /// The run changed since the person saw it: look again, then decide.
    StaleRevision => "stale-revision",
    /// The concrete change is still being rendered; it must be seen first (AG-31).
    PreviewPending => "preview-pending",
    /// The run cannot be undone (still active, rolled back, or undone already).
    NotUndoable => "not-undoable",
    /// Participants the run changed were changed since, by the person or another run: undo only the rest, or force it (A.2).
    UndoConflict => "undo-conflict",
    /// An actor reference this engine did not mint for this session, or for this participant (AG-33).
    InvalidActor => "invalid-actor",
    /// The escalation is a question: answer, decline, dismiss or postpone it (AG-41).
    AnswerRequired => "answer-required",
    /// An authorization's options are not of the expected shape (AG-7).
    InvalidAuthorization => "invalid-authorization",
    /// A standing grant was refused: no time to live, or no such scope (AG-30).
    InvalidGrant => "invalid-grant",
    /// A resolution is not one of allow, deny, review, return.
    InvalidResolution => "invalid-resolution",
    /// No question has this id (AG-41).
    UnknownQuestion => "unknown-question",
    /// The answer names another request digest than the question was asked with (AG-41).
    DigestMismatch => "digest-mismatch",
    /// The answer does not satisfy the question's schema, or is not text (AG-41).
    InvalidAnswer => "invalid-answer",
    /// The question expired (AG-41).
    QuestionExpired => "question-expired",
    /// The question was already closed another way, or answered differently (AG-41).
    QuestionClosed => "question-closed",
    /// A read that is not declared, or on an unmounted participant (AG-27).
    InvalidRead => "invalid-read",
    /// The to-agent state or its patch is not usable (AG-47).
    InvalidState => "invalid-state",
    /// A JSON Schema that cannot be compiled (AG-15).
    InvalidSchema => "invalid-schema",
    /// A value that is not JSON.
    InvalidValue => "invalid-value",
    /// A number that must be whole is not (a revision, a time, an id).
    InvalidNumber => "invalid-number",
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
                Code::named(<$error>::code(self))
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

    #[wasm_bindgen_test]
    fn every_code_the_core_names_is_a_code_of_the_package() {
        let run = baton_core::RunId::new("s/r1");
        let question = baton_core::QuestionId::new("s/q1");
        let named = [
            DelegateError::Disabled.code(),
            DelegateError::EmptyPlan.code(),
            DelegateError::MissingInitiative.code(),
            DelegateError::UnknownRun(run.clone()).code(),
            CommandError::UnknownRun(run.clone()).code(),
            CommandError::InvalidBudget(String::new()).code(),
            CommandError::InvalidAuthorization(String::new()).code(),
            baton_core::AnswerError::UnknownQuestion(question.clone()).code(),
            baton_core::AnswerError::NotText.code(),
            baton_core::AnswerError::Expired(question.clone()).code(),
            baton_core::AnswerError::Conflict(question).code(),
        ];
        for text in named {
            assert_eq!(Code::named(text).as_str(), text, "{text} is a package code");
        }
        assert_eq!(Code::named("no-such-code"), Code::Internal);
    }
}
