//! The stable code of every refusal a host hands on (a JS
//! `BatonError.code`): one enum, so each error type names its code by
//! variant and a host maps them exhaustively — a code is never matched by
//! its text, and a new one cannot be left unmapped.

use std::fmt;

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident => $text:literal,)*) => {
        /// The stable code of a refusal, one per refusal a UI would treat
        /// differently.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)*
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The code as hosts show it (`"stale-revision"`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $text,)*
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
    /// A resolution is not one of allow, deny, review, return, or not one
    /// the escalation sheet offers (AG-7, AG-29).
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
    /// A journal export that is not as it was written: altered, cut short
    /// or not an export at all.
    InvalidExport => "invalid-export",
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, text: &&str) -> bool {
        self.as_str() == *text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_listed_once_and_written_in_kebab_case() {
        let mut seen = std::collections::BTreeSet::new();
        for code in ErrorCode::ALL {
            let text = code.as_str();
            assert!(seen.insert(text), "{text} twice");
            assert!(
                text.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{text}"
            );
            assert_eq!(code.to_string(), text);
        }
        assert_eq!(ErrorCode::StaleRevision, "stale-revision");
    }
}
