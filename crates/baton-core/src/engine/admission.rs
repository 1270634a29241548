//! What a new run is given before it starts: its id, its autonomy under the
//! ceiling, a budget within the engine's maximum, and a place in the hourly
//! quota of runs the person did not start.

use super::*;

impl Engine {
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
