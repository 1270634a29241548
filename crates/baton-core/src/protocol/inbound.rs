//! What the acting party's traffic means to the engine, once verified:
//! the inputs of a turn. Dialect adapters translate their wire into this.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ids::{CallId, CapabilityRef};

/// Traffic from the acting party, addressed to a turn. Dialect adapters
/// translate their wire into this.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Inbound {
    /// A complete tool call, its arguments assembled.
    ToolCall {
        /// The acting party's id for it, unique within the run.
        call: CallId,
        /// What it wants invoked.
        capability: CapabilityRef,
        /// With what.
        arguments: Value,
        /// Who acted inside the acting party, outermost first: the
        /// subagents the call was made through (empty: the acting party
        /// itself).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        via: Vec<String>,
    },
    /// The acting party carried out a tool of its own — one the engine did
    /// not declare — and reported its result in the same turn. It is the
    /// acting party's act, recorded as such; it changes nothing in the page
    /// and nothing the engine may do.
    AgentAct {
        /// The acting party's id for the call.
        call: CallId,
        /// The tool, as the acting party named it.
        tool: String,
        /// Its arguments.
        arguments: Value,
        /// What it produced.
        result: Value,
    },
    /// The acting party finished a message to the person: its words, for
    /// the run's history.
    Said {
        /// The message.
        message: String,
        /// Its whole text.
        text: String,
    },
    /// The turn ended normally.
    TurnEnd,
    /// The turn failed (the acting party reported an error, the stream broke).
    TurnFailed {
        /// What happened.
        message: String,
    },
    /// The acting party's server answered the request with an error status
    /// instead of a stream.
    AgentError {
        /// The status (HTTP).
        status: u16,
        /// What it said.
        message: String,
    },
    /// The connection broke before the turn ended (the stream closed early,
    /// the request failed): the run returns `error` with `transport-lost`.
    TransportLost {
        /// What happened.
        message: String,
    },
    /// A question for the person (AG-48: a request id, a prompt, an
    /// optional JSON Schema for the answer).
    Question {
        /// The acting party's id for the request; the answer comes back under it.
        request: String,
        /// What to ask, in words.
        prompt: String,
        /// A self-contained JSON Schema 2020-12 the answer must satisfy.
        #[serde(default)]
        schema: Option<Value>,
        /// How long the person has, in milliseconds (the escalation timeout by default).
        #[serde(default)]
        deadline_ms: Option<u64>,
        /// When the acting party stops waiting for the answer, in epoch
        /// milliseconds: the deadline is never later, and a question that
        /// has expired is never put to the person.
        #[serde(default)]
        expires_at: Option<u64>,
        /// The acting party's own call the question asks the person to
        /// approve (an AG-UI interrupt about a tool call).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        approval: Option<crate::questions::AgentCall>,
    },
    /// The stream broke the protocol (found by the stream verifier).
    Malformed {
        /// The kind of rule broken.
        code: crate::violation::ProtocolViolation,
        /// What was wrong.
        detail: String,
    },
    /// The stream sent more into one lane than a turn may hold (found by
    /// the stream verifier, [`crate::StreamLimits`]).
    OverLimit {
        /// Which lane.
        lane: crate::state::TurnLane,
        /// Its limit, in bytes.
        limit: u64,
    },
}
