//! How a run starts: from a delegation, or resuming a paused run (AG-11).

use crate::delegation::PlannedCall;
use crate::error::DelegateError;
use crate::ids::{CallId, RunId};
use crate::journal::{Actor, JournalEntry};
use crate::model::{Budget, Initiative};

use super::{Charter, PlanSource, ProposedCall, Run, Step};

impl Run {
    /// Starts the run, journalled as created by `actor`: a fixed plan is
    /// proposed at once (its calls numbered `p1`, `p2`, …), otherwise the
    /// planning turn is reserved and sent.
    pub(crate) fn start(
        &mut self,
        step: &mut Step<'_>,
        actor: Actor,
        fixed_plan: Option<Vec<PlannedCall>>,
    ) {
        // A fixed plan was computed against the reads as they are now.
        self.turns.see_all(step.reads.clone());
        self.record_created(step, actor.clone());
        match fixed_plan {
            Some(plan) => {
                let plan = plan
                    .into_iter()
                    .enumerate()
                    .map(|(index, planned)| ProposedCall {
                        call: CallId::new(format!("p{}", index + 1)),
                        capability: planned.capability,
                        arguments: planned.arguments,
                        via: Vec::new(),
                    })
                    .collect();
                self.accept_plan(step, actor, plan);
            }
            None => self.reserve_turn(step),
        }
    }

    /// The run's first record: what it is for, and the run it resumes.
    pub(super) fn record_created(&mut self, step: &mut Step<'_>, actor: Actor) {
        let created = JournalEntry::Created {
            intent: self.intent.clone(),
            initiative: self.initiative,
            budget: self.custody.budget(),
            resumes: self.resumes.clone(),
        };
        self.record(step, actor, created);
    }

    /// The budget a run resuming this one gets: the one given, or this
    /// run's. Only a paused run with an acting party can be resumed.
    pub(crate) fn resume_budget(&self, budget: Option<Budget>) -> Result<Budget, DelegateError> {
        if !self.custody.is_resumable() || self.source != PlanSource::ActingParty {
            return Err(DelegateError::NotResumable {
                run: self.id.clone(),
            });
        }
        Ok(budget.unwrap_or(self.custody.budget()))
    }

    /// The run `id` that resumes this one, the person's, chained in the same
    /// session; call results not yet delivered travel to its first turn.
    /// This run can be resumed only once.
    pub(crate) fn resumed_by(&mut self, id: RunId, budget: Budget, now: u64) -> Run {
        self.custody.set_resumable(false);
        let mut run = Run::new(
            Charter {
                id,
                intent: self.intent.clone(),
                initiative: Initiative::User,
                requested: self.requested,
                autonomy: self.autonomy,
                source: PlanSource::ActingParty,
                budget,
                resumes: Some(self.id.clone()),
                thread: self.thread.clone(),
            },
            now,
        );
        run.turns.carry_over_reports(self.turns.reports().clone());
        run
    }
}
