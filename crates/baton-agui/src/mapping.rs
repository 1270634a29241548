//! AG-UI 1.0 events → `baton/1` events.
//!
//! The mapper checks each AG-UI event against the rules a conforming AG-UI
//! stream keeps — the same verdicts the reference client's `verifyEvents`
//! reaches — and translates it. `*_CHUNK` events are expanded into their
//! start/content/end form first. One AG-UI run (one POST and its stream) is
//! one Baton turn.
//!
//! | AG-UI 1.0 | `baton/1` |
//! | --- | --- |
//! | `RUN_STARTED` | `turn-started` |
//! | `RUN_FINISHED` (no outcome, `success`) | `turn-finished{completed}` |
//! | `RUN_FINISHED` `interrupt` | one `elicitation` per interrupt (`id` → request, `message`/`reason` → prompt, `responseSchema` → schema, `expiresAt` → `expires_at` in epoch ms), then `turn-finished{interrupted}` |
//! | `RUN_FINISHED` `cancelled` | `turn-finished{cancelled}` |
//! | `RUN_ERROR` | `turn-error` |
//! | `TEXT_MESSAGE_START` / `_CONTENT` / `_END` / `_CHUNK` | `message-start` / `message-delta` / `message-end` |
//! | `TOOL_CALL_START` / `_ARGS` / `_END` / `_CHUNK` | `tool-call-start` / `tool-call-args` / `tool-call-end`; `toolCallName` `tasks__rename` → tool `tasks.rename` |
//! | `TOOL_CALL_RESULT` | `tool-call-result` |
//! | `STATE_SNAPSHOT` | `state-snapshot{from-agent}` |
//! | `STATE_DELTA` (JSON Patch, applied to the `from-agent` state) | `state-delta{from-agent}` |
//! | `CUSTOM` | `custom{name, value}` |
//! | `STEP_*`, `MESSAGES_SNAPSHOT`, `ACTIVITY_*`, `REASONING_*`, `SUBAGENT_*`, `RAW` | `custom{"ag-ui/<TYPE>", event}` |

//!
//! Tool names: on the AG-UI wire a tool is `participant__capability`
//! (`baton_core::CapabilityRef::wire_name`), because AG-UI agents forward
//! frontend tools to model APIs that accept only `^[a-zA-Z0-9_-]{1,64}$`;
//! `RunAgentInput.tools` carries that form and `toolCallName` is mapped
//! back. The mapping is reversible and collision-free: manifests whose ids
//! would make it ambiguous, or whose names would exceed 64 characters, are
//! refused when they are parsed (AG-15).

use std::collections::{BTreeMap, BTreeSet};

use baton_core::{Direction, TurnOutcome, WireEvent};

use crate::Violation;
use serde_json::{json, Value};

/// Where the stream is in the current AG-UI run (not a Baton run's state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RunPhase {
    NotStarted,
    Active,
    Finished,
    Errored,
}

/// Which open chunk lanes to close.
enum Lanes {
    /// Every one (a run boundary, or the stream's end).
    All,
    /// The lane of one subagent (`None`: the main agent's).
    Of(Option<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Lane {
    Text { message: String },
    Tool { call: String },
    Reasoning { message: String },
}

/// The mapper's state across the events of one stream.
#[derive(Debug, Clone)]
pub struct AgUiMapper {
    run: RunPhase,
    first: bool,
    text: BTreeSet<String>,
    tools: BTreeSet<String>,
    steps: BTreeSet<(Option<String>, String)>,
    reasoning_spans: BTreeSet<String>,
    reasoning_messages: BTreeSet<String>,
    subagents_active: BTreeSet<String>,
    subagents_done: BTreeSet<String>,
    lanes: BTreeMap<Option<String>, Lane>,
    state: Value,
    /// The conversation the stream answers, when the caller knows it.
    thread: Option<String>,
}

impl Default for AgUiMapper {
    fn default() -> Self {
        Self::new()
    }
}

fn text<'a>(event: &'a Value, field: &str) -> Result<&'a str, String> {
    event
        .get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("{} without a string `{field}`", kind(event)))
}

fn optional_text<'a>(event: &'a Value, field: &str) -> Result<Option<&'a str>, String> {
    match event.get(field) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(Value::Null) => Err(format!(
            "{} with `{field}: null`; omit the field instead",
            kind(event)
        )),
        Some(_) => Err(format!(
            "{} with a `{field}` that is not a string",
            kind(event)
        )),
    }
}

fn kind(event: &Value) -> String {
    event
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("an event")
        .to_owned()
}

impl AgUiMapper {
    /// A mapper for a new stream.
    pub fn new() -> Self {
        AgUiMapper {
            run: RunPhase::NotStarted,
            first: true,
            text: BTreeSet::new(),
            tools: BTreeSet::new(),
            steps: BTreeSet::new(),
            reasoning_spans: BTreeSet::new(),
            reasoning_messages: BTreeSet::new(),
            subagents_active: BTreeSet::new(),
            subagents_done: BTreeSet::new(),
            lanes: BTreeMap::new(),
            state: Value::Object(Default::default()),
            thread: None,
        }
    }

    /// A mapper for a stream that answers `thread` (the `threadId` the
    /// request sent): a run of any other thread on it is foreign — another
    /// conversation's traffic mixed into this one — and breaks the stream.
    pub fn for_thread(thread: impl Into<String>) -> Self {
        AgUiMapper {
            thread: Some(thread.into()),
            ..AgUiMapper::new()
        }
    }

    fn check_thread(&self, event: &Value) -> Result<(), String> {
        let thread = text(event, "threadId")?;
        match &self.thread {
            Some(expected) if expected != thread => Err(format!(
                "{} of thread `{thread}`, not this conversation's `{expected}`",
                kind(event)
            )),
            _ => Ok(()),
        }
    }

    /// The `from-agent` state as the snapshots and deltas built it.
    pub fn state(&self) -> &Value {
        &self.state
    }

    /// Maps one AG-UI event (the JSON of one SSE `data:` payload). An `Err`
    /// says which rule the stream broke.
    pub fn map(&mut self, event: &Value) -> Result<Vec<WireEvent>, Violation> {
        let Some(kind) = event.get("type").and_then(Value::as_str) else {
            return Err("an event without a string `type`".into());
        };
        let chunk = matches!(
            kind,
            "TEXT_MESSAGE_CHUNK" | "TOOL_CALL_CHUNK" | "REASONING_MESSAGE_CHUNK"
        );
        if self.lanes.is_empty() && !chunk {
            // The common case: nothing to close, nothing to expand, no copy.
            return self.verify_and_map(event).map_err(Violation::from);
        }
        let mut out = Vec::new();
        let expanded = match kind {
            "TEXT_MESSAGE_CHUNK" | "TOOL_CALL_CHUNK" | "REASONING_MESSAGE_CHUNK" => {
                self.expand_chunk(kind, event)?
            }
            "RUN_STARTED" | "RUN_FINISHED" | "RUN_ERROR" | "MESSAGES_SNAPSHOT" => {
                let mut closing = self.close_lanes(Lanes::All);
                closing.push(event.clone());
                closing
            }
            "RAW"
            | "ACTIVITY_SNAPSHOT"
            | "ACTIVITY_DELTA"
            | "REASONING_ENCRYPTED_VALUE"
            | "SUBAGENT_STARTED" => {
                vec![event.clone()]
            }
            _ => {
                let lane = event
                    .get("subagentRunId")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                let mut closing = self.close_lanes(Lanes::Of(lane));
                closing.push(event.clone());
                closing
            }
        };
        for event in expanded {
            out.extend(self.verify_and_map(&event)?);
        }
        Ok(out)
    }

    /// The stream closed: open chunk lanes end (as the reference client does).
    pub fn finish(&mut self) -> Result<Vec<WireEvent>, Violation> {
        let mut out = Vec::new();
        for event in self.close_lanes(Lanes::All) {
            out.extend(self.verify_and_map(&event)?);
        }
        Ok(out)
    }

    fn close_lanes(&mut self, which: Lanes) -> Vec<Value> {
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

    fn expand_chunk(&mut self, kind: &str, chunk: &Value) -> Result<Vec<Value>, String> {
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
                let id = id.ok_or_else(|| format!("the first {kind} must carry `{id_field}`"))?;
                let mut opening = json!({"type": start, id_field: id});
                match kind {
                    "TOOL_CALL_CHUNK" => {
                        let name = optional_text(chunk, "toolCallName")?.ok_or_else(|| {
                            "the first TOOL_CALL_CHUNK must carry `toolCallName`".to_owned()
                        })?;
                        opening["toolCallName"] = json!(name);
                        if let Some(parent) = optional_text(chunk, "parentMessageId")? {
                            opening["parentMessageId"] = json!(parent);
                        }
                        self.lanes
                            .insert(subagent.clone(), Lane::Tool { call: id.clone() });
                    }
                    "TEXT_MESSAGE_CHUNK" => {
                        opening["role"] =
                            json!(optional_text(chunk, "role")?.unwrap_or("assistant"));
                        self.lanes.insert(
                            subagent.clone(),
                            Lane::Text {
                                message: id.clone(),
                            },
                        );
                    }
                    _ => {
                        opening["role"] = json!("reasoning");
                        self.lanes.insert(
                            subagent.clone(),
                            Lane::Reasoning {
                                message: id.clone(),
                            },
                        );
                    }
                }
                if let Some(lane) = &subagent {
                    opening["subagentRunId"] = json!(lane);
                }
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

    fn verify_and_map(&mut self, event: &Value) -> Result<Vec<WireEvent>, String> {
        let kind = kind(event);
        if event.get("subagentRunId") == Some(&Value::Null) {
            return Err(format!(
                "{kind} with `subagentRunId: null`; omit the field instead"
            ));
        }
        match self.run {
            RunPhase::Errored if kind != "RUN_STARTED" => {
                return Err(format!("{kind} after RUN_ERROR"));
            }
            RunPhase::Finished if kind != "RUN_STARTED" && kind != "RUN_ERROR" => {
                return Err(format!("{kind} after RUN_FINISHED"));
            }
            _ => {}
        }
        if self.first {
            self.first = false;
            if kind != "RUN_STARTED" && kind != "RUN_ERROR" {
                return Err(format!("the first event must be RUN_STARTED, not {kind}"));
            }
        }
        let subagent = optional_text(event, "subagentRunId")?.map(str::to_owned);
        Ok(match kind.as_str() {
            "RUN_STARTED" => {
                if self.run == RunPhase::Active {
                    return Err("RUN_STARTED while a run is still active".into());
                }
                self.check_thread(event)?;
                text(event, "runId")?;
                if matches!(self.run, RunPhase::Finished | RunPhase::Errored) {
                    *self = AgUiMapper {
                        first: false,
                        state: std::mem::take(&mut self.state),
                        thread: self.thread.take(),
                        ..AgUiMapper::new()
                    };
                }
                self.run = RunPhase::Active;
                vec![WireEvent::TurnStarted]
            }
            "RUN_FINISHED" => {
                if let Some(open) = self.steps.iter().next() {
                    return Err(format!("RUN_FINISHED while step `{}` is active", open.1));
                }
                if let Some(open) = self.text.iter().next() {
                    return Err(format!(
                        "RUN_FINISHED while text message `{open}` is active"
                    ));
                }
                if let Some(open) = self
                    .reasoning_messages
                    .iter()
                    .chain(&self.reasoning_spans)
                    .next()
                {
                    return Err(format!("RUN_FINISHED while reasoning `{open}` is active"));
                }
                if let Some(open) = self.tools.iter().next() {
                    return Err(format!("RUN_FINISHED while tool call `{open}` is active"));
                }
                if let Some(open) = self.subagents_active.iter().next() {
                    return Err(format!("RUN_FINISHED while subagent `{open}` is active"));
                }
                self.run = RunPhase::Finished;
                self.finished(event)?
            }
            "RUN_ERROR" => {
                self.run = RunPhase::Errored;
                vec![WireEvent::TurnError {
                    message: text(event, "message")?.to_owned(),
                    code: optional_text(event, "code")?.map(str::to_owned),
                }]
            }
            "TEXT_MESSAGE_START" => {
                let id = text(event, "messageId")?.to_owned();
                if !self.text.insert(id.clone()) {
                    return Err(format!(
                        "TEXT_MESSAGE_START for `{id}`, which is already in progress"
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
                    return Err(format!(
                        "TEXT_MESSAGE_CONTENT for `{id}`, which is not active"
                    ));
                }
                vec![WireEvent::MessageDelta {
                    message: id,
                    delta: text(event, "delta")?.to_owned(),
                }]
            }
            "TEXT_MESSAGE_END" => {
                let id = text(event, "messageId")?.to_owned();
                if !self.text.remove(&id) {
                    return Err(format!("TEXT_MESSAGE_END for `{id}`, which is not active"));
                }
                vec![WireEvent::MessageEnd { message: id }]
            }
            "TOOL_CALL_START" => {
                let id = text(event, "toolCallId")?.to_owned();
                let tool = crate::input::baton_name(text(event, "toolCallName")?);
                if !self.tools.insert(id.clone()) {
                    return Err(format!(
                        "TOOL_CALL_START for `{id}`, which is already in progress"
                    ));
                }
                vec![WireEvent::ToolCallStart {
                    call: id,
                    tool,
                    parent_message: optional_text(event, "parentMessageId")?.map(str::to_owned),
                }]
            }
            "TOOL_CALL_ARGS" => {
                let id = text(event, "toolCallId")?.to_owned();
                if !self.tools.contains(&id) {
                    return Err(format!("TOOL_CALL_ARGS for `{id}`, which is not active"));
                }
                vec![WireEvent::ToolCallArgs {
                    call: id,
                    delta: text(event, "delta")?.to_owned(),
                }]
            }
            "TOOL_CALL_END" => {
                let id = text(event, "toolCallId")?.to_owned();
                if !self.tools.remove(&id) {
                    return Err(format!("TOOL_CALL_END for `{id}`, which is not active"));
                }
                vec![WireEvent::ToolCallEnd { call: id }]
            }
            "TOOL_CALL_RESULT" => vec![WireEvent::ToolCallResult {
                call: text(event, "toolCallId")?.to_owned(),
                content: event.get("content").cloned().unwrap_or(Value::Null),
            }],
            "STATE_SNAPSHOT" => {
                let snapshot = event
                    .get("snapshot")
                    .cloned()
                    .ok_or("STATE_SNAPSHOT without `snapshot`")?;
                self.state = snapshot.clone();
                vec![WireEvent::StateSnapshot {
                    direction: Direction::FromAgent,
                    snapshot,
                }]
            }
            "STATE_DELTA" => {
                let delta = event
                    .get("delta")
                    .cloned()
                    .ok_or("STATE_DELTA without `delta`")?;
                let patch: json_patch::Patch = serde_json::from_value(delta.clone())
                    .map_err(|error| format!("STATE_DELTA is not a JSON Patch: {error}"))?;
                let mut next = self.state.clone();
                json_patch::patch(&mut next, &patch)
                    .map_err(|error| format!("STATE_DELTA does not apply: {error}"))?;
                self.state = next;
                vec![WireEvent::StateDelta {
                    direction: Direction::FromAgent,
                    patch: delta,
                }]
            }
            "STEP_STARTED" => {
                let step = (subagent, text(event, "stepName")?.to_owned());
                if !self.steps.insert(step.clone()) {
                    return Err(format!(
                        "STEP_STARTED for `{}`, which is already active",
                        step.1
                    ));
                }
                vec![escape(event)]
            }
            "STEP_FINISHED" => {
                let step = (subagent, text(event, "stepName")?.to_owned());
                if !self.steps.remove(&step) {
                    return Err(format!(
                        "STEP_FINISHED for `{}`, which was not started",
                        step.1
                    ));
                }
                vec![escape(event)]
            }
            "REASONING_START" | "REASONING_MESSAGE_START" => {
                let id = text(event, "messageId")?.to_owned();
                let set = if kind == "REASONING_START" {
                    &mut self.reasoning_spans
                } else {
                    &mut self.reasoning_messages
                };
                if !set.insert(id.clone()) {
                    return Err(format!("{kind} for `{id}`, which is already in progress"));
                }
                vec![escape(event)]
            }
            "REASONING_MESSAGE_CONTENT" | "REASONING_MESSAGE_END" | "REASONING_END" => {
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
                    return Err(format!("{kind} for `{id}`, which is not active"));
                }
                vec![escape(event)]
            }
            "SUBAGENT_STARTED" => {
                let id = text(event, "subagentRunId")?.to_owned();
                text(event, "name")?;
                if self.subagents_active.contains(&id) || self.subagents_done.contains(&id) {
                    return Err(format!(
                        "SUBAGENT_STARTED for `{id}`, which was already started"
                    ));
                }
                if let Some(parent) = optional_text(event, "parentSubagentRunId")? {
                    if !self.subagents_active.contains(parent)
                        && !self.subagents_done.contains(parent)
                    {
                        return Err(format!(
                            "SUBAGENT_STARTED under `{parent}`, which was never started"
                        ));
                    }
                }
                self.subagents_active.insert(id);
                vec![escape(event)]
            }
            "SUBAGENT_FINISHED" | "SUBAGENT_ERROR" => {
                let id = text(event, "subagentRunId")?.to_owned();
                if kind == "SUBAGENT_ERROR" {
                    text(event, "message")?;
                }
                if !self.subagents_active.remove(&id) {
                    return Err(format!("{kind} for `{id}`, which is not active"));
                }
                self.subagents_done.insert(id);
                vec![escape(event)]
            }
            "MESSAGES_SNAPSHOT"
            | "ACTIVITY_SNAPSHOT"
            | "ACTIVITY_DELTA"
            | "REASONING_ENCRYPTED_VALUE"
            | "RAW" => {
                vec![escape(event)]
            }
            "CUSTOM" => vec![WireEvent::Custom {
                name: text(event, "name")?.to_owned(),
                value: event.get("value").cloned().unwrap_or(Value::Null),
            }],
            other => return Err(format!("unknown AG-UI event type `{other}`")),
        })
    }

    fn finished(&self, event: &Value) -> Result<Vec<WireEvent>, String> {
        self.check_thread(event)?;
        text(event, "runId")?;
        let outcome = event.get("outcome").filter(|o| !o.is_null());
        let kind = outcome.and_then(|o| o.get("type")).and_then(Value::as_str);
        Ok(match kind {
            None | Some("success") => vec![WireEvent::TurnFinished {
                outcome: TurnOutcome::Completed,
            }],
            Some("cancelled") => vec![WireEvent::TurnFinished {
                outcome: TurnOutcome::Cancelled,
            }],
            Some("interrupt") => {
                let interrupts = outcome
                    .and_then(|o| o.get("interrupts"))
                    .and_then(Value::as_array)
                    .filter(|list| !list.is_empty())
                    .ok_or("an interrupt outcome without interrupts")?;
                let mut out = Vec::new();
                for interrupt in interrupts {
                    let request = text(interrupt, "id")?.to_owned();
                    let prompt = optional_text(interrupt, "message")?
                        .map(str::to_owned)
                        .unwrap_or(text(interrupt, "reason")?.to_owned());
                    let expires_at = optional_text(interrupt, "expiresAt")?
                        .map(epoch_ms)
                        .transpose()?;
                    out.push(WireEvent::Elicitation {
                        request,
                        prompt,
                        schema: interrupt.get("responseSchema").cloned(),
                        expires_at,
                    });
                }
                out.push(WireEvent::TurnFinished {
                    outcome: TurnOutcome::Interrupted,
                });
                out
            }
            Some(other) => return Err(format!("RUN_FINISHED with unknown outcome `{other}`")),
        })
    }
}

/// An RFC 3339 timestamp (an interrupt's `expiresAt`) as epoch
/// milliseconds; one before 1970 counts as long past.
fn epoch_ms(timestamp: &str) -> Result<u64, String> {
    let parsed =
        time::OffsetDateTime::parse(timestamp, &time::format_description::well_known::Rfc3339)
            .map_err(|error| {
                format!("`expiresAt` `{timestamp}` is not an RFC 3339 timestamp: {error}")
            })?;
    Ok(u64::try_from(parsed.unix_timestamp_nanos() / 1_000_000).unwrap_or(0))
}

fn escape(event: &Value) -> WireEvent {
    WireEvent::Custom {
        name: format!("ag-ui/{}", kind(event)),
        value: event.clone(),
    }
}
