//! Offering again what a reload cut off while it waited for the person
//! (A.2, AG-11): a plan under review, a call to allow, a question.

use super::*;
use crate::model::Initiative;
use crate::run::cut_off::CutOff;

impl Engine {
    /// The runs a reload cut off while they waited for the person, offered
    /// again until the person takes them up or discards them.
    pub fn cut_off(&self) -> Vec<CutOff> {
        self.runs.values().filter_map(Run::cut_off).collect()
    }

    /// Puts what a cut-off run showed the person before them again, as a
    /// chained run of this engine (AG-11) that names it in `resumes`: the
    /// plan under review, its calls previewed again against the reads as
    /// they are now (drift and stale rules apply), or the question. `cut`
    /// may come from this engine or from the engine that reconciled a
    /// session that is gone; settle it there with
    /// [`Engine::settle_cut_off`], first, so it is taken up once.
    pub fn review_again(&mut self, now: u64, cut: &CutOff) -> Result<RunId, DelegateError> {
        if self.disabled {
            return Err(DelegateError::Disabled);
        }
        if cut.source == PlanSource::ActingParty && !self.shared.config.transport {
            return Err(DelegateError::NoTransport);
        }
        let autonomy = crate::autonomy::resolve(crate::autonomy::AutonomyInputs {
            ceiling: self.shared.config.ceiling,
            person: cut.requested,
            capability: None,
            initiative: Initiative::User,
            irreversible: false,
            untrusted_context: false,
            denied: false,
        })
        .level();
        let id = self.mint_run_id();
        let mut run = Run::new(
            Charter {
                id: id.clone(),
                intent: cut.intent.clone(),
                initiative: Initiative::User,
                requested: cut.requested,
                autonomy,
                source: cut.source,
                budget: cut.budget,
                resumes: Some(cut.run.clone()),
            },
            now,
        );
        let mut step = Step::new(now, &mut self.out, &self.shared, &mut self.questions);
        run.start_again(&mut step, cut);
        self.runs.insert(id.clone(), run);
        Ok(id)
    }

    /// The person took up (`reviewed_again`) or discarded what `run`
    /// offers: journalled on it as the person's act, and offered no more.
    pub fn settle_cut_off(
        &mut self,
        now: u64,
        run: &RunId,
        reviewed_again: bool,
    ) -> Result<(), DelegateError> {
        match self.with_run(now, run, |cut, step| cut.settle_offer(step, reviewed_again)) {
            Some(true) => Ok(()),
            Some(false) => Err(DelegateError::NotCutOff { run: run.clone() }),
            None => Err(DelegateError::UnknownRun(run.clone())),
        }
    }
}
