//! How a run moves from a plan to dispatched calls: authorization, the
//! per-call checks of `acting`, and the escalations they raise.
//!
//! Before a call is dispatched it passes, in order: the call budget (AG-7),
//! declaration (AG-21), the allowlist (AG-7), its arguments (AG-15, AG-16),
//! the freshness of the reads it acts on (AG-20), its resolved autonomy
//! (AG-24 … AG-28) and the authorization's fingerprint and lifetime (AG-29).
//! Correctable failures are refused back to the acting party and charged;
//! everything that needs the person escalates.

use std::collections::{BTreeMap, BTreeSet};

use crate::autonomy::{resolve, AutonomyInputs, Resolved};
use crate::context::{ReadRef, ReadStamp};
use crate::digest::Digest;
use crate::engine::PresencePolicy;
use crate::event::{CallReport, Effect, Event};
use crate::ids::{CapabilityRef, ParticipantId};
use crate::journal::{Actor, CallResult, JournalEntry, Refusal};
use crate::manifest::CapabilityDecl;
use crate::model::{Autonomy, Budget};
use crate::registry::Address;
use crate::run::{AuthorizationRecord, MarkState, PlanSource, ProposedCall, Run, Step};
use crate::state::{BudgetLimit, EscalationReason, ReturnReason, RunState};

/// Where a fresh authorization takes its baseline from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Baseline {
    /// The reads the plan was computed on (a first authorization): any change
    /// since is drift to be checked before acting.
    Seen,
    /// The reads as they are now (a re-approval after drift or expiry).
    Current,
}

/// The fingerprint of a set of read stamps (AG-29): SHA-256 over the
/// canonical encoding of their ids, versions and origins.
pub fn fingerprint<'a>(stamps: impl IntoIterator<Item = &'a ReadStamp>) -> Digest {
    let mut sorted: Vec<&ReadStamp> = stamps.into_iter().collect();
    sorted.sort();
    Digest::of_json(&serde_json::to_value(sorted).unwrap_or_default())
}

impl Run {
    /// Whether anything the acting party saw came from outside the author (AG-28).
    pub(super) fn untrusted_context(&self) -> bool {
        self.turns
            .seen
            .values()
            .any(|stamp| stamp.origin != crate::context::Origin::Author)
    }

    /// The person's standing choice for a capability: a live "always allow"
    /// grant raises it to `auto` (still under every other rule), a "never
    /// allow" grant denies it (AG-30).
    fn resolve_call(
        &self,
        step: &Step<'_>,
        address: &CapabilityRef,
        decl: &CapabilityDecl,
    ) -> Resolved {
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

    fn level_for(&self, step: &Step<'_>, untrusted_context: bool) -> Autonomy {
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

    /// offered → planned → reviewing, or → authorized → acting when every
    /// planned call resolves to `auto`.
    pub(super) fn accept_plan(
        &mut self,
        step: &mut Step<'_>,
        actor: Actor,
        plan: Vec<ProposedCall>,
    ) {
        self.turns.plan = plan.clone();
        self.turns.queue = plan.into();
        self.autonomy = self.context_level(step);
        self.transition(step, actor, RunState::Planned);
        let all_auto =
            self.turns
                .queue
                .iter()
                .all(|call| match step.registry.resolve(&call.capability) {
                    Address::Unique(_, decl) => matches!(
                        self.resolve_call(step, &call.capability, decl),
                        Resolved::Allowed(Autonomy::Auto) | Resolved::Denied
                    ),
                    // Unknown capabilities are refused at dispatch; ambiguity asks the person anyway.
                    Address::Unknown | Address::Refused(_) | Address::Ambiguous(_) => true,
                });
        if all_auto {
            let allowlist = self.proposed_scope();
            let budget = self.custody.budget;
            self.transition(step, Actor::Engine, RunState::Authorized);
            self.authorize_and_act(step, Actor::Engine, allowlist, budget, Baseline::Seen);
        } else {
            self.enter_review(step, Actor::Engine);
        }
    }

    /// The allowlist an authorization grants when the person does not narrow
    /// it: what was already allowed plus every capability now proposed.
    pub(super) fn proposed_scope(&self) -> BTreeSet<CapabilityRef> {
        let mut scope = self.approval.allowlist.clone();
        scope.extend(self.turns.queue.iter().map(|call| call.capability.clone()));
        scope
    }

    /// → acting, with the allowlist and budget fixed, the authorization bound
    /// to a fingerprint and a lifetime, and marks requested from every
    /// participant in scope.
    pub(super) fn authorize_and_act(
        &mut self,
        step: &mut Step<'_>,
        actor: Actor,
        allowlist: BTreeSet<CapabilityRef>,
        budget: Budget,
        baseline: Baseline,
    ) {
        // A review caused by drift showed changes computed on the reads as
        // they are now; that is what the person authorizes (AG-29).
        let baseline = if actor == Actor::Person && self.approval.review_again.take().is_some() {
            Baseline::Current
        } else {
            baseline
        };
        if actor == Actor::Person {
            self.remember_approved_previews();
            self.approval.person_authorized = true;
            // What the person reviewed, they approved one by one.
            self.approval
                .approved
                .extend(self.turns.queue.iter().map(|call| call.call.clone()));
        }
        self.approval.allowlist = allowlist;
        self.set_budget(budget);
        let stamps: BTreeMap<ReadRef, ReadStamp> = match baseline {
            Baseline::Seen => self.turns.seen.clone(),
            Baseline::Current => self
                .turns
                .seen
                .keys()
                .filter_map(|read| {
                    step.reads
                        .get(read)
                        .map(|stamp| (read.clone(), stamp.clone()))
                })
                .collect(),
        };
        let record = AuthorizationRecord {
            fingerprint: fingerprint(stamps.values()),
            baseline: stamps,
            level: self.context_level(step),
            expires_at: step.now.saturating_add(step.config.authorization_ttl_ms),
        };
        self.record(
            step,
            actor.clone(),
            JournalEntry::Authorized {
                allowlist: self.approval.allowlist.iter().cloned().collect(),
                budget: self.custody.budget,
                fingerprint: record.fingerprint,
                expires_at: record.expires_at,
            },
        );
        self.approval.authorization = Some(record);
        if self.autonomy > Autonomy::Suggest && step.presences == 0 {
            match step.config.presence {
                PresencePolicy::Require => {
                    self.end(step, Actor::Engine, ReturnReason::PresenceMissing);
                    return;
                }
                PresencePolicy::Warn => step.events.push_back(Event::PresenceMissing {
                    run: self.id.clone(),
                }),
            }
        }
        self.transition(step, actor, RunState::Acting);
        let participants: BTreeSet<ParticipantId> = self
            .approval
            .allowlist
            .iter()
            .filter_map(|address| match step.registry.resolve(address) {
                Address::Unique(target, _) => Some(target.participant),
                _ => None,
            })
            .filter(|participant| {
                step.registry.get(participant).is_some_and(|mounted| {
                    mounted.manifest.history() == crate::manifest::History::Native
                })
            })
            .collect();
        for participant in participants {
            self.request_mark(step, participant);
        }
        self.advance(step);
    }

    pub(super) fn escalate(&mut self, step: &mut Step<'_>, reason: EscalationReason) {
        self.custody.escalation = Some(crate::run::Escalation {
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
    /// queue is empty.
    pub(super) fn advance(&mut self, step: &mut Step<'_>) {
        loop {
            if self.custody.state != RunState::Acting
                || self.mutation.rollback.is_some()
                || self.approval.recheck.is_some()
                || self.mutation.in_flight.is_some()
                || self.turns.turn.is_some()
                || self
                    .mutation
                    .marks
                    .values()
                    .any(|mark| *mark == MarkState::Pending)
            {
                return;
            }
            let Some(call) = self.turns.queue.front().cloned() else {
                if !self.asking.pending_questions.is_empty() {
                    self.ask_pending(step);
                    return;
                }
                match self.source {
                    PlanSource::Fixed => self.end(step, Actor::Engine, ReturnReason::PlanCompleted),
                    PlanSource::ActingParty
                        if self.custody.usage.turns >= self.custody.budget.max_turns =>
                    {
                        self.escalate(
                            step,
                            EscalationReason::BudgetExhausted {
                                limit: BudgetLimit::Turns,
                            },
                        );
                    }
                    PlanSource::ActingParty => self.reserve_turn(step),
                }
                return;
            };
            if self.custody.usage.calls >= self.custody.budget.max_calls {
                self.escalate(
                    step,
                    EscalationReason::BudgetExhausted {
                        limit: BudgetLimit::Calls,
                    },
                );
                return;
            }
            let address = match self.approval.choices.get(&call.call) {
                // The person said which instance (AG-23).
                Some(choice) => match step.registry.capability(&CapabilityRef {
                    participant: choice.clone(),
                    capability: call.capability.capability.clone(),
                }) {
                    Some(decl) => Address::Unique(
                        CapabilityRef {
                            participant: choice.clone(),
                            capability: call.capability.capability.clone(),
                        },
                        decl,
                    ),
                    None => Address::Unknown,
                },
                None => step.registry.resolve(&call.capability),
            };
            let (target, decl) = match address {
                Address::Unknown => {
                    // AG-21: correctable, charged, and the run goes on.
                    self.charge_and_refuse(step, Actor::Engine, Refusal::UndeclaredCapability);
                    continue;
                }
                Address::Refused(problems) => {
                    // AG-13: the only place a refused registration shows.
                    let problems = problems.to_vec();
                    self.charge_and_refuse(
                        step,
                        Actor::Engine,
                        Refusal::RegistrationRefused { problems },
                    );
                    continue;
                }
                Address::Ambiguous(_) if !self.approval.allowlist.contains(&call.capability) => {
                    self.escalate(
                        step,
                        EscalationReason::OutOfScope {
                            capability: call.capability,
                        },
                    );
                    return;
                }
                Address::Ambiguous(candidates) => {
                    self.ask_which_instance(step, &call, candidates);
                    return;
                }
                Address::Unique(target, decl) => (target, decl),
            };
            if !self.approval.allowlist.contains(&call.capability) {
                self.escalate(
                    step,
                    EscalationReason::OutOfScope {
                        capability: call.capability,
                    },
                );
                return;
            }
            if let Err(errors) = decl.check_arguments(&call.arguments) {
                self.charge_and_refuse(step, Actor::Engine, Refusal::InvalidArguments { errors });
                continue;
            }
            if let Some(refusal) = self.stale_read(step, &target, decl) {
                self.charge_and_refuse(step, Actor::Engine, refusal);
                continue;
            }
            if !self.approval.approved.contains(&call.call) {
                match self.resolve_call(step, &call.capability, decl) {
                    Resolved::Denied => {
                        self.charge_and_refuse(step, Actor::Engine, Refusal::Denied);
                        continue;
                    }
                    Resolved::Allowed(level) => {
                        let covered = !decl.is_irreversible()
                            && (level == Autonomy::Auto
                                || (level == Autonomy::Review && self.approval.person_authorized));
                        if !covered {
                            // AG-25 (irreversible), AG-28 (untrusted), suggest: one by one.
                            self.escalate(
                                step,
                                EscalationReason::ReviewRequired {
                                    call: call.call.clone(),
                                    capability: call.capability.clone(),
                                },
                            );
                            return;
                        }
                    }
                }
            }
            if !self.authorization_holds(step) {
                return;
            }
            // A participant without a native history has nothing to mark:
            // what it does cannot be reverted, and was reviewed as such (AG-19).
            let has_history = step
                .registry
                .get(&target.participant)
                .is_some_and(|mounted| {
                    mounted.manifest.history() == crate::manifest::History::Native
                });
            match self.mutation.marks.get(&target.participant) {
                Some(MarkState::Taken(_)) => {}
                _ if !has_history => {}
                _ => {
                    self.request_mark(step, target.participant.clone());
                    return;
                }
            }
            self.dispatch(step, call, target, decl);
            return;
        }
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
            let planned = self.turns.seen.get(&read).map(|stamp| stamp.version);
            let current = reads.get(&read).map(|stamp| stamp.version);
            (planned != current).then_some(Refusal::Stale {
                read,
                planned,
                current,
            })
        })
    }

    /// AG-29: the authorization is bound to the reads it was computed on and
    /// to a lifetime. On drift it is recomputed: if the context still
    /// resolves to the same autonomy, it is re-approved with a new
    /// fingerprint; otherwise the person reviews again. A lapsed
    /// authorization always goes back to the person.
    fn authorization_holds(&mut self, step: &mut Step<'_>) -> bool {
        let Some(record) = &self.approval.authorization else {
            return true;
        };
        if step.now >= record.expires_at {
            self.escalate(step, EscalationReason::AuthorizationExpired);
            return false;
        }
        let drifted: Vec<ReadRef> = record
            .baseline
            .iter()
            .filter(|(read, stamp)| step.reads.get(*read) != Some(*stamp))
            .map(|(read, _)| read.clone())
            .collect();
        if drifted.is_empty() {
            return true;
        }
        let current: BTreeMap<ReadRef, ReadStamp> = record
            .baseline
            .keys()
            .filter_map(|read| {
                step.reads
                    .get(read)
                    .map(|stamp| (read.clone(), stamp.clone()))
            })
            .collect();
        let untrusted_now = current
            .values()
            .any(|s| s.origin != crate::context::Origin::Author);
        let identical = current.len() == record.baseline.len()
            && self.level_for(step, untrusted_now) == record.level;
        if identical {
            // The same autonomy; the same concrete changes too? (drift.rs)
            self.recheck_after_drift(step, drifted, current)
        } else {
            self.escalate(step, EscalationReason::Drift { reads: drifted });
            false
        }
    }

    fn dispatch(
        &mut self,
        step: &mut Step<'_>,
        call: ProposedCall,
        target: CapabilityRef,
        decl: &CapabilityDecl,
    ) {
        self.custody.usage.calls += 1;
        self.turns.queue.pop_front();
        let planned_against: Vec<ReadStamp> = decl
            .reads()
            .iter()
            .filter_map(|name| {
                self.turns
                    .seen
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
        self.mutation.mutated.push(call.capability.clone());
        self.mutation.in_flight = Some(call.clone());
        let actor = self
            .actor_ref(step)
            .unwrap_or_else(|| unreachable!("a call is in flight"));
        self.record(
            step,
            Actor::Engine,
            JournalEntry::CallDispatched {
                call: call.call.clone(),
                capability: call.capability.clone(),
                arguments: call.arguments.clone(),
                planned_against: planned_against.clone(),
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
    fn charge_and_refuse(&mut self, step: &mut Step<'_>, actor: Actor, refusal: Refusal) {
        self.custody.usage.calls += 1;
        if let Some(call) = self.turns.queue.pop_front() {
            self.refuse(step, actor, call, refusal);
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
        self.turns.reports.push(CallReport {
            call: call.call,
            capability: call.capability,
            result: CallResult::Refused { refusal },
        });
    }

    /// The participant that published a read's new version did so while this
    /// run's call was mutating it: the change is the run's own, so neither
    /// the acting party's view nor the authorization has drifted.
    pub(crate) fn attribute_write(&mut self, stamp: &ReadStamp) {
        let ours = self
            .mutation
            .in_flight
            .as_ref()
            .is_some_and(|call| call.capability.participant == stamp.read.participant);
        if !ours {
            return;
        }
        if self.turns.seen.contains_key(&stamp.read) {
            self.turns.seen.insert(stamp.read.clone(), stamp.clone());
        }
        if let Some(record) = self.approval.authorization.as_mut() {
            if record.baseline.contains_key(&stamp.read) {
                record.baseline.insert(stamp.read.clone(), stamp.clone());
                record.fingerprint = fingerprint(record.baseline.values());
            }
        }
    }
}
