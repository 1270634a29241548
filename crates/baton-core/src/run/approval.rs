//! What the person approved of a run, and on what it was computed (AG-7,
//! AG-23, AG-29, AG-31): the allowlist, the authorization and the reads it
//! is bound to, the calls approved one by one, the concrete changes under
//! review and those approved, a recheck after drift, why a review is shown
//! again, the instance chosen for an ambiguous call, and the calls the
//! person edited. The fields are this module's; every change goes through
//! a method that keeps the rules below.
//!
//! - The person's approval of a plan approves each of its calls, and marks
//!   the run as authorized by the person (not the engine).
//! - The previews under review are replaced together, never mixed across
//!   reviews; what the person approved is kept beside them to compare a
//!   later rendering with.
//! - A review shown again says why once: the authorization that follows
//!   takes the reason.

use std::collections::{BTreeMap, BTreeSet};

use crate::context::{ReadRef, ReadStamp};
use crate::ids::{CallId, CapabilityRef, ParticipantId};
use crate::run::binding::fingerprint;
use baton_schema::digest::Digest;

use super::binding::Recheck;
use super::review::{ProposedChange, ReviewAgain};
use super::row::columns;
use super::AuthorizationRecord;

columns! {
    /// What the person approved of one run.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub(super) struct Approval {
        allowlist: BTreeSet<CapabilityRef> => "allowlist",
        authorization: Option<AuthorizationRecord> => "authorization",
        /// Whether the person (not the engine) authorized the run.
        person_authorized: bool => "personAuthorized",
        /// Calls the person approved one by one (the reviewed plan, escalations).
        approved: BTreeSet<CallId> => "approved",
        /// The proposed changes under review, by call (AG-31).
        previews: BTreeMap<CallId, ProposedChange> => "previews",
        /// The concrete changes the person approved, by call (AG-29, AG-31).
        approved_previews: BTreeMap<CallId, ProposedChange> => "approvedPreviews" (default),
        /// Previews rendered again after drift, before dispatch goes on.
        recheck: Option<Recheck> => "recheck" (default),
        /// The review under way was caused by drift, a lapsed authorization or
        /// a reload: why, and its authorization binds the reads as they are now.
        review_again: Option<ReviewAgain> => "reviewAgain" (default),
        /// Which instance the person chose for an ambiguous call (AG-23).
        choices: BTreeMap<CallId, ParticipantId> => "choices",
        /// When the previews asked for last are due; one that has not arrived
        /// by then is shown as missing, and why (AG-31).
        previews_due: Option<u64> => "previewsDue" (default),
        /// Calls whose arguments the person changed in review (approve with
        /// edits): the acting party hears so with their results.
        edited: BTreeSet<CallId> => "edited" (default),
    }
}

impl Approval {
    // ----- scope and authorization --------------------------------------------

    /// The capabilities the run may call.
    pub(super) fn allowlist(&self) -> &BTreeSet<CapabilityRef> {
        &self.allowlist
    }

    /// The run may call these, and only these, from now on.
    pub(super) fn set_allowlist(&mut self, allowlist: BTreeSet<CapabilityRef>) {
        self.allowlist = allowlist;
    }

    /// The authorization in force, if any.
    pub(super) fn authorization(&self) -> Option<&AuthorizationRecord> {
        self.authorization.as_ref()
    }

    /// A read the run changed itself moves the authorization's baseline
    /// with it (its own write is no drift), and so its fingerprint.
    pub(super) fn follow_own_write(&mut self, stamp: &ReadStamp) {
        if let Some(record) = self.authorization.as_mut() {
            if record.baseline.contains_key(&stamp.read) {
                record.baseline.insert(stamp.read.clone(), stamp.clone());
                record.fingerprint = fingerprint(&record.baseline);
            }
        }
    }

    /// The authorization is bound to the reads as they are now
    /// (`baseline`, whose fingerprint is `fingerprint`).
    pub(super) fn rebind(&mut self, fingerprint: Digest, baseline: BTreeMap<ReadRef, ReadStamp>) {
        if let Some(record) = self.authorization.as_mut() {
            record.fingerprint = fingerprint;
            record.baseline = baseline;
        }
    }

    /// The run is authorized as `record` says.
    pub(super) fn bind(&mut self, record: AuthorizationRecord) {
        self.authorization = Some(record);
    }

    /// The person approved a plan: each of `calls` is approved, and the run
    /// is the person's to act on.
    pub(super) fn person_approves(&mut self, calls: impl IntoIterator<Item = CallId>) {
        self.person_authorized = true;
        self.approved.extend(calls);
    }

    /// Whether the person (not the engine) authorized the run.
    pub(super) fn by_person(&self) -> bool {
        self.person_authorized
    }

    /// The person allowed this one call.
    pub(super) fn approve(&mut self, call: CallId) {
        self.approved.insert(call);
    }

    /// Whether the person approved this call.
    pub(super) fn is_approved(&self, call: &CallId) -> bool {
        self.approved.contains(call)
    }

    // ----- previews -----------------------------------------------------------

    /// The change a call under review would make, as rendered so far.
    pub(super) fn preview(&self, call: &CallId) -> Option<&ProposedChange> {
        self.previews.get(call)
    }

    /// Whether a change under review has not been rendered yet.
    pub(super) fn awaits_preview(&self) -> bool {
        self.previews
            .values()
            .any(|change| *change == ProposedChange::Pending)
    }

    /// The calls under review whose change has not been rendered yet.
    pub(super) fn pending_previews(&self) -> Vec<CallId> {
        self.previews
            .iter()
            .filter(|(_, change)| **change == ProposedChange::Pending)
            .map(|(call, _)| call.clone())
            .collect()
    }

    /// A new review: no change of an earlier one stays under review.
    pub(super) fn clear_previews(&mut self) {
        self.previews.clear();
    }

    /// The change `call` would make, for review.
    pub(super) fn set_preview(&mut self, call: CallId, change: ProposedChange) {
        self.previews.insert(call, change);
    }

    /// When the previews asked for last are due.
    pub(super) fn previews_due(&self) -> Option<u64> {
        self.previews_due
    }

    /// The previews asked for now are due at `due` (`None`: none awaited).
    pub(super) fn set_previews_due(&mut self, due: Option<u64>) {
        self.previews_due = due;
    }

    /// What the person saw under review is what they approved.
    pub(super) fn remember_approved(&mut self) {
        let approved = self
            .previews
            .iter()
            .filter(|(_, change)| matches!(change, ProposedChange::Preview { .. }))
            .map(|(call, change)| (call.clone(), change.clone()));
        self.approved_previews.extend(approved);
    }

    /// The change the person approved for `call`, if one was rendered.
    pub(super) fn approved_preview(&self, call: &CallId) -> Option<&ProposedChange> {
        self.approved_previews.get(call)
    }

    // ----- drift, again -------------------------------------------------------

    /// The recheck under way after drift, if any.
    pub(super) fn recheck(&self) -> Option<&Recheck> {
        self.recheck.as_ref()
    }

    /// The recheck under way got `call`'s rendering again; `same` when it
    /// did not change.
    pub(super) fn rendered_again(&mut self, call: &CallId, same: bool) {
        if let Some(recheck) = self.recheck.as_mut() {
            recheck.rendered(call, same);
        }
    }

    /// Previews are rendered again before dispatch goes on.
    pub(super) fn start_recheck(&mut self, recheck: Recheck) {
        self.recheck = Some(recheck);
    }

    /// The recheck is over (or the run ended): it is returned.
    pub(super) fn take_recheck(&mut self) -> Option<Recheck> {
        self.recheck.take()
    }

    /// Why the review under way is shown again, if it is.
    pub(super) fn review_again(&self) -> Option<&ReviewAgain> {
        self.review_again.as_ref()
    }

    /// The review is shown again, for `why`.
    pub(super) fn show_again(&mut self, why: Option<ReviewAgain>) {
        self.review_again = why;
    }

    /// The person decided on the review shown again: the reason goes with
    /// the authorization, once.
    pub(super) fn take_review_again(&mut self) -> Option<ReviewAgain> {
        self.review_again.take()
    }

    // ----- choices and edits --------------------------------------------------

    /// The instance the person chose for an ambiguous call.
    pub(super) fn choice(&self, call: &CallId) -> Option<&ParticipantId> {
        self.choices.get(call)
    }

    /// The person chose `participant` for `call`.
    pub(super) fn choose(&mut self, call: CallId, participant: ParticipantId) {
        self.choices.insert(call, participant);
    }

    /// The person changed `call`'s arguments in review.
    pub(super) fn mark_edited(&mut self, call: CallId) {
        self.edited.insert(call);
    }

    /// Whether the person changed `call`'s arguments.
    pub(super) fn is_edited(&self, call: &CallId) -> bool {
        self.edited.contains(call)
    }
}
