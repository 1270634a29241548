//! How a run is authorized (AG-29): the plan accepted, the allowlist and
//! budget fixed, the authorization bound to the fingerprint of the reads
//! it was computed on and to a lifetime, and checked again before every
//! call.

use std::collections::{BTreeMap, BTreeSet};

use crate::autonomy::Verdict;
use crate::config::PresencePolicy;
use crate::context::{ReadRef, ReadStamp};
use crate::event::Event;
use crate::ids::{CapabilityRef, ParticipantId};
use crate::journal::{Actor, JournalEntry};
use crate::model::{Autonomy, Budget};
use crate::registry::Address;
use crate::run::review::ReviewAgain;
use crate::run::{AuthorizationRecord, ProposedCall, Run, Step};
use crate::state::{EscalationReason, ReturnReason, RunState};
use baton_schema::digest::Digest;

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
/// canonical encoding of their ids, versions and origins, in read order
/// (the map's own order: a stamp orders by its read first).
pub fn fingerprint(stamps: &BTreeMap<ReadRef, ReadStamp>) -> Digest {
    let ordered: Vec<&ReadStamp> = stamps.values().collect();
    Digest::of_json(&serde_json::to_value(ordered).unwrap_or_default())
}

impl Run {
    /// offered → planned → reviewing, or → authorized → acting when every
    /// planned call resolves to `auto`.
    pub(super) fn accept_plan(
        &mut self,
        step: &mut Step<'_>,
        actor: Actor,
        plan: Vec<ProposedCall>,
    ) {
        self.turns.accept(plan);
        self.autonomy = self.context_level(step);
        self.transition(step, actor, RunState::Planned);
        let all_auto =
            self.turns
                .queue()
                .iter()
                .all(|call| match step.registry.resolve(&call.capability) {
                    Address::Unique(_, decl) => matches!(
                        self.resolve_call(step, &call.capability, decl),
                        Verdict::Allowed(Autonomy::Auto) | Verdict::Denied
                    ),
                    // Unknown capabilities are refused at dispatch; ambiguity asks the person anyway.
                    Address::Unknown | Address::Refused(_) | Address::Ambiguous(_) => true,
                });
        if all_auto {
            let allowlist = self.proposed_scope();
            let budget = self.custody.budget();
            self.transition(step, Actor::Engine, RunState::Authorized);
            self.authorize_and_act(step, Actor::Engine, allowlist, budget, Baseline::Seen);
        } else {
            self.enter_review(step, Actor::Engine);
        }
    }

    /// The allowlist an authorization grants when the person does not narrow
    /// it: what was already allowed plus every capability now proposed.
    pub(super) fn proposed_scope(&self) -> BTreeSet<CapabilityRef> {
        let mut scope = self.approval.allowlist().clone();
        scope.extend(
            self.turns
                .queue()
                .iter()
                .map(|call| call.capability.clone()),
        );
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
        // A plan a reload cut off keeps the reads it was planned against:
        // an act planned on a read that changed since is refused as stale.
        let again = match actor {
            Actor::Person => self.approval.take_review_again(),
            _ => None,
        };
        let baseline = if again.is_some_and(|again| !matches!(again, ReviewAgain::CutOff { .. })) {
            Baseline::Current
        } else {
            baseline
        };
        if actor == Actor::Person {
            self.remember_approved_previews();
            // What the person reviewed, they approved one by one.
            let reviewed = self.turns.queue().iter().map(|call| call.call.clone());
            self.approval.person_approves(reviewed);
        }
        self.approval.set_allowlist(allowlist);
        self.set_budget(budget);
        let stamps = self.baseline_stamps(step, baseline);
        let record = AuthorizationRecord {
            fingerprint: fingerprint(&stamps),
            baseline: stamps,
            level: self.context_level(step),
            expires_at: step.now.saturating_add(step.config.authorization_ttl_ms),
        };
        let entry = JournalEntry::Authorized {
            allowlist: self.approval.allowlist().iter().cloned().collect(),
            budget: self.custody.budget(),
            fingerprint: record.fingerprint,
            expires_at: record.expires_at,
        };
        self.record(step, actor.clone(), entry);
        self.approval.bind(record);
        if !self.presence_allows_acting(step) {
            return;
        }
        self.transition(step, actor, RunState::Acting);
        for participant in self.marked_in_scope(step) {
            self.request_mark(step, participant);
        }
        self.advance(step);
    }

    /// The stamps an authorization binds: what the plan was computed on, or
    /// the reads as they are now.
    fn baseline_stamps(&self, step: &Step<'_>, baseline: Baseline) -> BTreeMap<ReadRef, ReadStamp> {
        match baseline {
            Baseline::Seen => self.turns.seen().clone(),
            Baseline::Current => {
                let mut current = BTreeMap::new();
                current.extend(self.turns.seen().keys().filter_map(|read| {
                    let stamp = step.reads.get(read)?;
                    Some((read.clone(), stamp.clone()))
                }));
                current
            }
        }
    }

    /// A run above `suggest` acts only where someone can watch it: without
    /// a presence surface it ends (`require`) or the host is warned (`warn`)
    /// (AG-35).
    fn presence_allows_acting(&mut self, step: &mut Step<'_>) -> bool {
        if self.autonomy <= Autonomy::Suggest || step.presences > 0 {
            return true;
        }
        match step.config.presence {
            PresencePolicy::Require => {
                self.end(step, Actor::Engine, ReturnReason::PresenceMissing);
                false
            }
            PresencePolicy::Warn => {
                let run = self.id.clone();
                step.events.push_back(Event::PresenceMissing { run });
                true
            }
        }
    }

    /// The participants in scope whose marks are taken before acting: those
    /// the allowlist resolves to, with a native history.
    fn marked_in_scope(&self, step: &Step<'_>) -> BTreeSet<ParticipantId> {
        let mut marked = BTreeSet::new();
        marked.extend(
            self.approval
                .allowlist()
                .iter()
                .filter_map(|address| match step.registry.resolve(address) {
                    Address::Unique(target, _) => Some(target.participant),
                    _ => None,
                })
                .filter(|participant| {
                    step.registry.get(participant).is_some_and(|mounted| {
                        mounted.manifest.history() == crate::manifest::History::Native
                    })
                }),
        );
        marked
    }

    /// AG-29: the authorization is bound to the reads it was computed on and
    /// to a lifetime. On drift it is recomputed: if the context still
    /// resolves to the same autonomy, it is re-approved with a new
    /// fingerprint; otherwise the person reviews again. A lapsed
    /// authorization always goes back to the person.
    pub(super) fn authorization_holds(&mut self, step: &mut Step<'_>) -> bool {
        let Some(record) = self.approval.authorization() else {
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
        let mut current: BTreeMap<ReadRef, ReadStamp> = BTreeMap::new();
        current.extend(record.baseline.keys().filter_map(|read| {
            step.reads
                .get(read)
                .map(|stamp| (read.clone(), stamp.clone()))
        }));
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
}
