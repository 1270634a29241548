//! What the person hears, decided here (AG-37, AG-39); hosts only put it
//! into words and write it to the page's one live region (AG-36).
//!
//! The rules:
//! * one announcement per plan, when it starts acting — never per act or
//!   per delta, and never again when a run re-enters `acting` after an
//!   escalation or a re-review;
//! * one per later batch of calls an acting party proposes in a turn;
//! * one when a run needs the person (an escalation);
//! * one that closes the run and names its outcome in plain terms —
//!   including a run whose acting party only replied ("answered without
//!   changes"), which is not the same as having changed things;
//! * what the person does (stop, reject, undo, a kill) is said as the
//!   person's act, never attributed to the acting party;
//! * a kill that ends several runs is one announcement for all of them.
//!
//! An announcement carries structured parts — who, what, how many, where,
//! how it ended and why — and no text.

use serde::{Deserialize, Serialize};

use crate::ids::{ParticipantId, RunId};
use crate::registry::Registry;
use crate::state::EscalationReason;

/// Something the person should hear.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Announcement {
    /// Whose act it reports.
    pub speaker: Speaker,
    /// The runs it is about: one, or every run a kill ended.
    pub runs: Vec<RunId>,
    /// What happened.
    pub said: Said,
}

impl Announcement {
    /// Whether it reports that runs ended: a host says it only once the step
    /// that ended them is stored, so nothing is announced that a reload
    /// could take back.
    pub fn closes(&self) -> bool {
        matches!(self.said, Said::Closed { .. } | Said::Killed { .. })
    }
}

/// Whose act an announcement reports (AG-37: announcements are attributed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Speaker {
    /// The acting party (an agent, a macro, a rule).
    ActingParty,
    /// The person.
    Person,
}

/// What an announcement reports, tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Said {
    /// A plan, or a later batch of calls, starts changing things.
    Acting {
        /// The person's intent.
        intent: String,
        /// How many changes the plan or batch proposes.
        changes: u32,
        /// The labels of the participants it changes, in order.
        participants: Vec<String>,
        /// Whether this is a later batch, not the reviewed plan.
        later: bool,
        /// The subagents the acting party acts through, outermost first,
        /// when every change of the batch is made through the same ones
        /// (the announcement names the innermost, for the acting party).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        via: Vec<String>,
    },
    /// The run waits for the person.
    NeedsYou {
        /// The person's intent.
        intent: String,
        /// Why.
        reason: EscalationReason,
    },
    /// The run ended.
    Closed {
        /// The person's intent.
        intent: String,
        /// How, in plain terms.
        ending: Ending,
        /// The typed reason's code (`call-failed`, `turn-deadman`, …).
        reason: String,
        /// How many of its calls were refused on the way.
        #[serde(default, skip_serializing_if = "crate::state::is_zero")]
        #[cfg_attr(feature = "typescript", ts(as = "Option<u32>", optional))]
        refused: u32,
    },
    /// The person ended several runs at once (a kill, AG-10).
    Killed {
        /// How many.
        count: u32,
    },
    /// An undo the person asked for was held back (A.2): participants the
    /// run changed were changed since, by the person or by other runs.
    UndoHeld {
        /// The person's intent.
        intent: String,
        /// The labels of the participants the person changed since.
        changed_by_you: Vec<String>,
        /// The labels of the participants other runs changed since.
        changed_by_runs: Vec<String>,
    },
    /// The person undid a whole delegation (A.2).
    Undone {
        /// The person's intent.
        intent: String,
        /// The labels of the participants reverted.
        reverted: Vec<String>,
        /// The labels of the participants whose revert failed.
        failed: Vec<String>,
    },
}

/// How a run ended, in the terms a person uses (AG-39).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// The acting party finished, having changed things.
    Done,
    /// The acting party only replied: nothing was changed.
    AnsweredWithoutChanges,
    /// It stopped part-way; what was done is kept (AG-8).
    PartlyDone,
    /// It failed and every change was reverted.
    RolledBack,
    /// The person took control back (AG-9).
    Stopped,
    /// The person paused it; it can be resumed (AG-11).
    Paused,
    /// The person rejected the plan.
    Rejected,
    /// A reload or crash cut it off.
    Interrupted,
    /// It failed, and what it changed could not all be reverted, or it
    /// failed before changing anything.
    Failed,
}

/// The one announcement of a kill that ended `runs` here and `elsewhere`
/// more in other engines (AG-10, AG-37).
pub(crate) fn killed(runs: Vec<RunId>, elsewhere: u32) -> Announcement {
    let here = u32::try_from(runs.len()).unwrap_or(u32::MAX);
    Announcement {
        speaker: Speaker::Person,
        said: Said::Killed {
            count: here.saturating_add(elsewhere),
        },
        runs,
    }
}

/// A participant's label, for people; its id when it is not mounted.
pub(crate) fn label(registry: &Registry, participant: &ParticipantId) -> String {
    registry.get(participant).map_or_else(
        || participant.to_string(),
        |mounted| mounted.manifest.label().to_owned(),
    )
}

/// The `kind` a reason is tagged with on the wire.
pub(crate) fn code_of<T: Serialize>(reason: &T) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|value| value.get("kind")?.as_str().map(str::to_owned))
        .unwrap_or_default()
}
