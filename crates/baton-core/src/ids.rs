//! Identifiers. Every identifier the machine hands out is minted by the machine
//! itself from counters, so a replay of the same inputs produces the same ids.

use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// Wraps a string as this identifier.
            pub fn new(value: impl Into<String>) -> Self {
                Self(value.into())
            }

            /// The identifier as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                Self::new(value)
            }
        }
    };
}

string_id!(
    /// The long-lived identity that runs belong to (one engine drives one session).
    SessionId
);
string_id!(
    /// One delegation. Minted by the engine as `<session>/r<n>`.
    RunId
);
string_id!(
    /// A participant: a component that registered a manifest.
    ParticipantId
);
string_id!(
    /// A capability call, named by the acting party (tool-call id) or, for a
    /// fixed plan, by the engine (`p<n>`). Unique within its run.
    CallId
);
string_id!(
    /// A question to the person, minted by the engine as `<session>/q<n>`.
    QuestionId
);
string_id!(
    /// An opaque token returned by a participant's native history when asked
    /// for a mark; handed back verbatim when reverting.
    MarkToken
);

/// One exchange with the acting party, numbered from 1 within its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TurnId(pub u32);

impl fmt::Display for TurnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t{}", self.0)
    }
}

/// The address of a capability: which participant, which of its capabilities.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct CapabilityRef {
    /// The participant that declared the capability.
    pub participant: ParticipantId,
    /// The capability's name inside that participant's manifest.
    pub capability: String,
}

impl CapabilityRef {
    /// Builds a reference from its two parts.
    pub fn new(participant: impl Into<String>, capability: impl Into<String>) -> Self {
        Self {
            participant: ParticipantId::new(participant),
            capability: capability.into(),
        }
    }

    /// Parses the tool name the acting party sees, `participant.capability`.
    /// The participant part is everything before the last dot.
    pub fn parse_tool_name(name: &str) -> Option<Self> {
        let (participant, capability) = name.rsplit_once('.')?;
        if participant.is_empty() || capability.is_empty() {
            return None;
        }
        Some(Self::new(participant, capability))
    }
}

impl fmt::Display for CapabilityRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.participant, self.capability)
    }
}
