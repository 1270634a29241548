//! How a run moves from a plan to dispatched calls: authorization, the
//! per-call checks of `acting`, and the escalations they raise.
//!
//! Before a call is dispatched it passes, in order: the call budget (AG-7),
//! declaration (AG-21), the allowlist (AG-7), its arguments (AG-15, AG-16),
//! the freshness of the reads it acts on (AG-20), its resolved autonomy
//! (AG-24 … AG-28) and the authorization's fingerprint and lifetime (AG-29).
//! Correctable failures are refused back to the acting party and charged;
//! everything that needs the person escalates.
//!
//! The host's reports: marks, call results, reverts, and the escalation
//! and cancellation they may lead to.

use super::*;
use crate::autonomy::{resolve, AutonomyInputs, Verdict};
use crate::context::{ReadRef, ReadStamp};
use crate::event::Effect;
use crate::ids::{CapabilityRef, ParticipantId};
use crate::journal::{Actor, CallResult, JournalEntry, Refusal};
use crate::manifest::CapabilityDecl;
use crate::model::Autonomy;
use crate::registry::{Address, Registry};
use crate::run::{MarkState, PlanSource, ProposedCall, Run, Step};
use crate::state::{BudgetLimit, EscalationReason, ReturnReason, RunState};
use std::collections::BTreeMap;

/// What stands between a queued call and its dispatch.
enum Gate<'r> {
    /// Refused back to the acting party and charged; the loop goes on.
    Refused(Refusal),
    /// The run waits on the person (an escalation, a question) or its
    /// authorization lapsed.
    Held,
    /// The call may go to this participant, at the autonomy it resolved to
    /// (journalled with it).
    Open(CapabilityRef, &'r CapabilityDecl, Autonomy),
}

impl Run {
    /// Whether anything the acting party saw came from outside the author (AG-28).
    pub(super) fn untrusted_context(&self) -> bool {
        self.turns
            .seen()
            .values()
            .any(|stamp| stamp.origin != crate::context::Origin::Author)
    }

    /// The person's standing choice for a capability: a live "always allow"
    /// grant raises it to `auto` (still under every other rule), a "never
    /// allow" grant denies it (AG-30).
    pub(super) fn resolve_call(
        &self,
        step: &Step<'_>,
        address: &CapabilityRef,
        decl: &CapabilityDecl,
    ) -> Verdict {
        let grant = step.grants.decision(step.now, step.registry, address);
        let person = match grant {
            Some(crate::grants::Decision::Allow) => Autonomy::Auto,
            _ => self.requested,
        };
        resolve(AutonomyInputs {
            ceiling: step.config.ceiling,
            person,
            capability: decl.max_autonomy(),
            initiative: self.initiative,
            irreversible: decl.is_irreversible(),
            untrusted_context: self.untrusted_context(),
            denied: grant == Some(crate::grants::Decision::Deny),
        })
    }

    /// The run-level resolution: what the context alone allows.
    pub(super) fn context_level(&self, step: &Step<'_>) -> Autonomy {
        self.level_for(step, self.untrusted_context())
    }

    pub(super) fn level_for(&self, step: &Step<'_>, untrusted_context: bool) -> Autonomy {
        resolve(AutonomyInputs {
            ceiling: step.config.ceiling,
            person: self.requested,
            capability: None,
            initiative: self.initiative,
            irreversible: false,
            untrusted_context,
            denied: false,
        })
        .level()
    }

    pub(super) fn escalate(&mut self, step: &mut Step<'_>, reason: EscalationReason) {
        self.custody.escalate(crate::run::Escalation {
            reason: reason.clone(),
            deadline_at: step.now.saturating_add(step.config.escalation_timeout_ms),
        });
        let reviewed = reason.awaits_approval_of_a_call();
        self.transition(step, Actor::Engine, RunState::Escalated { reason });
        if reviewed {
            self.review_escalated_call(step);
        }
    }

    /// The dispatch loop of `acting`: one call at a time; a new turn when the
    /// queue is empty. Each queued call passes the gates in the order the
    /// module documents; a correctable refusal lets the loop go on.
    pub(super) fn advance(&mut self, step: &mut Step<'_>) {
        loop {
            if self.waits() {
                return;
            }
            let Some(call) = self.turns.queue().front().cloned() else {
                self.drained(step);
                return;
            };
            if self.custody.usage().calls >= self.custody.budget().max_calls {
                let limit = BudgetLimit::Calls;
                self.escalate(step, EscalationReason::BudgetExhausted { limit });
                return;
            }
            let registry = step.registry;
            match self.gate(step, registry, &call) {
                Gate::Refused(refusal) => self.charge_and_refuse(step, Actor::Engine, refusal),
                Gate::Held => return,
                Gate::Open(target, decl, autonomy) => {
                    if self.needs_mark(step, &target.participant) {
                        self.request_mark(step, target.participant.clone());
                    } else {
                        self.dispatch(step, call, target, decl, autonomy);
                    }
                    return;
                }
            }
        }
    }

    /// Nothing is dispatched while the run is not acting, is rolling back,
    /// re-renders previews, has a call in flight or a turn open, or waits
    /// for a mark.
    fn waits(&self) -> bool {
        *self.custody.state() != RunState::Acting
            || self.mutation.rollback().is_some()
            || self.approval.recheck().is_some()
            || self.mutation.in_flight().is_some()
            || self.turns.turn().is_some()
            || self.mutation.awaits_mark()
    }

    /// The queue is empty: put the turn's questions, end a fixed plan, or
    /// reserve the next turn within the budget.
    fn drained(&mut self, step: &mut Step<'_>) {
        if self.asking.has_pending() {
            self.ask_pending(step);
            return;
        }
        match self.source {
            PlanSource::Fixed => self.end(step, Actor::Engine, ReturnReason::PlanCompleted),
            PlanSource::ActingParty
                if self.custody.usage().turns >= self.custody.budget().max_turns =>
            {
                let limit = BudgetLimit::Turns;
                self.escalate(step, EscalationReason::BudgetExhausted { limit });
            }
            PlanSource::ActingParty => self.reserve_turn(step),
        }
    }

    /// Where a call goes: the instance the person chose (AG-23), or what
    /// its address resolves to.
    fn address<'r>(&self, registry: &'r Registry, call: &ProposedCall) -> Address<'r> {
        let Some(choice) = self.approval.choice(&call.call) else {
            return registry.resolve(&call.capability);
        };
        let chosen = CapabilityRef {
            participant: choice.clone(),
            capability: call.capability.capability.clone(),
        };
        match registry.capability(&chosen) {
            Some(decl) => Address::Unique(chosen, decl),
            None => Address::Unknown,
        }
    }

    /// The gates a queued call passes before dispatch: declaration (AG-21,
    /// AG-13), the allowlist (AG-7), arguments (AG-15, AG-16), fresh reads
    /// (AG-20), autonomy (AG-24 … AG-28) and the authorization (AG-29).
    fn gate<'r>(
        &mut self,
        step: &mut Step<'_>,
        registry: &'r Registry,
        call: &ProposedCall,
    ) -> Gate<'r> {
        let (target, decl) = match self.address(registry, call) {
            // AG-21: correctable, charged, and the run goes on.
            Address::Unknown => return Gate::Refused(Refusal::UndeclaredCapability),
            // AG-13: the only place a refused registration shows.
            Address::Refused(problems) => {
                let problems = problems.to_vec();
                return Gate::Refused(Refusal::RegistrationRefused { problems });
            }
            Address::Ambiguous(_) if !self.approval.allowlist().contains(&call.capability) => {
                let capability = call.capability.clone();
                self.escalate(step, EscalationReason::OutOfScope { capability });
                return Gate::Held;
            }
            Address::Ambiguous(candidates) => {
                self.ask_which_instance(step, call, candidates);
                return Gate::Held;
            }
            Address::Unique(target, decl) => (target, decl),
        };
        if !self.approval.allowlist().contains(&call.capability) {
            let capability = call.capability.clone();
            self.escalate(step, EscalationReason::OutOfScope { capability });
            return Gate::Held;
        }
        if let Err(errors) = decl.check_arguments(&call.arguments) {
            return Gate::Refused(Refusal::InvalidArguments { errors });
        }
        if let Some(refusal) = self.stale_read(step, &target, decl) {
            return Gate::Refused(refusal);
        }
        // Resolved once, for the gate and for the journal. (A grant covers
        // every instance of its participant: the address the call named
        // and the instance it reaches resolve alike.)
        // Deny overrides (AG-24): even a call the person approved, by a
        // grant given or a ceiling lowered since.
        let level = match self.resolve_call(step, &target, decl) {
            Verdict::Denied => return Gate::Refused(Refusal::Denied),
            Verdict::Allowed(level) => level,
        };
        let covered = self.approval.is_approved(&call.call)
            || !decl.is_irreversible()
                && (level == Autonomy::Auto
                    || (level == Autonomy::Review && self.approval.by_person()));
        if !covered {
            // AG-25 (irreversible), AG-28 (untrusted), suggest: one by one.
            let reason = EscalationReason::ReviewRequired {
                call: call.call.clone(),
                capability: call.capability.clone(),
            };
            self.escalate(step, reason);
            return Gate::Held;
        }
        if !self.authorization_holds(step) {
            return Gate::Held;
        }
        Gate::Open(target, decl, level)
    }

    /// Whether `participant`'s mark must be taken before its first call. A
    /// participant without a native history has nothing to mark: what it
    /// does cannot be reverted, and was reviewed as such (AG-19).
    fn needs_mark(&self, step: &Step<'_>, participant: &ParticipantId) -> bool {
        let has_history = step
            .registry
            .get(participant)
            .is_some_and(|mounted| mounted.manifest.history() == crate::manifest::History::Native);
        has_history && !matches!(self.mutation.mark(participant), Some(MarkState::Taken(_)))
    }

    /// AG-20: the act carries the versions it was planned against — what the
    /// acting party saw — and is refused if any read it acts on moved since.
    fn stale_read(
        &self,
        step: &Step<'_>,
        target: &CapabilityRef,
        decl: &CapabilityDecl,
    ) -> Option<Refusal> {
        self.stale_against(step.reads, target, decl)
    }

    /// The first read `decl` acts on whose version in `reads` is not the one
    /// the acting party planned against, as the refusal it would meet.
    pub(super) fn stale_against(
        &self,
        reads: &BTreeMap<ReadRef, ReadStamp>,
        target: &CapabilityRef,
        decl: &CapabilityDecl,
    ) -> Option<Refusal> {
        decl.reads().iter().find_map(|name| {
            let read = ReadRef {
                participant: target.participant.clone(),
                read: name.clone(),
            };
            let planned = self.turns.seen().get(&read).map(|stamp| stamp.version);
            let current = reads.get(&read).map(|stamp| stamp.version);
            (planned != current).then_some(Refusal::Stale {
                read,
                planned,
                current,
            })
        })
    }

    fn dispatch(
        &mut self,
        step: &mut Step<'_>,
        call: ProposedCall,
        target: CapabilityRef,
        decl: &CapabilityDecl,
        autonomy: Autonomy,
    ) {
        self.custody.charge_call();
        self.turns.pop_call();
        let planned_against: Vec<ReadStamp> = decl
            .reads()
            .iter()
            .filter_map(|name| {
                self.turns
                    .seen()
                    .get(&ReadRef {
                        participant: target.participant.clone(),
                        read: name.clone(),
                    })
                    .cloned()
            })
            .collect();
        let call = ProposedCall {
            capability: target,
            ..call
        };
        // A capability that changes nothing is no mutation: nothing to roll
        // back or undo.
        self.mutation.dispatch(&call, !decl.is_read_only());
        let actor = self
            .actor_ref(step)
            .unwrap_or_else(|| unreachable!("a call is in flight"));
        let tier = (step.registry.get(&call.capability.participant)).map(|m| m.manifest.tier());
        self.record(
            step,
            Actor::Engine,
            JournalEntry::CallDispatched {
                call: call.call.clone(),
                capability: call.capability.clone(),
                arguments: call.arguments.clone(),
                planned_against: planned_against.clone(),
                via: call.via.clone(),
                autonomy: Some(autonomy),
                clamped: self.untrusted_context(),
                tier,
            },
        );
        Self::emit(
            step,
            Effect::Invoke {
                run: self.id.clone(),
                call: call.call,
                capability: call.capability,
                arguments: call.arguments,
                planned_against,
                actor,
            },
        );
    }

    /// Refuses the call at the head of the queue; a refusal costs a call,
    /// so correcting is bounded by the budget (AG-21).
    ///
    /// A fixed plan has no acting party to correct a refusal: it ends there,
    /// as a failure part-way — an error if nothing was done yet, otherwise
    /// rolled back or closed partially as AG-8 says (never `completed`).
    fn charge_and_refuse(&mut self, step: &mut Step<'_>, actor: Actor, refusal: Refusal) {
        self.custody.charge_call();
        let Some(call) = self.turns.pop_call() else {
            return;
        };
        let ended = (self.source == PlanSource::Fixed).then(|| ReturnReason::PlanRefused {
            call: call.call.clone(),
            capability: call.capability.clone(),
            refusal: refusal.code().to_owned(),
        });
        self.refuse(step, actor, call, refusal);
        if let Some(reason) = ended {
            self.end(step, Actor::Engine, reason);
        }
    }

    pub(super) fn refuse(
        &mut self,
        step: &mut Step<'_>,
        actor: Actor,
        call: ProposedCall,
        refusal: Refusal,
    ) {
        self.record(
            step,
            actor,
            JournalEntry::CallRefused {
                call: call.call.clone(),
                capability: call.capability.clone(),
                refusal: refusal.clone(),
            },
        );
        if !matches!(refusal, Refusal::NotCarriedOut { .. }) {
            self.turns.count_refusal();
        }
        let report = self.report_of(call, CallResult::Refused { refusal });
        self.turns.report(report);
    }

    /// The participant published a read's new version with the actor
    /// reference of one of this run's calls: the change is the run's own, so
    /// neither the acting party's view nor the authorization has drifted.
    /// (A change published without it is the person's, and is never taken
    /// in here.)
    pub(crate) fn attribute_write(&mut self, stamp: &ReadStamp) {
        self.turns.advance_seen(stamp);
        self.approval.follow_own_write(stamp);
    }
}

// ----- reports ------------------------------------------------------------------

impl Run {
    // ----- host reports ------------------------------------------------------------

    pub(crate) fn mark_result(
        &mut self,
        step: &mut Step<'_>,
        participant: ParticipantId,
        result: Result<MarkToken, String>,
    ) {
        match result {
            Ok(token) => {
                self.mutation.mark_taken(&participant, token.clone());
                self.record(
                    step,
                    Actor::Participant {
                        participant: participant.clone(),
                    },
                    JournalEntry::MarkTaken { participant, token },
                );
                self.advance(step);
            }
            Err(message) => {
                self.mutation.mark_failed(&participant);
                self.end(
                    step,
                    Actor::Participant {
                        participant: participant.clone(),
                    },
                    ReturnReason::MarkFailed {
                        participant,
                        message,
                    },
                );
            }
        }
    }

    pub(crate) fn call_result(&mut self, step: &mut Step<'_>, result: CallResult) {
        let refused = matches!(result, CallResult::Refused { .. });
        // A refused call changed nothing: it is no mutation.
        let Some(call) = self.mutation.finish_call(refused) else {
            return;
        };
        let actor = Actor::Participant {
            participant: call.capability.participant.clone(),
        };
        self.record(
            step,
            actor.clone(),
            JournalEntry::CallFinished {
                call: call.call.clone(),
                result: result.clone(),
            },
        );
        if self.mutation.call_answered_in_rollback() {
            self.next_revert(step);
            return;
        }
        match &result {
            CallResult::Failed { message } => {
                let cause = ReturnReason::CallFailed {
                    capability: call.capability.clone(),
                    message: message.clone(),
                };
                let report = self.report_of(call, result);
                self.turns.report(report);
                self.end(step, actor, cause);
            }
            CallResult::Applied { .. } | CallResult::Refused { .. } => {
                let report = self.report_of(call, result);
                self.turns.report(report);
                self.advance(step);
            }
        }
    }

    pub(crate) fn revert_result(
        &mut self,
        step: &mut Step<'_>,
        participant: ParticipantId,
        error: Option<String>,
    ) {
        if self.mutation.reverted(&participant, error.is_some()) {
            self.record_reverted(step, participant, error);
            self.next_revert(step);
        }
    }

    pub(crate) fn is_awaiting_revert(&self, participant: &ParticipantId) -> bool {
        self.mutation
            .rollback()
            .is_some_and(|rollback| rollback.is_awaiting(participant))
    }

    pub(crate) fn is_awaiting_mark(&self, participant: &ParticipantId) -> bool {
        self.mutation.mark(participant) == Some(&MarkState::Pending)
    }

    /// The reference handed to the participant with the call in flight (AG-32).
    pub(super) fn actor_ref(&self, step: &Step<'_>) -> Option<ActorRef> {
        self.minted_ref(step.secret, &step.config.session)
    }

    /// The reference of the call in flight, minted with `secret` for
    /// `session`: the one place an actor reference is made.
    pub(crate) fn minted_ref(
        &self,
        secret: &crate::ActorSecret,
        session: &crate::SessionId,
    ) -> Option<ActorRef> {
        let call = self.mutation.in_flight()?;
        Some(crate::actor::mint(
            secret,
            &ActorIdentity {
                session: session.clone(),
                run: self.id.clone(),
                call: call.call.clone(),
                via: call.via.clone(),
            },
        ))
    }

    pub(super) fn escalation_reason(&self) -> Option<&EscalationReason> {
        self.custody
            .escalation()
            .map(|escalation| &escalation.reason)
    }

    pub(super) fn clear_escalation(&mut self) {
        self.custody.clear_escalation();
    }

    /// Ends the run before anything was authorized: its open turn is
    /// aborted and its question withdrawn.
    pub(super) fn cancel(&mut self, step: &mut Step<'_>, actor: Actor, reason: CancelReason) {
        self.cancel_open_turn(step);
        self.drop_questions(step, false);
        let note = match &reason {
            CancelReason::Rejected { note } => Some(note.clone()).filter(|n| !n.is_empty()),
            CancelReason::NoPlan => None,
        };
        self.settle_unheard(step, &crate::announce::code_of(&reason), note);
        self.transition(step, actor, RunState::Cancelled { reason });
    }
}
