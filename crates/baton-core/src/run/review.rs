//! The review step (AG-31): what the person sees before authorizing — for
//! each planned act, the participant's concrete proposed change in the
//! application's own domain (its preview), or the structured arguments when
//! it renders none. Never a prose summary in place of the change.
//!
//! Approve with edits: the person changes a planned call's arguments in
//! review. The edit is refused as a proposed call's arguments would be
//! (AG-15, AG-16), journalled as the person's act (a new revision, so an
//! authorization of what was shown before is refused by the fence), and
//! previewed again (AG-31); the call then runs with the edited arguments,
//! and the acting party hears, with its result, what the person set.

use crate::context::{ReadRef, ReadStamp};
use crate::error::CommandError;
use crate::event::Effect;
use crate::ids::{CallId, CapabilityRef, RunId};
use crate::journal::{Actor, JournalEntry, Refusal};
use crate::journal::{CallReport, CallResult};
use crate::model::Autonomy;
use crate::registry::{Address, Registry};
use crate::run::{ProposedCall, Run, Step};
use crate::state::RunState;
use baton_schema::digest::Digest;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The concrete change one planned act would make.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum ProposedChange {
    /// The participant was asked for its preview and has not answered yet;
    /// the plan cannot be authorized until it has.
    Pending,
    /// The participant's own rendering of the change (a diff, the new
    /// values), in the application's domain.
    Preview {
        /// What the participant returned.
        value: Value,
    },
    /// The structured arguments, for a participant that renders no preview
    /// or whose preview failed (`note` says why).
    Arguments {
        /// The arguments exactly as the act would receive them.
        arguments: Value,
        /// Why no preview is shown, if one was expected.
        note: Option<String>,
    },
}

/// One planned act under review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ReviewItem {
    /// The call.
    pub call: CallId,
    /// Its capability as the acting party addressed it.
    pub capability: CapabilityRef,
    /// Its arguments, exactly as the act would receive them: what the
    /// person edits (approve with edits).
    pub arguments: Value,
    /// The participant's label, for people.
    pub participant_label: Option<String>,
    /// Whether the act has an irreversible effect (AG-18, AG-25).
    pub irreversible: bool,
    /// The change.
    pub change: ProposedChange,
    /// Set when a read this act was planned against has changed since —
    /// the person's own edit, say: the plan is superseded, and authorizing
    /// it has this act refused as stale and planned again by the acting
    /// party against the read as it is now (AG-20, A.2).
    pub stale: Option<StaleRead>,
    /// The person changed its arguments (approve with edits).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub edited: bool,
    /// The subagents the acting party proposes it through, outermost first
    /// (empty: the acting party itself).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<String>,
    /// Its participant's maturity tier (AG-17), when the capability names
    /// one participant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub tier: Option<crate::manifest::Tier>,
}

/// A read an act under review was planned against, and how it moved since.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct StaleRead {
    /// The read.
    pub read: ReadRef,
    /// The version the acting party planned against.
    pub planned: Option<u64>,
    /// The version now, if it is still published.
    pub current: Option<u64>,
}

/// Why a plan the person already approved is before them once more.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum ReviewAgain {
    /// Reads the plan depends on changed — a person's own edit, say — and
    /// the concrete changes are no longer the ones approved (AG-29).
    Drift {
        /// The reads that changed.
        reads: Vec<ReadRef>,
    },
    /// The authorization's time to live ran out (AG-29).
    AuthorizationExpired,
    /// The plan was waiting for the person's review when a reload cut its
    /// run off; this chained run puts it before them again (AG-11).
    CutOff {
        /// The run the reload cut off.
        run: RunId,
    },
}

/// Everything the person reviews before authorizing a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ReviewSheet {
    /// The run.
    pub run: RunId,
    /// The revision to authorize at (the fence).
    pub revision: u64,
    /// The person's intent.
    pub intent: String,
    /// The run-level autonomy.
    pub autonomy: Autonomy,
    /// The fingerprint of the reads the plan was computed on (AG-29).
    pub fingerprint: Digest,
    /// Whether the reads the plan was made with hold content from outside
    /// the author, which lowered the ceiling one step (the origin clamp,
    /// AG-28).
    #[serde(default)]
    pub clamped: bool,
    /// The planned acts, in order.
    pub items: Vec<ReviewItem>,
    /// Whether every preview has arrived.
    pub ready: bool,
    /// Set when the person approved this plan before and must look again:
    /// what changed since. A surface says so, so the new review is not
    /// mistaken for the old one.
    pub again: Option<ReviewAgain>,
}

impl Run {
    /// → reviewing, asking every participant that renders previews for its
    /// rendering of each planned act.
    pub(super) fn enter_review(&mut self, step: &mut Step<'_>, actor: Actor) {
        self.transition(step, actor, RunState::Reviewing);
        self.approval.clear_previews();
        let queued: Vec<_> = self.turns.queue().iter().cloned().collect();
        for call in queued {
            let change = self.ask_preview(step, &call);
            self.approval.set_preview(call.call, change);
        }
    }

    /// A later call escalated for the person's approval (out of scope, or
    /// its capability needs review): the person must see its concrete change
    /// before allowing it, exactly as for a plan (AG-31). The pending call's
    /// participant is asked for its preview.
    pub(super) fn review_escalated_call(&mut self, step: &mut Step<'_>) {
        self.approval.clear_previews();
        if let Some(call) = self.turns.queue().front().cloned() {
            let change = self.ask_preview(step, &call);
            self.approval.set_preview(call.call, change);
        }
    }

    /// What the review shows for one call: its participant's preview, asked
    /// for now when it renders them, or the structured arguments.
    pub(super) fn ask_preview(
        &mut self,
        step: &mut Step<'_>,
        call: &ProposedCall,
    ) -> ProposedChange {
        match step.registry.resolve(&call.capability) {
            Address::Unique(target, _) => {
                let renders = step
                    .registry
                    .get(&target.participant)
                    .is_some_and(|mounted| mounted.manifest.has_preview());
                if renders {
                    self.approval
                        .set_previews_due(Some(step.now.saturating_add(step.config.preview_timeout_ms)));
                    Self::emit(
                        step,
                        Effect::Preview {
                            run: self.id.clone(),
                            call: call.call.clone(),
                            capability: target,
                            arguments: call.arguments.clone(),
                        },
                    );
                    ProposedChange::Pending
                } else {
                    ProposedChange::Arguments {
                        arguments: call.arguments.clone(),
                        note: None,
                    }
                }
            }
            Address::Ambiguous(_) => ProposedChange::Arguments {
                arguments: call.arguments.clone(),
                note: Some("several instances of this participant are mounted; the person will be asked which one".into()),
            },
            Address::Unknown => ProposedChange::Arguments {
                arguments: call.arguments.clone(),
                note: Some("no mounted participant declares this capability; it will be refused".into()),
            },
            Address::Refused(_) => ProposedChange::Arguments {
                arguments: call.arguments.clone(),
                note: Some("this participant's manifest was refused at registration; the call will be refused".into()),
            },
        }
    }

    /// Whether the person is looking at calls to approve: a plan under
    /// review, or a later call escalated for approval.
    fn is_under_review(&self) -> bool {
        match self.custody.state() {
            RunState::Reviewing => true,
            RunState::Escalated { reason } => reason.awaits_approval_of_a_call(),
            _ => false,
        }
    }

    /// How many of the queued calls are before the person: the whole plan
    /// under review, or the one call an escalation asks them to allow.
    pub(super) fn calls_shown(&self) -> usize {
        match self.custody.state() {
            RunState::Reviewing => self.turns.queue().len(),
            _ if self.is_under_review() => self.turns.queue().len().min(1),
            _ => 0,
        }
    }

    pub(crate) fn is_awaiting_preview(&self, call: &CallId) -> bool {
        (self.is_under_review() && self.approval.preview(call) == Some(&ProposedChange::Pending))
            || self.is_rechecking(call)
    }

    /// When the previews still awaited are due, if any is awaited.
    pub(super) fn previews_due(&self) -> Option<u64> {
        let awaited = self.approval.awaits_preview()
            || self
                .approval
                .recheck()
                .is_some_and(|recheck| recheck.is_pending());
        self.approval
            .previews_due()
            .filter(|_| awaited && !self.custody.is_terminal())
    }

    /// A preview that hangs is a failed preview once it is due: the review
    /// shows the call's arguments and says the preview did not arrive, and
    /// after drift it never counts as the change the person approved.
    pub(super) fn expire_previews(&mut self, step: &mut Step<'_>) {
        if self.previews_due().is_none_or(|due| step.now < due) {
            return;
        }
        self.approval.set_previews_due(None);
        let mut awaited = self.pending_previews();
        awaited.extend(
            self.approval
                .recheck()
                .into_iter()
                .flat_map(|recheck| recheck.pending_calls()),
        );
        let seconds = step.config.preview_timeout_ms.div_ceil(1000);
        for call in awaited {
            self.preview_result(
                step,
                call,
                Err(format!("it did not arrive within {seconds} s")),
            );
        }
    }

    pub(super) fn pending_previews(&self) -> Vec<CallId> {
        self.approval.pending_previews()
    }

    /// A participant's preview arrived (or failed). Recorded, so the
    /// revision the person authorizes at covers what they saw.
    pub(crate) fn preview_result(
        &mut self,
        step: &mut Step<'_>,
        call: CallId,
        result: Result<Value, String>,
    ) {
        let Some(planned) = self.turns.queue().iter().find(|c| c.call == call) else {
            return;
        };
        let arguments = planned.arguments.clone();
        let participant = planned.capability.participant.clone();
        if self.is_rechecking(&call) {
            self.recheck_result(step, call, result, participant);
            return;
        }
        let (change, error) = match result {
            Ok(value) => (ProposedChange::Preview { value }, None),
            Err(message) => (
                ProposedChange::Arguments {
                    arguments,
                    note: Some(format!("the preview failed: {message}")),
                },
                Some(message),
            ),
        };
        self.approval.set_preview(call.clone(), change);
        self.record(
            step,
            Actor::Participant { participant },
            JournalEntry::PreviewRendered { call, error },
        );
    }

    /// Whether a newly published read supersedes the plan under review: an
    /// act shown for review was planned against another version of it.
    pub(crate) fn superseded_by(&self, registry: &Registry, stamp: &ReadStamp) -> bool {
        if !self.is_under_review() || self.turns.seen().get(&stamp.read) == Some(stamp) {
            return false;
        }
        self.turns
            .queue()
            .iter()
            .any(|call| match registry.resolve(&call.capability) {
                Address::Unique(target, decl) => {
                    target.participant == stamp.read.participant
                        && decl.reads().contains(&stamp.read.read)
                }
                _ => false,
            })
    }

    /// A read the plan under review depends on changed underneath it. The
    /// record moves the revision, so an authorization of what was shown
    /// before is refused by the fence, and surfaces render the sheet again,
    /// its acts now marked stale (A.2, AG-20). The previews are rendered
    /// again too: the person sees what the change would do now.
    pub(crate) fn supersede_review(&mut self, step: &mut Step<'_>, read: ReadRef) {
        self.record(step, Actor::Engine, JournalEntry::ReviewSuperseded { read });
        let shown: Vec<ProposedCall> = self
            .turns
            .queue()
            .iter()
            .take(self.calls_shown())
            .cloned()
            .collect();
        for call in shown {
            let change = self.ask_preview(step, &call);
            self.approval.set_preview(call.call, change);
        }
    }

    /// The review sheet, while the run is under review: every planned act,
    /// or, for a later call escalated for approval, that call alone.
    pub(crate) fn review_sheet(
        &self,
        registry: &Registry,
        reads: &BTreeMap<ReadRef, ReadStamp>,
    ) -> Option<ReviewSheet> {
        if !self.is_under_review() {
            return None;
        }
        let shown = self.calls_shown();
        let items: Vec<ReviewItem> = self
            .turns
            .queue()
            .iter()
            .take(shown)
            .map(|call| {
                let (mounted, irreversible, stale) = match registry.resolve(&call.capability) {
                    Address::Unique(target, decl) => (
                        registry.get(&target.participant),
                        decl.is_irreversible(),
                        self.stale_against(reads, &target, decl),
                    ),
                    _ => (None, false, None),
                };
                let label = mounted.map(|mounted| mounted.manifest.label().to_owned());
                let tier = mounted.map(|mounted| mounted.manifest.tier());
                let stale = match stale {
                    Some(Refusal::Stale {
                        read,
                        planned,
                        current,
                    }) => Some(StaleRead {
                        read,
                        planned,
                        current,
                    }),
                    _ => None,
                };
                ReviewItem {
                    call: call.call.clone(),
                    capability: call.capability.clone(),
                    arguments: call.arguments.clone(),
                    participant_label: label,
                    irreversible,
                    stale,
                    edited: self.approval.is_edited(&call.call),
                    via: call.via.clone(),
                    tier,
                    change: self.approval.preview(&call.call).cloned().unwrap_or(
                        ProposedChange::Arguments {
                            arguments: call.arguments.clone(),
                            note: None,
                        },
                    ),
                }
            })
            .collect();
        Some(ReviewSheet {
            run: self.id.clone(),
            revision: self.custody.revision(),
            intent: self.intent.clone(),
            autonomy: self.autonomy,
            fingerprint: crate::run::binding::fingerprint(self.turns.seen()),
            clamped: self.untrusted_context(),
            ready: items
                .iter()
                .all(|item| item.change != ProposedChange::Pending),
            items,
            again: self.approval.review_again().cloned(),
        })
    }
}

// ----- edits under review -------------------------------------------------------

impl Run {
    /// Replaces the arguments of `call`, which the person is reviewing.
    pub(crate) fn edit_call(
        &mut self,
        step: &mut Step<'_>,
        call: &CallId,
        arguments: Value,
    ) -> Result<(), CommandError> {
        let not_under_review = || CommandError::NotUnderReview {
            run: self.id.clone(),
            call: call.clone(),
        };
        let position = self
            .turns
            .queue()
            .iter()
            .take(self.calls_shown())
            .position(|c| &c.call == call)
            .ok_or_else(not_under_review)?;
        let planned = &self.turns.queue()[position];
        let Address::Unique(_, decl) = step.registry.resolve(&planned.capability) else {
            return Err(not_under_review());
        };
        decl.check_arguments(&arguments)
            .map_err(|errors| CommandError::InvalidEdit {
                run: self.id.clone(),
                call: call.clone(),
                errors,
            })?;
        let Some(edited) = self.turns.edit(call, &arguments) else {
            return Err(not_under_review());
        };
        self.approval.mark_edited(call.clone());
        self.record(
            step,
            Actor::Person,
            JournalEntry::CallEdited {
                call: call.clone(),
                arguments,
            },
        );
        let change = self.ask_preview(step, &edited);
        self.approval.set_preview(call.clone(), change);
        Ok(())
    }

    /// What the acting party hears of a call: its result and, when the
    /// person edited it, the arguments it ran with.
    pub(super) fn report_of(&self, call: ProposedCall, result: CallResult) -> CallReport {
        let edited = self
            .approval
            .is_edited(&call.call)
            .then(|| call.arguments.clone());
        CallReport {
            call: call.call,
            capability: call.capability,
            result,
            edited,
        }
    }
}
