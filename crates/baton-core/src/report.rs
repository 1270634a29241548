//! What a host answers to the effects the engine asks of it: one
//! [`Report`] per [`crate::Effect`] that awaits an answer (a mark, a
//! preview, a call, a revert), given to [`crate::Engine::handle`] — the one
//! place a report is judged. A report the engine refuses (its run ended, it
//! names a call the run is not waiting for) is returned as a typed
//! [`crate::ReportError`] and recorded as a finding, never lost.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ids::{CallId, MarkToken, ParticipantId, RunId};
use crate::journal::CallResult;

pub use crate::host_failure::HostFailure;

/// A host's answer to one effect.
#[derive(Debug, Clone, PartialEq)]
pub enum Report {
    /// To [`crate::Effect::Mark`]: the token to revert to, or why there is none.
    Mark {
        /// The run that asked.
        run: RunId,
        /// The participant marked.
        participant: ParticipantId,
        /// Its token.
        token: Result<MarkToken, HostFailure>,
    },
    /// To [`crate::Effect::Preview`]: the change the call would make, or
    /// why the participant could not render it.
    Preview {
        /// The run that asked.
        run: RunId,
        /// The call previewed.
        call: CallId,
        /// The rendered change.
        change: Result<Value, HostFailure>,
    },
    /// To [`crate::Effect::Invoke`]: what the call did.
    Call {
        /// The run that asked.
        run: RunId,
        /// The call.
        call: CallId,
        /// Its result.
        result: CallResult,
    },
    /// To [`crate::Effect::Invoke`], when the call ran but what it returned
    /// cannot be read (a cycle, a `BigInt`): applied, with a `null` result,
    /// and a finding says what was lost.
    UnreadableResult {
        /// The run that asked.
        run: RunId,
        /// The call.
        call: CallId,
        /// Why it cannot be read.
        detail: String,
    },
    /// To [`crate::Effect::Revert`]: whether the participant reverted.
    Revert {
        /// The run that asked.
        run: RunId,
        /// The participant.
        participant: ParticipantId,
        /// Done, or why not.
        result: Result<(), HostFailure>,
    },
}

/// Why a report was refused: the stable code of a
/// [`crate::FindingReason::ReportRefused`] finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum ReportRefusal {
    /// No run has the report's id.
    UnknownRun,
    /// The run had ended; the report changed nothing.
    RunEnded,
    /// The run is not waiting for that call.
    NoSuchCall,
    /// The run did not ask that participant for a mark or a revert.
    NotWaitingFor,
}

impl crate::error::ReportError {
    /// The stable code of this refusal.
    pub fn refusal(&self) -> ReportRefusal {
        use crate::error::ReportError;
        match self {
            ReportError::UnknownRun(_) => ReportRefusal::UnknownRun,
            ReportError::RunEnded(_) => ReportRefusal::RunEnded,
            ReportError::NoSuchCall { .. } => ReportRefusal::NoSuchCall,
            ReportError::NotWaitingFor { .. } => ReportRefusal::NotWaitingFor,
        }
    }
}
