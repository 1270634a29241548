//! W3C Trace Context for a turn: what joins the acting party's own spans to
//! the trace the page records of the run.
//!
//! The host's tracing (an OpenTelemetry SDK, when the app installs one)
//! names the turn's span; the engine sends that name with the turn —
//! `traceparent` and `tracestate` headers over AG-UI, [`TurnRequest::trace`]
//! to any other transport. What the host hands over is checked here first:
//! a header that is not Trace Context is never sent, because a peer that
//! parses it strictly would refuse the whole request, and one that does
//! not would join an unrelated trace.
//!
//! [`TurnRequest::trace`]: super::TurnRequest::trace

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A turn's place in a distributed trace, as W3C Trace Context carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TraceContext {
    /// `version-traceid-parentid-flags`, lowercase hex: the turn's span.
    traceparent: String,
    /// Vendors' entries, carried as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    tracestate: Option<String>,
}

/// Why a trace context was not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum TraceContextError {
    /// `traceparent` is not `00-<32 hex>-<16 hex>-<2 hex>` with non-zero ids.
    #[error(
        "traceparent is not W3C Trace Context (00-<32 hex>-<16 hex>-<2 hex>, ids not all zero)"
    )]
    Traceparent,
    /// `tracestate` is longer than 512 characters, or not printable ASCII.
    #[error("tracestate is not W3C Trace Context (at most 512 printable ASCII characters)")]
    Tracestate,
}

/// The longest `tracestate` a vendor must propagate (Trace Context §3.3.1.5).
const MAX_TRACESTATE: usize = 512;

impl TraceContext {
    /// Checks both headers. Only version `00` is accepted: it is the one a
    /// sender may produce (a receiver may accept later ones, a sender must
    /// not invent them).
    pub fn new(
        traceparent: &str,
        tracestate: Option<&str>,
    ) -> Result<TraceContext, TraceContextError> {
        if !is_traceparent(traceparent.as_bytes()) {
            return Err(TraceContextError::Traceparent);
        }
        let tracestate = tracestate.filter(|state| !state.is_empty());
        if let Some(state) = tracestate {
            if state.len() > MAX_TRACESTATE || !state.bytes().all(|b| (0x20..0x7f).contains(&b)) {
                return Err(TraceContextError::Tracestate);
            }
        }
        Ok(TraceContext {
            traceparent: traceparent.to_owned(),
            tracestate: tracestate.map(str::to_owned),
        })
    }

    /// The `traceparent` header.
    pub fn traceparent(&self) -> &str {
        &self.traceparent
    }

    /// The `tracestate` header, if there is one.
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }
}

/// `00-` 32 hex `-` 16 hex `-` 2 hex, lowercase, neither id all zeros.
fn is_traceparent(header: &[u8]) -> bool {
    const DASHES: [usize; 3] = [2, 35, 52];
    let hex = |b: &u8| matches!(b, b'0'..=b'9' | b'a'..=b'f');
    let nonzero = |part: &[u8]| part.iter().any(|&b| b != b'0');
    header.len() == 55
        && header.starts_with(b"00")
        && header
            .iter()
            .enumerate()
            .all(|(at, b)| match DASHES.contains(&at) {
                true => *b == b'-',
                false => hex(b),
            })
        && nonzero(&header[3..35])
        && nonzero(&header[36..52])
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn the_specifications_example_is_accepted_with_its_state() {
        let context = TraceContext::new(VALID, Some("congo=t61rcWkgMzE")).unwrap();
        assert_eq!(context.traceparent(), VALID);
        assert_eq!(context.tracestate(), Some("congo=t61rcWkgMzE"));
        // An empty tracestate is no tracestate.
        assert_eq!(
            TraceContext::new(VALID, Some("")).unwrap().tracestate(),
            None
        );
    }

    #[test]
    fn anything_but_version_00_trace_context_is_refused() {
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-00",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7\u{e9}1",
        ] {
            assert_eq!(
                TraceContext::new(bad, None),
                Err(TraceContextError::Traceparent),
                "{bad:?} is refused"
            );
        }
    }

    #[test]
    fn a_tracestate_too_long_or_with_control_characters_is_refused() {
        let long = "a=".to_owned() + &"b".repeat(MAX_TRACESTATE);
        for bad in [long.as_str(), "a=b\r\nx-injected: 1", "a=\u{e9}"] {
            assert_eq!(
                TraceContext::new(VALID, Some(bad)),
                Err(TraceContextError::Tracestate),
                "{bad:?} is refused"
            );
        }
    }
}
