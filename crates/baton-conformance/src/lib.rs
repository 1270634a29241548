//! The Delegation Contract's portable protocol fixture kit (§0.5, Annex C).
//!
//! A fixture is data (`fixtures/*.json`, format `baton-conformance/1`,
//! described by `fixture.schema.json` and validated on load): participants
//! to mount, the subject commands and the acting party's scripted turns in
//! order, and what must be observed after each. The [`runner`] plays a
//! fixture against any [`ConformanceSubject`] — an engine behind a small
//! adapter — and every failure leads with the requirement it breaks:
//!
//! ```text
//! AG-20 ag-20-stale-read-is-recoverable step 7: /runs/r1/state — expected "acting", observed "returned"
//! ```
//!
//! [`CoreSubject`] adapts `baton-core`; the package's JS runner plays the
//! same fixtures against the JS engine. The kit never imports the engine it
//! tests through anything but the subject.

mod core_subject;
pub mod coverage;
pub mod fixture;
pub mod runner;
mod subject;

pub use core_subject::CoreSubject;
pub use fixture::{load_all, Fixture, FixtureError};
pub use runner::{format_report, run_fixture, run_kit, Failure, FixtureReport, KitReport};
pub use subject::{
    Behaviour, Command, ConformanceSubject, ParticipantSetup, Reply, Setup, SubjectError,
};
