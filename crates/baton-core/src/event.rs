//! What the engine asks of its host, and what it tells observers.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::actor::ActorRef;
use crate::context::ReadStamp;
use crate::ids::{CallId, CapabilityRef, MarkToken, ParticipantId, RunId, TurnId};
use crate::journal::JournalRecord;
use crate::protocol::TurnRequest;
use crate::questions::Question;
use crate::state::EscalationReason;

/// Everything the engine produces, in order, from [`crate::Engine::poll_event`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(rename = "CoreEvent"))]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    /// A journal record to persist and show. Records of one engine step are
    /// contiguous, so a store can commit them together.
    Journal(JournalRecord),
    /// Something the host must do and report back.
    Effect(Effect),
    /// Something arrived that breaks the rules and was ignored.
    Finding(Finding),
    /// A question for the person (AG-41): show it without blocking anything;
    /// it can be answered, declined, dismissed or postponed.
    Question(Question),
    /// A run above `suggest` started acting with no presence surface
    /// attached (AG-35, policy `warn`).
    PresenceMissing {
        /// The run.
        run: RunId,
    },
    /// The one handoff to the person after unresolved budget exhaustion.
    EscalationReceipt {
        /// The run.
        run: RunId,
        /// The escalation that went unresolved.
        reason: EscalationReason,
    },
    /// Something the person should hear (AG-37, AG-39): put it into words
    /// and write it to the one live region — a closing one only once its
    /// step is stored ([`crate::Announcement::closes`]).
    Announcement(crate::announce::Announcement),
    /// The run ended with calls whose outcome the acting party has not
    /// heard: results not sent yet, and calls never carried out (a
    /// rejected plan, a stop). A transport that keeps a conversation tells
    /// the acting party there (AG-UI: a `tool` message each), so no call is
    /// left hanging in its history.
    CallsSettled {
        /// The run.
        run: RunId,
        /// What became of each call.
        results: Vec<crate::journal::CallReport>,
    },
    /// An undo the person asked for has finished (A.2).
    Undone {
        /// What was reverted and what failed.
        report: UndoReport,
    },
}

/// A request to the host. Each names what to report back and where.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Effect {
    /// Send a turn to the acting party. The turn is already charged.
    /// Report its traffic with [`crate::Signal::Inbound`].
    OpenTurn {
        /// The run.
        run: RunId,
        /// The turn to address inbound traffic to.
        turn: TurnId,
        /// When the engine gives up on it.
        deadline_at: u64,
        /// What to send: intent, tools, context, results, answers. The host
        /// adds the deep reads it selects and its `to-agent` state.
        request: Box<TurnRequest>,
    },
    /// Abort the transport request of a turn the engine no longer waits for.
    CancelTurn {
        /// The run.
        run: RunId,
        /// The turn.
        turn: TurnId,
    },
    /// Ask a participant's native history for a mark. Report with
    /// [`crate::Report::Mark`].
    Mark {
        /// The run.
        run: RunId,
        /// The participant.
        participant: ParticipantId,
    },
    /// Invoke a capability. Report with [`crate::Report::Call`].
    Invoke {
        /// The run.
        run: RunId,
        /// The call.
        call: CallId,
        /// What to invoke: the mounted participant and its capability.
        capability: CapabilityRef,
        /// With what; already checked against the schema and byte limits.
        arguments: Value,
        /// The read versions the call was planned against (AG-20).
        planned_against: Vec<ReadStamp>,
        /// Who causes the change, to pass on verbatim (AG-32, AG-34).
        actor: ActorRef,
    },
    /// Ask a participant to render the concrete change a planned act would
    /// make, for the review step (AG-31). Report with
    /// [`crate::Report::Preview`].
    Preview {
        /// The run.
        run: RunId,
        /// The planned call.
        call: CallId,
        /// The mounted participant and capability.
        capability: CapabilityRef,
        /// The arguments the act would receive.
        arguments: Value,
    },
    /// Revert a participant to the mark it gave for this run (AG-8, AG-19).
    /// Report with [`crate::Report::Revert`].
    Revert {
        /// The run.
        run: RunId,
        /// The participant.
        participant: ParticipantId,
        /// The token from its mark.
        token: MarkToken,
    },
}

/// Traffic that broke the rules. Recorded, never acted on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// When.
    pub at: u64,
    /// The run it was addressed to, if any.
    pub run: Option<RunId>,
    /// The turn it was addressed to, if any.
    pub turn: Option<TurnId>,
    /// What was wrong.
    pub reason: FindingReason,
}

/// What was wrong with the traffic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum FindingReason {
    /// Addressed to a run this engine does not know.
    UnknownRun,
    /// Addressed to a turn that is not open: it never starts or revives a run.
    OutsideOpenTurn,
    /// Arrived on a turn's stream after that turn had ended (events after
    /// its end): recorded once per turn, never acted on.
    AfterTurnEnded,
    /// Broke the protocol inside an open turn, and the run ended for it; or
    /// a transition the custody machine's table forbids was attempted, and
    /// refused (the run's state stayed).
    Integrity {
        /// The kind of rule broken: a stable code.
        code: crate::violation::ProtocolViolation,
        /// What was wrong.
        detail: String,
    },
    /// A host's report the engine refused ([`crate::Report`], told through [`crate::Engine::handle`]): it
    /// changed nothing, and is recorded here rather than lost.
    ReportRefused {
        /// Why, as a stable code.
        code: crate::report::ReportRefusal,
        /// Why, in words.
        detail: String,
    },
    /// A call ran, but what its participant returned cannot be read as JSON
    /// (a cycle, a `BigInt`): the call counts as applied with a `null`
    /// result, and this says what was lost — never silently.
    UnreadableResult {
        /// The call.
        call: CallId,
        /// Why it could not be read.
        detail: String,
    },
}

/// What an undo did, once every participant has answered (or run out of time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct UndoReport {
    /// The run undone.
    pub run: RunId,
    /// The participants reverted, in the order they were.
    pub reverted: Vec<ParticipantId>,
    /// The participants whose revert failed, with why.
    pub failed: Vec<UndoFailure>,
}

/// A participant whose revert failed during an undo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct UndoFailure {
    /// The participant.
    pub participant: ParticipantId,
    /// What went wrong.
    pub message: String,
}

/// Findings an engine keeps for [`crate::Engine::findings`] once it has had more
/// than twice as many: each was an event when it happened, and a page
/// running for days must not keep every one.
pub const FINDINGS_KEPT: usize = 256;

/// Drops the oldest findings past twice [`FINDINGS_KEPT`], down to
/// [`FINDINGS_KEPT`] (amortised: one move per [`FINDINGS_KEPT`] findings).
pub(crate) fn trim_findings(findings: &mut Vec<Finding>) {
    if findings.len() > 2 * FINDINGS_KEPT {
        findings.drain(..findings.len() - FINDINGS_KEPT);
    }
}
