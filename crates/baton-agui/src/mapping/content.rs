//! Content: text messages, tool calls and their results, and the agent's
//! state (snapshots, and deltas applied as JSON Patch).

use crate::violation::broke;
use crate::{ProtocolViolation, Violation};
use baton_core::{Direction, WireEvent};
use serde_json::Value;

use super::{optional_text, text, AgUiMapper};

impl AgUiMapper {
    /// `TEXT_MESSAGE_START` / `_CONTENT` / `_END`, paired by id.
    pub(super) fn text_message(
        &mut self,
        kind: &str,
        event: &Value,
    ) -> Result<Vec<WireEvent>, Violation> {
        Ok(match kind {
            "TEXT_MESSAGE_START" => {
                let id = text(event, "messageId")?.to_owned();
                if !self.text.insert(id.clone()) {
                    return Err(broke(
                        ProtocolViolation::AlreadyOpen,
                        format!("TEXT_MESSAGE_START for `{id}`, which is already in progress"),
                    ));
                }
                vec![WireEvent::MessageStart {
                    message: id,
                    role: optional_text(event, "role")?.map(str::to_owned),
                }]
            }
            "TEXT_MESSAGE_CONTENT" => {
                let id = text(event, "messageId")?.to_owned();
                if !self.text.contains(&id) {
                    return Err(broke(
                        ProtocolViolation::NotOpen,
                        format!("TEXT_MESSAGE_CONTENT for `{id}`, which is not active"),
                    ));
                }
                vec![WireEvent::MessageDelta {
                    message: id,
                    delta: text(event, "delta")?.to_owned(),
                }]
            }
            _ => {
                let id = text(event, "messageId")?.to_owned();
                if !self.text.remove(&id) {
                    return Err(broke(
                        ProtocolViolation::NotOpen,
                        format!("TEXT_MESSAGE_END for `{id}`, which is not active"),
                    ));
                }
                vec![WireEvent::MessageEnd { message: id }]
            }
        })
    }

    /// `TOOL_CALL_START` / `_ARGS` / `_END`, paired by id; `_RESULT`.
    pub(super) fn tool_call(
        &mut self,
        kind: &str,
        event: &Value,
    ) -> Result<Vec<WireEvent>, Violation> {
        Ok(match kind {
            "TOOL_CALL_START" => {
                let id = text(event, "toolCallId")?.to_owned();
                let tool = crate::input::baton_name(text(event, "toolCallName")?);
                if !self.tools.insert(id.clone()) {
                    return Err(broke(
                        ProtocolViolation::AlreadyOpen,
                        format!("TOOL_CALL_START for `{id}`, which is already in progress"),
                    ));
                }
                vec![WireEvent::ToolCallStart {
                    call: id,
                    tool,
                    parent_message: optional_text(event, "parentMessageId")?.map(str::to_owned),
                    via: self.chain(event),
                }]
            }
            "TOOL_CALL_ARGS" => {
                let id = text(event, "toolCallId")?.to_owned();
                if !self.tools.contains(&id) {
                    return Err(broke(
                        ProtocolViolation::NotOpen,
                        format!("TOOL_CALL_ARGS for `{id}`, which is not active"),
                    ));
                }
                vec![WireEvent::ToolCallArgs {
                    call: id,
                    delta: text(event, "delta")?.to_owned(),
                }]
            }
            "TOOL_CALL_END" => {
                let id = text(event, "toolCallId")?.to_owned();
                if !self.tools.remove(&id) {
                    return Err(broke(
                        ProtocolViolation::NotOpen,
                        format!("TOOL_CALL_END for `{id}`, which is not active"),
                    ));
                }
                vec![WireEvent::ToolCallEnd { call: id }]
            }
            _ => vec![WireEvent::ToolCallResult {
                call: text(event, "toolCallId")?.to_owned(),
                content: event.get("content").cloned().unwrap_or(Value::Null),
            }],
        })
    }

    /// `STATE_SNAPSHOT` replaces the `from-agent` state; `STATE_DELTA` must
    /// apply to it.
    pub(super) fn agent_state(
        &mut self,
        kind: &str,
        event: &Value,
    ) -> Result<Vec<WireEvent>, Violation> {
        Ok(match kind {
            "STATE_SNAPSHOT" => {
                let snapshot = event.get("snapshot").cloned().ok_or_else(|| {
                    broke(
                        ProtocolViolation::NotAnEvent,
                        "STATE_SNAPSHOT without `snapshot`",
                    )
                })?;
                self.state_bytes = baton_core::json_len(&snapshot);
                self.state = snapshot.clone();
                vec![WireEvent::StateSnapshot {
                    direction: Direction::FromAgent,
                    snapshot,
                }]
            }
            _ => {
                let delta = event.get("delta").cloned().ok_or_else(|| {
                    broke(ProtocolViolation::NotAnEvent, "STATE_DELTA without `delta`")
                })?;
                let patched = baton_core::apply_patch_within(
                    &self.state,
                    self.state_bytes,
                    &delta,
                    self.max_state_bytes,
                );
                (self.state, self.state_bytes) = patched.map_err(|error| match error {
                    baton_core::PatchError::NotAPatch(why) => broke(
                        ProtocolViolation::NotAnEvent,
                        format!("STATE_DELTA is not a JSON Patch: {why}"),
                    ),
                    baton_core::PatchError::TooLarge { max_bytes } => broke(
                        ProtocolViolation::OverLimit,
                        format!("STATE_DELTA would grow the state past {max_bytes} bytes"),
                    ),
                    other => broke(
                        ProtocolViolation::NotAnEvent,
                        format!("STATE_DELTA does not apply: {other}"),
                    ),
                })?;
                vec![WireEvent::StateDelta {
                    direction: Direction::FromAgent,
                    patch: delta,
                }]
            }
        })
    }
}
