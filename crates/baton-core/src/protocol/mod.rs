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

//!
//! The module's parts: [`wire`] — the events and the turn request;
//! [`verifier`] — one turn's stream checked as it arrives; [`script`] — a
//! scripted acting party as data; [`trace`] — the W3C Trace Context a turn
//! carries to the acting party.

use thiserror::Error;

mod inbound;
mod script;
mod trace;
mod verifier;
mod wire;

pub use crate::attention::DeepRead;
pub use crate::violation::{ProtocolViolation, Violation};
pub use inbound::Inbound;
pub use script::{Script, ScriptError, ScriptTurn, ScriptedEvent};
pub use trace::{TraceContext, TraceContextError};
pub use verifier::{StreamLimits, TurnVerifier, Verified};
pub(crate) use wire::index;
pub use wire::{Direction, IndexEntry, TurnOutcome, TurnRequest, WireEvent, WireEventError};

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
