//! `agent-check`: the participation contract of a component. It finds an
//! app's Baton manifests — `*.baton.json` files, and manifest literals
//! passed to `register(…)` in JavaScript and TypeScript, read with a real
//! parser — and checks them as the engine would at registration (the core's
//! own parser) and as only a look at the source can: each finding cites its
//! requirement, with file, line and column.

mod actor_flow;
mod literal;
pub mod output;
pub mod rules;
pub mod source;

use std::path::PathBuf;

pub use rules::Finding;
pub use source::Scan;

/// Scans `paths` (files or directories) and checks what it finds.
pub fn check(paths: &[PathBuf]) -> (Scan, Vec<Finding>) {
    let scan = source::scan(paths);
    let findings = rules::check(&scan);
    (scan, findings)
}
