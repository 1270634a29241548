//! Streaming cost of the AG-UI adapter, as ratios against a peer measured in
//! the same run (absolute times on shared machines are noise):
//!
//! * the full pipeline (SSE decoding, AG-UI checks and mapping, the `baton/1`
//!   verifier, keeping the assistant message) against a bare JSON parse of
//!   the same event payloads;
//! * the pipeline's throughput over the last tenth of a 100,000-delta
//!   message against its first tenth — a pipeline that copied what it had
//!   accumulated on every delta would fall off here.
//!
//! Run with `cargo xtask bench`.

use std::time::Instant;

use baton_agui::{AgUiTurn, DEFAULT_MAX_EVENT_BYTES};
use baton_core::{StreamLimits, TurnVerifier};

const DELTAS: usize = 100_000;

fn stream(kind: &str) -> Vec<String> {
    let mut events = vec![r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#.to_owned()];
    match kind {
        "text" => {
            events
                .push(r#"{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}"#.into());
            events.extend((0..DELTAS).map(|i| {
                format!(
                    r#"{{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"token{} "}}"#,
                    i % 10
                )
            }));
            events.push(r#"{"type":"TEXT_MESSAGE_END","messageId":"m"}"#.into());
        }
        _ => {
            events.push(
                r#"{"type":"TOOL_CALL_START","toolCallId":"c","toolCallName":"notes.add"}"#.into(),
            );
            events.push(
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"text\":\""}"#.into(),
            );
            events.extend((0..DELTAS).map(|_| {
                r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"abcdef"}"#.to_owned()
            }));
            events.push(r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"\"}"}"#.into());
            events.push(r#"{"type":"TOOL_CALL_END","toolCallId":"c"}"#.into());
        }
    }
    events.push(r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r"}"#.into());
    events
}

fn sse(events: &[String]) -> Vec<Vec<u8>> {
    events
        .iter()
        .map(|e| format!("data: {e}\n\n").into_bytes())
        .collect()
}

fn best_of<T>(rounds: usize, mut f: impl FnMut() -> T) -> f64 {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let limits = StreamLimits {
        max_arguments_bytes: 16 << 20,
        max_text_bytes: 16 << 20,
        max_open: 256,
        ..StreamLimits::default()
    };
    for kind in ["text", "tool-call arguments"] {
        let events = stream(kind);
        let frames = sse(&events);
        let bare = best_of(5, || {
            events
                .iter()
                .map(|e| {
                    serde_json::from_str::<serde_json::Value>(e)
                        .map(|_| 1)
                        .unwrap_or(0)
                })
                .sum::<usize>()
        });
        let full = best_of(5, || {
            let mut turn = AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES);
            let mut verifier = TurnVerifier::new(limits);
            let mut n = 0;
            for frame in &frames {
                n += turn.feed(frame, &mut verifier).len();
            }
            n + turn.finish(&mut verifier).len()
        });
        // Throughput by tenth of the stream, in one pass.
        let tenth = frames.len() / 10;
        let mut per_tenth = Vec::new();
        let mut turn = AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES);
        let mut verifier = TurnVerifier::new(limits);
        for slice in frames.chunks(tenth) {
            let start = Instant::now();
            for frame in slice {
                std::hint::black_box(turn.feed(frame, &mut verifier));
            }
            per_tenth.push(slice.len() as f64 / start.elapsed().as_secs_f64());
        }
        let first = per_tenth[0];
        let last = per_tenth[per_tenth.len() - 2];
        println!(
            "{kind:>20}: {} events; full pipeline / bare JSON parse = {:.2}x the time; last tenth / first tenth throughput = {:.2}",
            events.len(),
            full / bare,
            last / first
        );
    }
}
