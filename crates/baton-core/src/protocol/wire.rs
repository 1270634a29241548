//! The wire: the events an acting party sends (AG-46, AG-47, AG-48) and
//! the turn request the engine sends it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::attention::DeepRead;
use crate::context::{Context, Origin, ReadRef};
use crate::fields::Fields;
use crate::ids::{RunId, SessionId, TurnId};
use crate::journal::CallReport;
use crate::questions::AnswerReport;
use crate::registry::{Registry, Tool};

/// Which way state flows (AG-47).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Context from the interface to the acting party.
    ToAgent,
    /// The acting party's own state, shown by the interface.
    FromAgent,
}

/// How the acting party ended a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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
///
/// It is read by hand ([`WireEvent::from_value`], which its `Deserialize`
/// uses) rather than by serde's derive for internally tagged enums, which
/// buffers every event and costs the browser runtime tens of kilobytes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
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
        /// The subagents the acting party makes it through, outermost
        /// first (empty: the acting party itself).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        via: Vec<String>,
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
        /// One of the acting party's own calls of this turn (a tool the
        /// turn did not declare) that it asks the person to approve.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call: Option<String>,
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
    /// The acting party's reasoning: shown by surfaces as its own, never
    /// announced. An encrypted value is carried as it came, never decoded.
    Reasoning {
        /// The reasoning message (for an encrypted value, the entity it
        /// belongs to).
        message: String,
        /// A piece of its text, or the encrypted value.
        delta: String,
        /// Whether `delta` is an encrypted value.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        encrypted: bool,
    },
    /// What the acting party is busy with between messages (a plan, a
    /// search in progress): shown by surfaces, bounded as state.
    Activity {
        /// The activity's message.
        message: String,
        /// Its kind (`PLAN`, `SEARCH`, as the acting party names it).
        activity: String,
        /// The whole activity, or (with `patch`) a JSON Patch to it.
        content: Value,
        /// Whether `content` is a JSON Patch (RFC 6902).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        patch: bool,
    },
    /// Anything else, by name (AG-46's escape hatch).
    Custom {
        /// What it is.
        name: String,
        /// Its payload.
        value: Value,
    },
}

impl WireEvent {
    /// Reads an event from its JSON form: `type` names it, and no field
    /// beyond its own is accepted.
    pub fn from_value(value: &Value) -> Result<WireEvent, WireEventError> {
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .ok_or(WireEventError::Untyped)?;
        let read = |known: &[&str]| {
            let mut allowed = vec!["type"];
            allowed.extend_from_slice(known);
            Fields::of(value, "$".into(), &allowed)
        };
        let event = match kind {
            "turn-started" => read(&[]).map(|_| WireEvent::TurnStarted),
            "turn-finished" => read(&["outcome"]).and_then(|f| {
                Ok(WireEvent::TurnFinished {
                    outcome: f.required("outcome")?,
                })
            }),
            "turn-error" => read(&["message", "code"]).and_then(|f| {
                Ok(WireEvent::TurnError {
                    message: f.required("message")?,
                    code: f.optional("code")?,
                })
            }),
            "message-start" => read(&["message", "role"]).and_then(|f| {
                Ok(WireEvent::MessageStart {
                    message: f.required("message")?,
                    role: f.optional("role")?,
                })
            }),
            "message-delta" => read(&["message", "delta"]).and_then(|f| {
                Ok(WireEvent::MessageDelta {
                    message: f.required("message")?,
                    delta: f.required("delta")?,
                })
            }),
            "message-end" => read(&["message"]).and_then(|f| {
                Ok(WireEvent::MessageEnd {
                    message: f.required("message")?,
                })
            }),
            "tool-call-start" => read(&["call", "tool", "parentMessage", "via"]).and_then(|f| {
                Ok(WireEvent::ToolCallStart {
                    call: f.required("call")?,
                    tool: f.required("tool")?,
                    parent_message: f.optional("parentMessage")?,
                    via: f.optional("via")?.unwrap_or_default(),
                })
            }),
            "tool-call-args" => read(&["call", "delta"]).and_then(|f| {
                Ok(WireEvent::ToolCallArgs {
                    call: f.required("call")?,
                    delta: f.required("delta")?,
                })
            }),
            "tool-call-end" => read(&["call"]).and_then(|f| {
                Ok(WireEvent::ToolCallEnd {
                    call: f.required("call")?,
                })
            }),
            "tool-call-result" => read(&["call", "content"]).and_then(|f| {
                Ok(WireEvent::ToolCallResult {
                    call: f.required("call")?,
                    content: f.required("content")?,
                })
            }),
            "elicitation" => {
                read(&["request", "prompt", "schema", "expiresAt", "call"]).and_then(|f| {
                    Ok(WireEvent::Elicitation {
                        request: f.required("request")?,
                        prompt: f.required("prompt")?,
                        schema: f.optional("schema")?,
                        expires_at: f.optional("expiresAt")?,
                        call: f.optional("call")?,
                    })
                })
            }
            "state-snapshot" => read(&["direction", "snapshot"]).and_then(|f| {
                Ok(WireEvent::StateSnapshot {
                    direction: f.required("direction")?,
                    snapshot: f.required("snapshot")?,
                })
            }),
            "state-delta" => read(&["direction", "patch"]).and_then(|f| {
                Ok(WireEvent::StateDelta {
                    direction: f.required("direction")?,
                    patch: f.required("patch")?,
                })
            }),
            "reasoning" => read(&["message", "delta", "encrypted"]).and_then(|f| {
                Ok(WireEvent::Reasoning {
                    message: f.required("message")?,
                    delta: f.required("delta")?,
                    encrypted: f.optional("encrypted")?.unwrap_or(false),
                })
            }),
            "activity" => read(&["message", "activity", "content", "patch"]).and_then(|f| {
                Ok(WireEvent::Activity {
                    message: f.required("message")?,
                    activity: f.required("activity")?,
                    content: f.required("content")?,
                    patch: f.optional("patch")?.unwrap_or(false),
                })
            }),
            "custom" => read(&["name", "value"]).and_then(|f| {
                Ok(WireEvent::Custom {
                    name: f.required("name")?,
                    value: f.required("value")?,
                })
            }),
            other => return Err(WireEventError::UnknownType(other.to_owned())),
        };
        event.map_err(|refusal| WireEventError::Field {
            kind: kind.to_owned(),
            path: refusal.path,
            message: refusal.message,
        })
    }
}

/// Why a value is not an event of `baton/1`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WireEventError {
    /// It has no `type` string.
    #[error("an event needs a `type`")]
    Untyped,
    /// Its `type` names no event of `baton/1`.
    #[error("`{0}` is not an event of baton/1")]
    UnknownType(String),
    /// A field is unknown, missing or of the wrong shape.
    #[error("{kind} at `{path}`: {message}")]
    Field {
        /// The event's `type`.
        kind: String,
        /// Where (`$.outcome`).
        path: String,
        /// What is wrong.
        message: String,
    },
}

impl WireEventError {
    /// The kind of rule a stream that sent it broke.
    pub fn violation(&self) -> crate::violation::ProtocolViolation {
        match self {
            WireEventError::UnknownType(_) => crate::violation::ProtocolViolation::UnknownEventType,
            WireEventError::Untyped | WireEventError::Field { .. } => {
                crate::violation::ProtocolViolation::NotAnEvent
            }
        }
    }
}

impl<'de> Deserialize<'de> for WireEvent {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        WireEvent::from_value(&value).map_err(serde::de::Error::custom)
    }
}

/// What the engine sends to open a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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
    /// The conversation the app named for the run (`delegate({ thread })`),
    /// if any: a transport that keeps conversations continues that one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub thread: Option<String>,
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
    /// The turn's span in the app's distributed trace, when the app traces
    /// its delegations (`baton-engine/otel`): a transport sends it on, as
    /// AG-UI sends `traceparent` and `tracestate` headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub trace: Option<super::TraceContext>,
}

/// One entry of the context index: enough for the acting party to know a
/// participant or a read exists, what it is, and how current it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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
