//! How a stream or a run broke a rule the engine enforces: a stable code a
//! host can branch on, and the detail in words. The codes are the rules'
//! kinds, not their dialect: a turn's stream in `baton/1`, its AG-UI
//! translation and its SSE framing break them alike.

use serde::{Deserialize, Serialize};

/// The kind of rule that was broken: the stable `code` of an integrity
/// finding, of a run that ended for one, and of a dialect adapter's refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum ProtocolViolation {
    /// Text that is not JSON where JSON is required (an event, a tool
    /// call's assembled arguments).
    NotJson,
    /// The transport's framing broke (an SSE stream's lines).
    Framing,
    /// JSON that is not an event of the dialect: a field missing or of the
    /// wrong type, or a value outside its kind (an outcome, a timestamp, a
    /// patch).
    NotAnEvent,
    /// An event type the dialect does not have.
    UnknownEventType,
    /// An event where the turn's lifecycle does not allow one: before the
    /// turn started, after it ended, or starting it twice.
    OutOfOrder,
    /// Something (a message, a tool call, a step) started twice.
    AlreadyOpen,
    /// Content or an end for something that is not open.
    NotOpen,
    /// The turn ended with something still open.
    LeftOpen,
    /// More messages and tool calls open at once than a turn may hold.
    TooManyOpen,
    /// More than a turn may send: into one lane of its stream, or as one
    /// tool call's arguments (bounded turns).
    OverLimit,
    /// The acting party sent state in the `to-agent` direction (AG-47).
    WrongDirection,
    /// An event addressed to another thread than the turn's.
    WrongThread,
    /// A tool call id the run has seen before.
    DuplicateCall,
    /// A question id the run has asked before.
    DuplicateQuestion,
    /// More questions in one turn than a turn may ask.
    TooManyQuestions,
    /// A transition the custody machine's table forbids, refused.
    IllegalTransition,
    /// Stored before violations carried a code.
    Unclassified,
}

/// A rule broken: its kind and what happened, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{detail}")]
pub struct Violation {
    /// The kind of rule.
    pub code: ProtocolViolation,
    /// What happened.
    pub detail: String,
}

impl Violation {
    /// A violation of kind `code`.
    pub fn new(code: ProtocolViolation, detail: impl Into<String>) -> Self {
        Violation {
            code,
            detail: detail.into(),
        }
    }
}
