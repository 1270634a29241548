//! Paths an engine rarely takes, kept out of the functions it compiles as
//! it starts.
//!
//! An `async fn` awaited inside another is inlined into the caller's state
//! machine, and the browser compiles a WebAssembly function whole on its
//! first call: a rare branch inlined into `Engine.open`'s state machine is
//! compiled on every start, taken or not. Awaited through [`cold`], the
//! branch is a function of its own, behind a vtable, compiled only when it
//! runs.

use std::future::Future;
use std::pin::Pin;

/// `future`, boxed behind `dyn Future` so that its code stays out of the
/// function that awaits it.
pub(crate) fn cold<'a, T>(
    future: impl Future<Output = T> + 'a,
) -> Pin<Box<dyn Future<Output = T> + 'a>> {
    Box::pin(future)
}
