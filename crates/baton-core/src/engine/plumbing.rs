//! How a command or a report reaches a run: due timers first, then the
//! revision fence, then the decision; and the engine's own counters.

use super::*;

impl Engine {
    // ----- plumbing --------------------------------------------------------

    pub(super) fn step(&mut self, now: u64) -> Step<'_> {
        Step::new(now, &mut self.out, &self.shared, &mut self.questions)
    }

    pub(crate) fn with_run<T>(
        &mut self,
        now: u64,
        id: &RunId,
        body: impl FnOnce(&mut Run, &mut Step<'_>) -> T,
    ) -> Option<T> {
        let run = self.runs.get_mut(id)?;
        let mut step = Step::new(now, &mut self.out, &self.shared, &mut self.questions);
        Some(body(run, &mut step))
    }

    /// A decision of the person: due timers apply first (they outrank it),
    /// then the revision fence, then the decision.
    pub(super) fn command(
        &mut self,
        now: u64,
        id: &RunId,
        expected_revision: Option<u64>,
        command: &'static str,
        body: impl FnOnce(&mut Run, &mut Step<'_>) -> Result<(), CommandError>,
    ) -> Result<(), CommandError> {
        self.with_run(now, id, |run, step| {
            run.settle(step);
            if run.state().is_terminal() {
                return Err(run.illegal(command));
            }
            if let Some(expected) = expected_revision {
                if expected != run.revision() {
                    return Err(CommandError::StaleRevision {
                        run: run.id().clone(),
                        expected,
                        actual: run.revision(),
                    });
                }
            }
            body(run, step)
        })
        .unwrap_or_else(|| Err(CommandError::UnknownRun(id.clone())))
    }

    /// Stop and pause outrank every timer cause, so they apply before any.
    pub(super) fn terminal_command(
        &mut self,
        now: u64,
        id: &RunId,
        command: &'static str,
        reason: ReturnReason,
    ) -> Result<(), CommandError> {
        self.with_run(now, id, |run, step| {
            if run.state().is_terminal() {
                return Err(run.illegal(command));
            }
            run.end(step, Actor::Person, reason);
            Ok(())
        })
        .unwrap_or_else(|| Err(CommandError::UnknownRun(id.clone())))
    }

    /// A host report. A failure it carries is an explicit cause that outranks
    /// timers; otherwise timers that are due apply first.
    pub(super) fn host_report(
        &mut self,
        now: u64,
        id: &RunId,
        carries_failure: bool,
        body: impl FnOnce(&mut Run, &mut Step<'_>) -> Result<(), ReportError>,
    ) -> Result<(), ReportError> {
        self.with_run(now, id, |run, step| {
            if !carries_failure {
                run.settle(step);
            }
            if run.state().is_terminal() {
                return Err(ReportError::RunEnded(run.id().clone()));
            }
            body(run, step)
        })
        .unwrap_or_else(|| Err(ReportError::UnknownRun(id.clone())))
    }

    pub(super) fn mint_run_id(&mut self) -> RunId {
        let id = self.next_run_id();
        self.next_run += 1;
        id
    }

    /// The id the next run this engine starts will have: a host that keeps
    /// something per run (a transport of its own) sets it up before the run
    /// opens its first turn.
    pub fn next_run_id(&self) -> RunId {
        RunId::new(format!("{}/r{}", self.shared.config.session, self.next_run))
    }

    /// A run's autonomy (AG-24, AG-26): the person's choice under the
    /// ceiling; a run the person did not ask for never acts without review.
    pub(super) fn run_autonomy(
        &self,
        person: crate::model::Autonomy,
        initiative: crate::model::Initiative,
    ) -> crate::model::Autonomy {
        crate::autonomy::resolve(crate::autonomy::AutonomyInputs {
            ceiling: self.shared.config.ceiling,
            person,
            capability: None,
            initiative,
            irreversible: false,
            untrusted_context: false,
            denied: false,
        })
        .level()
    }

    pub(super) fn check_budget(&self, budget: &Budget, source: PlanSource) -> Result<(), String> {
        budget.check(&self.shared.config.max_budget)?;
        if source == PlanSource::ActingParty && budget.max_turns == 0 {
            return Err("an acting party needs at least one turn".into());
        }
        Ok(())
    }

    pub(super) fn charge_quota(&mut self, now: u64) -> Result<(), DelegateError> {
        while self
            .quota_starts
            .front()
            .is_some_and(|start| now >= start.saturating_add(HOUR_MS))
        {
            self.quota_starts.pop_front();
        }
        if self.quota_starts.len() >= self.shared.config.hourly_quota as usize {
            let oldest = self.quota_starts.front().copied().unwrap_or(now);
            return Err(DelegateError::QuotaExceeded {
                quota: self.shared.config.hourly_quota,
                retry_at: oldest.saturating_add(HOUR_MS),
            });
        }
        self.quota_starts.push_back(now);
        Ok(())
    }
}
