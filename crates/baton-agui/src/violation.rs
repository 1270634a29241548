//! The one error this crate returns: a rule the AG-UI stream broke.

/// A rule of AG-UI 1.0 — or of what Baton accepts from an agent — that a
/// stream broke, in words: the finding an integrity violation carries to
/// the person and the journal. A stream that breaks one is over.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Violation(String);

impl Violation {
    /// What rule was broken, and how.
    pub fn message(&self) -> &str {
        &self.0
    }

    /// The finding, for the verifier's report.
    pub fn into_message(self) -> String {
        self.0
    }
}

impl From<String> for Violation {
    fn from(message: String) -> Self {
        Violation(message)
    }
}

impl From<&str> for Violation {
    fn from(message: &str) -> Self {
        Violation(message.to_owned())
    }
}
