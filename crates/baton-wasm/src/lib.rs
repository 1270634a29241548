//! # baton-wasm — Baton in the browser
//!
//! A thin adapter over `baton-core`'s public API, compiled to WebAssembly:
//! the JS `Engine`, the page's one polite live region, and the errors thrown
//! to JS. Everything that decides stays in the core.
//!
//! Modules: `engine` (the JS `Engine` and its parts), `transport` (the
//! scripted and AG-UI transports), `store` (IndexedDB), `live_region`,
//! `schema` (the JS `Schema`), `patterns` (the core's pattern port on the page's `RegExp`), `convert` (every JS → Rust conversion, with
//! typed `ConvertError`s), `calls` (calling into the page, with typed
//! `CallError`s), `clock` (monotonic time), `cold` (rare paths kept out of
//! what a start compiles), `panic` (what a panic leaves: a poisoned engine closes itself) and `errors` (the `BatonError`s
//! thrown to JS, each with a stable `code`).
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod calls;
mod clock;
mod cold;
mod convert;
mod engine;
mod errors;
mod live_region;
mod panic;
mod patterns;
mod schema;
#[cfg(test)]
mod schema_suites;
mod store;
mod transport;

/// The module's allocator (see the manual's Performance chapter).
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

pub use engine::{Engine, Participant};
pub use errors::error_class;
pub use schema::Schema;
pub use transport::{AgUiTransport, ScriptedTransport, TurnSink};
