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

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::{ReadRef, ReadStamp};
use crate::ids::CallId;
use crate::journal::{Actor, JournalEntry};
use crate::run::binding::fingerprint;
use crate::run::review::{ProposedChange, ReviewAgain};
use crate::run::{ProposedCall, Run, Step};
use crate::state::EscalationReason;

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
