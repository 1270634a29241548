//! The custody states of a run and their typed outcomes and reasons.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::context::ReadRef;
use crate::ids::{CallId, CapabilityRef, ParticipantId, QuestionId};
use crate::model::Budget;

mod read;
/// Who holds control of a run. Terminal states never reopen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "state",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum RunState {
    /// Handed to the acting party; its planning turn is under way.
    Offered,
    /// A plan arrived.
    Planned,
    /// The person is reviewing the plan (or re-reviewing after an escalation).
    Reviewing,
    /// Authorized; the engine is about to act.
    Authorized,
    /// Capability calls are being dispatched; the acting party's
    /// plan/act/replan loop lives entirely here.
    Acting,
    /// Waiting on the person, for a typed reason (AG-6).
    Escalated {
        /// Why control went to the person.
        reason: EscalationReason,
    },
    /// Control has returned (AG-4, AG-5).
    Returned {
        /// What happened.
        outcome: Outcome,
        /// Why.
        reason: ReturnReason,
        /// How many of the acting party's calls the engine refused on the
        /// way (invalid arguments, undeclared tools, denied, …): a run can
        /// finish `completed` having done less than was asked, and says so.
        #[serde(default, skip_serializing_if = "crate::state::is_zero")]
        #[cfg_attr(feature = "typescript", ts(as = "Option<u32>", optional))]
        refused: u32,
    },
    /// The delegation ended before anything was authorized.
    Cancelled {
        /// Why.
        reason: CancelReason,
    },
}

pub(crate) fn is_zero(count: &u32) -> bool {
    *count == 0
}

impl RunState {
    /// The state's name, without its payload.
    pub fn name(&self) -> StateName {
        match self {
            RunState::Offered => StateName::Offered,
            RunState::Planned => StateName::Planned,
            RunState::Reviewing => StateName::Reviewing,
            RunState::Authorized => StateName::Authorized,
            RunState::Acting => StateName::Acting,
            RunState::Escalated { .. } => StateName::Escalated,
            RunState::Returned { .. } => StateName::Returned,
            RunState::Cancelled { .. } => StateName::Cancelled,
        }
    }

    /// `returned` and `cancelled` are terminal: nothing changes a run after.
    pub fn is_terminal(&self) -> bool {
        self.name().is_terminal()
    }
}

/// The name of a [`RunState`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum StateName {
    /// See [`RunState::Offered`].
    Offered,
    /// See [`RunState::Planned`].
    Planned,
    /// See [`RunState::Reviewing`].
    Reviewing,
    /// See [`RunState::Authorized`].
    Authorized,
    /// See [`RunState::Acting`].
    Acting,
    /// See [`RunState::Escalated`].
    Escalated,
    /// See [`RunState::Returned`].
    Returned,
    /// See [`RunState::Cancelled`].
    Cancelled,
}

impl StateName {
    /// Whether the state is terminal.
    pub fn is_terminal(self) -> bool {
        matches!(self, StateName::Returned | StateName::Cancelled)
    }

    /// The transition table of the custody machine (DESIGN.md §3). Any pair
    /// not listed here is illegal and is refused with a typed error.
    pub fn can_become(self, next: StateName) -> bool {
        use StateName::*;
        match (self, next) {
            (from, _) if from.is_terminal() => false,
            // Stop, kill, pause and reload-interruption return from anywhere.
            (_, Returned) => true,
            (Offered, Planned | Cancelled) => true,
            (Planned, Reviewing | Authorized | Cancelled) => true,
            (Reviewing, Authorized | Cancelled) => true,
            (Authorized, Reviewing | Acting) => true,
            (Acting, Escalated) => true,
            (Escalated, Reviewing | Acting) => true,
            _ => false,
        }
    }
}

impl fmt::Display for StateName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            StateName::Offered => "offered",
            StateName::Planned => "planned",
            StateName::Reviewing => "reviewing",
            StateName::Authorized => "authorized",
            StateName::Acting => "acting",
            StateName::Escalated => "escalated",
            StateName::Returned => "returned",
            StateName::Cancelled => "cancelled",
        };
        f.write_str(text)
    }
}

/// The typed outcome of a returned run (AG-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The acting party finished.
    Completed,
    /// Stopped part-way and kept, because the capabilities involved accept a
    /// partial close (AG-8).
    Partial,
    /// Every touched participant was reverted to its run-start mark (AG-8).
    RolledBack,
    /// The person (or the engine on the person's behalf) took control back.
    /// Never an error (AG-9).
    Aborted,
    /// Something failed and could not be undone, or nothing had been done.
    Error,
}

/// Why a run returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum ReturnReason {
    /// The acting party ended a turn without proposing anything more.
    Finished,
    /// A fixed plan (a macro, a rule) ran all its calls.
    PlanCompleted,
    /// The person stopped the run (AG-9).
    UserInterrupt,
    /// The global kill (AG-10).
    Kill,
    /// The person paused the run; a chained run can resume it (AG-11).
    Paused,
    /// The page reloaded or crashed while the run was active.
    Interrupted,
    /// The person chose to end the run while it was escalated.
    EscalationReturned,
    /// The person rejected a re-review after the run had already acted; what
    /// it did stays, as one undo step.
    ReviewRejected {
        /// The person's words, if any.
        note: String,
    },
    /// An escalation was not resolved before its timeout (AG-6).
    EscalationTimeout,
    /// A question went unanswered past its deadline (AG-41).
    QuestionExpired,
    /// The run would have acted with no presence attached, under the
    /// `require` policy (AG-35).
    PresenceMissing,
    /// The budget ran out and nobody extended it.
    BudgetExhausted {
        /// Which limit ran out.
        limit: BudgetLimit,
    },
    /// A turn stayed open past its deadline.
    TurnDeadman,
    /// The run's deadline passed.
    RunDeadline,
    /// The transport reported a failure of the turn.
    TurnFailed {
        /// What the transport said.
        message: String,
    },
    /// The acting party's server answered the turn's request with an error
    /// (an HTTP status) instead of a stream: it is there, and it refused.
    AgentError {
        /// The status it answered (HTTP).
        status: u16,
        /// What it said, cut to a few hundred characters.
        message: String,
    },
    /// The connection to the acting party broke before the turn ended; the
    /// engine does not reconnect on its own (a chained run resumes).
    TransportLost {
        /// What the transport said.
        message: String,
    },
    /// The transport broke the protocol inside an open turn.
    IntegrityViolation {
        /// The kind of rule broken: a stable code.
        code: crate::violation::ProtocolViolation,
        /// What was wrong.
        finding: String,
    },
    /// A turn's stream sent more into one lane than a turn may hold: the
    /// turn ends there (bounded turns), whatever else it held.
    TurnOverLimit {
        /// Which lane.
        lane: TurnLane,
        /// Its limit, in bytes.
        limit: u64,
    },
    /// A call of a fixed plan was refused (its arguments, a stale read, a
    /// denial…). A fixed plan has no acting party to correct it, so the
    /// refusal is a failure part-way, never a success (AG-3, AG-8).
    PlanRefused {
        /// The refused call.
        call: CallId,
        /// Its capability.
        capability: CapabilityRef,
        /// Why it was refused: the refusal's code (`invalid-arguments`,
        /// `stale`, …); the journal's `call-refused` record has it whole.
        refusal: String,
    },
    /// A capability call failed.
    CallFailed {
        /// The failing capability.
        capability: CapabilityRef,
        /// What it said.
        message: String,
    },
    /// A participant could not take the mark that makes its changes reversible.
    MarkFailed {
        /// The participant.
        participant: ParticipantId,
        /// What it said.
        message: String,
    },
    /// A rollback was required and at least one participant could not revert.
    RollbackFailed {
        /// What made the rollback necessary.
        cause: Box<ReturnReason>,
        /// The participants that did not confirm their revert.
        participants: Vec<ParticipantId>,
    },
}

/// A lane of a turn's stream whose size is bounded (bounded turns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum TurnLane {
    /// The text of the acting party's messages.
    Text,
    /// State snapshots and patches.
    State,
    /// Custom events and tool results (AG-46's escape hatch).
    Custom,
    /// The acting party's reasoning.
    Reasoning,
}

/// A limit of the [`Budget`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum BudgetLimit {
    /// `max_turns`.
    Turns,
    /// `max_calls`.
    Calls,
}

/// Why a run was cancelled before anything was authorized.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum CancelReason {
    /// The person rejected the plan.
    Rejected {
        /// The person's words, if any.
        note: String,
    },
    /// The acting party's planning turn proposed nothing.
    NoPlan,
}

/// Why a run is escalated (AG-6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum EscalationReason {
    /// The acting party asked for a capability outside the authorized
    /// allowlist (AG-7). It was not dispatched.
    OutOfScope {
        /// The capability asked for.
        capability: CapabilityRef,
    },
    /// A limit of the budget is used up (AG-7).
    BudgetExhausted {
        /// Which one.
        limit: BudgetLimit,
    },
    /// This call needs the person's approval on its own: it has an
    /// irreversible effect (AG-25), untrusted content lowered the autonomy
    /// (AG-28), or the run is at `suggest`.
    ReviewRequired {
        /// The call.
        call: CallId,
        /// Its capability.
        capability: CapabilityRef,
    },
    /// Reads the authorization was computed on changed, and recomputing it
    /// gave a different result (AG-29).
    Drift {
        /// The reads that changed.
        reads: Vec<ReadRef>,
    },
    /// The authorization's time to live ran out (AG-29).
    AuthorizationExpired,
    /// A question waits for the person's answer (AG-41): the acting party
    /// asked one, or the engine asks which instance an ambiguous address
    /// means (AG-23).
    AwaitingAnswer {
        /// The question.
        question: QuestionId,
    },
}

impl EscalationReason {
    /// Whether the person is asked to allow one pending call (out of scope,
    /// or a call that needs review): its concrete change is shown first
    /// (AG-31).
    pub fn awaits_approval_of_a_call(&self) -> bool {
        matches!(
            self,
            EscalationReason::OutOfScope { .. } | EscalationReason::ReviewRequired { .. }
        )
    }
}

/// How the person resolves an escalation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Resolution {
    /// Let the run go on. For an out-of-scope call the capability joins the
    /// allowlist; for exhaustion `budget` must raise the exhausted limit.
    Allow {
        /// A replacement budget; it may only be raised relative to usage.
        #[cfg_attr(feature = "typescript", ts(optional = nullable))]
        budget: Option<Budget>,
    },
    /// Refuse the pending call; the acting party hears it was refused and the
    /// run goes on inside its old scope.
    Deny,
    /// Send the run back to review.
    Review,
    /// End the run now (`returned{aborted}`).
    Return,
}

impl Resolution {
    /// The resolution's kind, as it is written (`"allow"`).
    pub fn kind(&self) -> &'static str {
        match self {
            Resolution::Allow { .. } => "allow",
            Resolution::Deny => "deny",
            Resolution::Review => "review",
            Resolution::Return => "return",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::StateName::{self, *};

    const ALL: [StateName; 8] = [
        Offered, Planned, Reviewing, Authorized, Acting, Escalated, Returned, Cancelled,
    ];

    #[test]
    fn transition_table_matches_the_design() {
        let allowed = [
            (Offered, Planned),
            (Offered, Cancelled),
            (Planned, Reviewing),
            (Planned, Authorized),
            (Planned, Cancelled),
            (Reviewing, Authorized),
            (Reviewing, Cancelled),
            (Authorized, Reviewing),
            (Authorized, Acting),
            (Acting, Escalated),
            (Escalated, Reviewing),
            (Escalated, Acting),
        ];
        for from in ALL {
            for to in ALL {
                let expected =
                    allowed.contains(&(from, to)) || (!from.is_terminal() && to == Returned);
                assert_eq!(from.can_become(to), expected, "{from} -> {to}");
            }
        }
    }

    #[test]
    fn ag_4_terminal_states_have_no_exit() {
        for to in ALL {
            assert!(!Returned.can_become(to));
            assert!(!Cancelled.can_become(to));
        }
    }
}
