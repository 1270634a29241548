//! What the person is asked when a run escalates (AG-6, AG-7, AG-29): the
//! reason, and the choices that resolve it — each one a [`Resolution`] the
//! engine accepts at the sheet's revision. A call waiting for approval is
//! shown by the review sheet with its concrete change (AG-31); this sheet
//! covers every escalation, so a surface can always offer the way out.

use serde::{Deserialize, Serialize};

use crate::ids::RunId;
use crate::model::{Budget, Usage};
use crate::run::Run;
use crate::state::{BudgetLimit, EscalationReason, Resolution, RunState};

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
    /// The escalation sheet, while the run is escalated. An exhausted
    /// limit is offered doubled, within the engine's maximum; when it cannot
    /// be raised, going on is not offered.
    pub(crate) fn escalation_sheet(&self, max_budget: &Budget) -> Option<EscalationSheet> {
        let RunState::Escalated { reason } = self.state() else {
            return None;
        };
        let budget = self.budget();
        let choices = match reason {
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
        };
        Some(EscalationSheet {
            run: self.id().clone(),
            revision: self.revision(),
            intent: self.intent().to_owned(),
            reason: reason.clone(),
            budget,
            usage: self.usage(),
            choices,
        })
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
