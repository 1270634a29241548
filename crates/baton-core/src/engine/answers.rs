//! Questions to the person (AG-41): answered, declined, dismissed or
//! postponed, each fenced by its request digest.

use super::*;

impl Engine {
    // ----- questions (AG-41) -------------------------------------------------

    /// Answers a question. The answer names the question and the digest of
    /// its request, must satisfy the question's schema (or be text when it
    /// has none), and fails closed on any mismatch. The acceptance and the
    /// run's state change are recorded in one step; an identical retry
    /// returns the original acceptance, a different one is a conflict.
    pub(crate) fn answer(
        &mut self,
        now: u64,
        id: &QuestionId,
        digest: &Digest,
        answer: Value,
    ) -> Result<Acceptance, AnswerError> {
        let run = self.settle_question_run(now, id)?;
        if let Some(original) = self.questions.check_answer(now, id, digest, &answer)? {
            return Ok(original);
        }
        let answer_digest = Digest::of_json(&answer);
        let state = QuestionState::Answered {
            answer: answer.clone(),
            answer_digest,
            at: now,
            revision: 0,
        };
        let revision = self
            .with_run(now, &run, |run, step| {
                run.resume_after_question(step, AnswerOutcome::Answered { answer }, state)
            })
            .ok_or_else(|| AnswerError::UnknownQuestion(id.clone()))?;
        Ok(Acceptance {
            question: id.clone(),
            run,
            answer_digest,
            at: now,
            revision,
        })
    }

    /// Declines a question: the acting party hears that the person would
    /// rather not answer, and the run goes on.
    pub(crate) fn decline(&mut self, now: u64, id: &QuestionId) -> Result<(), AnswerError> {
        self.close_question(
            now,
            id,
            AnswerOutcome::Declined,
            QuestionState::Declined { at: now },
        )
    }

    /// Dismisses a question: it leaves the person's view, the acting party
    /// hears it was dismissed, and the run goes on.
    pub(crate) fn dismiss(&mut self, now: u64, id: &QuestionId) -> Result<(), AnswerError> {
        self.close_question(
            now,
            id,
            AnswerOutcome::Dismissed,
            QuestionState::Dismissed { at: now },
        )
    }

    /// Postpones a question until `until`: it stays open, out of the
    /// `actionRequired` count until then, and still expires at its deadline.
    pub(crate) fn postpone(
        &mut self,
        now: u64,
        id: &QuestionId,
        until: u64,
    ) -> Result<(), AnswerError> {
        let run = self.settle_question_run(now, id)?;
        let question = self.questions.check_closable(now, id)?;
        question.set_state(QuestionState::Postponed { until });
        self.with_run(now, &run, |run, step| run.postponed(step, id, until));
        Ok(())
    }

    pub(super) fn close_question(
        &mut self,
        now: u64,
        id: &QuestionId,
        outcome: AnswerOutcome,
        state: QuestionState,
    ) -> Result<(), AnswerError> {
        let run = self.settle_question_run(now, id)?;
        self.questions.check_closable(now, id)?;
        self.with_run(now, &run, |run, step| {
            run.resume_after_question(step, outcome, state);
        });
        Ok(())
    }

    /// Applies what is due on the question's run first, so an answer that
    /// arrives after the deadline finds the question expired.
    pub(super) fn settle_question_run(
        &mut self,
        now: u64,
        id: &QuestionId,
    ) -> Result<RunId, AnswerError> {
        let run = self
            .questions
            .get(id)
            .map(|question| question.run.clone())
            .ok_or_else(|| AnswerError::UnknownQuestion(id.clone()))?;
        self.with_run(now, &run, |run, step| run.settle(step));
        Ok(run)
    }

    /// Content-free counts for a badge: what is pending, never what it says.
    pub fn counters(&self, now: u64) -> Counters {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let questions = || self.questions.all().filter(|q| q.state.is_open());
        let escalations = self.active_runs().filter(|run| {
            matches!(run.state(), RunState::Escalated { reason } if !matches!(reason, EscalationReason::AwaitingAnswer { .. }))
        });
        Counters {
            action_required: count(
                questions().filter(|q| q.needs_attention(now)).count() + escalations.count(),
            ),
            awaiting_review: count(
                self.active_runs()
                    .filter(|run| *run.state() == RunState::Reviewing)
                    .count(),
            ),
            awaiting_agent: count(
                self.active_runs()
                    .filter(|run| run.open_turn().is_some())
                    .count(),
            ),
            overdue: count(questions().filter(|q| now >= q.deadline_at).count()),
            failed: count(
                self.runs()
                    .filter(|run| {
                        matches!(
                            run.state(),
                            RunState::Returned {
                                outcome: Outcome::Error,
                                ..
                            }
                        )
                    })
                    .count(),
            ),
        }
    }
}
