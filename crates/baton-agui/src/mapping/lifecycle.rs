//! The run lifecycle: `RUN_STARTED`, `RUN_FINISHED` (with its outcome and
//! interrupts) and `RUN_ERROR`.

use crate::violation::broke;
use crate::{ProtocolViolation, Violation};
use baton_core::{TurnOutcome, WireEvent};
use serde_json::Value;

use super::{optional_text, text, AgUiMapper, RunPhase};

impl AgUiMapper {
    /// `RUN_STARTED`: a run begins; after a finished one, the stream's next
    /// run starts clean, keeping its state and thread.
    pub(super) fn run_started(&mut self, event: &Value) -> Result<Vec<WireEvent>, Violation> {
        if self.run == RunPhase::Active {
            return Err(broke(
                ProtocolViolation::OutOfOrder,
                "RUN_STARTED while a run is still active",
            ));
        }
        self.check_thread(event)?;
        text(event, "runId")?;
        if matches!(self.run, RunPhase::Finished | RunPhase::Errored) {
            *self = AgUiMapper {
                first: false,
                state: std::mem::take(&mut self.state),
                thread: self.thread.take(),
                ..AgUiMapper::new()
            };
        }
        self.run = RunPhase::Active;
        Ok(vec![WireEvent::TurnStarted])
    }

    /// `RUN_FINISHED`: only with nothing left open.
    pub(super) fn run_finished(&mut self, event: &Value) -> Result<Vec<WireEvent>, Violation> {
        if let Some(open) = self.steps.iter().next() {
            return Err(broke(
                ProtocolViolation::LeftOpen,
                format!("RUN_FINISHED while step `{}` is active", open.1),
            ));
        }
        if let Some(open) = self.text.iter().next() {
            return Err(broke(
                ProtocolViolation::LeftOpen,
                format!("RUN_FINISHED while text message `{open}` is active"),
            ));
        }
        if let Some(open) = self
            .reasoning_messages
            .iter()
            .chain(&self.reasoning_spans)
            .next()
        {
            return Err(broke(
                ProtocolViolation::LeftOpen,
                format!("RUN_FINISHED while reasoning `{open}` is active"),
            ));
        }
        if let Some(open) = self.tools.iter().next() {
            return Err(broke(
                ProtocolViolation::LeftOpen,
                format!("RUN_FINISHED while tool call `{open}` is active"),
            ));
        }
        if let Some(open) = self.subagents_active.iter().next() {
            return Err(broke(
                ProtocolViolation::LeftOpen,
                format!("RUN_FINISHED while subagent `{open}` is active"),
            ));
        }
        self.run = RunPhase::Finished;
        self.finished(event)
    }

    /// `RUN_ERROR`: the run failed.
    pub(super) fn run_error(&mut self, event: &Value) -> Result<Vec<WireEvent>, Violation> {
        self.run = RunPhase::Errored;
        Ok(vec![WireEvent::TurnError {
            message: text(event, "message")?.to_owned(),
            code: optional_text(event, "code")?.map(str::to_owned),
        }])
    }

    fn finished(&self, event: &Value) -> Result<Vec<WireEvent>, Violation> {
        self.check_thread(event)?;
        text(event, "runId")?;
        let outcome = event.get("outcome").filter(|o| !o.is_null());
        let kind = outcome.and_then(|o| o.get("type")).and_then(Value::as_str);
        Ok(match kind {
            None | Some("success") => vec![WireEvent::TurnFinished {
                outcome: TurnOutcome::Completed,
            }],
            Some("cancelled") => vec![WireEvent::TurnFinished {
                outcome: TurnOutcome::Cancelled,
            }],
            Some("interrupt") => {
                let interrupts = outcome
                    .and_then(|o| o.get("interrupts"))
                    .and_then(Value::as_array)
                    .filter(|list| !list.is_empty())
                    .ok_or_else(|| {
                        broke(
                            ProtocolViolation::NotAnEvent,
                            "an interrupt outcome without interrupts",
                        )
                    })?;
                let mut out = Vec::new();
                for interrupt in interrupts {
                    let request = text(interrupt, "id")?.to_owned();
                    let prompt = optional_text(interrupt, "message")?
                        .map(str::to_owned)
                        .unwrap_or(text(interrupt, "reason")?.to_owned());
                    let expires_at = optional_text(interrupt, "expiresAt")?
                        .map(epoch_ms)
                        .transpose()?;
                    out.push(WireEvent::Elicitation {
                        request,
                        prompt,
                        schema: interrupt.get("responseSchema").cloned(),
                        expires_at,
                        // An approval of one of the agent's own calls.
                        call: optional_text(interrupt, "toolCallId")?.map(str::to_owned),
                    });
                }
                out.push(WireEvent::TurnFinished {
                    outcome: TurnOutcome::Interrupted,
                });
                out
            }
            Some(other) => {
                return Err(broke(
                    ProtocolViolation::NotAnEvent,
                    format!("RUN_FINISHED with unknown outcome `{other}`"),
                ))
            }
        })
    }
}

/// An RFC 3339 timestamp (an interrupt's `expiresAt`) as epoch
/// milliseconds; one before 1970 counts as long past.
fn epoch_ms(timestamp: &str) -> Result<u64, Violation> {
    let parsed =
        time::OffsetDateTime::parse(timestamp, &time::format_description::well_known::Rfc3339)
            .map_err(|error| {
                broke(
                    ProtocolViolation::NotAnEvent,
                    format!("`expiresAt` `{timestamp}` is not an RFC 3339 timestamp: {error}"),
                )
            })?;
    Ok(u64::try_from(parsed.unix_timestamp_nanos() / 1_000_000).unwrap_or(0))
}
