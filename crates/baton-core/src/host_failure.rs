//! A host's failure to do what an effect asked, in its own words.

/// Why a host could not do what an effect asked, in the words its code
/// gave (a participant's thrown error, a value it returned that cannot be
/// used).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HostFailure {
    /// What the host said.
    pub message: String,
}

impl HostFailure {
    /// A failure the host describes as `message`.
    pub fn new(message: impl Into<String>) -> Self {
        HostFailure {
            message: message.into(),
        }
    }
}

impl From<&str> for HostFailure {
    fn from(message: &str) -> Self {
        HostFailure::new(message)
    }
}

impl From<String> for HostFailure {
    fn from(message: String) -> Self {
        HostFailure::new(message)
    }
}
