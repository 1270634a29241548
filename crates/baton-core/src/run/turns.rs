//! Turns: reserving one (charged before it is sent), the acting party's
//! traffic inside it, and what its end starts.

use crate::attention::{select_deep_reads, ReadCandidate, DEEP_READ_BYTES};
use crate::protocol::DeepRead;
use crate::violation::ProtocolViolation;

use super::*;

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
