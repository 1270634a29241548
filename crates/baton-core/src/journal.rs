//! The journal: every change to a run, in order, for persistence and audit.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::Context;
use crate::ids::{CallId, CapabilityRef, MarkToken, ParticipantId, RunId, TurnId};
use crate::model::{Budget, Initiative};
use crate::state::{EscalationReason, RunState, StateName};

/// Who caused a journal record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
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
#[serde(tag = "kind", rename_all = "kebab-case")]
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
    },
    /// A turn ended as the transport reported it.
    TurnEnded {
        /// The turn.
        turn: TurnId,
        /// How many calls it proposed.
        proposed: u32,
    },
    /// The budget or allowlist changed by authorization or resolution.
    Authorized {
        /// The capabilities the run may call.
        allowlist: Vec<CapabilityRef>,
        /// The fixed budget.
        budget: Budget,
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
    },
    /// A call finished.
    CallFinished {
        /// The call.
        call: CallId,
        /// How.
        result: CallResult,
    },
    /// A proposed call was answered without dispatch (undeclared capability,
    /// denied by the person); the acting party hears why.
    CallRefused {
        /// The call.
        call: CallId,
        /// Its capability.
        capability: CapabilityRef,
        /// Why.
        reason: String,
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
}

/// How a dispatched capability call ended, as its participant reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum CallResult {
    /// Applied; `value` goes back to the acting party.
    Applied {
        /// The handler's result.
        value: Value,
    },
    /// Not applied, nothing changed, and the acting party can correct itself
    /// (invalid arguments, a stale read). The run goes on.
    Refused {
        /// A stable code, e.g. `stale` or `invalid-arguments`.
        code: String,
        /// What the acting party needs to know to correct the call.
        message: String,
    },
    /// The call failed. The run ends, rolling back unless the capability
    /// accepts a partial close (AG-8).
    Failed {
        /// What went wrong.
        message: String,
    },
}
