//! What a reload cut off while the person was looking at it (A.2, AG-11).
//!
//! A run waiting for the person — a plan under review, an escalated call to
//! allow, a question to answer — is not merely listed as cut off when the
//! page goes away. The engine that reconciles it keeps what the person was
//! shown, and offers it again: the person reviews that plan again as a
//! chained run, its calls previewed again against the reads as they are
//! now (so the drift and stale rules apply, AG-20, AG-29), answers the
//! question again in a chained run, or discards it. Either way the cut-off
//! run's journal says so, once.

use serde::{Deserialize, Serialize};

use crate::context::ReadStamp;
use crate::ids::RunId;
use crate::journal::{Actor, CallReport, JournalEntry};
use crate::model::{Autonomy, Budget};
use crate::run::review::ReviewAgain;
use crate::state::RunState;

use super::{AskedQuestion, PlanSource, ProposedCall, Run, Step};

/// What the person was shown when the run was cut off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Waiting {
    /// A plan, or a call, waiting for review.
    Review,
    /// A question waiting for an answer.
    Answer,
}

/// What a cut-off run keeps to be offered again, until the person takes it
/// up or discards it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "waiting",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub(crate) enum Offered {
    /// The calls the person was reviewing, not yet done.
    Review { calls: Vec<ProposedCall> },
    /// The acting party's question the person was asked.
    Answer { question: AskedQuestion },
}

/// A run a reload cut off while it waited for the person, offered again:
/// everything a chained run needs to put the same thing before them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CutOff {
    /// The cut-off run.
    pub run: RunId,
    /// The person's intent.
    pub intent: String,
    /// What the person was shown.
    pub waiting: Waiting,
    pub(crate) offered: Offered,
    pub(crate) requested: Autonomy,
    pub(crate) source: PlanSource,
    pub(crate) budget: Budget,
    /// The reads the calls were planned against.
    pub(crate) seen: Vec<ReadStamp>,
    /// Call results the acting party has not heard yet.
    pub(crate) reports: Vec<CallReport>,
}

impl Offered {
    fn waiting(&self) -> Waiting {
        match self {
            Offered::Review { .. } => Waiting::Review,
            Offered::Answer { .. } => Waiting::Answer,
        }
    }
}

impl Run {
    /// What the person is shown right now that a reload would cut off: a
    /// plan under review, a call to allow before anything was done, or the
    /// acting party's question.
    fn before_the_person(&self, step: &Step<'_>) -> Option<Offered> {
        if let Some(open) = &self.asking.question {
            let question = step.questions.by_id.get(&open.id)?;
            return match &question.asker {
                crate::questions::Asker::ActingParty { request } => Some(Offered::Answer {
                    question: AskedQuestion {
                        request: request.clone(),
                        prompt: question.prompt.clone(),
                        schema: question.schema.clone(),
                        deadline_ms: None,
                        expires_at: None,
                    },
                }),
                // Which instance to act on: the plan is reviewed again instead.
                crate::questions::Asker::Engine { .. } => self.calls_under_review(),
            };
        }
        match &self.custody.state {
            RunState::Reviewing => self.calls_under_review(),
            // A call to allow, before anything was done: the plan is whole.
            RunState::Escalated { reason }
                if reason.awaits_approval_of_a_call() && self.mutation.mutated.is_empty() =>
            {
                self.calls_under_review()
            }
            _ => None,
        }
    }

    fn calls_under_review(&self) -> Option<Offered> {
        (!self.turns.queue.is_empty()).then(|| Offered::Review {
            calls: self.turns.queue.iter().cloned().collect(),
        })
    }

    /// Ends the run a reload cut off (`interrupted`), keeping what the
    /// person was shown to offer it again.
    pub(crate) fn cut_off_by_reload(&mut self, step: &mut Step<'_>) {
        let offered = self.before_the_person(step);
        self.abandon(
            step,
            crate::state::Outcome::Aborted,
            crate::state::ReturnReason::Interrupted,
        );
        if let Some(offered) = offered {
            let waiting = offered.waiting();
            self.custody.offered = Some(offered);
            self.record(step, Actor::Engine, JournalEntry::OfferedAgain { waiting });
        }
    }

    /// What this run offers again, if a reload cut it off before the person.
    pub(crate) fn cut_off(&self) -> Option<CutOff> {
        let offered = self.custody.offered.clone()?;
        Some(CutOff {
            run: self.id.clone(),
            intent: self.intent.clone(),
            waiting: offered.waiting(),
            offered,
            requested: self.requested,
            source: self.source,
            budget: self.custody.budget,
            seen: self.turns.seen.values().cloned().collect(),
            reports: self.turns.reports.clone(),
        })
    }

    /// The person took the offer up in a chained run, or discarded it: it is
    /// offered no more.
    pub(crate) fn settle_offer(&mut self, step: &mut Step<'_>, reviewed_again: bool) -> bool {
        if self.custody.offered.take().is_none() {
            return false;
        }
        self.record(
            step,
            Actor::Person,
            JournalEntry::OfferSettled { reviewed_again },
        );
        true
    }

    /// Starts this chained run with what `cut` offers: the plan under review
    /// again, previewed afresh against the reads as they are now while the
    /// calls keep the reads they were planned against; or the question put
    /// to the person again.
    pub(crate) fn start_again(&mut self, step: &mut Step<'_>, cut: &CutOff) {
        self.turns.reports = cut.reports.clone();
        let created = JournalEntry::Created {
            intent: self.intent.clone(),
            initiative: self.initiative,
            budget: self.custody.budget,
            resumes: self.resumes.clone(),
        };
        self.record(step, Actor::Person, created);
        match &cut.offered {
            Offered::Review { calls } => {
                self.turns.seen = cut
                    .seen
                    .iter()
                    .map(|stamp| (stamp.read.clone(), stamp.clone()))
                    .collect();
                self.turns.seen_calls = calls.iter().map(|call| call.call.clone()).collect();
                self.turns.plan = calls.clone();
                self.turns.queue = calls.iter().cloned().collect();
                self.autonomy = self.context_level(step);
                self.transition(step, Actor::Person, RunState::Planned);
                self.enter_review(step, Actor::Person);
                self.approval.review_again = Some(ReviewAgain::CutOff {
                    run: cut.run.clone(),
                });
            }
            Offered::Answer { question } => {
                self.turns.seen = step.reads.clone();
                self.asking.pending_questions.push_back(question.clone());
                self.ask_pending(step);
            }
        }
    }
}
