//! The states and reasons read back from their stored JSON, by hand: the
//! `state`- and `kind`-tagged shapes serde writes, read from a parsed value
//! without serde's buffering derive for tagged enums (which costs the
//! browser runtime kilobytes for each).

use serde_json::Value;

use super::{CancelReason, EscalationReason, Resolution, ReturnReason, RunState};
use crate::fields::{read_by_hand, unknown_variant, Fields, Refusal};

impl RunState {
    fn read(value: &Value) -> Result<RunState, Refusal> {
        let (state, fields) = Fields::tagged(value, "state")?;
        Ok(match state {
            "offered" => RunState::Offered,
            "planned" => RunState::Planned,
            "reviewing" => RunState::Reviewing,
            "authorized" => RunState::Authorized,
            "acting" => RunState::Acting,
            "escalated" => RunState::Escalated {
                reason: fields.required("reason")?,
            },
            "returned" => RunState::Returned {
                outcome: fields.required("outcome")?,
                reason: fields.required("reason")?,
                refused: fields.optional("refused")?.unwrap_or(0),
            },
            "cancelled" => RunState::Cancelled {
                reason: fields.required("reason")?,
            },
            other => {
                return Err(unknown_variant(
                    other,
                    &[
                        "offered",
                        "planned",
                        "reviewing",
                        "authorized",
                        "acting",
                        "escalated",
                        "returned",
                        "cancelled",
                    ],
                ))
            }
        })
    }
}

impl ReturnReason {
    fn read(value: &Value) -> Result<ReturnReason, Refusal> {
        let (kind, fields) = Fields::tagged(value, "kind")?;
        let message = || fields.required("message");
        Ok(match kind {
            "finished" => ReturnReason::Finished,
            "plan-completed" => ReturnReason::PlanCompleted,
            "user-interrupt" => ReturnReason::UserInterrupt,
            "kill" => ReturnReason::Kill,
            "paused" => ReturnReason::Paused,
            "interrupted" => ReturnReason::Interrupted,
            "escalation-returned" => ReturnReason::EscalationReturned,
            "review-rejected" => ReturnReason::ReviewRejected {
                note: fields.required("note")?,
            },
            "escalation-timeout" => ReturnReason::EscalationTimeout,
            "question-expired" => ReturnReason::QuestionExpired,
            "presence-missing" => ReturnReason::PresenceMissing,
            "budget-exhausted" => ReturnReason::BudgetExhausted {
                limit: fields.required("limit")?,
            },
            "turn-deadman" => ReturnReason::TurnDeadman,
            "run-deadline" => ReturnReason::RunDeadline,
            "turn-failed" => ReturnReason::TurnFailed {
                message: message()?,
            },
            "agent-error" => ReturnReason::AgentError {
                status: fields.required("status")?,
                message: message()?,
            },
            "transport-lost" => ReturnReason::TransportLost {
                message: message()?,
            },
            "integrity-violation" => ReturnReason::IntegrityViolation {
                // Stored before violations carried a code: unclassified.
                code: fields
                    .optional("code")?
                    .unwrap_or(crate::violation::ProtocolViolation::Unclassified),
                finding: fields.required("finding")?,
            },
            "turn-over-limit" => ReturnReason::TurnOverLimit {
                lane: fields.required("lane")?,
                limit: fields.required("limit")?,
            },
            "plan-refused" => ReturnReason::PlanRefused {
                call: fields.required("call")?,
                capability: fields.required("capability")?,
                refusal: fields.required("refusal")?,
            },
            "call-failed" => ReturnReason::CallFailed {
                capability: fields.required("capability")?,
                message: message()?,
            },
            "mark-failed" => ReturnReason::MarkFailed {
                participant: fields.required("participant")?,
                message: message()?,
            },
            "rollback-failed" => ReturnReason::RollbackFailed {
                cause: Box::new(fields.required("cause")?),
                participants: fields.required("participants")?,
            },
            other => {
                return Err(unknown_variant(
                    other,
                    &[
                        "finished",
                        "plan-completed",
                        "user-interrupt",
                        "kill",
                        "paused",
                        "interrupted",
                        "escalation-returned",
                        "review-rejected",
                        "escalation-timeout",
                        "question-expired",
                        "presence-missing",
                        "budget-exhausted",
                        "turn-deadman",
                        "run-deadline",
                        "turn-failed",
                        "agent-error",
                        "transport-lost",
                        "integrity-violation",
                        "turn-over-limit",
                        "plan-refused",
                        "call-failed",
                        "mark-failed",
                        "rollback-failed",
                    ],
                ))
            }
        })
    }
}

impl CancelReason {
    fn read(value: &Value) -> Result<CancelReason, Refusal> {
        let (kind, fields) = Fields::tagged(value, "kind")?;
        Ok(match kind {
            "rejected" => CancelReason::Rejected {
                note: fields.required("note")?,
            },
            "no-plan" => CancelReason::NoPlan,
            other => return Err(unknown_variant(other, &["rejected", "no-plan"])),
        })
    }
}

impl EscalationReason {
    fn read(value: &Value) -> Result<EscalationReason, Refusal> {
        let (kind, fields) = Fields::tagged(value, "kind")?;
        Ok(match kind {
            "out-of-scope" => EscalationReason::OutOfScope {
                capability: fields.required("capability")?,
            },
            "budget-exhausted" => EscalationReason::BudgetExhausted {
                limit: fields.required("limit")?,
            },
            "review-required" => EscalationReason::ReviewRequired {
                call: fields.required("call")?,
                capability: fields.required("capability")?,
            },
            "drift" => EscalationReason::Drift {
                reads: fields.required("reads")?,
            },
            "authorization-expired" => EscalationReason::AuthorizationExpired,
            "awaiting-answer" => EscalationReason::AwaitingAnswer {
                question: fields.required("question")?,
            },
            other => {
                return Err(unknown_variant(
                    other,
                    &[
                        "out-of-scope",
                        "budget-exhausted",
                        "review-required",
                        "drift",
                        "authorization-expired",
                        "awaiting-answer",
                    ],
                ))
            }
        })
    }
}

impl Resolution {
    fn read(value: &Value) -> Result<Resolution, Refusal> {
        let (kind, fields) = Fields::tagged(value, "kind")?;
        Ok(match kind {
            "allow" => Resolution::Allow {
                budget: fields.optional("budget")?,
            },
            "deny" => Resolution::Deny,
            "review" => Resolution::Review,
            "return" => Resolution::Return,
            other => {
                return Err(unknown_variant(
                    other,
                    &["allow", "deny", "review", "return"],
                ))
            }
        })
    }
}

read_by_hand!(
    RunState,
    ReturnReason,
    CancelReason,
    EscalationReason,
    Resolution
);

#[cfg(test)]
mod tests {
    use super::super::{Resolution, RunState};
    use crate::fields::reads_back;
    use crate::model::Budget;
    use serde_json::json;

    /// Every state and reason reads back as written: `tests/shapes.rs`,
    /// over its exhaustive samples. Resolutions come from the person, so
    /// they are checked here.
    #[test]
    fn every_resolution_reads_back_as_written() {
        for resolution in [
            Resolution::Allow { budget: None },
            Resolution::Allow {
                budget: Some(Budget::default()),
            },
            Resolution::Deny,
            Resolution::Review,
            Resolution::Return,
        ] {
            reads_back(resolution);
        }
    }

    #[test]
    fn a_state_that_is_not_stored_is_refused_with_what_is_wrong() {
        let refused = serde_json::from_value::<RunState>(json!({"state": "lost"})).unwrap_err();
        assert!(
            refused.to_string().contains("unknown variant `lost`"),
            "{refused}"
        );
        let refused =
            serde_json::from_value::<RunState>(json!({"state": "escalated"})).unwrap_err();
        assert!(
            refused.to_string().contains("missing field `reason`"),
            "{refused}"
        );
        assert!(serde_json::from_value::<Resolution>(json!({"kind": 1})).is_err());
    }
}
