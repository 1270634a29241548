//! Identifiers. Every identifier the machine hands out is minted by the machine
//! itself from counters, so a replay of the same inputs produces the same ids.

use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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

        // Equal, ordered and hashed exactly as its text, so maps keyed by
        // the id can be searched by `&str`.
        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
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
/// An opaque token returned by a participant's native history when asked
/// for a mark; handed back exactly as given when reverting. Histories hand
/// out strings (`"h42"`) or numbers (a stack depth), so both are kept, the
/// number as the very same number.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum MarkToken {
    /// A string token.
    Text(String),
    /// A finite number.
    Number(serde_json::Number),
}

/// Read by hand: serde's untagged derive buffers the value and tries each
/// variant in turn, at a cost to the browser runtime.
impl<'de> Deserialize<'de> for MarkToken {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(text) => Ok(MarkToken::Text(text)),
            serde_json::Value::Number(number) => Ok(MarkToken::Number(number)),
            _ => Err(serde::de::Error::custom(
                "a mark token is a string or a number",
            )),
        }
    }
}

impl MarkToken {
    /// A string token.
    pub fn new(value: impl Into<String>) -> Self {
        MarkToken::Text(value.into())
    }

    /// What a history's `mark()` returned, if it can be a token: a string
    /// or a finite number. Anything else (an object, `null`, `NaN`) cannot
    /// be handed back faithfully, so the mark fails with this message rather
    /// than revert later to something the history never gave.
    pub fn from_json(value: serde_json::Value) -> Result<Self, crate::host_failure::HostFailure> {
        match value {
            serde_json::Value::String(text) => Ok(MarkToken::Text(text)),
            serde_json::Value::Number(number) => Ok(MarkToken::Number(number)),
            other => Err(crate::host_failure::HostFailure::new(format!(
                "a mark token must be a string or a finite number, and mark() returned {}",
                match other {
                    serde_json::Value::Null => "null or undefined or a non-finite number",
                    serde_json::Value::Bool(_) => "a boolean",
                    serde_json::Value::Array(_) => "an array",
                    _ => "an object",
                }
            ))),
        }
    }

    /// The token as JSON, to hand back to the history.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            MarkToken::Text(text) => serde_json::Value::String(text.clone()),
            MarkToken::Number(number) => serde_json::Value::Number(number.clone()),
        }
    }
}

impl fmt::Display for MarkToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MarkToken::Text(text) => f.write_str(text),
            MarkToken::Number(number) => write!(f, "{number}"),
        }
    }
}

/// One exchange with the acting party, numbered from 1 within its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(transparent)]
pub struct TurnId(pub u32);

impl fmt::Display for TurnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t{}", self.0)
    }
}

/// What joins a participant and a capability in a wire tool name
/// ([`CapabilityRef::wire_name`]).
pub const WIRE_SEPARATOR: &str = "__";

/// The address of a capability: which participant, which of its capabilities.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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

    /// The tool name on wires whose model APIs accept only
    /// `^[a-zA-Z0-9_-]{1,64}$` (AG-UI agents forward tools to such APIs):
    /// `participant__capability`, the manifest id and the capability name
    /// joined by [`WIRE_SEPARATOR`]. It is reversible
    /// ([`CapabilityRef::parse_wire_name`]) and collision-free because a
    /// manifest is refused when its id contains `__` or ends with `_`, or
    /// when a name would be longer than 64 characters.
    ///
    /// ```
    /// use baton_core::CapabilityRef;
    /// let rename = CapabilityRef::new("tasks", "rename");
    /// assert_eq!(rename.wire_name(), "tasks__rename");
    /// assert_eq!(CapabilityRef::parse_wire_name("tasks__rename"), Some(rename));
    /// ```
    pub fn wire_name(&self) -> String {
        format!("{}{WIRE_SEPARATOR}{}", self.participant, self.capability)
    }

    /// Reads a wire tool name back ([`CapabilityRef::wire_name`]): the
    /// participant is everything before the first `__`.
    pub fn parse_wire_name(name: &str) -> Option<Self> {
        let (participant, capability) = name.split_once(WIRE_SEPARATOR)?;
        if participant.is_empty() || capability.is_empty() {
            return None;
        }
        Some(Self::new(participant, capability))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mark_tokens_are_strings_or_finite_numbers_kept_exactly() {
        for token in [
            json!("h7"),
            json!(3),
            json!(-2.5),
            json!(9007199254740991_u64),
        ] {
            let mark = MarkToken::from_json(token.clone()).unwrap();
            assert_eq!(mark.to_json(), token);
            let stored = serde_json::to_string(&mark).unwrap();
            let restored: MarkToken = serde_json::from_str(&stored).unwrap();
            assert_eq!(restored.to_json(), token, "survives persistence");
        }
        for refused in [json!(null), json!({"depth": 1}), json!([1]), json!(true)] {
            let failure = MarkToken::from_json(refused.clone()).unwrap_err();
            assert!(
                failure.message.contains("string or a finite number"),
                "{refused}: {failure}"
            );
        }
    }
}
