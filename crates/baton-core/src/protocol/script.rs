//! A scripted acting party: a whole dialogue as JSON data.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::wire::WireEvent;
use super::{check_version, ProtocolError};

/// A scripted acting party: pure JSON data, one entry per turn, each a list
/// of events with virtual-time offsets. It drives the conformance fixtures
/// and the offline demo actor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Script {
    /// The protocol the script speaks (AG-45).
    #[cfg_attr(feature = "typescript", ts(type = "\"baton/1\""))]
    pub protocol: String,
    /// What it plays, turn by turn.
    pub turns: Vec<ScriptTurn>,
}

/// One turn of a [`Script`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptTurn {
    /// The events, in order.
    pub events: Vec<ScriptedEvent>,
}

/// One event of a scripted turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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
