//! What a reload cut off while the person was looking at it (A.2, AG-11).
//!
//! A run waiting for the person — a plan under review, an escalated call to
//! allow, a question to answer — is not merely listed as cut off when the
//! page goes away. The engine that reconciles it keeps what the person was
//! shown, and the engine that opens next offers it again: the person
//! reviews that plan again as a chained run, its calls previewed again
//! against the reads as they are now (so the drift and stale rules apply,
//! AG-20, AG-29), answers the question again in a chained run, or discards
//! it. Either way the cut-off run's journal says so, once.

use serde::{Deserialize, Serialize};

use crate::context::ReadStamp;
use crate::ids::RunId;
use crate::journal::{Actor, CallReport, JournalEntry};
use crate::model::{Autonomy, Budget};
use crate::run::review::ReviewAgain;
use crate::state::{Outcome, ReturnReason, RunState};

use super::{AskedQuestion, PlanSource, ProposedCall, Run, Step};

/// What the person was shown when the run was cut off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Waiting {
    /// A plan, or a call, waiting for review.
    Review,
    /// A question waiting for an answer.
    Answer,
}

/// What a cut-off run keeps to be offered again, until the person takes it
/// up or discards it: what the person was shown and the calls they were
/// reviewing, not yet done; a question waits, as before it was put, among
/// the run's pending questions. (A plain record, not a tagged enum: serde
/// reads tagged enums through a buffer that costs the wasm module more than
/// this whole feature.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Offered {
    waiting: Waiting,
    #[serde(default)]
    calls: Vec<ProposedCall>,
}

/// A run a reload cut off while it waited for the person, offered again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[cfg_attr(feature = "typescript", ts(rename = "CutOffRun"))]
#[serde(rename_all = "camelCase")]
pub struct CutOff {
    /// The cut-off run.
    pub run: RunId,
    /// The person's intent.
    pub intent: String,
    /// What the person was shown.
    pub waiting: Waiting,
}

/// What a chained run needs to put a cut-off run's plan or question before
/// the person again.
pub(crate) struct Again {
    calls: Vec<ProposedCall>,
    question: Option<AskedQuestion>,
    pub(crate) intent: String,
    pub(crate) requested: Autonomy,
    pub(crate) source: PlanSource,
    pub(crate) budget: Budget,
    /// The reads the calls were planned against.
    seen: Vec<ReadStamp>,
    /// Call results the acting party has not heard yet.
    reports: Vec<CallReport>,
}

impl Run {
    /// What the person is shown right now that a reload would cut off: a
    /// plan under review, a call to allow before anything was done, or the
    /// acting party's question.
    fn before_the_person(&self, step: &Step<'_>) -> Option<(Offered, Option<AskedQuestion>)> {
        if let Some(open) = self.asking.open() {
            let question = step.questions.by_id.get(&open.id)?;
            return match &question.asker {
                crate::questions::Asker::ActingParty { request, approval } => Some((
                    Offered {
                        waiting: Waiting::Answer,
                        calls: Vec::new(),
                    },
                    Some(AskedQuestion {
                        request: request.clone(),
                        prompt: question.prompt.clone(),
                        schema: question.schema.clone(),
                        deadline_ms: None,
                        expires_at: None,
                        approval: approval.clone(),
                    }),
                )),
                // Which instance to act on: the plan is reviewed again instead.
                crate::questions::Asker::Engine { .. } => self.calls_under_review(),
            };
        }
        match self.custody.state() {
            RunState::Reviewing => self.calls_under_review(),
            // A call to allow, before anything was done: the plan is whole.
            RunState::Escalated { reason }
                if reason.awaits_approval_of_a_call() && self.mutation.mutated().is_empty() =>
            {
                self.calls_under_review()
            }
            _ => None,
        }
    }

    fn calls_under_review(&self) -> Option<(Offered, Option<AskedQuestion>)> {
        let offered = Offered {
            waiting: Waiting::Review,
            calls: self.turns.queue().iter().cloned().collect(),
        };
        (!offered.calls.is_empty()).then_some((offered, None))
    }

    /// Ends the run a reload cut off (`interrupted`), keeping what the
    /// person was shown to offer it again.
    pub(crate) fn cut_off_by_reload(&mut self, step: &mut Step<'_>) {
        let offered = self.before_the_person(step);
        self.abandon(step, Outcome::Aborted, ReturnReason::Interrupted);
        if let Some((offered, question)) = offered {
            let waiting = offered.waiting;
            self.asking.queue(question);
            self.custody.offer(offered);
            self.record(step, Actor::Engine, JournalEntry::OfferedAgain { waiting });
        }
    }

    /// What this run offers again, if a reload cut it off before the person.
    pub(crate) fn cut_off(&self) -> Option<CutOff> {
        let offered = self.custody.offered()?;
        Some(CutOff {
            run: self.id.clone(),
            intent: self.intent.clone(),
            waiting: offered.waiting,
        })
    }

    /// The person took the offer up in a chained run, or discarded it: it is
    /// offered no more. Returns what the chained run needs, if it was offered.
    pub(crate) fn settle_offer(
        &mut self,
        step: &mut Step<'_>,
        reviewed_again: bool,
    ) -> Option<Again> {
        let offered = self.custody.take_offered()?;
        self.record(
            step,
            Actor::Person,
            JournalEntry::OfferSettled { reviewed_again },
        );
        Some(Again {
            calls: offered.calls,
            question: self.asking.hand_over(),
            intent: self.intent.clone(),
            requested: self.requested,
            source: self.source,
            budget: self.custody.budget(),
            seen: self.turns.seen().values().cloned().collect(),
            reports: self.turns.reports().clone(),
        })
    }

    /// Starts this chained run with what `again` offers: the plan under
    /// review again, previewed afresh against the reads as they are now
    /// while the calls keep the reads they were planned against; or the
    /// question put to the person again.
    pub(crate) fn start_again(&mut self, step: &mut Step<'_>, again: Again) {
        self.turns.carry_over_reports(again.reports);
        self.record_created(step, Actor::Person);
        match again.question {
            None => {
                // Inserted one by one: collecting would sort, and bring a
                // sort into the wasm module for this alone.
                for stamp in again.seen {
                    self.turns.see(stamp);
                }
                for call in &again.calls {
                    self.turns.carry_over(call.clone());
                }
                self.turns.carry_over_plan(again.calls);
                self.autonomy = self.context_level(step);
                self.transition(step, Actor::Person, RunState::Planned);
                self.enter_review(step, Actor::Person);
                let run = self.resumes.clone().unwrap_or_else(|| self.id.clone());
                self.approval.show_again(Some(ReviewAgain::CutOff { run }));
            }
            Some(question) => {
                self.turns.see_all(step.reads.clone());
                self.asking.queue_one(question);
                self.ask_pending(step);
            }
        }
    }
}
