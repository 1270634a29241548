//! Approve with edits: the person changes a planned call's arguments in
//! review. The edit is refused as a proposed call's arguments would be
//! (AG-15, AG-16), journalled as the person's act (a new revision, so an
//! authorization of what was shown before is refused by the fence), and
//! previewed again (AG-31); the call then runs with the edited arguments,
//! and the acting party hears, with its result, what the person set.

use serde_json::Value;

use crate::error::CommandError;
use crate::ids::CallId;
use crate::journal::{Actor, CallReport, CallResult, JournalEntry};
use crate::registry::Address;
use crate::run::{ProposedCall, Run, Step};

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
