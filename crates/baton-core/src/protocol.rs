//! Protocol `baton/1`: what the engine and an acting party say to each other
//! (contract §7, AG-45 … AG-49).
//!
//! A transport declares the protocol version it speaks ([`check_version`],
//! AG-45). Events cover the turn lifecycle, text deltas, the tool-call
//! lifecycle and an escape hatch (AG-46); state travels with a typed
//! direction, never on one channel (AG-47); elicitation keeps its reserved
//! shape — a request id, a prompt, an optional schema (AG-48). Dialects such
//! as AG-UI are translated into these events by adapters; the custody
//! machine never sees a provider's dialect (AG-49).
//!
//! [`TurnVerifier`] checks one turn's stream incrementally and turns it into
//! the engine's [`Inbound`] inputs. Every rule it enforces — start, content
//! and end paired by id, nothing after the turn ends, no unknown ids,
//! argument deltas that assemble into JSON — reports a violation with its
//! reason; nothing is dropped silently and nothing panics. Its cost per event
//! is proportional to the event, never to what accumulated before it.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use crate::context::{Context, Origin, ReadRef, ReadStamp};
use crate::engine::Inbound;
use crate::event::CallReport;
use crate::ids::{CallId, CapabilityRef, RunId, SessionId, TurnId};
use crate::questions::AnswerReport;
use crate::registry::{Registry, Tool};

/// The protocol this crate speaks.
pub const PROTOCOL_VERSION: &str = "baton/1";

/// Why a transport was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// The transport speaks another protocol version.
    #[error(
        "AG-45: the transport speaks `{declared}`, but this engine speaks `{PROTOCOL_VERSION}`"
    )]
    VersionMismatch {
        /// What it declared.
        declared: String,
    },
    /// The transport declared no version at all.
    #[error(
        "AG-45: the transport declares no protocol version; it must declare `{PROTOCOL_VERSION}`"
    )]
    NoVersion,
}

/// Checks a transport's declared protocol version (AG-45).
pub fn check_version(declared: Option<&str>) -> Result<(), ProtocolError> {
    match declared {
        None => Err(ProtocolError::NoVersion),
        Some(PROTOCOL_VERSION) => Ok(()),
        Some(other) => Err(ProtocolError::VersionMismatch {
            declared: other.to_owned(),
        }),
    }
}

/// Which way state flows (AG-47).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Context from the interface to the acting party.
    ToAgent,
    /// The acting party's own state, shown by the interface.
    FromAgent,
}

/// How the acting party ended a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TurnOutcome {
    /// It said what it had to say.
    Completed,
    /// It stopped to ask the person (its questions came before this event).
    Interrupted,
    /// It gave up on the turn.
    Cancelled,
}

/// One event of protocol `baton/1`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum WireEvent {
    /// The turn began.
    TurnStarted,
    /// The turn ended.
    TurnFinished {
        /// How.
        outcome: TurnOutcome,
    },
    /// The turn failed.
    TurnError {
        /// What the acting party said.
        message: String,
        /// Its code, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// A text message began.
    MessageStart {
        /// Its id.
        message: String,
        /// Who speaks (`assistant` by default).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<String>,
    },
    /// More text.
    MessageDelta {
        /// The message.
        message: String,
        /// The text.
        delta: String,
    },
    /// The message is complete.
    MessageEnd {
        /// The message.
        message: String,
    },
    /// A tool call began.
    ToolCallStart {
        /// Its id.
        call: String,
        /// The tool, `participant.capability`.
        tool: String,
        /// The message it belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_message: Option<String>,
    },
    /// More of its JSON arguments.
    ToolCallArgs {
        /// The call.
        call: String,
        /// A piece of the arguments' JSON text.
        delta: String,
    },
    /// The arguments are complete.
    ToolCallEnd {
        /// The call.
        call: String,
    },
    /// The acting party ran a tool of its own and reports the result.
    ToolCallResult {
        /// The call.
        call: String,
        /// What it produced.
        content: Value,
    },
    /// A question for the person (AG-48).
    Elicitation {
        /// The acting party's id for the request.
        request: String,
        /// What to ask.
        prompt: String,
        /// The schema the answer must satisfy.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        schema: Option<Value>,
        /// When the acting party stops waiting for the answer (epoch ms).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expires_at: Option<u64>,
    },
    /// The whole state in one direction (AG-47).
    StateSnapshot {
        /// Which way.
        direction: Direction,
        /// The state.
        snapshot: Value,
    },
    /// A change to the state in one direction, as JSON Patch (RFC 6902).
    StateDelta {
        /// Which way.
        direction: Direction,
        /// The operations.
        patch: Value,
    },
    /// Anything else, by name (AG-46's escape hatch).
    Custom {
        /// What it is.
        name: String,
        /// Its payload.
        value: Value,
    },
}

/// What the engine sends to open a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnRequest {
    /// The protocol.
    pub protocol: String,
    /// The session (a thread, in dialects that have them).
    pub session: SessionId,
    /// The run.
    pub run: RunId,
    /// The turn.
    pub turn: TurnId,
    /// The person's intent.
    pub intent: String,
    /// The capabilities, as tools (AG-14, AG-15).
    pub tools: Vec<Tool>,
    /// The read stamps the turn opened with (version and origin of each).
    pub context: Context,
    /// The always-present index of participants and reads.
    pub index: Vec<IndexEntry>,
    /// The deep reads selected for this turn.
    pub reads: Vec<DeepRead>,
    /// Results of the calls since the previous turn.
    pub results: Vec<CallReport>,
    /// What became of the acting party's questions.
    pub answers: Vec<AnswerReport>,
    /// Context state for the acting party (AG-47, `to-agent`).
    pub state: Value,
}

/// One entry of the context index: enough for the acting party to know a
/// participant or a read exists, what it is, and how current it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexEntry {
    /// `participant`, or `participant.read`.
    pub id: String,
    /// `participant` or `read`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A label for people.
    pub label: String,
    /// What it is, in a sentence (the manifest's description).
    pub summary: String,
    /// A read's version when the turn opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// A read's origin when the turn opened (AG-27).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
}

/// The index for a turn: every mounted participant, and every read it
/// declares that has been published, with its version and origin.
pub(crate) fn index(registry: &Registry, context: &Context) -> Vec<IndexEntry> {
    let mut entries = Vec::new();
    for (id, mounted) in registry.mounted() {
        let manifest = &mounted.manifest;
        entries.push(IndexEntry {
            id: id.to_string(),
            kind: "participant".into(),
            label: manifest.label().to_owned(),
            summary: manifest.description().to_owned(),
            version: None,
            origin: None,
        });
        for read in manifest.reads() {
            let address = ReadRef {
                participant: id.clone(),
                read: read.name.clone(),
            };
            if let Some(stamp) = context.get(&address) {
                entries.push(IndexEntry {
                    id: address.to_string(),
                    kind: "read".into(),
                    label: format!("{} — {}", manifest.label(), read.name),
                    summary: read.description.clone(),
                    version: Some(stamp.version),
                    origin: Some(stamp.origin),
                });
            }
        }
    }
    entries
}

/// A read's full content, pulled into this turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeepRead {
    /// The read, `participant.read`.
    pub id: String,
    /// Its version and origin.
    pub stamp: ReadStamp,
    /// Its content.
    pub content: Value,
}

/// What a verified stream yields.
#[derive(Debug, Clone, PartialEq)]
pub enum Verified {
    /// An input for the engine ([`crate::Engine::handle_inbound`]).
    Inbound(Inbound),
    /// Text for presence surfaces (never a reason to announce per delta).
    Text {
        /// The message.
        message: String,
        /// The text.
        delta: String,
    },
    /// State for the interface, with its direction.
    State {
        /// Which way.
        direction: Direction,
        /// The event.
        event: WireEvent,
    },
    /// An escape-hatch event.
    Custom {
        /// What it is.
        name: String,
        /// Its payload.
        value: Value,
    },
}

/// Limits that keep a hostile stream from growing memory without bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamLimits {
    /// Bytes of JSON arguments one tool call may assemble.
    pub max_arguments_bytes: usize,
    /// Messages and tool calls open at once.
    pub max_open: usize,
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            max_arguments_bytes: 1 << 20,
            max_open: 256,
        }
    }
}

/// Verifies one turn's stream of [`WireEvent`]s as it arrives.
#[derive(Debug, Clone)]
pub struct TurnVerifier {
    limits: StreamLimits,
    started: bool,
    ended: bool,
    messages: BTreeSet<String>,
    calls: BTreeMap<String, OpenCall>,
    seen_calls: BTreeSet<String>,
    violation: Option<String>,
}

#[derive(Debug, Clone)]
struct OpenCall {
    tool: String,
    arguments: String,
}

impl TurnVerifier {
    /// A verifier for a new turn.
    pub fn new(limits: StreamLimits) -> Self {
        TurnVerifier {
            limits,
            started: false,
            ended: false,
            messages: BTreeSet::new(),
            calls: BTreeMap::new(),
            seen_calls: BTreeSet::new(),
            violation: None,
        }
    }

    /// Whether the turn ended (finished, failed, or broke the protocol).
    pub fn is_over(&self) -> bool {
        self.ended || self.violation.is_some()
    }

    /// The first violation, if the stream broke the protocol.
    pub fn violation(&self) -> Option<&str> {
        self.violation.as_deref()
    }

    /// Checks one event. A violation ends the turn: it yields
    /// [`Inbound::Malformed`] once, and everything after it is ignored.
    pub fn push(&mut self, event: WireEvent) -> Vec<Verified> {
        if self.violation.is_some() {
            return Vec::new();
        }
        match self.check(event) {
            Ok(out) => out,
            Err(reason) => self.violate(reason),
        }
    }

    /// The stream closed. If the turn had not ended, that is a failure of
    /// the transport ([`Inbound::TransportLost`]), not a protocol violation.
    pub fn close(&mut self) -> Vec<Verified> {
        if self.is_over() {
            return Vec::new();
        }
        self.ended = true;
        vec![Verified::Inbound(Inbound::TransportLost {
            message: "the stream closed before the turn ended".into(),
        })]
    }

    /// Reports a violation found below this layer (an SSE or dialect
    /// decoder): it ends the turn like any other.
    pub fn report(&mut self, reason: String) -> Vec<Verified> {
        if self.violation.is_some() || self.ended {
            return Vec::new();
        }
        self.violate(reason)
    }

    fn violate(&mut self, reason: String) -> Vec<Verified> {
        self.violation = Some(reason.clone());
        vec![Verified::Inbound(Inbound::Malformed { detail: reason })]
    }

    fn check(&mut self, event: WireEvent) -> Result<Vec<Verified>, String> {
        if self.ended {
            return Err(format!("{} after the turn ended", name(&event)));
        }
        if !self.started {
            return match event {
                WireEvent::TurnStarted => {
                    self.started = true;
                    Ok(Vec::new())
                }
                WireEvent::TurnError { message, .. } => {
                    self.ended = true;
                    Ok(vec![Verified::Inbound(Inbound::TurnFailed { message })])
                }
                other => Err(format!("{} before turn-started", name(&other))),
            };
        }
        let open = self.messages.len() + self.calls.len();
        match event {
            WireEvent::TurnStarted => Err("turn-started twice".into()),
            WireEvent::TurnFinished { outcome } => {
                if let Some(message) = self.messages.iter().next() {
                    return Err(format!("turn-finished while message `{message}` is open"));
                }
                if let Some(call) = self.calls.keys().next() {
                    return Err(format!("turn-finished while tool call `{call}` is open"));
                }
                self.ended = true;
                Ok(vec![Verified::Inbound(match outcome {
                    TurnOutcome::Completed | TurnOutcome::Interrupted => Inbound::TurnEnd,
                    TurnOutcome::Cancelled => Inbound::TurnFailed {
                        message: "the acting party cancelled the turn".into(),
                    },
                })])
            }
            WireEvent::TurnError { message, .. } => {
                self.ended = true;
                Ok(vec![Verified::Inbound(Inbound::TurnFailed { message })])
            }
            WireEvent::MessageStart { message, .. } => {
                if open >= self.limits.max_open {
                    return Err(format!(
                        "more than {} messages and tool calls open at once",
                        self.limits.max_open
                    ));
                }
                if !self.messages.insert(message.clone()) {
                    return Err(format!("message `{message}` started twice"));
                }
                Ok(Vec::new())
            }
            WireEvent::MessageDelta { message, delta } => {
                if !self.messages.contains(&message) {
                    return Err(format!("text for message `{message}`, which is not open"));
                }
                Ok(vec![Verified::Text { message, delta }])
            }
            WireEvent::MessageEnd { message } => {
                if !self.messages.remove(&message) {
                    return Err(format!("end of message `{message}`, which is not open"));
                }
                Ok(Vec::new())
            }
            WireEvent::ToolCallStart { call, tool, .. } => {
                if open >= self.limits.max_open {
                    return Err(format!(
                        "more than {} messages and tool calls open at once",
                        self.limits.max_open
                    ));
                }
                if self.calls.contains_key(&call) || !self.seen_calls.insert(call.clone()) {
                    return Err(format!("tool call `{call}` started twice"));
                }
                self.calls.insert(
                    call,
                    OpenCall {
                        tool,
                        arguments: String::new(),
                    },
                );
                Ok(Vec::new())
            }
            WireEvent::ToolCallArgs { call, delta } => {
                let limit = self.limits.max_arguments_bytes;
                let open = self.calls.get_mut(&call).ok_or_else(|| {
                    format!("arguments for tool call `{call}`, which is not open")
                })?;
                if open.arguments.len() + delta.len() > limit {
                    return Err(format!(
                        "the arguments of tool call `{call}` exceed {limit} bytes"
                    ));
                }
                open.arguments.push_str(&delta);
                Ok(Vec::new())
            }
            WireEvent::ToolCallEnd { call } => {
                let open = self
                    .calls
                    .remove(&call)
                    .ok_or_else(|| format!("end of tool call `{call}`, which is not open"))?;
                let text = open.arguments.trim();
                let arguments: Value = if text.is_empty() {
                    Value::Object(Default::default())
                } else {
                    serde_json::from_str(text).map_err(|error| {
                        format!("the arguments of tool call `{call}` are not JSON: {error}")
                    })?
                };
                let capability = CapabilityRef::parse_tool_name(&open.tool)
                    .unwrap_or_else(|| CapabilityRef::new("", open.tool.clone()));
                Ok(vec![Verified::Inbound(Inbound::ToolCall {
                    call: CallId::new(call),
                    capability,
                    arguments,
                })])
            }
            WireEvent::ToolCallResult { call, content } => Ok(vec![Verified::Custom {
                name: "tool-call-result".into(),
                value: serde_json::json!({ "call": call, "content": content }),
            }]),
            WireEvent::Elicitation {
                request,
                prompt,
                schema,
                expires_at,
            } => Ok(vec![Verified::Inbound(Inbound::Question {
                request,
                prompt,
                schema,
                deadline_ms: None,
                expires_at,
            })]),
            event @ (WireEvent::StateSnapshot { .. } | WireEvent::StateDelta { .. }) => {
                let direction = match &event {
                    WireEvent::StateSnapshot { direction, .. }
                    | WireEvent::StateDelta { direction, .. } => *direction,
                    _ => unreachable!("matched above"),
                };
                if direction == Direction::ToAgent {
                    return Err("the acting party sent `to-agent` state; it may only send its own (`from-agent`)".into());
                }
                Ok(vec![Verified::State { direction, event }])
            }
            WireEvent::Custom { name, value } => Ok(vec![Verified::Custom { name, value }]),
        }
    }
}

fn name(event: &WireEvent) -> &'static str {
    match event {
        WireEvent::TurnStarted => "turn-started",
        WireEvent::TurnFinished { .. } => "turn-finished",
        WireEvent::TurnError { .. } => "turn-error",
        WireEvent::MessageStart { .. } => "message-start",
        WireEvent::MessageDelta { .. } => "message-delta",
        WireEvent::MessageEnd { .. } => "message-end",
        WireEvent::ToolCallStart { .. } => "tool-call-start",
        WireEvent::ToolCallArgs { .. } => "tool-call-args",
        WireEvent::ToolCallEnd { .. } => "tool-call-end",
        WireEvent::ToolCallResult { .. } => "tool-call-result",
        WireEvent::Elicitation { .. } => "elicitation",
        WireEvent::StateSnapshot { .. } => "state-snapshot",
        WireEvent::StateDelta { .. } => "state-delta",
        WireEvent::Custom { .. } => "custom",
    }
}

/// A scripted acting party: pure JSON data, one entry per turn, each a list
/// of events with virtual-time offsets. It drives the conformance fixtures
/// and the offline demo actor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Script {
    /// The protocol the script speaks (AG-45).
    pub protocol: String,
    /// What it plays, turn by turn.
    pub turns: Vec<ScriptTurn>,
}

/// One turn of a [`Script`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptTurn {
    /// The events, in order.
    pub events: Vec<ScriptedEvent>,
}

/// One event of a scripted turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptedEvent {
    /// Milliseconds after the turn opened.
    pub at_ms: u64,
    /// The event.
    pub event: WireEvent,
}

impl Script {
    /// Parses a script and checks its protocol version.
    pub fn parse(text: &str) -> Result<Script, ScriptError> {
        let script: Script =
            serde_json::from_str(text).map_err(|error| ScriptError::Json(error.to_string()))?;
        check_version(Some(&script.protocol))?;
        for (index, turn) in script.turns.iter().enumerate() {
            if turn
                .events
                .windows(2)
                .any(|pair| pair[1].at_ms < pair[0].at_ms)
            {
                return Err(ScriptError::TimeGoesBack { turn: index });
            }
        }
        Ok(script)
    }
}

/// Why a script was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ScriptError {
    /// Not a script.
    #[error("the script is not valid: {0}")]
    Json(String),
    /// The wrong protocol.
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    /// Offsets must not decrease within a turn.
    #[error("turn {turn} of the script goes back in time")]
    TimeGoesBack {
        /// The turn's index.
        turn: usize,
    },
}
