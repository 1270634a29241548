//! `*_CHUNK` events, expanded into their start/content/end form: each
//! subagent (and the main agent) has one open lane; a chunk with another id,
//! or any other event of that lane, closes it.

use crate::violation::broke;
use crate::{ProtocolViolation, Violation};
use serde_json::{json, Value};

use super::{optional_text, AgUiMapper};

/// Which open chunk lanes to close.
pub(super) enum Lanes {
    /// Every one (a run boundary, or the stream's end).
    All,
    /// The lane of one subagent (`None`: the main agent's).
    Of(Option<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Lane {
    Text { message: String },
    Tool { call: String },
    Reasoning { message: String },
}

impl AgUiMapper {
    pub(super) fn close_lanes(&mut self, which: Lanes) -> Vec<Value> {
        let keys: Vec<Option<String>> = match which {
            Lanes::All => self.lanes.keys().cloned().collect(),
            Lanes::Of(lane) => self
                .lanes
                .contains_key(&lane)
                .then_some(lane)
                .into_iter()
                .collect(),
        };
        keys.into_iter()
            .filter_map(|key| {
                let lane = self.lanes.remove(&key)?;
                let mut event = match lane {
                    Lane::Text { message } => {
                        json!({"type": "TEXT_MESSAGE_END", "messageId": message})
                    }
                    Lane::Tool { call } => json!({"type": "TOOL_CALL_END", "toolCallId": call}),
                    Lane::Reasoning { message } => {
                        json!({"type": "REASONING_MESSAGE_END", "messageId": message})
                    }
                };
                if let Some(subagent) = key {
                    event["subagentRunId"] = json!(subagent);
                }
                Some(event)
            })
            .collect()
    }

    pub(super) fn expand_chunk(
        &mut self,
        kind: &str,
        chunk: &Value,
    ) -> Result<Vec<Value>, Violation> {
        let subagent = chunk
            .get("subagentRunId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let (id_field, start, content, delta_field) = match kind {
            "TEXT_MESSAGE_CHUNK" => (
                "messageId",
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "delta",
            ),
            "TOOL_CALL_CHUNK" => ("toolCallId", "TOOL_CALL_START", "TOOL_CALL_ARGS", "delta"),
            _ => (
                "messageId",
                "REASONING_MESSAGE_START",
                "REASONING_MESSAGE_CONTENT",
                "delta",
            ),
        };
        let id = optional_text(chunk, id_field)?.map(str::to_owned);
        let subagent = self.owner(kind, id.as_deref(), subagent)?;
        let current = self
            .lanes
            .get(&subagent)
            .and_then(|lane| match (lane, kind) {
                (Lane::Text { message }, "TEXT_MESSAGE_CHUNK") => Some(message.clone()),
                (Lane::Tool { call }, "TOOL_CALL_CHUNK") => Some(call.clone()),
                (Lane::Reasoning { message }, "REASONING_MESSAGE_CHUNK") => Some(message.clone()),
                _ => None,
            });
        let mut out = Vec::new();
        let id = match (current, id) {
            (Some(open), None) => open,
            (Some(open), Some(id)) if open == id => open,
            (_, id) => {
                out.extend(self.close_lanes(Lanes::Of(subagent.clone())));
                let id = id.ok_or_else(|| {
                    broke(
                        ProtocolViolation::NotAnEvent,
                        format!("the first {kind} must carry `{id_field}`"),
                    )
                })?;
                let opening = self.open_lane(kind, chunk, &subagent, &id, (id_field, start))?;
                out.push(opening);
                id
            }
        };
        if let Some(delta) = optional_text(chunk, delta_field)? {
            let mut piece = json!({"type": content, id_field: id, delta_field: delta});
            if let Some(lane) = &subagent {
                piece["subagentRunId"] = json!(lane);
            }
            out.push(piece);
        }
        Ok(out)
    }

    /// The lane a chunk of `kind` belongs to, as `@ag-ui/client`'s
    /// `transformChunks` finds it: the lane whose stream has its id open
    /// (a `subagentRunId` naming another is refused), else the lane it
    /// names; without either, the parent agent's open stream of its kind,
    /// else the one lane with one open (two are ambiguous).
    fn owner(
        &self,
        kind: &str,
        id: Option<&str>,
        named: Option<String>,
    ) -> Result<Option<String>, Violation> {
        let of_kind = |lane: &Lane| {
            matches!(
                (lane, kind),
                (Lane::Text { .. }, "TEXT_MESSAGE_CHUNK")
                    | (Lane::Tool { .. }, "TOOL_CALL_CHUNK")
                    | (Lane::Reasoning { .. }, "REASONING_MESSAGE_CHUNK")
            )
        };
        let open_id = |lane: &Lane, id: &str| match lane {
            Lane::Text { message } | Lane::Reasoning { message } => message == id,
            Lane::Tool { call } => call == id,
        };
        if let Some(id) = id {
            let open = self
                .lanes
                .iter()
                .find(|(_, lane)| of_kind(lane) && open_id(lane, id));
            return match open {
                Some((owner, _)) if named.is_some() && named != *owner => Err(broke(
                    ProtocolViolation::NotAnEvent,
                    format!(
                        "{kind} `{id}` names subagent `{}`, not its open stream's `{}`",
                        named.unwrap_or_default(),
                        owner.as_deref().unwrap_or("(the parent agent)")
                    ),
                )),
                Some((owner, _)) => Ok(owner.clone()),
                None => Ok(named),
            };
        }
        if named.is_some() || self.lanes.get(&None).is_some_and(of_kind) {
            return Ok(named);
        }
        let mut open = self.lanes.iter().filter(|(_, lane)| of_kind(lane));
        match (open.next(), open.next()) {
            (Some((owner, _)), None) => Ok(owner.clone()),
            (Some(_), Some(_)) => Err(broke(
                ProtocolViolation::NotAnEvent,
                format!("{kind} without an id or a subagent, with more than one open stream"),
            )),
            _ => Ok(None),
        }
    }

    /// Opens the lane of `subagent` for a chunk of `kind` with id `id`: the
    /// start event it stands for.
    fn open_lane(
        &mut self,
        kind: &str,
        chunk: &Value,
        subagent: &Option<String>,
        id: &str,
        (id_field, start): (&str, &str),
    ) -> Result<Value, Violation> {
        let mut opening = json!({"type": start, id_field: id});
        match kind {
            "TOOL_CALL_CHUNK" => {
                let name = optional_text(chunk, "toolCallName")?.ok_or_else(|| {
                    broke(
                        ProtocolViolation::NotAnEvent,
                        "the first TOOL_CALL_CHUNK must carry `toolCallName`",
                    )
                })?;
                opening["toolCallName"] = json!(name);
                if let Some(parent) = optional_text(chunk, "parentMessageId")? {
                    opening["parentMessageId"] = json!(parent);
                }
                self.lanes.insert(
                    subagent.clone(),
                    Lane::Tool {
                        call: id.to_owned(),
                    },
                );
            }
            "TEXT_MESSAGE_CHUNK" => {
                opening["role"] = json!(optional_text(chunk, "role")?.unwrap_or("assistant"));
                self.lanes.insert(
                    subagent.clone(),
                    Lane::Text {
                        message: id.to_owned(),
                    },
                );
            }
            _ => {
                opening["role"] = json!("reasoning");
                self.lanes.insert(
                    subagent.clone(),
                    Lane::Reasoning {
                        message: id.to_owned(),
                    },
                );
            }
        }
        if let Some(lane) = &subagent {
            opening["subagentRunId"] = json!(lane);
        }
        Ok(opening)
    }
}
