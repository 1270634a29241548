//! Inputs through one door, [`Engine::handle`]: the acting party's traffic,
//! the participants' reports (marks, previews, call results, reverts) and
//! time; and actor references (AG-32, AG-33).

use super::commands::{sealed::Sealed, Input};
use super::*;
use crate::host_failure::HostFailure;
use crate::report::Report;

/// What happens to the engine that is nobody's decision: the acting party's
/// traffic, a host's answer to an effect, and time. Told through
/// [`Engine::handle`], as the commands are.
#[derive(Debug, Clone, PartialEq)]
pub enum Signal {
    /// Traffic from the acting party in `turn` of `run`. Never refused:
    /// traffic that does not belong to an open turn is recorded as a
    /// finding and changes nothing — arrival never starts or revives a run.
    Inbound {
        /// The run.
        run: RunId,
        /// The turn the traffic belongs to.
        turn: TurnId,
        /// What was sent.
        inbound: Inbound,
    },
    /// Traffic that arrived for `turn` of `run` after the turn ended: a
    /// finding ([`FindingReason::AfterTurnEnded`]), nothing else.
    AfterTurn {
        /// The run.
        run: RunId,
        /// The turn that had ended.
        turn: TurnId,
    },
    /// Time passed: every deadline passed by `now` applies — deadman turns,
    /// run deadlines, escalation timeouts, rollbacks that ran out of time.
    Timeout,
}

impl Signal {
    /// [`Signal::Inbound`]: `inbound` from the acting party in `turn` of `run`.
    pub fn inbound(run: &RunId, turn: TurnId, inbound: Inbound) -> Signal {
        Signal::Inbound {
            run: run.clone(),
            turn,
            inbound,
        }
    }
}

impl Sealed for Signal {}
impl Input for Signal {
    /// Never refused: traffic that does not belong to an open turn is a
    /// finding, and time only applies deadlines.
    type Answer = ();
    fn apply(self, engine: &mut Engine, now: u64) -> Self::Answer {
        engine.take(now, self)
    }
}

impl Sealed for Report {}
impl Input for Report {
    /// The refusal of a report that cannot be: recorded as a finding
    /// ([`FindingReason::ReportRefused`]) too, and nothing changes.
    type Answer = Result<(), ReportError>;
    fn apply(self, engine: &mut Engine, now: u64) -> Self::Answer {
        engine.report(now, self)
    }
}

impl Engine {
    // ----- inputs ----------------------------------------------------------

    /// The one door: the engine is told `input` at `now` — a command of the
    /// app or the person ([`Delegate`], [`Authorize`], …), a [`Signal`] or a
    /// [`Report`] — and answers what that input answers ([`Input::Answer`]).
    pub fn handle<I: Input>(&mut self, now: u64, input: I) -> I::Answer {
        input.apply(self, now)
    }

    /// A [`Signal`]. (Out of line: a host that tells signals from two
    /// places would otherwise carry this `match` twice.)
    #[inline(never)]
    fn take(&mut self, now: u64, input: Signal) {
        match input {
            Signal::Inbound { run, turn, inbound } => self.inbound(now, &run, turn, inbound),
            Signal::AfterTurn { run, turn } => self.after_turn(now, &run, turn),
            Signal::Timeout => self.timeout(now),
        }
    }

    /// [`Signal::Inbound`]. (Kept out of line, as are reports: inlined into
    /// one `match`, the shipped module was 65 bytes larger compressed.)
    #[inline(never)]
    fn inbound(&mut self, now: u64, id: &RunId, turn: TurnId, inbound: Inbound) {
        let Some(run) = self.runs.get(id) else {
            let mut step = self.step(now);
            Run::finding(
                &mut step,
                Some(id.clone()),
                Some(turn),
                FindingReason::UnknownRun,
            );
            return;
        };
        let input = match inbound {
            Inbound::ToolCall {
                call,
                capability,
                arguments,
                via,
            } => TurnInput::Call(ProposedCall {
                call,
                capability,
                arguments,
                via,
            }),
            Inbound::Question {
                request,
                prompt,
                schema,
                deadline_ms,
                expires_at,
                approval,
            } => TurnInput::Question(AskedQuestion {
                request,
                prompt,
                schema,
                deadline_ms,
                expires_at,
                approval,
            }),
            Inbound::AgentAct {
                call,
                tool,
                arguments,
                result,
            } => TurnInput::AgentAct {
                call,
                tool,
                arguments,
                result,
            },
            Inbound::Said { message, text } => TurnInput::Said { message, text },
            Inbound::TurnEnd => TurnInput::End,
            Inbound::TurnFailed { message } => TurnInput::Failed(message),
            Inbound::TransportLost { message } => TurnInput::Lost(message),
            Inbound::AgentError { status, message } => TurnInput::AgentError { status, message },
            Inbound::Malformed { code, detail } => {
                TurnInput::Malformed(crate::violation::Violation::new(code, detail))
            }
            Inbound::OverLimit { lane, limit } => TurnInput::OverLimit { lane, limit },
        };
        let input_rank = run
            .accepts_turn(turn)
            .then(|| run.input_cause(&input))
            .flatten()
            .map(|cause| cause.precedence());
        let due_rank = run.due_cause(now).map(|cause| cause.precedence());
        self.with_run(now, id, |run, step| {
            if due_rank.is_some_and(|due| input_rank.is_none_or(|input| due <= input)) {
                run.settle(step);
            }
            if run.accepts_turn(turn) {
                run.turn_input(step, input);
            } else {
                Run::finding(
                    step,
                    Some(run.id().clone()),
                    Some(turn),
                    FindingReason::OutsideOpenTurn,
                );
            }
        });
    }

    /// Traffic that arrived on a turn's stream after the turn had ended —
    /// events after its end, a second end. It is recorded as a finding and
    /// changes nothing: a run is never acted on by what follows its turn.
    /// A host reports it once per turn, however much follows.
    fn after_turn(&mut self, now: u64, id: &RunId, turn: TurnId) {
        let mut step = self.step(now);
        Run::finding(
            &mut step,
            Some(id.clone()),
            Some(turn),
            FindingReason::AfterTurnEnded,
        );
    }

    /// [`Signal::Report`]: a report the engine refuses changes nothing; it
    /// is returned, and recorded as a finding
    /// ([`FindingReason::ReportRefused`]) so that a host that does not look
    /// at the result loses nothing either.
    #[inline(never)]
    fn report(&mut self, now: u64, report: Report) -> Result<(), ReportError> {
        let (run, judged) = match report {
            Report::Mark {
                run,
                participant,
                token,
            } => {
                let judged = self.judge_mark(now, &run, &participant, token);
                (run, judged)
            }
            Report::Preview { run, call, change } => {
                let judged = self.judge_preview(now, &run, &call, change);
                (run, judged)
            }
            Report::Call { run, call, result } => {
                let judged = self.judge_call(now, &run, &call, result);
                (run, judged)
            }
            Report::UnreadableResult { run, call, detail } => {
                let judged = self.judge_unreadable(now, &run, &call, detail);
                (run, judged)
            }
            Report::Revert {
                run,
                participant,
                result,
            } => {
                let judged = self.judge_revert(now, &run, &participant, result);
                (run, judged)
            }
        };
        if let Err(refused) = &judged {
            let reason = FindingReason::ReportRefused {
                code: refused.refusal(),
                detail: refused.to_string(),
            };
            let mut step = self.step(now);
            Run::finding(&mut step, Some(run), None, reason);
        }
        judged
    }

    /// A participant's answer to [`crate::Effect::Mark`]
    /// ([`Report::Mark`], without its refusal recorded).
    fn judge_mark(
        &mut self,
        now: u64,
        id: &RunId,
        participant: &ParticipantId,
        result: Result<MarkToken, HostFailure>,
    ) -> Result<(), ReportError> {
        let failed = result.is_err();
        self.host_report(now, id, failed, |run, step| {
            if !run.is_awaiting_mark(participant) {
                return Err(ReportError::NotWaitingFor {
                    run: run.id().clone(),
                    participant: participant.clone(),
                });
            }
            run.mark_result(step, participant.clone(), result.map_err(|f| f.message));
            Ok(())
        })
    }

    /// A participant's answer to [`crate::Effect::Preview`]: its rendering
    /// of the change, or why it could not render one ([`Report::Preview`],
    /// without its refusal recorded).
    fn judge_preview(
        &mut self,
        now: u64,
        id: &RunId,
        call: &CallId,
        result: Result<Value, HostFailure>,
    ) -> Result<(), ReportError> {
        self.host_report(now, id, false, |run, step| {
            if !run.is_awaiting_preview(call) {
                return Err(ReportError::NoSuchCall {
                    run: run.id().clone(),
                    call: call.clone(),
                });
            }
            run.preview_result(step, call.clone(), result.map_err(|f| f.message));
            Ok(())
        })
    }

    /// The host gathered the candidate deep reads of a turn it is opening
    /// (A.1): every read of the turn's context, with its participant's
    /// place in the person's attention and its content. The engine chooses
    /// — attention order, then [`crate::DEEP_READ_BYTES`] — and journals the
    /// choice (`reads-pulled`), so the person can see what the acting party
    /// saw and why. Returns the reads to send, or `None` when the turn is no
    /// longer open (stopped while the reads were gathered): nothing is sent.
    pub(crate) fn pull_reads(
        &mut self,
        now: u64,
        id: &RunId,
        turn: TurnId,
        candidates: Vec<ReadCandidate>,
    ) -> Option<Vec<DeepRead>> {
        self.with_run(now, id, |run, step| run.pull_reads(step, turn, candidates))
            .flatten()
    }

    /// A participant's answer to [`crate::Effect::Invoke`].
    fn judge_call(
        &mut self,
        now: u64,
        id: &RunId,
        call: &CallId,
        result: CallResult,
    ) -> Result<(), ReportError> {
        let failed = matches!(result, CallResult::Failed { .. });
        let applied = matches!(result, CallResult::Applied { .. });
        let refused = matches!(result, CallResult::Refused { .. });
        // A state-changing call that was not refused may have changed its
        // participant, whose state is committed as the call returns.
        let mut settles = None;
        let mut changed = None;
        let reported = self.host_report(now, id, failed, |run, step| {
            let Some(in_flight) = run.call_in_flight().filter(|c| &c.call == call) else {
                return Err(ReportError::NoSuchCall {
                    run: run.id().clone(),
                    call: call.clone(),
                });
            };
            // A query changed nothing: it is no one's change.
            let queried = matches!(
                step.registry.resolve(&in_flight.capability),
                crate::registry::Address::Unique(_, decl) if decl.is_read_only()
            );
            changed = (applied && !queried).then(|| in_flight.capability.participant.clone());
            settles = (!queried && !refused).then(|| in_flight.clone());
            run.call_result(step, result);
            Ok(())
        });
        // An applied call is the run's change to the participant (A.2).
        if let (Ok(()), Some(participant)) = (&reported, changed) {
            self.changes
                .record(&participant, ChangedBy::Run { run: id.clone() });
        }
        if let (Ok(()), Some(call)) = (&reported, settles) {
            let participant = call.capability.participant.clone();
            self.settling.returned(&participant, id, &call, now);
        }
        self.forget_settled_calls();
        reported
    }

    /// A call ran, but what its participant returned cannot be read as JSON
    /// (a cycle, a `BigInt`, a function): the change happened, so the call
    /// counts as applied, with a `null` result — and a finding
    /// ([`FindingReason::UnreadableResult`]) says what was lost.
    fn judge_unreadable(
        &mut self,
        now: u64,
        id: &RunId,
        call: &CallId,
        detail: String,
    ) -> Result<(), ReportError> {
        let reported = self.judge_call(now, id, call, CallResult::Applied { value: Value::Null });
        if reported.is_ok() {
            let reason = FindingReason::UnreadableResult {
                call: call.clone(),
                detail,
            };
            self.with_run(now, id, |_, step| {
                Run::finding(step, Some(id.clone()), None, reason)
            });
        }
        reported
    }

    /// A participant's answer to [`crate::Effect::Revert`]: `Err` carries
    /// why the revert failed, which is reported, never hidden
    /// ([`Report::Revert`], without its refusal recorded).
    fn judge_revert(
        &mut self,
        now: u64,
        id: &RunId,
        participant: &ParticipantId,
        result: Result<(), HostFailure>,
    ) -> Result<(), ReportError> {
        let undoing = self
            .runs
            .get(id)
            .is_some_and(|run| run.is_undoing(participant));
        // A revert that happened is a change: the person's when it undoes a
        // run (the undo is theirs), the run's own when it rolls back (AG-8).
        let reverted = result.is_ok();
        if undoing {
            self.with_run(now, id, |run, step| {
                run.undo_revert_result(step, participant.clone(), result.err().map(|f| f.message));
            });
            if reverted {
                self.changes.record(participant, ChangedBy::Person);
            }
            return Ok(());
        }
        let reported = self.host_report(now, id, false, |run, step| {
            if !run.is_awaiting_revert(participant) {
                return Err(ReportError::NotWaitingFor {
                    run: run.id().clone(),
                    participant: participant.clone(),
                });
            }
            run.revert_result(step, participant.clone(), result.err().map(|f| f.message));
            Ok(())
        });
        if reported.is_ok() && reverted {
            self.changes
                .record(participant, ChangedBy::Run { run: id.clone() });
        }
        reported
    }

    /// Admits a mutation (AG-1). No actor reference means the person, who may
    /// always act (AG-32). A reference is admitted only if this engine minted
    /// it (AG-33) and it names the call in flight of an active run.
    pub(crate) fn admit_mutation(
        &self,
        actor: Option<&ActorRef>,
    ) -> Result<Attribution, MutationRefused> {
        let Some(actor) = actor else {
            return Ok(Attribution::Person);
        };
        let refused = || MutationRefused::OutsideRun {
            actor: actor.to_string(),
        };
        let identity = self.resolve_actor(actor).ok_or_else(refused)?;
        let in_flight = self
            .runs
            .get(&identity.run)
            .filter(|run| !run.state().is_terminal())
            .and_then(Run::call_in_flight)
            .is_some_and(|call| call.call == identity.call);
        if in_flight {
            Ok(Attribution::Delegated(identity))
        } else {
            Err(refused())
        }
    }

    /// What a reference names, if this engine minted it; a forged, altered
    /// or foreign reference resolves to nothing (AG-33).
    pub(crate) fn resolve_actor(&self, actor: &ActorRef) -> Option<ActorIdentity> {
        crate::actor::verify(&self.shared.secret, actor)
            .filter(|identity| identity.session == self.shared.config.session)
    }
}
