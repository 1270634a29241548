//! What Baton passes through as `custom{"ag-ui/<TYPE>"}` but still checks:
//! steps, reasoning and subagents, each paired by id. Each check here
//! passes or names the rule broken; the event itself goes through whole.

use crate::violation::broke;
use crate::{ProtocolViolation, Violation};
use baton_core::WireEvent;
use serde_json::Value;

use super::{kind, optional_text, text, AgUiMapper};

impl AgUiMapper {
    /// `STEP_STARTED` / `STEP_FINISHED`, paired by name within a subagent.
    pub(super) fn step(
        &mut self,
        kind: &str,
        event: &Value,
        subagent: Option<String>,
    ) -> Result<(), Violation> {
        if kind == "STEP_STARTED" {
            let step = (subagent, text(event, "stepName")?.to_owned());
            if !self.steps.insert(step.clone()) {
                return Err(broke(
                    ProtocolViolation::AlreadyOpen,
                    format!("STEP_STARTED for `{}`, which is already active", step.1),
                ));
            }
            Ok(())
        } else {
            let step = (subagent, text(event, "stepName")?.to_owned());
            if !self.steps.remove(&step) {
                return Err(broke(
                    ProtocolViolation::NotOpen,
                    format!("STEP_FINISHED for `{}`, which was not started", step.1),
                ));
            }
            Ok(())
        }
    }

    /// `REASONING_*`: spans and messages, paired by id.
    pub(super) fn reasoning(&mut self, kind: &str, event: &Value) -> Result<(), Violation> {
        if kind == "REASONING_START" || kind == "REASONING_MESSAGE_START" {
            let id = text(event, "messageId")?.to_owned();
            let set = if kind == "REASONING_START" {
                &mut self.reasoning_spans
            } else {
                &mut self.reasoning_messages
            };
            if !set.insert(id.clone()) {
                return Err(broke(
                    ProtocolViolation::AlreadyOpen,
                    format!("{kind} for `{id}`, which is already in progress"),
                ));
            }
            Ok(())
        } else {
            let id = text(event, "messageId")?.to_owned();
            let set = if kind == "REASONING_END" {
                &mut self.reasoning_spans
            } else {
                &mut self.reasoning_messages
            };
            let known = if kind == "REASONING_MESSAGE_CONTENT" {
                set.contains(&id)
            } else {
                set.remove(&id)
            };
            if !known {
                return Err(broke(
                    ProtocolViolation::NotOpen,
                    format!("{kind} for `{id}`, which is not active"),
                ));
            }
            Ok(())
        }
    }

    /// `SUBAGENT_*`: started once, under a known parent; finished or
    /// failed once.
    pub(super) fn subagent(&mut self, kind: &str, event: &Value) -> Result<(), Violation> {
        if kind == "SUBAGENT_STARTED" {
            let id = text(event, "subagentRunId")?.to_owned();
            text(event, "name")?;
            if self.subagents_active.contains(&id) || self.subagents_done.contains(&id) {
                return Err(broke(
                    ProtocolViolation::AlreadyOpen,
                    format!("SUBAGENT_STARTED for `{id}`, which was already started"),
                ));
            }
            if let Some(parent) = optional_text(event, "parentSubagentRunId")? {
                if !self.subagents_active.contains(parent) && !self.subagents_done.contains(parent)
                {
                    return Err(broke(
                        ProtocolViolation::NotOpen,
                        format!("SUBAGENT_STARTED under `{parent}`, which was never started"),
                    ));
                }
            }
            let name = text(event, "name")?.to_owned();
            let parent = optional_text(event, "parentSubagentRunId")?.map(str::to_owned);
            self.subagents.push((id.clone(), name, parent));
            self.subagents_active.insert(id);
            Ok(())
        } else {
            let id = text(event, "subagentRunId")?.to_owned();
            if kind == "SUBAGENT_ERROR" {
                text(event, "message")?;
            }
            if !self.subagents_active.remove(&id) {
                return Err(broke(
                    ProtocolViolation::NotOpen,
                    format!("{kind} for `{id}`, which is not active"),
                ));
            }
            self.subagents_done.insert(id);
            Ok(())
        }
    }
}

/// An AG-UI event passed through whole, as `custom{"ag-ui/<TYPE>"}`.
pub(super) fn escape(event: &Value) -> WireEvent {
    WireEvent::Custom {
        name: format!("ag-ui/{}", kind(event)),
        value: event.clone(),
    }
}
