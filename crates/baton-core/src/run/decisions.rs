//! What the person's commands do to one run: authorize a reviewed plan,
//! reject it, resolve an escalation, undo a returned run. The engine fences
//! the revision and routes the command here; whether it is legal in the
//! run's state, and what follows, is decided by the run.
//!
//! What the person is asked when a run escalates (AG-6, AG-7, AG-29): the
//! reason, and the choices that resolve it — each one a [`Resolution`] the
//! engine accepts at the sheet's revision. A call waiting for approval is
//! shown by the review sheet with its concrete change (AG-31); this sheet
//! covers every escalation, so a surface can always offer the way out.

use super::binding::Baseline;
use super::{Run, Step};
use crate::authorization::Authorization;
use crate::changes::{UndoConflict, UndoScope};
use crate::error::CommandError;
use crate::ids::RunId;
use crate::ids::{CapabilityRef, MarkToken, ParticipantId};
use crate::journal::{Actor, JournalEntry, Refusal};
use crate::model::Budget;
use crate::model::Usage;
use crate::state::{
    BudgetLimit, CancelReason, EscalationReason, Outcome, Resolution, ReturnReason, RunState,
    StateName,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

impl Run {
    /// The refusal of a command the run's state does not allow.
    pub(crate) fn illegal(&self, command: &'static str) -> CommandError {
        CommandError::IllegalTransition {
            run: self.id.clone(),
            state: self.custody.state().name(),
            command,
        }
    }

    /// A budget fixed by the person may replace the asked one, within the
    /// engine's maximum and never below what the run already used.
    fn check_raise(&self, budget: &Budget, ceiling: &Budget) -> Result<(), CommandError> {
        let usage = self.custody.usage();
        let below = budget.max_turns < usage.turns || budget.max_calls < usage.calls;
        // In order: the ceiling, what was used, then the deadlines.
        if below && budget.within(ceiling) {
            return Err(CommandError::InvalidBudget(format!(
                "{budget:?} is below what the run already used ({usage:?})"
            )));
        }
        budget.check(ceiling).map_err(CommandError::InvalidBudget)
    }

    /// No blind approval: every planned change under review is seen before
    /// it is approved (AG-31).
    fn previews_seen(&self) -> Result<(), CommandError> {
        let pending = self.pending_previews();
        if pending.is_empty() {
            return Ok(());
        }
        Err(CommandError::PreviewPending {
            run: self.id.clone(),
            calls: pending,
        })
    }

    /// The person authorizes the plan under review: reviewing → authorized
    /// → acting, within the allowlist and budget they fixed (or the plan's).
    pub(crate) fn authorize(
        &mut self,
        step: &mut Step<'_>,
        authorization: Authorization,
    ) -> Result<(), CommandError> {
        if self.custody.state().name() != StateName::Reviewing {
            return Err(self.illegal("authorize"));
        }
        self.previews_seen()?;
        let budget = authorization.budget.unwrap_or(self.custody.budget());
        self.check_raise(&budget, &step.config.max_budget)?;
        let allowlist: BTreeSet<CapabilityRef> = match authorization.allowlist {
            Some(list) => {
                let mut allowlist = BTreeSet::new();
                allowlist.extend(list);
                allowlist
            }
            None => self.proposed_scope(),
        };
        // What the person reviewed, they approved one by one; an escalation
        // allowed later approves only the call it showed (AG-25).
        let reviewed = self.turns.queue().iter().map(|call| call.call.clone());
        self.approval.person_approves(reviewed);
        self.transition(step, Actor::Person, RunState::Authorized);
        self.authorize_and_act(step, Actor::Person, allowlist, budget, Baseline::Seen);
        Ok(())
    }

    /// The person rejects the plan under review: before anything was done
    /// the run is `cancelled`; on re-review after acting it returns
    /// `aborted`.
    pub(crate) fn reject(&mut self, step: &mut Step<'_>, note: &str) -> Result<(), CommandError> {
        match self.custody.state().name() {
            StateName::Offered | StateName::Planned | StateName::Reviewing
                if self.custody.usage().calls == 0 =>
            {
                let reason = CancelReason::Rejected { note: note.into() };
                self.cancel(step, Actor::Person, reason);
            }
            StateName::Reviewing => {
                let reason = ReturnReason::ReviewRejected { note: note.into() };
                self.end(step, Actor::Person, reason);
            }
            _ => return Err(self.illegal("reject")),
        }
        Ok(())
    }

    /// The person resolves the escalation the run waits on (AG-6, AG-7);
    /// see [`crate::ResolveEscalation`] for what each resolution
    /// does.
    pub(crate) fn resolve_escalation(
        &mut self,
        step: &mut Step<'_>,
        resolution: Resolution,
    ) -> Result<(), CommandError> {
        let Some(reason) = self.escalation_reason().cloned() else {
            return Err(self.illegal("resolve-escalation"));
        };
        let pending_call = reason.awaits_approval_of_a_call();
        if matches!(reason, EscalationReason::AwaitingAnswer { .. })
            && resolution != Resolution::Return
        {
            // A question is answered, declined, dismissed or postponed.
            return Err(CommandError::AnswerRequired {
                run: self.id.clone(),
            });
        }
        let offered = self.offered(&reason, &step.config.max_budget);
        if !offered
            .iter()
            .any(|choice| choice.kind() == resolution.kind())
        {
            let requirement = match reason {
                EscalationReason::Drift { .. } => "AG-29",
                _ => "AG-7",
            };
            return Err(CommandError::NotOffered {
                run: self.id.clone(),
                requirement,
                resolution: resolution.kind(),
            });
        }
        match resolution {
            Resolution::Return => self.end(step, Actor::Person, ReturnReason::EscalationReturned),
            Resolution::Review => self.review_again(step, Actor::Person, &reason),
            Resolution::Deny => self.deny_pending_call(step),
            Resolution::Allow { budget } => {
                if pending_call {
                    self.previews_seen()?;
                }
                self.allow(step, reason, budget)?;
            }
        }
        Ok(())
    }

    /// The call the run escalated is refused; the acting party hears so and
    /// the run goes on.
    fn deny_pending_call(&mut self, step: &mut Step<'_>) {
        self.clear_escalation();
        self.transition(step, Actor::Person, RunState::Acting);
        if let Some(call) = self.turns.pop_call() {
            self.custody.charge_call();
            self.refuse(step, Actor::Person, call, Refusal::Denied);
        }
        self.advance(step);
    }

    /// The person allows what the run escalated for: an out-of-scope
    /// capability joins the allowlist, a call that needed review is
    /// approved, drift or a lapsed authorization is re-approved against the
    /// reads as they are now, and exhaustion needs a budget that raises the
    /// exhausted limit.
    fn allow(
        &mut self,
        step: &mut Step<'_>,
        reason: EscalationReason,
        budget: Option<Budget>,
    ) -> Result<(), CommandError> {
        let budget = budget.unwrap_or(self.custody.budget());
        self.check_raise(&budget, &step.config.max_budget)?;
        let mut allowlist = self.approval.allowlist().clone();
        let mut baseline = Baseline::Seen;
        match reason {
            EscalationReason::OutOfScope { capability } => {
                allowlist.insert(capability);
                // The sheet showed the call at the head of the queue: the
                // person approved that one, and no call behind it (AG-25).
                if let Some(shown) = self.turns.queue().front() {
                    self.approval.approve(shown.call.clone());
                }
            }
            EscalationReason::ReviewRequired { call, .. } => {
                self.approval.approve(call);
            }
            EscalationReason::Drift { .. } | EscalationReason::AuthorizationExpired => {
                baseline = Baseline::Current;
            }
            EscalationReason::AwaitingAnswer { .. } => {
                return Err(CommandError::AnswerRequired {
                    run: self.id.clone(),
                });
            }
            EscalationReason::BudgetExhausted { limit } => {
                let raised = match limit {
                    BudgetLimit::Turns => budget.max_turns > self.custody.usage().turns,
                    BudgetLimit::Calls => budget.max_calls > self.custody.usage().calls,
                };
                if !raised {
                    return Err(CommandError::InvalidBudget(format!(
                        "allowing an exhausted run needs a budget that raises its {limit:?} limit"
                    )));
                }
            }
        }
        self.clear_escalation();
        self.authorize_and_act(step, Actor::Person, allowlist, budget, baseline);
        Ok(())
    }

    /// The person undoes the returned run in one step (A.2); returns the
    /// group being reverted. Refused while the run is active, after a
    /// rollback (nothing is left to undo), and a second time. `conflicts`
    /// are the participants something changed after the run did: `scope`
    /// says whether that holds the undo back, leaves them as they are, or
    /// reverts them anyway.
    pub(crate) fn undo(
        &mut self,
        step: &mut Step<'_>,
        scope: UndoScope,
        conflicts: Vec<UndoConflict>,
    ) -> Result<Vec<(ParticipantId, MarkToken)>, CommandError> {
        let why = match self.custody.state() {
            RunState::Returned {
                outcome: Outcome::RolledBack,
                ..
            } => Some("it was rolled back already"),
            RunState::Returned { .. } if self.mutation.is_undone() => Some("it was undone already"),
            RunState::Returned { .. } => None,
            _ => Some("it is still active; stop it first"),
        };
        if let Some(why) = why {
            return Err(CommandError::NotUndoable {
                run: self.id.clone(),
                why,
            });
        }
        let changed_since =
            |participant: &ParticipantId| conflicts.iter().any(|c| &c.participant == participant);
        let group = self.undo_group();
        match scope {
            _ if conflicts.is_empty() => Ok(self.start_undo(step, group, Vec::new(), Vec::new())),
            UndoScope::Checked => {
                // Not reverted blindly: journalled, said, and handed back
                // to the person to choose.
                self.record(
                    step,
                    Actor::Engine,
                    JournalEntry::UndoHeld {
                        conflicts: conflicts.clone(),
                    },
                );
                self.announce_undo_held(step, &conflicts);
                let untouched = group
                    .into_iter()
                    .map(|(participant, _)| participant)
                    .filter(|participant| !changed_since(participant))
                    .collect();
                Err(CommandError::UndoConflict {
                    run: self.id.clone(),
                    conflicts,
                    untouched,
                })
            }
            UndoScope::Untouched => {
                let group: Vec<_> = group
                    .into_iter()
                    .filter(|(participant, _)| !changed_since(participant))
                    .collect();
                if group.is_empty() {
                    return Err(CommandError::NotUndoable {
                        run: self.id.clone(),
                        why: "everything it changed was changed since; force the undo to revert it anyway",
                    });
                }
                Ok(self.start_undo(step, group, conflicts, Vec::new()))
            }
            UndoScope::Force => Ok(self.start_undo(step, group, Vec::new(), conflicts)),
        }
    }
}

// ----- escalation ---------------------------------------------------------------

/// An escalated run, as the person decides it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EscalationSheet {
    /// The run.
    pub run: RunId,
    /// The revision to resolve at (the fence).
    pub revision: u64,
    /// The person's intent.
    pub intent: String,
    /// Why the run waits.
    pub reason: EscalationReason,
    /// The run's budget now.
    pub budget: Budget,
    /// What it has used of it.
    pub usage: Usage,
    /// The ways to resolve it, the one that lets the run go on first.
    pub choices: Vec<Resolution>,
}

impl Run {
    /// The escalation sheet, while the run is escalated.
    pub(crate) fn escalation_sheet(&self, max_budget: &Budget) -> Option<EscalationSheet> {
        let RunState::Escalated { reason } = self.state() else {
            return None;
        };
        Some(EscalationSheet {
            run: self.id().clone(),
            revision: self.revision(),
            intent: self.intent().to_owned(),
            reason: reason.clone(),
            budget: self.budget(),
            choices: self.offered(reason, max_budget),
            usage: self.usage(),
        })
    }

    /// The resolutions that end this escalation's wait: the sheet's
    /// choices, and the only ones the engine accepts. An exhausted limit
    /// is offered doubled, within the engine's maximum; when it cannot be
    /// raised, going on is not offered.
    fn offered(&self, reason: &EscalationReason, max_budget: &Budget) -> Vec<Resolution> {
        let budget = self.budget();
        match reason {
            EscalationReason::BudgetExhausted { limit } => {
                let raised = raise(&budget, *limit, max_budget);
                let mut choices: Vec<Resolution> = raised
                    .map(|budget| Resolution::Allow {
                        budget: Some(budget),
                    })
                    .into_iter()
                    .collect();
                choices.push(Resolution::Return);
                choices
            }
            EscalationReason::OutOfScope { .. } | EscalationReason::ReviewRequired { .. } => {
                vec![
                    Resolution::Allow { budget: None },
                    Resolution::Deny,
                    Resolution::Return,
                ]
            }
            EscalationReason::Drift { .. } => vec![Resolution::Review, Resolution::Return],
            EscalationReason::AuthorizationExpired => vec![
                Resolution::Allow { budget: None },
                Resolution::Review,
                Resolution::Return,
            ],
            // Answered through the question itself (AG-41); returning ends it.
            EscalationReason::AwaitingAnswer { .. } => vec![Resolution::Return],
        }
    }
}

/// `budget` with `limit` doubled (at least one more), capped at `max`; `None`
/// when it is already there.
fn raise(budget: &Budget, limit: BudgetLimit, max: &Budget) -> Option<Budget> {
    let double = |n: u32, cap: u32| n.saturating_mul(2).max(n + 1).min(cap);
    let mut raised = *budget;
    match limit {
        BudgetLimit::Turns => raised.max_turns = double(budget.max_turns, max.max_turns),
        BudgetLimit::Calls => raised.max_calls = double(budget.max_calls, max.max_calls),
    }
    (raised != *budget && raised.within(max)).then_some(raised)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(turns: u32, calls: u32) -> Budget {
        Budget {
            max_turns: turns,
            max_calls: calls,
            ..Budget::default()
        }
    }

    #[test]
    fn an_exhausted_limit_is_offered_raised_within_the_maximum() {
        let max = budget(64, 10);
        assert_eq!(
            raise(&budget(8, 4), BudgetLimit::Calls, &max),
            Some(budget(8, 8))
        );
        assert_eq!(
            raise(&budget(8, 0), BudgetLimit::Calls, &max),
            Some(budget(8, 1))
        );
        assert_eq!(
            raise(&budget(8, 8), BudgetLimit::Calls, &max),
            Some(budget(8, 10))
        );
        assert_eq!(
            raise(&budget(8, 4), BudgetLimit::Turns, &max),
            Some(budget(16, 4))
        );
        assert_eq!(
            raise(&budget(8, 10), BudgetLimit::Calls, &max),
            None,
            "at the maximum there is nothing to offer"
        );
    }
}
