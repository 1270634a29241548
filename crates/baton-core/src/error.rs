//! Typed errors, one per kind of operation. None of them is ever a panic.

use thiserror::Error;

use crate::error_code::ErrorCode;

use crate::ids::{CallId, ParticipantId, RunId};
use crate::state::StateName;

/// Why [`crate::Delegate`] or [`crate::Resume`] refused to start a run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DelegateError {
    /// Delegation is disabled until [`crate::Enable`] (AG-10).
    #[error("AG-10: delegation is disabled; call enable() first")]
    Disabled,
    /// Too many `system`/`scheduled` runs started in the last hour.
    #[error("the hourly quota of {quota} non-user run starts is used up; the next start is possible at {retry_at} ms")]
    QuotaExceeded {
        /// The quota.
        quota: u32,
        /// When the oldest start leaves the window.
        retry_at: u64,
    },
    /// The budget asks for more than the engine allows, or for nothing at all.
    #[error("invalid budget: {0}")]
    InvalidBudget(String),
    /// A fixed plan (AG-3) with no calls.
    #[error("AG-3: a fixed plan needs at least one call")]
    EmptyPlan,
    /// Only a paused run can be resumed.
    #[error("AG-11: run {run} is not a paused run and cannot be resumed")]
    NotResumable {
        /// The run.
        run: RunId,
    },
    /// No run has this id.
    #[error("unknown run {0}")]
    UnknownRun(RunId),
    /// The run offers nothing to review again: a reload did not cut it off
    /// while it waited for the person, or the person settled it already.
    #[error("AG-11: run {run} offers nothing to review again (it was not cut off while it waited for you, or it was taken up or discarded already)")]
    NotCutOff {
        /// The run.
        run: RunId,
    },
    /// The request does not say why the run exists. It is never assumed:
    /// automation that forgot it would get a person's autonomy (AG-26).
    #[error("AG-2: a run must carry an initiative (`user`, `system` or `scheduled`); the request gives none")]
    MissingInitiative,
    /// The request is not of the expected shape.
    #[error("invalid delegation request {0}")]
    InvalidRequest(String),
    /// The delegation needs an acting party and no transport is configured;
    /// participants keep working, and fixed plans still run (AG-50).
    #[error("AG-50: no transport is configured, so no acting party can be reached; participants keep working without one")]
    NoTransport,
}

/// A registration that was refused ([`crate::RegisterText`]): the
/// component keeps working, its participant offers nothing, and these
/// problems are what a call to it, and the developer, are told (AG-13).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("the registration of {} was refused: {}", participant.as_ref().map_or("a participant", ParticipantId::as_str), problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
pub struct RegistrationRefused {
    /// The id it would have been mounted under, when the manifest says.
    pub participant: Option<ParticipantId>,
    /// Each problem, with its requirement and JSON path.
    pub problems: Vec<crate::manifest::ManifestProblem>,
}

/// Why [`crate::PatchAgentState`] refused a patch; the state is
/// left as it was.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("AG-47: the to-agent state was not changed: {0}")]
pub struct AgentStateError(pub String);

/// Why [`crate::PublishRead`] refused a publication.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PublishError {
    /// No participant is mounted under this id.
    #[error("AG-27: no participant {0} is mounted, so it has no reads to publish")]
    UnknownParticipant(ParticipantId),
    /// The participant's manifest declares no such read: a read's origin and
    /// description come from its declaration, so an undeclared one has neither.
    #[error("AG-27: `{read}` is not a read declared by {participant}")]
    UndeclaredRead {
        /// The participant.
        participant: ParticipantId,
        /// The read it tried to publish.
        read: String,
    },
    /// The publish names an actor reference this engine did not mint for
    /// this session (forged, altered, another session's), or one whose run
    /// never changed this participant (AG-33).
    #[error("AG-33: the actor reference `{actor}` names no change this engine's runs made to this participant")]
    UnknownActor {
        /// The reference as given.
        actor: String,
    },
}

/// Why a command of the person (authorize, reject, resolve, stop, pause) was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CommandError {
    /// No run has this id.
    #[error("unknown run {0}")]
    UnknownRun(RunId),
    /// The command does not apply in the run's state (terminal states never reopen).
    #[error("`{command}` is not possible while run {run} is {state}")]
    IllegalTransition {
        /// The run.
        run: RunId,
        /// Its state.
        state: StateName,
        /// The refused command.
        command: &'static str,
    },
    /// The run changed since the person saw it (revision fence).
    #[error("run {run} is at revision {actual}, the command expected {expected}")]
    StaleRevision {
        /// The run.
        run: RunId,
        /// The revision the command was decided on.
        expected: u64,
        /// The run's revision now.
        actual: u64,
    },
    /// An authorization or resolution asked for an invalid budget.
    #[error("invalid budget: {0}")]
    InvalidBudget(String),
    /// The person cannot authorize before every preview has arrived (AG-31).
    #[error("AG-31: run {run} cannot be authorized, nor its pending call allowed, before the previews of {calls:?} arrive")]
    PreviewPending {
        /// The run.
        run: RunId,
        /// The calls whose previews are outstanding.
        calls: Vec<CallId>,
    },
    /// The run cannot be undone: it is still active, was rolled back, or was
    /// undone already.
    #[error("run {run} cannot be undone: {why}")]
    NotUndoable {
        /// The run.
        run: RunId,
        /// Why not.
        why: &'static str,
    },
    /// Something changed participants of the run after it did (A.2): they
    /// are not reverted blindly. Undo again with
    /// [`crate::UndoScope::Untouched`] to revert only the others, or
    /// [`crate::UndoScope::Force`] to revert them all.
    #[error("run {run} was not undone: what it changed was changed since (see `conflicts`)")]
    UndoConflict {
        /// The run.
        run: RunId,
        /// Each participant changed since, and by whom.
        conflicts: Vec<crate::UndoConflict>,
        /// The participants nothing changed since, which `Untouched` reverts.
        untouched: Vec<ParticipantId>,
    },
    /// The authorization is not of the expected shape.
    #[error("AG-7: invalid authorization {0}")]
    InvalidAuthorization(String),
    /// A standing grant given with the authorization was refused.
    #[error("{0}")]
    Grant(#[from] crate::grants::GrantError),
    /// The escalation is a question; it is resolved by answering it.
    #[error("AG-41: run {run} waits for an answer to its question, not for a resolution")]
    AnswerRequired {
        /// The run.
        run: RunId,
    },
    /// Only a call the person is reviewing can be edited.
    #[error("call {call} of run {run} is not before the person for review")]
    NotUnderReview {
        /// The run.
        run: RunId,
        /// The call.
        call: CallId,
    },
    /// The edited arguments are refused as a proposed call's would be
    /// (AG-15, AG-16); nothing changed.
    #[error("AG-15: the edited arguments of call {call} are refused")]
    InvalidEdit {
        /// The run.
        run: RunId,
        /// The call.
        call: CallId,
        /// What is wrong with them.
        errors: Vec<crate::manifest::ArgumentError>,
    },
    /// The resolution is not one the escalation sheet offers: drift is
    /// reviewed again, never allowed as it stands (AG-29), and a budget that
    /// cannot be raised offers only a return (AG-7). Nothing changed.
    #[error("{requirement}: run {run}'s escalation does not offer `{resolution}`; its sheet says what it does")]
    NotOffered {
        /// The run.
        run: RunId,
        /// The requirement the sheet's choices keep.
        requirement: &'static str,
        /// The resolution refused (`"allow"`).
        resolution: &'static str,
    },
}

/// Why the engine refused a host report (a mark, a call result, a revert).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ReportError {
    /// No run has this id.
    #[error("unknown run {0}")]
    UnknownRun(RunId),
    /// The run already ended; the report changes nothing.
    #[error("run {0} has ended; the report was ignored")]
    RunEnded(RunId),
    /// The run is not waiting for this call.
    #[error("run {run} is not waiting for a result of call {call}")]
    NoSuchCall {
        /// The run.
        run: RunId,
        /// The call named by the report.
        call: CallId,
    },
    /// The run did not ask this participant for a mark or a revert.
    #[error("run {run} is not waiting for participant {participant}")]
    NotWaitingFor {
        /// The run.
        run: RunId,
        /// The participant named by the report.
        participant: ParticipantId,
    },
}

/// Why a mutation was refused (AG-1).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum MutationRefused {
    /// The actor reference does not name a call that is in flight in an acting run.
    #[error("AG-1: a non-user mutation must happen inside a capability call of an acting run; {actor} names none")]
    OutsideRun {
        /// The reference, as text.
        actor: String,
    },
}

// ----- the requirement each refusal enforces --------------------------------
//
// Hosts hand errors to people and programs: the requirement of the Delegation
// Contract an error enforces is carried as data, so nobody parses it back out
// of a message.

impl DelegateError {
    /// The stable code a host gives this refusal (a JS `BatonError.code`).
    pub fn code(&self) -> ErrorCode {
        match self {
            DelegateError::Disabled => ErrorCode::DelegationDisabled,
            DelegateError::QuotaExceeded { .. } => ErrorCode::QuotaExceeded,
            DelegateError::InvalidBudget(_) => ErrorCode::InvalidBudget,
            DelegateError::EmptyPlan => ErrorCode::EmptyPlan,
            DelegateError::NotResumable { .. } => ErrorCode::NotResumable,
            DelegateError::NotCutOff { .. } => ErrorCode::NotCutOff,
            DelegateError::UnknownRun(_) => ErrorCode::UnknownRun,
            DelegateError::MissingInitiative | DelegateError::InvalidRequest(_) => {
                ErrorCode::InvalidDelegation
            }
            DelegateError::NoTransport => ErrorCode::NoTransport,
        }
    }

    /// The requirement this refusal enforces, if any (`"AG-2"`).
    pub fn requirement(&self) -> Option<&'static str> {
        match self {
            DelegateError::Disabled => Some("AG-10"),
            DelegateError::EmptyPlan => Some("AG-3"),
            DelegateError::NotResumable { .. } | DelegateError::NotCutOff { .. } => Some("AG-11"),
            DelegateError::MissingInitiative => Some("AG-2"),
            DelegateError::NoTransport => Some("AG-50"),
            DelegateError::QuotaExceeded { .. }
            | DelegateError::InvalidBudget(_)
            | DelegateError::UnknownRun(_)
            | DelegateError::InvalidRequest(_) => None,
        }
    }
}

impl CommandError {
    /// The stable code a host gives this refusal (a JS `BatonError.code`).
    pub fn code(&self) -> ErrorCode {
        match self {
            CommandError::UnknownRun(_) => ErrorCode::UnknownRun,
            CommandError::IllegalTransition { .. } => ErrorCode::IllegalTransition,
            CommandError::StaleRevision { .. } => ErrorCode::StaleRevision,
            CommandError::InvalidBudget(_) => ErrorCode::InvalidBudget,
            CommandError::PreviewPending { .. } => ErrorCode::PreviewPending,
            CommandError::NotUndoable { .. } => ErrorCode::NotUndoable,
            CommandError::UndoConflict { .. } => ErrorCode::UndoConflict,
            CommandError::InvalidAuthorization(_) => ErrorCode::InvalidAuthorization,
            CommandError::Grant(_) => ErrorCode::InvalidGrant,
            CommandError::AnswerRequired { .. } => ErrorCode::AnswerRequired,
            CommandError::NotUnderReview { .. } => ErrorCode::NotUnderReview,
            CommandError::InvalidEdit { .. } => ErrorCode::InvalidArguments,
            CommandError::NotOffered { .. } => ErrorCode::InvalidResolution,
        }
    }

    /// The requirement this refusal enforces, if any (`"AG-31"`).
    pub fn requirement(&self) -> Option<&'static str> {
        match self {
            CommandError::PreviewPending { .. } => Some("AG-31"),
            CommandError::InvalidAuthorization(_) => Some("AG-7"),
            CommandError::Grant(_) => Some("AG-30"),
            CommandError::AnswerRequired { .. } => Some("AG-41"),
            CommandError::InvalidEdit { .. } => Some("AG-15"),
            CommandError::NotOffered { requirement, .. } => Some(requirement),
            CommandError::StaleRevision { .. }
            | CommandError::UnknownRun(_)
            | CommandError::IllegalTransition { .. }
            | CommandError::InvalidBudget(_)
            | CommandError::NotUndoable { .. }
            | CommandError::NotUnderReview { .. }
            | CommandError::UndoConflict { .. } => None,
        }
    }
}

impl crate::questions::AnswerError {
    /// The stable code a host gives this refusal (a JS `BatonError.code`).
    pub fn code(&self) -> ErrorCode {
        use crate::questions::AnswerError;
        match self {
            AnswerError::UnknownQuestion(_) => ErrorCode::UnknownQuestion,
            AnswerError::DigestMismatch { .. } => ErrorCode::DigestMismatch,
            AnswerError::Schema { .. } | AnswerError::NotText => ErrorCode::InvalidAnswer,
            AnswerError::Expired(_) => ErrorCode::QuestionExpired,
            AnswerError::Closed { .. } | AnswerError::Conflict(_) => ErrorCode::QuestionClosed,
        }
    }

    /// The requirement this refusal enforces: every answer rule is AG-41's.
    pub fn requirement(&self) -> Option<&'static str> {
        Some("AG-41")
    }
}

impl crate::grants::GrantError {
    /// The requirement this refusal enforces: AG-30.
    pub fn requirement(&self) -> Option<&'static str> {
        Some("AG-30")
    }
}

impl PublishError {
    /// The stable code a host gives this refusal (a JS `BatonError.code`).
    pub fn code(&self) -> ErrorCode {
        match self {
            PublishError::UnknownParticipant(_) | PublishError::UndeclaredRead { .. } => {
                ErrorCode::InvalidRead
            }
            PublishError::UnknownActor { .. } => ErrorCode::InvalidActor,
        }
    }

    /// The requirement this refusal enforces: AG-27, or AG-33 for an actor
    /// reference the engine did not mint.
    pub fn requirement(&self) -> Option<&'static str> {
        match self {
            PublishError::UnknownActor { .. } => Some("AG-33"),
            _ => Some("AG-27"),
        }
    }
}

impl AgentStateError {
    /// The requirement this refusal enforces: AG-47.
    pub fn requirement(&self) -> Option<&'static str> {
        Some("AG-47")
    }
}

impl crate::protocol::ProtocolError {
    /// The requirement this refusal enforces: AG-45.
    pub fn requirement(&self) -> Option<&'static str> {
        Some("AG-45")
    }
}

impl crate::protocol::ScriptError {
    /// The requirement this refusal enforces, if any: a script that speaks
    /// another protocol breaks AG-45.
    pub fn requirement(&self) -> Option<&'static str> {
        match self {
            crate::protocol::ScriptError::Protocol(_) => Some("AG-45"),
            _ => None,
        }
    }
}

/// The requirement a schema's refusal enforces: schemas are AG-15's. (The
/// schema engine knows no contract; the core says which rule it serves.)
pub fn schema_requirement(_refused: &baton_schema::SchemaError) -> Option<&'static str> {
    Some("AG-15")
}

/// Options a host passed that are not what the call takes: an unknown
/// field, a value of the wrong shape, or a combination that cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{path}: {message}")]
pub struct InvalidOptions {
    /// Where in the options (`$.only`).
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl InvalidOptions {
    /// The stable code a host gives this refusal (a JS `BatonError.code`).
    pub fn code(&self) -> ErrorCode {
        ErrorCode::InvalidValue
    }
}
