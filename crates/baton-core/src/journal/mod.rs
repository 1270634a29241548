//! The journal: every change to a run, in order, for persistence and audit.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::attention::PulledRead;
use crate::context::{Context, ReadRef, ReadStamp};
use crate::ids::{CallId, CapabilityRef, MarkToken, ParticipantId, QuestionId, RunId, TurnId};
use crate::manifest::ArgumentError;
use crate::model::{Budget, Initiative};
use crate::state::{EscalationReason, RunState, StateName};
use baton_schema::digest::Digest;

mod export;
mod read;

pub use export::{verify_export, ExportChain, ExportError, ExportSummary, EXPORT_FORMAT};

/// Who caused a journal record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(rename = "JournalActor"))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Actor {
    /// The person using the application.
    Person,
    /// The acting party on the other side of the transport.
    ActingParty,
    /// The engine itself: timers, budget checks, reconciliation.
    Engine,
    /// A participant reporting on its own behaviour.
    Participant {
        /// Which one.
        participant: ParticipantId,
    },
}

/// One record of a run's journal. Records are append-only; `revision` starts
/// at 1 and increases by exactly one per record, so a store can detect gaps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct JournalRecord {
    /// The run the record belongs to.
    pub run: RunId,
    /// The run's revision after this record.
    pub revision: u64,
    /// When it happened (milliseconds, the engine's clock input).
    pub at: u64,
    /// Who caused it.
    pub actor: Actor,
    /// What happened.
    pub entry: JournalEntry,
}

/// What a journal record says happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum JournalEntry {
    /// The run was created.
    Created {
        /// The person's intent, verbatim.
        intent: String,
        /// Why the run exists.
        initiative: Initiative,
        /// The budget asked for.
        budget: Budget,
        /// The run this one resumes, if it is a chained resume (AG-11).
        resumes: Option<RunId>,
        /// The run-level autonomy the person's choice resolved to (AG-24,
        /// AG-26). Absent from records written before it was kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "typescript", ts(optional))]
        autonomy: Option<crate::model::Autonomy>,
    },
    /// The run changed state.
    Transition {
        /// The state before.
        from: StateName,
        /// The state after, with its payload.
        to: RunState,
    },
    /// A turn was reserved and charged.
    TurnReserved {
        /// The turn.
        turn: TurnId,
        /// When its deadman timer fires.
        deadline_at: u64,
        /// The snapshot of reads the turn opens with.
        context: Context,
        /// Whether the run's context, this turn's reads included, holds
        /// content from outside the author, which lowers the ceiling one
        /// step (the origin clamp, AG-28).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        clamped: bool,
    },
    /// A turn ended as the transport reported it.
    TurnEnded {
        /// The turn.
        turn: TurnId,
        /// How many calls it proposed.
        proposed: u32,
    },
    /// The acting party finished a message to the person: its words, whole.
    Said {
        /// The turn.
        turn: TurnId,
        /// The acting party's id for the message.
        message: String,
        /// What it said.
        text: String,
    },
    /// The acting party carried out a tool of its own — not one the page
    /// declared — and reported what it produced. Its act, not the page's:
    /// nothing in the page changed, and nothing the run may do did.
    AgentActed {
        /// The turn.
        turn: TurnId,
        /// The acting party's id for the call.
        call: CallId,
        /// The tool, as the acting party named it.
        tool: String,
        /// Its arguments.
        arguments: Value,
        /// What it produced.
        result: Value,
    },
    /// The run was authorized (or re-authorized by the person).
    Authorized {
        /// The capabilities the run may call.
        allowlist: Vec<CapabilityRef>,
        /// The fixed budget.
        budget: Budget,
        /// The fingerprint of the reads it was computed on (AG-29).
        fingerprint: Digest,
        /// When it lapses.
        expires_at: u64,
    },
    /// Reads drifted, the recomputed authorization came out the same, and
    /// the engine re-approved it under a new fingerprint (AG-29).
    Reauthorized {
        /// The new fingerprint.
        fingerprint: Digest,
        /// The reads that changed.
        drifted: Vec<ReadRef>,
    },
    /// The deep reads a turn carried, chosen by the person's attention
    /// (A.1): for every read of its context, whether its content went and
    /// why. With `turn-reserved`'s context (the index), this is what the
    /// acting party saw.
    ReadsPulled {
        /// The turn.
        turn: TurnId,
        /// Every read of the turn's context, most attended first.
        reads: Vec<PulledRead>,
    },
    /// A read the plan under review was planned against changed — the
    /// person's own edit, say. The acts that depend on it are stale: the
    /// sheet says so, its previews are rendered again, and authorizing has
    /// them refused and planned again (A.2, AG-20). The revision moves, so
    /// an authorization of the sheet as it was is refused.
    ReviewSuperseded {
        /// The read that changed.
        read: ReadRef,
    },
    /// A participant's native history was asked for a mark.
    MarkRequested {
        /// The participant.
        participant: ParticipantId,
    },
    /// The mark the run will revert to on rollback.
    MarkTaken {
        /// The participant.
        participant: ParticipantId,
        /// Its opaque token.
        token: MarkToken,
    },
    /// A capability call was charged and handed to its participant.
    CallDispatched {
        /// The call.
        call: CallId,
        /// Its capability.
        capability: CapabilityRef,
        /// Its arguments.
        arguments: Value,
        /// The read versions it was planned against (AG-20).
        planned_against: Vec<ReadStamp>,
        /// Who acted inside the acting party, outermost first: the
        /// subagents it was made through (empty: the acting party
        /// itself).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        via: Vec<String>,
        /// The autonomy it was resolved to (AG-24 … AG-28). Absent from
        /// records written before it was kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "typescript", ts(optional))]
        autonomy: Option<crate::model::Autonomy>,
        /// Whether the turn's context held content from outside the author,
        /// which lowers the ceiling one step (the origin clamp, AG-28).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        clamped: bool,
        /// The participant's maturity tier (AG-17).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "typescript", ts(optional))]
        tier: Option<crate::manifest::Tier>,
    },
    /// A call finished.
    CallFinished {
        /// The call.
        call: CallId,
        /// How.
        result: CallResult,
    },
    /// A proposed call was answered without dispatch (undeclared capability,
    /// invalid arguments, a stale read, denied by the person); the acting
    /// party hears why.
    CallRefused {
        /// The call.
        call: CallId,
        /// Its capability.
        capability: CapabilityRef,
        /// Why.
        refusal: Refusal,
    },
    /// A participant rendered (or failed to render) the preview of a planned act.
    PreviewRendered {
        /// The call.
        call: CallId,
        /// Why it failed, if it did.
        error: Option<String>,
    },
    /// A question was put to the person.
    QuestionAsked {
        /// The question.
        question: QuestionId,
        /// The digest an answer must repeat.
        digest: Digest,
    },
    /// The person postponed a question.
    QuestionPostponed {
        /// The question.
        question: QuestionId,
        /// Until when.
        until: u64,
    },
    /// A question closed; the answer and this record commit together.
    QuestionClosed {
        /// The question.
        question: QuestionId,
        /// How it closed.
        outcome: QuestionClosure,
    },
    /// A rollback began.
    RollbackStarted {
        /// Participants to revert, in the order they will be asked.
        participants: Vec<ParticipantId>,
    },
    /// A participant answered a revert request.
    Reverted {
        /// The participant.
        participant: ParticipantId,
        /// `None` when the revert succeeded, else what went wrong.
        error: Option<String>,
    },
    /// The single escalation receipt of unresolved budget exhaustion.
    EscalationReceipt {
        /// The escalation that went unresolved.
        reason: EscalationReason,
    },
    /// The person undid the run in one step (A.2); the host reverts these
    /// participants, in this order, to the marks taken before the run.
    Undone {
        /// The participants to revert, last touched first.
        participants: Vec<ParticipantId>,
        /// Participants changed since the run, left as they are (the person
        /// chose to undo only the others).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        kept: Vec<crate::UndoConflict>,
        /// Participants changed since the run, reverted anyway (the person
        /// forced the undo).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        overridden: Vec<crate::UndoConflict>,
    },
    /// An undo was held back: these participants changed after the run
    /// did, and are not reverted blindly (A.2).
    UndoHeld {
        /// Each, and who changed it.
        conflicts: Vec<crate::UndoConflict>,
    },
    /// A reload cut the run off while the person was shown a plan or a
    /// question: it is offered to them again.
    OfferedAgain {
        /// What they were shown.
        waiting: crate::Waiting,
    },
    /// The person changed a planned call's arguments in review (approve with
    /// edits): validated, previewed again; the authorization binds these.
    CallEdited {
        /// The call.
        call: CallId,
        /// Its arguments now, a full replacement of those proposed.
        arguments: Value,
    },
    /// The person took the offer up in a chained run (the run that names
    /// this one in `resumes`), or discarded it.
    OfferSettled {
        /// Whether a chained run puts it before the person again.
        reviewed_again: bool,
    },
}

/// How a dispatched capability call ended, as its participant reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum CallResult {
    /// Applied; `value` goes back to the acting party.
    Applied {
        /// The handler's result.
        value: Value,
    },
    /// Not applied, nothing changed, and the acting party can correct itself
    /// (invalid arguments, a stale read). The run goes on.
    Refused {
        /// Why, typed.
        refusal: Refusal,
    },
    /// The call failed. The run ends, rolling back unless the capability
    /// accepts a partial close (AG-8).
    Failed {
        /// What went wrong.
        message: String,
    },
}

impl CallResult {
    /// What a participant's handler that threw or rejected with `message`
    /// means. A participant declines a call — nothing changed, the acting
    /// party may correct itself — with a message that starts `declined:`;
    /// anything else is a failure of the call (AG-8).
    ///
    /// ```
    /// use baton_core::{CallResult, Refusal};
    ///
    /// assert_eq!(
    ///     CallResult::thrown("declined: the card is locked".into()),
    ///     CallResult::Refused { refusal: Refusal::Declined { message: "the card is locked".into() } },
    /// );
    /// assert_eq!(
    ///     CallResult::thrown("disk full".into()),
    ///     CallResult::Failed { message: "disk full".into() },
    /// );
    /// ```
    pub fn thrown(message: String) -> CallResult {
        match message.strip_prefix("declined:") {
            Some(reason) => CallResult::Refused {
                refusal: Refusal::Declined {
                    message: reason.trim().to_owned(),
                },
            },
            None => CallResult::Failed { message },
        }
    }
}

/// Why a call was answered without being applied. Every refusal is
/// correctable: the run goes on and the acting party can re-read and re-plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "code",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Refusal {
    /// No mounted participant declares the capability (AG-21).
    UndeclaredCapability,
    /// The arguments are oversized or fail the schema (AG-15, AG-16).
    InvalidArguments {
        /// Every problem found.
        errors: Vec<ArgumentError>,
    },
    /// A read the act depends on changed since the acting party saw it (AG-20).
    Stale {
        /// The read.
        read: ReadRef,
        /// The version the act was planned against.
        planned: Option<u64>,
        /// The version now; `None` if the read is gone.
        current: Option<u64>,
    },
    /// The person, or a standing "never allow" grant, denied it (AG-24).
    Denied,
    /// The participant itself declined, saying why.
    Declined {
        /// What the participant said.
        message: String,
    },
    /// The run ended before the call was carried out: the person rejected
    /// the plan, stopped the run, or it ended for another reason.
    NotCarriedOut {
        /// How the run ended: its reason's `kind` (`rejected`,
        /// `user-interrupt`, `kill`, …).
        reason: String,
        /// The person's words, when they rejected it with some.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// The participant's manifest was refused at registration (AG-13), so
    /// it offers nothing; these are the problems it must fix.
    RegistrationRefused {
        /// Each problem, with its requirement and JSON path.
        problems: Vec<crate::manifest::ManifestProblem>,
    },
}

impl Refusal {
    /// A stable code for the refusal, as on the wire.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::UndeclaredCapability => "undeclared-capability",
            Refusal::InvalidArguments { .. } => "invalid-arguments",
            Refusal::Stale { .. } => "stale",
            Refusal::Denied => "denied",
            Refusal::Declined { .. } => "declined",
            Refusal::NotCarriedOut { .. } => "not-carried-out",
            Refusal::RegistrationRefused { .. } => "registration-refused",
        }
    }
}

/// How a question closed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum QuestionClosure {
    /// Answered; the answer's digest.
    Answered {
        /// The digest of the answer.
        answer_digest: Digest,
    },
    /// Declined by the person.
    Declined,
    /// Dismissed by the person.
    Dismissed,
    /// Its deadline passed.
    Expired,
    /// Its run ended first.
    Withdrawn,
}

/// A call's result as the acting party will see it in the next turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CallReport {
    /// The call.
    pub call: CallId,
    /// Its capability.
    pub capability: CapabilityRef,
    /// What happened.
    pub result: CallResult,
    /// The arguments the person set in review, in place of those the acting
    /// party proposed (approve with edits): the call ran with these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited: Option<Value>,
}
