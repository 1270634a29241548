//! The manual: how Baton is built and why, for the people who work on it or
//! audit it. Each chapter is a Markdown file beside this module, read here
//! as rustdoc (its Rust examples run as doctests) and on a code host as it
//! is. Using the package from JavaScript is the package's README
//! (`pkg/README.md`); the repository README says where everything is.
//!
//! - [`custody`]: the custody machine, driven by hand.
//! - [`requirements`]: where each requirement AG-1 … AG-50 is decided, and the test that proves it.
//! - [`protocol`]: protocol `baton/1` and the AG-UI 1.0 dialect.
//! - [`tracing`]: every delegation as an OpenTelemetry trace, and a draft for approvals.
//! - [`size`]: what an app downloads, where the bytes are, and the budget.
//! - [`performance`]: what is measured, against which peers.
//! - [`generated_input`]: the property tests and their long run.
//! - [`faults`]: every fault scenario and what it proves.
//! - [`threat_model`]: what Baton defends against, and what it does not.
//! - [`design_notes`]: the decisions, and why.

#![allow(rustdoc::bare_urls)]

#[doc = include_str!("custody.md")]
pub mod custody {}
#[doc = include_str!("requirements.md")]
pub mod requirements {}
#[doc = include_str!("protocol.md")]
pub mod protocol {}
#[doc = include_str!("tracing.md")]
pub mod tracing {}
#[doc = include_str!("size.md")]
pub mod size {}
#[doc = include_str!("performance.md")]
pub mod performance {}
#[doc = include_str!("generated_input.md")]
pub mod generated_input {}
#[doc = include_str!("faults.md")]
pub mod faults {}
#[doc = include_str!("threat_model.md")]
pub mod threat_model {}
#[doc = include_str!("design_notes.md")]
pub mod design_notes {}
