//! The one error this crate returns: a rule the AG-UI stream broke, typed.
//!
//! It is the core's [`baton_core::Violation`]: the kind of rule (a stable
//! [`ProtocolViolation`] code, the same for any dialect) and what happened,
//! in words. A stream that breaks one is over.

pub use baton_core::{ProtocolViolation, Violation};

/// A violation of kind `code`.
pub(crate) fn broke(code: ProtocolViolation, detail: impl Into<String>) -> Violation {
    Violation::new(code, detail)
}
