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
//! | `REASONING_MESSAGE_CONTENT` / `REASONING_ENCRYPTED_VALUE` | `reasoning` (bounded by `maxReasoningBytes`; an encrypted value carried, never decoded) |
//! | `ACTIVITY_SNAPSHOT` / `ACTIVITY_DELTA` | `activity` (bounded as state) |
//! | `STEP_*`, `MESSAGES_SNAPSHOT`, `REASONING_START`/`_END`, `REASONING_MESSAGE_START`/`_END`, `SUBAGENT_*`, `RAW` | `custom{"ag-ui/<TYPE>", event}` |

//!
//! Tool names: on the AG-UI wire a tool is `participant__capability`
//! (`baton_core::CapabilityRef::wire_name`), because AG-UI agents forward
//! frontend tools to model APIs that accept only `^[a-zA-Z0-9_-]{1,64}$`;
//! `RunAgentInput.tools` carries that form and `toolCallName` is mapped
//! back. The mapping is reversible and collision-free: manifests whose ids
//! would make it ambiguous, or whose names would exceed 64 characters, are
//! refused when they are parsed (AG-15).

use crate::violation::broke;
use crate::ProtocolViolation;
use std::collections::{BTreeMap, BTreeSet};

mod chunks;
mod content;
mod delta;
mod lifecycle;
mod trace;

use baton_core::WireEvent;
use std::borrow::Cow;

use serde_json::Value;

use crate::Violation;
use chunks::{Lane, Lanes};
use trace::escape;

/// Where the stream is in the current AG-UI run (not a Baton run's state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RunPhase {
    NotStarted,
    Active,
    Finished,
    Errored,
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
    /// Every subagent started on the stream: its id, name and parent.
    subagents: Vec<(String, String, Option<String>)>,
    lanes: BTreeMap<Option<String>, Lane>,
    state: Value,
    /// The most `state` holds as JSON (a bound, measured again when it
    /// would pass `max_state_bytes`).
    state_bytes: usize,
    /// The most state the stream may build, as JSON: a patch that would
    /// grow it further breaks the stream.
    max_state_bytes: usize,
    /// The conversation the stream answers, when the caller knows it.
    thread: Option<String>,
}

impl Default for AgUiMapper {
    fn default() -> Self {
        Self::new()
    }
}

/// A delta read the quick way ([`AgUiMapper::read_delta`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delta<'a> {
    /// `TEXT_MESSAGE_CONTENT` of an active message.
    Text {
        /// The message's id.
        message: Cow<'a, str>,
        /// Its text.
        delta: Cow<'a, str>,
    },
    /// `TOOL_CALL_ARGS` of an active call.
    Arguments {
        /// The call's id.
        call: Cow<'a, str>,
        /// Its arguments' text.
        delta: Cow<'a, str>,
    },
}

impl Delta<'_> {
    /// The `baton/1` event it maps to.
    pub fn into_event(self) -> WireEvent {
        match self {
            Delta::Text { message, delta } => WireEvent::MessageDelta {
                message: message.into_owned(),
                delta: delta.into_owned(),
            },
            Delta::Arguments { call, delta } => WireEvent::ToolCallArgs {
                call: call.into_owned(),
                delta: delta.into_owned(),
            },
        }
    }
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
            subagents: Vec::new(),
            lanes: BTreeMap::new(),
            state: Value::Object(Default::default()),
            state_bytes: 2,
            max_state_bytes: baton_core::StreamLimits::default().max_state_bytes,
            thread: None,
        }
    }

    /// Bounds the state the stream may build to `max_bytes` of JSON (the
    /// turn's `maxStateBytes`; by default, the default turn limits').
    pub fn bound_state(&mut self, max_bytes: usize) {
        self.max_state_bytes = max_bytes;
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

    fn check_thread(&self, event: &Value) -> Result<(), Violation> {
        let thread = text(event, "threadId")?;
        match &self.thread {
            Some(expected) if expected != thread => Err(broke(
                ProtocolViolation::WrongThread,
                format!(
                    "{} of thread `{thread}`, not this conversation's `{expected}`",
                    kind(event)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The names of the subagents an event was made through, outermost
    /// first: its `subagentRunId`, then that subagent's parents.
    pub(super) fn chain(&self, event: &Value) -> Vec<String> {
        let mut chain = Vec::new();
        let mut next = event.get("subagentRunId").and_then(Value::as_str);
        while let Some(id) = next {
            let Some((_, name, parent)) = self.subagents.iter().find(|(known, ..)| known == id)
            else {
                break;
            };
            // A parent is always started before its child: no cycle, but
            // never loop past the subagents there are.
            if chain.len() > self.subagents.len() {
                break;
            }
            chain.push(name.clone());
            next = parent.as_deref();
        }
        chain.reverse();
        chain
    }

    /// The `from-agent` state as the snapshots and deltas built it.
    pub fn state(&self) -> &Value {
        &self.state
    }

    /// The common case of a long stream, read without building a `Value`:
    /// one delta (`TEXT_MESSAGE_CONTENT` of an active message, or
    /// `TOOL_CALL_ARGS` of an active call) whose JSON holds exactly `type`,
    /// its id and `delta`, in a run under way with no chunk lane open.
    /// `None` for anything else — another event, another field, a delta
    /// that breaks a rule — which [`AgUiMapper::map`] then reads the
    /// general way, so what is accepted and refused is the same either way.
    ///
    /// Borrowed from `data` where it can be (a string without an escape):
    /// a decoder that joins deltas copies nothing of a delta it joins.
    pub fn read_delta<'a>(&self, data: &'a str) -> Option<Delta<'a>> {
        if self.first || self.run != RunPhase::Active || !self.lanes.is_empty() {
            return None;
        }
        let read = delta::fields(data)?;
        let (kind, delta) = (read.kind?, read.delta?);
        match (&*kind, read.message, read.call) {
            ("TEXT_MESSAGE_CONTENT", Some(message), None) if self.text.contains(&*message) => {
                Some(Delta::Text { message, delta })
            }
            ("TOOL_CALL_ARGS", None, Some(call)) if self.tools.contains(&*call) => {
                Some(Delta::Arguments { call, delta })
            }
            _ => None,
        }
    }

    /// Maps one AG-UI event (the JSON of one SSE `data:` payload). An `Err`
    /// says which rule the stream broke.
    pub fn map(&mut self, event: &Value) -> Result<Vec<WireEvent>, Violation> {
        let Some(kind) = event.get("type").and_then(Value::as_str) else {
            return Err(broke(
                ProtocolViolation::NotAnEvent,
                "an event without a string `type`",
            ));
        };
        let chunk = matches!(
            kind,
            "TEXT_MESSAGE_CHUNK" | "TOOL_CALL_CHUNK" | "REASONING_MESSAGE_CHUNK"
        );
        if self.lanes.is_empty() && !chunk {
            // The common case: nothing to close, nothing to expand, no copy.
            return self.verify_and_map(event);
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
    fn verify_and_map(&mut self, event: &Value) -> Result<Vec<WireEvent>, Violation> {
        let kind = kind(event);
        self.check_order(event, &kind)?;
        let subagent = optional_text(event, "subagentRunId")?.map(str::to_owned);
        match kind.as_str() {
            "RUN_STARTED" => self.run_started(event),
            "RUN_FINISHED" => self.run_finished(event),
            "RUN_ERROR" => self.run_error(event),
            "TEXT_MESSAGE_START" | "TEXT_MESSAGE_CONTENT" | "TEXT_MESSAGE_END" => {
                self.text_message(&kind, event)
            }
            "TOOL_CALL_START" | "TOOL_CALL_ARGS" | "TOOL_CALL_END" | "TOOL_CALL_RESULT" => {
                self.tool_call(&kind, event)
            }
            "STATE_SNAPSHOT" | "STATE_DELTA" => self.agent_state(&kind, event),
            "STEP_STARTED" | "STEP_FINISHED" => self
                .step(&kind, event, subagent)
                .map(|()| vec![escape(event)]),
            "REASONING_MESSAGE_CONTENT" => {
                self.reasoning(&kind, event)?;
                Ok(vec![WireEvent::Reasoning {
                    message: text(event, "messageId")?.to_owned(),
                    delta: text(event, "delta")?.to_owned(),
                    encrypted: false,
                }])
            }
            "REASONING_START"
            | "REASONING_MESSAGE_START"
            | "REASONING_MESSAGE_END"
            | "REASONING_END" => self.reasoning(&kind, event).map(|()| vec![escape(event)]),
            // Carried as it came, never decoded: bounded as reasoning.
            "REASONING_ENCRYPTED_VALUE" => Ok(vec![WireEvent::Reasoning {
                message: text(event, "entityId")?.to_owned(),
                delta: text(event, "encryptedValue")?.to_owned(),
                encrypted: true,
            }]),
            "ACTIVITY_SNAPSHOT" | "ACTIVITY_DELTA" => {
                let patch = kind == "ACTIVITY_DELTA";
                let field = if patch { "patch" } else { "content" };
                let content = event.get(field).cloned().ok_or_else(|| {
                    broke(
                        ProtocolViolation::NotAnEvent,
                        format!("{kind} without `{field}`"),
                    )
                })?;
                Ok(vec![WireEvent::Activity {
                    message: text(event, "messageId")?.to_owned(),
                    activity: text(event, "activityType")?.to_owned(),
                    content,
                    patch,
                }])
            }
            "SUBAGENT_STARTED" | "SUBAGENT_FINISHED" | "SUBAGENT_ERROR" => {
                self.subagent(&kind, event).map(|()| vec![escape(event)])
            }
            "MESSAGES_SNAPSHOT" | "RAW" => Ok(vec![escape(event)]),
            "CUSTOM" => Ok(vec![WireEvent::Custom {
                name: text(event, "name")?.to_owned(),
                value: event.get("value").cloned().unwrap_or(Value::Null),
            }]),
            other => Err(broke(
                ProtocolViolation::UnknownEventType,
                format!("unknown AG-UI event type `{other}`"),
            )),
        }
    }

    /// Where an event may come: first a run's start (or error), nothing but
    /// a new run after its end, and no `null` subagent.
    fn check_order(&mut self, event: &Value, kind: &str) -> Result<(), Violation> {
        if event.get("subagentRunId") == Some(&Value::Null) {
            return Err(broke(
                ProtocolViolation::NotAnEvent,
                format!("{kind} with `subagentRunId: null`; omit the field instead"),
            ));
        }
        match self.run {
            RunPhase::Errored if kind != "RUN_STARTED" => {
                return Err(broke(
                    ProtocolViolation::OutOfOrder,
                    format!("{kind} after RUN_ERROR"),
                ));
            }
            RunPhase::Finished if kind != "RUN_STARTED" && kind != "RUN_ERROR" => {
                return Err(broke(
                    ProtocolViolation::OutOfOrder,
                    format!("{kind} after RUN_FINISHED"),
                ));
            }
            _ => {}
        }
        if self.first {
            self.first = false;
            if kind != "RUN_STARTED" && kind != "RUN_ERROR" {
                return Err(broke(
                    ProtocolViolation::OutOfOrder,
                    format!("the first event must be RUN_STARTED, not {kind}"),
                ));
            }
        }
        Ok(())
    }
}

pub(super) fn text<'a>(event: &'a Value, field: &str) -> Result<&'a str, Violation> {
    event.get(field).and_then(Value::as_str).ok_or_else(|| {
        broke(
            ProtocolViolation::NotAnEvent,
            format!("{} without a string `{field}`", kind(event)),
        )
    })
}

pub(super) fn optional_text<'a>(
    event: &'a Value,
    field: &str,
) -> Result<Option<&'a str>, Violation> {
    match event.get(field) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(Value::Null) => Err(broke(
            ProtocolViolation::NotAnEvent,
            format!(
                "{} with `{field}: null`; omit the field instead",
                kind(event)
            ),
        )),
        Some(_) => Err(broke(
            ProtocolViolation::NotAnEvent,
            format!("{} with a `{field}` that is not a string", kind(event)),
        )),
    }
}

pub(super) fn kind(event: &Value) -> String {
    event
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("an event")
        .to_owned()
}
