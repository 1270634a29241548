//! How a run is authorized (AG-29): the plan accepted, the allowlist and
//! budget fixed, the authorization bound to the fingerprint of the reads
//! it was computed on and to a lifetime, and checked again before every
//! call.
//!
//! Drift after the person approved concrete changes (AG-29, AG-31).
//!
//! An authorization is bound to a fingerprint of the reads it was computed
//! on. When a read drifts and the context still resolves to the same
//! autonomy, the person's approval may carry over — but only if what they
//! approved is still what will happen: every remaining call whose concrete
//! change they saw (a participant's preview) is rendered again against the
//! reads as they are now, and the run re-approves itself only when every
//! new preview is identical to the one approved — the same JSON value, key
//! order aside (the arguments are the calls' own and cannot differ). Any
//! other difference goes back to the person, who reviews the new changes.

use crate::autonomy::Verdict;
use crate::config::PresencePolicy;
use crate::context::{ReadRef, ReadStamp};
use crate::event::Event;
use crate::ids::CallId;
use crate::ids::{CapabilityRef, ParticipantId};
use crate::journal::{Actor, JournalEntry};
use crate::model::{Autonomy, Budget};
use crate::registry::Address;
use crate::run::review::ProposedChange;
use crate::run::review::ReviewAgain;
use crate::run::{AuthorizationRecord, ProposedCall, Run, Step};
use crate::state::{EscalationReason, ReturnReason, RunState};
use baton_schema::digest::Digest;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

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

// ----- drift --------------------------------------------------------------------

/// Previews being rendered again after drift.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Recheck {
    /// The reads that drifted.
    drifted: Vec<ReadRef>,
    /// The reads as they are now: the new baseline if nothing differs.
    #[serde(with = "crate::context::stamps")]
    current: BTreeMap<ReadRef, ReadStamp>,
    /// Calls whose new preview has not arrived.
    pending: BTreeSet<CallId>,
    /// Whether some new preview differs from the approved one.
    changed: bool,
}

impl Recheck {
    /// `call`'s preview came again; `same` when it did not change.
    pub(super) fn rendered(&mut self, call: &CallId, same: bool) {
        self.pending.remove(call);
        self.changed |= !same;
    }

    /// Whether a new preview is still awaited.
    pub(crate) fn is_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The calls whose new preview is still awaited.
    pub(crate) fn pending_calls(&self) -> impl Iterator<Item = CallId> + '_ {
        self.pending.iter().cloned()
    }
}

impl Run {
    /// Remembers the concrete changes the person approved, by call.
    pub(super) fn remember_approved_previews(&mut self) {
        self.approval.remember_approved();
    }

    /// The context drifted but resolves as before. Re-approves at once when
    /// no remaining call has an approved preview; otherwise asks for the
    /// previews again and holds dispatch until they have all arrived.
    /// Returns whether dispatch may go on now.
    pub(super) fn recheck_after_drift(
        &mut self,
        step: &mut Step<'_>,
        drifted: Vec<ReadRef>,
        current: BTreeMap<ReadRef, ReadStamp>,
    ) -> bool {
        let approved: Vec<ProposedCall> = self
            .turns
            .queue()
            .iter()
            .filter(|call| self.approval.approved_preview(&call.call).is_some())
            .cloned()
            .collect();
        if approved.is_empty() {
            self.reauthorize(step, drifted, current);
            return true;
        }
        let mut recheck = Recheck {
            drifted,
            current,
            pending: BTreeSet::new(),
            changed: false,
        };
        for call in approved {
            match self.ask_preview(step, &call) {
                ProposedChange::Pending => {
                    recheck.pending.insert(call.call);
                }
                // It renders no preview any more: not what was approved.
                _ => recheck.changed = true,
            }
        }
        self.approval.start_recheck(recheck);
        self.finish_recheck_if_complete(step);
        false
    }

    /// Whether a new preview of this call is awaited after drift.
    pub(super) fn is_rechecking(&self, call: &CallId) -> bool {
        self.approval
            .recheck()
            .is_some_and(|recheck| recheck.pending.contains(call))
    }

    /// A preview rendered again after drift arrived (or failed).
    pub(super) fn recheck_result(
        &mut self,
        step: &mut Step<'_>,
        call: CallId,
        result: Result<Value, String>,
        participant: crate::ids::ParticipantId,
    ) {
        let same = match (&result, self.approval.approved_preview(&call)) {
            (Ok(value), Some(ProposedChange::Preview { value: approved })) => value == approved,
            _ => false,
        };
        self.approval.rendered_again(&call, same);
        self.record(
            step,
            Actor::Participant { participant },
            JournalEntry::PreviewRendered {
                call,
                error: result.err(),
            },
        );
        self.finish_recheck_if_complete(step);
    }

    fn finish_recheck_if_complete(&mut self, step: &mut Step<'_>) {
        if self
            .approval
            .recheck()
            .is_none_or(|recheck| !recheck.pending.is_empty())
        {
            return;
        }
        let Some(recheck) = self.approval.take_recheck() else {
            return;
        };
        if recheck.changed {
            // Not what the person approved: they review the new changes,
            // and authorize them against the reads as they are now.
            self.escalate(
                step,
                EscalationReason::Drift {
                    reads: recheck.drifted.clone(),
                },
            );
            self.clear_escalation();
            self.approval.show_again(Some(ReviewAgain::Drift {
                reads: recheck.drifted,
            }));
            self.enter_review(step, Actor::Engine);
        } else {
            self.reauthorize(step, recheck.drifted, recheck.current);
            self.advance(step);
        }
    }

    /// The person sends an escalated run back to review. After drift or a
    /// lapsed authorization, what they then authorize binds the reads as
    /// they are now.
    pub(super) fn review_again(
        &mut self,
        step: &mut Step<'_>,
        actor: Actor,
        reason: &EscalationReason,
    ) {
        self.clear_escalation();
        let why = match reason {
            EscalationReason::Drift { reads } => Some(ReviewAgain::Drift {
                reads: reads.clone(),
            }),
            EscalationReason::AuthorizationExpired => Some(ReviewAgain::AuthorizationExpired),
            _ => None,
        };
        self.approval.show_again(why);
        self.enter_review(step, actor);
    }

    /// The same authorization, bound to the reads as they are now.
    pub(super) fn reauthorize(
        &mut self,
        step: &mut Step<'_>,
        drifted: Vec<ReadRef>,
        current: BTreeMap<ReadRef, ReadStamp>,
    ) {
        let fingerprint = fingerprint(&current);
        self.record(
            step,
            Actor::Engine,
            JournalEntry::Reauthorized {
                fingerprint,
                drifted,
            },
        );
        self.approval.rebind(fingerprint, current);
    }
}
