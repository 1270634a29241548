//! Turns: reserving one (charged before it is sent), the acting party's
//! traffic inside it, and what its end starts.
//!
//! How a run puts questions to the person and resumes on the answer.

use super::*;
use crate::attention::{select_deep_reads, ReadCandidate, DEEP_READ_BYTES};
use crate::event::Event;
use crate::ids::{CallId, ParticipantId, QuestionId};
use crate::journal::{Actor, JournalEntry, QuestionClosure, Refusal};
use crate::protocol::DeepRead;
use crate::questions::{AnswerOutcome, AnswerReport, Asker, Question, QuestionState};
use crate::run::{AskedQuestion, OpenQuestion, ProposedCall, Run, Step};
use crate::state::{BudgetLimit, EscalationReason, ReturnReason, RunState, StateName};
use crate::violation::ProtocolViolation;
use serde_json::{json, Value};

impl Run {
    /// Picks the deep reads to send with the open turn `turn` — attention
    /// order, then [`crate::DEEP_READ_BYTES`] — and journals the choice
    /// (`reads-pulled`). `None` when that turn is no longer open.
    pub(crate) fn pull_reads(
        &mut self,
        step: &mut Step<'_>,
        turn: TurnId,
        candidates: Vec<ReadCandidate>,
    ) -> Option<Vec<DeepRead>> {
        if self.open_turn() != Some(turn) {
            return None;
        }
        let (reads, account) = select_deep_reads(candidates, DEEP_READ_BYTES);
        let entry = JournalEntry::ReadsPulled {
            turn,
            reads: account,
        };
        self.record(step, Actor::Engine, entry);
        Some(reads)
    }

    // ----- turns -----------------------------------------------------------------

    pub(super) fn reserve_turn(&mut self, step: &mut Step<'_>) {
        let id = TurnId(self.custody.charge_turn());
        let deadline_at = step
            .now
            .saturating_add(self.custody.budget().turn_deadline_ms);
        let context = Context {
            reads: step.reads.values().cloned().collect(),
        };
        let turn = OpenTurn {
            id,
            deadline_at,
            context: context.clone(),
            questions: Vec::new(),
            proposals: Vec::new(),
        };
        self.turns.open(turn, step.reads.clone());
        self.record(
            step,
            Actor::Engine,
            JournalEntry::TurnReserved {
                turn: id,
                deadline_at,
                context: context.clone(),
                clamped: self.untrusted_context(),
            },
        );
        let request = TurnRequest {
            protocol: crate::protocol::PROTOCOL_VERSION.into(),
            session: step.config.session.clone(),
            run: self.id.clone(),
            turn: id,
            intent: self.intent.clone(),
            thread: self.thread.clone(),
            tools: step.registry.tools(),
            index: crate::protocol::index(step.registry, &context),
            context,
            reads: Vec::new(),
            results: self.turns.take_reports(),
            answers: self.asking.take_reports(),
            state: step.agent_state.clone(),
            trace: None,
        };
        Self::emit(
            step,
            Effect::OpenTurn {
                run: self.id.clone(),
                turn: id,
                deadline_at,
                request: Box::new(request),
            },
        );
    }

    /// The terminal cause an input would produce, used to weigh it against
    /// timer causes that are due at the same moment.
    pub(crate) fn input_cause(&self, input: &TurnInput) -> Option<ReturnReason> {
        let turn = self.turns.turn()?;
        match input {
            TurnInput::Malformed(violation) => Some(ReturnReason::IntegrityViolation {
                code: violation.code,
                finding: violation.detail.clone(),
            }),
            TurnInput::Call(call) if self.is_duplicate(turn, &call.call) => {
                Some(ReturnReason::IntegrityViolation {
                    code: ProtocolViolation::DuplicateCall,
                    finding: format!("duplicate call id {}", call.call),
                })
            }
            TurnInput::Question(_) if turn.questions.len() >= MAX_QUESTIONS_PER_TURN => {
                Some(ReturnReason::IntegrityViolation {
                    code: ProtocolViolation::TooManyQuestions,
                    finding: format!("more than {MAX_QUESTIONS_PER_TURN} questions in one turn"),
                })
            }
            TurnInput::Question(asked)
                if self.asked_requests().any(|r| r == asked.request)
                    || turn.questions.iter().any(|q| q.request == asked.request) =>
            {
                Some(ReturnReason::IntegrityViolation {
                    code: ProtocolViolation::DuplicateQuestion,
                    finding: format!("duplicate question id {}", asked.request),
                })
            }
            TurnInput::End if turn.proposals.is_empty() && turn.questions.is_empty() => {
                Some(ReturnReason::Finished)
            }
            TurnInput::Failed(message) => Some(ReturnReason::TurnFailed {
                message: message.clone(),
            }),
            TurnInput::Lost(message) => Some(ReturnReason::TransportLost {
                message: message.clone(),
            }),
            TurnInput::AgentError { status, message } => Some(ReturnReason::AgentError {
                status: *status,
                message: message.clone(),
            }),
            TurnInput::OverLimit { lane, limit } => Some(ReturnReason::TurnOverLimit {
                lane: *lane,
                limit: *limit,
            }),
            _ => None,
        }
    }

    pub(super) fn is_duplicate(&self, turn: &OpenTurn, call: &CallId) -> bool {
        self.turns.has_seen_call(call) || turn.proposals.iter().any(|p| &p.call == call)
    }

    pub(crate) fn accepts_turn(&self, turn: TurnId) -> bool {
        !self.custody.is_terminal() && self.turns.turn().is_some_and(|open| open.id == turn)
    }

    /// Applies traffic addressed to the open turn. The caller has checked that
    /// the turn is open.
    pub(crate) fn turn_input(&mut self, step: &mut Step<'_>, input: TurnInput) {
        if let Some(ReturnReason::IntegrityViolation { code, finding }) = self.input_cause(&input) {
            let turn = self.open_turn();
            Self::finding(
                step,
                Some(self.id.clone()),
                turn,
                FindingReason::Integrity {
                    code,
                    detail: finding.clone(),
                },
            );
            self.end(
                step,
                Actor::ActingParty,
                ReturnReason::IntegrityViolation { code, finding },
            );
            return;
        }
        match input {
            TurnInput::Call(call) => self.turns.propose(call),
            TurnInput::Question(asked) => self.turns.ask(asked),
            // The acting party's own words and acts: recorded as its own,
            // and nothing else — they change nothing the run may do.
            TurnInput::Said { message, text } => {
                if let Some(turn) = self.open_turn() {
                    let entry = JournalEntry::Said {
                        turn,
                        message,
                        text,
                    };
                    self.record(step, Actor::ActingParty, entry);
                }
            }
            TurnInput::AgentAct {
                call,
                tool,
                arguments,
                result,
            } => {
                if let Some(turn) = self.open_turn() {
                    let entry = JournalEntry::AgentActed {
                        turn,
                        call,
                        tool,
                        arguments,
                        result,
                    };
                    self.record(step, Actor::ActingParty, entry);
                }
            }
            TurnInput::Failed(message) => {
                self.end(
                    step,
                    Actor::ActingParty,
                    ReturnReason::TurnFailed { message },
                );
            }
            TurnInput::Lost(message) => {
                self.end(
                    step,
                    Actor::ActingParty,
                    ReturnReason::TransportLost { message },
                );
            }
            TurnInput::AgentError { status, message } => {
                self.end(
                    step,
                    Actor::ActingParty,
                    ReturnReason::AgentError { status, message },
                );
            }
            TurnInput::Malformed(_) => {}
            TurnInput::OverLimit { lane, limit } => {
                self.end(
                    step,
                    Actor::Engine,
                    ReturnReason::TurnOverLimit { lane, limit },
                );
            }
            TurnInput::End => self.end_turn(step),
        }
    }

    pub(super) fn end_turn(&mut self, step: &mut Step<'_>) {
        let Some(turn) = self.turns.end_turn() else {
            return;
        };
        self.record(
            step,
            Actor::ActingParty,
            JournalEntry::TurnEnded {
                turn: turn.id,
                proposed: u32::try_from(turn.proposals.len()).unwrap_or(u32::MAX),
            },
        );
        self.asking.queue(turn.questions);
        match self.custody.state().name() {
            StateName::Offered if turn.proposals.is_empty() && self.asking.has_pending() => {
                // A planning question: ask now; the run stays offered.
                self.ask_pending(step);
            }
            StateName::Offered => {
                if turn.proposals.is_empty() {
                    self.cancel(step, Actor::ActingParty, CancelReason::NoPlan);
                } else {
                    self.accept_plan(step, Actor::ActingParty, turn.proposals);
                }
            }
            _ => {
                if turn.proposals.is_empty() && !self.asking.has_pending() {
                    self.end(step, Actor::ActingParty, ReturnReason::Finished);
                } else {
                    if !turn.proposals.is_empty() {
                        self.announce_batch(step, &turn.proposals);
                    }
                    self.turns.enqueue(turn.proposals);
                    self.advance(step);
                }
            }
        }
    }

    pub(super) fn set_budget(&mut self, budget: Budget) {
        self.custody.set_budget(budget, self.created_at);
    }

    pub(super) fn request_mark(&mut self, step: &mut Step<'_>, participant: ParticipantId) {
        if !self.mutation.request_mark(&participant) {
            return;
        }
        self.record(
            step,
            Actor::Engine,
            JournalEntry::MarkRequested {
                participant: participant.clone(),
            },
        );
        Self::emit(
            step,
            Effect::Mark {
                run: self.id.clone(),
                participant,
            },
        );
    }
}

// ----- questions to the person --------------------------------------------------

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
        // An approval without a schema of its own takes AG-UI's answer.
        let schema = match (&approval, schema) {
            (Some(_), None) => Some(crate::questions::approval_schema()),
            (_, schema) => schema,
        };
        let asker = Asker::ActingParty {
            request: request.clone(),
            approval,
        };
        match self.put_question(step, asker, prompt, schema, deadline_ms, expires_at) {
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
        if let Err(reason) = self.put_question(step, asker, prompt, Some(schema), None, None) {
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
        deadline_ms: Option<u64>,
        expires_at: Option<u64>,
    ) -> Result<(), String> {
        let wait = deadline_ms.unwrap_or(step.config.escalation_timeout_ms);
        let deadline_at = (step.now.saturating_add(wait)).min(expires_at.unwrap_or(u64::MAX));
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
            deadline_ms,
            expires_at,
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
