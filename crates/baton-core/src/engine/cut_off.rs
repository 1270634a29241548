//! Offering again what a reload cut off while it waited for the person
//! (A.2, AG-11): a plan under review, a call to allow, a question.

use super::*;
use crate::run::closing::CutOff;

impl Engine {
    /// The runs a reload cut off while they waited for the person, offered
    /// again until the person takes them up or discards them.
    pub fn cut_off(&self) -> Vec<CutOff> {
        self.runs.values().filter_map(Run::cut_off).collect()
    }

    /// Takes out the runs this engine offers again, for the engine of
    /// another session to adopt: what a session that is gone cut off is
    /// offered by the engine that reconciled it.
    pub(crate) fn take_offered(&mut self) -> Vec<Run> {
        let ids: Vec<RunId> = self
            .runs
            .values()
            .filter(|run| run.is_offered())
            .map(|run| run.id().clone())
            .collect();
        ids.iter().filter_map(|id| self.runs.remove(id)).collect()
    }

    /// Adopts runs another engine offered again ([`TakeOffered`]):
    /// they are this engine's to offer, written as its own.
    pub(crate) fn adopt(&mut self, runs: Vec<Run>) {
        if !runs.is_empty() {
            // Rows of this session now stored: its header goes beside them.
            self.header_seen = None;
        }
        for run in runs {
            let (id, revision) = (run.id().clone(), run.revision());
            self.runs.insert(id.clone(), run);
            self.written(&id, revision);
        }
    }

    /// Puts what a cut-off run showed the person before them again, as a
    /// chained run (AG-11) that names it in `resumes`: the plan under
    /// review, its calls previewed again against the reads as they are now
    /// (drift and stale rules apply), or the question. The cut-off run's
    /// journal records that it was taken up; it is offered no more.
    pub(crate) fn review_again(
        &mut self,
        now: u64,
        cut_off: &RunId,
    ) -> Result<RunId, DelegateError> {
        if self.disabled {
            return Err(DelegateError::Disabled);
        }
        let transport = self.shared.config.transport;
        let Some(run) = self.runs.get(cut_off) else {
            return Err(DelegateError::UnknownRun(cut_off.clone()));
        };
        if run.is_offered() && run.source() == PlanSource::ActingParty && !transport {
            return Err(DelegateError::NoTransport);
        }
        let again = self
            .with_run(now, cut_off, |run, step| run.settle_offer(step, true))
            .flatten()
            .ok_or_else(|| DelegateError::NotCutOff {
                run: cut_off.clone(),
            })?;
        let thread = (self.runs.get(cut_off)).and_then(|run| run.thread().map(str::to_owned));
        // Taken up by the person, it is still the run it was (AG-26).
        let autonomy = self.run_autonomy(again.requested, again.initiative);
        let id = self.mint_run_id();
        let mut run = Run::new(
            Charter {
                id: id.clone(),
                intent: again.intent.clone(),
                initiative: again.initiative,
                requested: again.requested,
                autonomy,
                source: again.source,
                budget: again.budget,
                resumes: Some(cut_off.clone()),
                thread,
            },
            now,
        );
        let mut step = Step::new(now, &mut self.out, &self.shared, &mut self.questions);
        run.start_again(&mut step, again);
        self.runs.insert(id.clone(), run);
        Ok(id)
    }

    /// Discards what a cut-off run offers: journalled on it as the person's
    /// act, and offered no more.
    pub(crate) fn discard(&mut self, now: u64, cut_off: &RunId) -> Result<(), DelegateError> {
        match self.with_run(now, cut_off, |run, step| run.settle_offer(step, false)) {
            Some(Some(_)) => Ok(()),
            Some(None) => Err(DelegateError::NotCutOff {
                run: cut_off.clone(),
            }),
            None => Err(DelegateError::UnknownRun(cut_off.clone())),
        }
    }
}
