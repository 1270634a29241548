//! Which announcement a step of a run calls for: the rules are listed in
//! [`crate::announce`], which holds what is said; this is when.

use crate::announce::{code_of, label, Announcement, Ending, Said, Speaker};
use crate::event::Event;
use crate::ids::ParticipantId;
use crate::journal::Actor;
use crate::registry::{Address, Registry};
use crate::state::{CancelReason, Outcome, ReturnReason, RunState};

use super::{ProposedCall, Run, Step};

impl Run {
    /// The announcement a transition calls for, if any.
    pub(super) fn announce_transition(
        &mut self,
        step: &mut Step<'_>,
        actor: &Actor,
        to: &RunState,
    ) {
        // The plan's start is said once, the first time the run acts.
        let first_plan = match to {
            RunState::Acting => self.turns.announce_plan(),
            _ => None,
        };
        let said = match first_plan {
            Some(plan) => self.acting(step.registry, &plan, false),
            None => match to {
                RunState::Escalated { reason } => Said::NeedsYou {
                    intent: self.intent.clone(),
                    reason: reason.clone(),
                },
                RunState::Returned {
                    outcome,
                    reason,
                    refused,
                } if !step.hush_closings => Said::Closed {
                    intent: self.intent.clone(),
                    ending: self.ending(*outcome, reason),
                    reason: code_of(reason),
                    refused: *refused,
                },
                RunState::Cancelled { reason } if !step.hush_closings => Said::Closed {
                    intent: self.intent.clone(),
                    ending: match reason {
                        CancelReason::Rejected { .. } => Ending::Rejected,
                        CancelReason::NoPlan => Ending::AnsweredWithoutChanges,
                    },
                    reason: code_of(reason),
                    refused: 0,
                },
                _ => return,
            },
        };
        // Who acts is the acting party, whoever authorized it; a run ends
        // as the person's act only when the person ended it.
        let speaker = match (&said, actor) {
            (Said::Closed { .. }, Actor::Person) => Speaker::Person,
            _ => Speaker::ActingParty,
        };
        self.announce(step, speaker, said);
    }

    /// A later turn proposed more calls while acting: one announcement for
    /// the batch.
    pub(super) fn announce_batch(&mut self, step: &mut Step<'_>, calls: &[ProposedCall]) {
        let said = self.acting(step.registry, calls, true);
        self.announce(step, Speaker::ActingParty, said);
    }

    /// The person's undo finished (A.2).
    pub(super) fn announce_undone(
        &mut self,
        step: &mut Step<'_>,
        reverted: &[ParticipantId],
        failed: &[ParticipantId],
    ) {
        let labels =
            |ids: &[ParticipantId]| ids.iter().map(|id| label(step.registry, id)).collect();
        let said = Said::Undone {
            intent: self.intent.clone(),
            reverted: labels(reverted),
            failed: labels(failed),
        };
        self.announce(step, Speaker::Person, said);
    }

    pub(super) fn announce_undo_held(
        &mut self,
        step: &mut Step<'_>,
        conflicts: &[crate::UndoConflict],
    ) {
        let labels = |person: bool| {
            conflicts
                .iter()
                .filter(|c| matches!(c.changed_by, crate::ChangedBy::Person) == person)
                .map(|c| label(step.registry, &c.participant))
                .collect()
        };
        let said = Said::UndoHeld {
            intent: self.intent.clone(),
            changed_by_you: labels(true),
            changed_by_runs: labels(false),
        };
        self.announce(step, Speaker::Person, said);
    }

    fn announce(&self, step: &mut Step<'_>, speaker: Speaker, said: Said) {
        step.events.push_back(Event::Announcement(Announcement {
            speaker,
            runs: vec![self.id.clone()],
            said,
        }));
    }

    fn acting(&self, registry: &Registry, calls: &[ProposedCall], later: bool) -> Said {
        let mut participants: Vec<String> = Vec::new();
        for call in calls {
            let participant = match registry.resolve(&call.capability) {
                Address::Unique(target, _) => target.participant,
                _ => call.capability.participant.clone(),
            };
            let name = label(registry, &participant);
            if !participants.contains(&name) {
                participants.push(name);
            }
        }
        // Who acts is a chain: said when the whole batch comes through
        // the same subagents.
        let via = match calls.split_first() {
            Some((first, rest)) if rest.iter().all(|call| call.via == first.via) => {
                first.via.clone()
            }
            _ => Vec::new(),
        };
        Said::Acting {
            intent: self.intent.clone(),
            changes: u32::try_from(calls.len()).unwrap_or(u32::MAX),
            participants,
            later,
            via,
        }
    }

    fn ending(&self, outcome: Outcome, reason: &ReturnReason) -> Ending {
        match (outcome, reason) {
            (Outcome::Completed, _) if self.touched().is_empty() => Ending::AnsweredWithoutChanges,
            (Outcome::Completed, _) => Ending::Done,
            (Outcome::Partial, _) => Ending::PartlyDone,
            (Outcome::RolledBack, _) => Ending::RolledBack,
            (Outcome::Aborted, ReturnReason::Paused) => Ending::Paused,
            (Outcome::Aborted, ReturnReason::ReviewRejected { .. }) => Ending::Rejected,
            (Outcome::Aborted, ReturnReason::Interrupted) => Ending::Interrupted,
            (Outcome::Aborted, _) => Ending::Stopped,
            (Outcome::Error, _) => Ending::Failed,
        }
    }
}
