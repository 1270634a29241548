//! # baton-wasm — Baton in the browser
//!
//! A thin adapter over `baton-core`'s public API, compiled to WebAssembly:
//! the JS `Engine`, the page's one polite live region, and the errors thrown
//! to JS. Everything that decides stays in the core.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod engine;
mod errors;
mod live_region;
mod schema;

pub use engine::Engine;
pub use schema::Schema;
