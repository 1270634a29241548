//! How a run puts questions to the person and resumes on the answer.

use serde_json::{json, Value};

use crate::event::Event;
use crate::ids::{CallId, ParticipantId, QuestionId};
use crate::journal::{Actor, JournalEntry, QuestionClosure, Refusal};
use crate::questions::{AnswerOutcome, AnswerReport, Asker, Question, QuestionState};
use crate::run::{AskedQuestion, OpenQuestion, ProposedCall, Run, Step};
use crate::state::{BudgetLimit, EscalationReason, ReturnReason, RunState, StateName};

impl Run {
    /// The person postponed the run's question `question` until `until`.
    pub(crate) fn postponed(&mut self, step: &mut Step<'_>, question: &QuestionId, until: u64) {
        let entry = JournalEntry::QuestionPostponed {
            question: question.clone(),
            until,
        };
        self.record(step, Actor::Person, entry);
    }

    /// The request ids the acting party has used for questions in this run.
    pub(super) fn asked_requests(&self) -> impl Iterator<Item = &str> {
        self.asking.asked()
    }

    /// Puts the acting party's next pending question to the person. Its
    /// deadline is the earlier of the engine's (or the question's own wait)
    /// and the moment the acting party stops waiting (`expires_at`); a
    /// question that has expired already is abandoned, never put.
    pub(super) fn ask_pending(&mut self, step: &mut Step<'_>) {
        let Some(asked) = self.asking.take_next() else {
            return;
        };
        let AskedQuestion {
            request,
            prompt,
            schema,
            deadline_ms,
            expires_at,
            approval,
        } = asked;
        if expires_at.is_some_and(|at| at <= step.now) {
            self.asking.report(AnswerReport {
                request,
                outcome: AnswerOutcome::Expired,
                record: None,
            });
            self.continue_after_question(step, Actor::Engine);
            return;
        }
        let wait = deadline_ms.unwrap_or(step.config.escalation_timeout_ms);
        let deadline_at = step
            .now
            .saturating_add(wait)
            .min(expires_at.unwrap_or(u64::MAX));
        // An approval without a schema of its own takes AG-UI's answer.
        let schema = match (&approval, schema) {
            (Some(_), None) => Some(crate::questions::approval_schema()),
            (_, schema) => schema,
        };
        let asker = Asker::ActingParty {
            request: request.clone(),
            approval,
        };
        match self.put_question(step, asker, prompt, schema, deadline_at) {
            Ok(()) => {}
            Err(reason) => {
                // The question cannot be asked as posed: the acting party
                // hears why and the run goes on.
                self.asking.report(AnswerReport {
                    request,
                    outcome: AnswerOutcome::Refused { reason },
                    record: None,
                });
                self.continue_after_question(step, Actor::Engine);
            }
        }
    }

    /// AG-23: the acting party addressed a participant mounted more than
    /// once. The engine never guesses: it asks the person which one.
    pub(super) fn ask_which_instance(
        &mut self,
        step: &mut Step<'_>,
        call: &ProposedCall,
        candidates: Vec<ParticipantId>,
    ) {
        let labels: Vec<String> = candidates
            .iter()
            .map(|id| {
                let label = step
                    .registry
                    .get(id)
                    .map(|mounted| mounted.manifest.label().to_owned())
                    .unwrap_or_default();
                format!("{label} ({id})")
            })
            .collect();
        let prompt = format!(
            "Which one should “{}” act on: {}?",
            call.capability,
            labels.join(", ")
        );
        let schema = json!({
            "type": "object",
            "properties": {"participant": {"enum": candidates}},
            "required": ["participant"],
            "additionalProperties": false
        });
        let asker = Asker::Engine {
            call: call.call.clone(),
            candidates,
        };
        let deadline_at = step.now.saturating_add(step.config.escalation_timeout_ms);
        if let Err(reason) = self.put_question(step, asker, prompt, Some(schema), deadline_at) {
            // The engine's own schema always compiles; if it ever did not,
            // refusing the call is the safe answer.
            self.custody.charge_call();
            if let Some(call) = self.turns.pop_call() {
                self.refuse(
                    step,
                    Actor::Engine,
                    call,
                    Refusal::Declined { message: reason },
                );
            }
            self.advance(step);
        }
    }

    fn put_question(
        &mut self,
        step: &mut Step<'_>,
        asker: Asker,
        prompt: String,
        schema: Option<Value>,
        deadline_at: u64,
    ) -> Result<(), String> {
        let id = step.questions.mint_id(step.config.session.as_str());
        let question = Question::new(
            id.clone(),
            self.id.clone(),
            asker,
            prompt,
            schema,
            step.now,
            deadline_at,
        )
        .map_err(|error| format!("the question's schema was refused: {error}"))?;
        self.record(
            step,
            Actor::ActingParty,
            JournalEntry::QuestionAsked {
                question: id.clone(),
                digest: question.digest,
            },
        );
        step.questions.by_id.insert(id.clone(), question.clone());
        step.events.push_back(Event::Question(question));
        self.asking.wait_on(OpenQuestion {
            id: id.clone(),
            deadline_at,
        });
        if self.custody.state().name() == StateName::Acting {
            self.escalate(step, EscalationReason::AwaitingAnswer { question: id });
            self.custody.escalation_until(deadline_at);
        }
        Ok(())
    }

    /// The person answered, declined or dismissed the open question: the
    /// closure is recorded, the question's state set in the same step, and
    /// the run goes on. Returns the revision of the closing record.
    pub(crate) fn resume_after_question(
        &mut self,
        step: &mut Step<'_>,
        outcome: AnswerOutcome,
        state: QuestionState,
    ) -> u64 {
        let Some(open) = self.asking.close_open() else {
            return self.custody.revision();
        };
        let closure = match (&outcome, &state) {
            (_, QuestionState::Answered { answer_digest, .. }) => QuestionClosure::Answered {
                answer_digest: *answer_digest,
            },
            (AnswerOutcome::Dismissed, _) => QuestionClosure::Dismissed,
            _ => QuestionClosure::Declined,
        };
        self.record(
            step,
            Actor::Person,
            JournalEntry::QuestionClosed {
                question: open.id.clone(),
                outcome: closure,
            },
        );
        let revision = self.custody.revision();
        let asker = step.questions.by_id.get_mut(&open.id).map(|question| {
            let state = match state {
                QuestionState::Answered {
                    answer,
                    answer_digest,
                    at,
                    ..
                } => QuestionState::Answered {
                    answer,
                    answer_digest,
                    at,
                    revision,
                },
                other => other,
            };
            question.set_state(state);
            // The person's decision about the acting party's own call is
            // recorded as the text a transport signs.
            let record = question.decision_record(&outcome, step.now);
            (question.asker.clone(), record)
        });
        match asker {
            Some((Asker::ActingParty { request, .. }, record)) => {
                self.asking.report(AnswerReport {
                    request,
                    outcome,
                    record,
                })
            }
            Some((Asker::Engine { call, .. }, _)) => {
                self.apply_instance_choice(step, &call, outcome)
            }
            None => {}
        }
        self.continue_after_question(step, Actor::Person);
        revision
    }

    fn apply_instance_choice(
        &mut self,
        step: &mut Step<'_>,
        call: &CallId,
        outcome: AnswerOutcome,
    ) {
        let chosen = match &outcome {
            AnswerOutcome::Answered { answer } => answer
                .get("participant")
                .and_then(Value::as_str)
                .map(ParticipantId::new),
            _ => None,
        };
        match chosen {
            Some(participant) => {
                self.approval.choose(call.clone(), participant);
            }
            None => {
                if self
                    .turns
                    .queue()
                    .front()
                    .is_some_and(|front| front.call == *call)
                {
                    self.custody.charge_call();
                    if let Some(call) = self.turns.pop_call() {
                        let message = "the person did not say which instance to act on".to_owned();
                        self.refuse(step, Actor::Person, call, Refusal::Declined { message });
                    }
                }
            }
        }
    }

    /// After a question: an acting run goes back to its calls (or its next
    /// turn); a planning run opens its next planning turn.
    fn continue_after_question(&mut self, step: &mut Step<'_>, actor: Actor) {
        match self.custody.state().name() {
            StateName::Escalated => {
                self.clear_escalation();
                self.transition(step, actor, RunState::Acting);
                self.advance(step);
            }
            StateName::Acting => self.advance(step),
            // Every question of the planning turn is put before the next turn.
            StateName::Offered if self.asking.has_pending() => self.ask_pending(step),
            StateName::Offered if self.custody.usage().turns >= self.custody.budget().max_turns => {
                self.end(
                    step,
                    Actor::Engine,
                    ReturnReason::BudgetExhausted {
                        limit: BudgetLimit::Turns,
                    },
                );
            }
            StateName::Offered => self.reserve_turn(step),
            _ => {}
        }
    }

    /// Closes the run's open question because the run ended (or it expired).
    pub(super) fn close_question(&mut self, step: &mut Step<'_>, id: &QuestionId, expired: bool) {
        let (state, closure) = if expired {
            (
                QuestionState::Expired { at: step.now },
                QuestionClosure::Expired,
            )
        } else {
            (
                QuestionState::Withdrawn { at: step.now },
                QuestionClosure::Withdrawn,
            )
        };
        if let Some(question) = step.questions.by_id.get_mut(id) {
            if question.state.is_open() {
                question.set_state(state);
            }
        }
        self.record(
            step,
            Actor::Engine,
            JournalEntry::QuestionClosed {
                question: id.clone(),
                outcome: closure,
            },
        );
    }
}
