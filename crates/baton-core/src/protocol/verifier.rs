//! One turn's stream, checked as it arrives: start, content and end paired
//! by id, nothing after the turn ends, no unknown ids, argument deltas that
//! assemble into JSON. Every rule reports its violation; nothing is dropped
//! silently and nothing panics.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use super::inbound::Inbound;
use crate::fields::{self, read_by_hand, Fields};
use crate::ids::{CallId, CapabilityRef};
use crate::state::TurnLane;
use crate::violation::{ProtocolViolation, Violation};

use super::wire::{Direction, TurnOutcome, WireEvent};

/// What a verified stream yields.
#[derive(Debug, Clone, PartialEq)]
pub enum Verified {
    /// An input for the engine ([`crate::Signal::Inbound`], through [`crate::Engine::handle`]).
    Inbound(Inbound),
    /// Text for presence surfaces (never a reason to announce per delta).
    Text {
        /// The message.
        message: String,
        /// The text.
        delta: String,
    },
    /// State for the interface, with its direction.
    State {
        /// Which way.
        direction: Direction,
        /// The event.
        event: WireEvent,
    },
    /// The acting party's reasoning, for surfaces (never announced).
    Reasoning {
        /// The reasoning message.
        message: String,
        /// A piece of its text, or an encrypted value (never decoded).
        delta: String,
        /// Whether `delta` is an encrypted value.
        encrypted: bool,
    },
    /// What the acting party is busy with, for surfaces.
    Activity {
        /// The activity's message.
        message: String,
        /// Its kind.
        activity: String,
        /// The whole activity, or a JSON Patch to it.
        content: Value,
        /// Whether `content` is a JSON Patch.
        patch: bool,
    },
    /// An escape-hatch event.
    Custom {
        /// What it is.
        name: String,
        /// Its payload.
        value: Value,
    },
}

impl Verified {
    /// Consecutive text deltas of one message joined into one: surfaces
    /// get one `text` per message per network read, however many deltas the
    /// read held, so a fast stream never floods a page. Order and every
    /// character are kept; nothing crosses another item.
    pub fn join_texts(items: Vec<Verified>) -> Vec<Verified> {
        let mut out: Vec<Verified> = Vec::with_capacity(items.len().min(16));
        for item in items {
            if let (
                Some(Verified::Text { message, delta }),
                Verified::Text {
                    message: next,
                    delta: more,
                },
            ) = (out.last_mut(), &item)
            {
                if message == next {
                    delta.push_str(more);
                    continue;
                }
            }
            out.push(item);
        }
        out
    }
}

/// Limits that keep a hostile stream from growing memory without bound.
/// The lanes' limits are bytes per turn; going over one ends the turn with
/// [`Inbound::OverLimit`] (bounded turns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamLimits {
    /// Bytes of JSON arguments one tool call may assemble.
    pub max_arguments_bytes: usize,
    /// Messages and tool calls open at once.
    pub max_open: usize,
    /// Tool calls one turn may make, one after another.
    pub max_calls: usize,
    /// Messages one turn may start, one after another: each is one more
    /// the thread's transcript keeps, said or empty.
    pub max_messages: usize,
    /// Bytes of message text one turn may send.
    pub max_text_bytes: usize,
    /// Bytes of state (snapshots and patches, as JSON) one turn may send.
    pub max_state_bytes: usize,
    /// Bytes of custom events and tool results (as JSON) one turn may send.
    pub max_custom_bytes: usize,
    /// Bytes of reasoning (text, or encrypted values) one turn may send.
    pub max_reasoning_bytes: usize,
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            max_arguments_bytes: 1 << 20,
            max_open: 256,
            max_calls: 256,
            max_messages: 256,
            max_text_bytes: 1 << 20,
            max_state_bytes: 1 << 20,
            max_custom_bytes: 1 << 20,
            max_reasoning_bytes: 1 << 20,
        }
    }
}

impl StreamLimits {
    /// Read by hand: every key optional (the default holds), no other key
    /// allowed (the manual, "Size").
    fn read(value: &Value) -> Result<StreamLimits, fields::Refusal> {
        const KEYS: [&str; 8] = [
            "maxArgumentsBytes",
            "maxOpen",
            "maxTextBytes",
            "maxStateBytes",
            "maxCustomBytes",
            "maxReasoningBytes",
            "maxCalls",
            "maxMessages",
        ];
        let fields = Fields::of(value, String::from("$"), &KEYS)?;
        let default = StreamLimits::default();
        let or = |key: &str, fallback: usize| -> Result<usize, fields::Refusal> {
            Ok(fields.optional(key)?.unwrap_or(fallback))
        };
        Ok(StreamLimits {
            max_arguments_bytes: or(KEYS[0], default.max_arguments_bytes)?,
            max_open: or(KEYS[1], default.max_open)?,
            max_text_bytes: or(KEYS[2], default.max_text_bytes)?,
            max_state_bytes: or(KEYS[3], default.max_state_bytes)?,
            max_custom_bytes: or(KEYS[4], default.max_custom_bytes)?,
            max_reasoning_bytes: or(KEYS[5], default.max_reasoning_bytes)?,
            max_calls: or(KEYS[6], default.max_calls)?,
            max_messages: or(KEYS[7], default.max_messages)?,
        })
    }
}

read_by_hand!(StreamLimits);

/// Bytes a turn has sent into each bounded lane so far.
#[derive(Debug, Clone, Copy, Default)]
struct Sent {
    text: usize,
    state: usize,
    custom: usize,
    reasoning: usize,
}

/// Verifies one turn's stream of [`WireEvent`]s as it arrives.
///
/// One verifier per turn, owned by the turn, whatever carries the stream:
/// it applies the turn's [`StreamLimits`] to every lane, and it decides
/// which calls are the page's. A call to a tool the engine declared for the
/// turn is the page's to carry out ([`Inbound::ToolCall`]). A call to any
/// other name is the acting party's own when the stream reports its result
/// ([`Inbound::AgentAct`]); one still without a result when the turn ends
/// was meant for the page after all, and the engine refuses it as
/// undeclared (AG-21).
#[derive(Debug, Clone)]
pub struct TurnVerifier {
    limits: StreamLimits,
    /// The tools declared for the turn; `None`: every call is the page's.
    declared: Option<Vec<String>>,
    started: bool,
    ended: bool,
    /// Open messages.
    messages: BTreeSet<String>,
    /// The text so far of each open message the acting party says to the
    /// person (a few at most: a list, not another map in the runtime).
    said: Vec<(String, String)>,
    calls: BTreeMap<String, OpenCall>,
    seen_calls: BTreeSet<String>,
    /// Messages started so far.
    started_messages: usize,
    /// Complete calls to undeclared tools, waiting for their result.
    undeclared: Vec<(String, OwnCall)>,
    violation: Option<Violation>,
    sent: Sent,
}

#[derive(Debug, Clone)]
struct OpenCall {
    tool: String,
    arguments: String,
    via: Vec<String>,
}

impl TurnVerifier {
    /// A verifier for a new turn that treats every call as the page's.
    pub fn new(limits: StreamLimits) -> Self {
        TurnVerifier {
            limits,
            declared: None,
            started: false,
            ended: false,
            messages: BTreeSet::new(),
            said: Vec::new(),
            calls: BTreeMap::new(),
            seen_calls: BTreeSet::new(),
            started_messages: 0,
            undeclared: Vec::new(),
            violation: None,
            sent: Sent::default(),
        }
    }

    /// The verifier of the turn `request` opens: the page's calls are those
    /// to the tools it declares.
    pub fn for_turn(limits: StreamLimits, request: &super::TurnRequest) -> Self {
        TurnVerifier {
            declared: Some(request.tools.iter().map(|tool| tool.name.clone()).collect()),
            ..TurnVerifier::new(limits)
        }
    }

    /// Whether the turn ended (finished, failed, or broke the protocol).
    pub fn is_over(&self) -> bool {
        self.ended || self.violation.is_some()
    }

    /// How many more bytes of text the turn may send before its text lane
    /// is over its limit. A decoder that joins consecutive deltas of one
    /// message joins them only within this room, so a joined delta is never
    /// what crosses the limit: the turn is refused at the same delta
    /// either way.
    pub fn text_room(&self) -> usize {
        self.limits.max_text_bytes.saturating_sub(self.sent.text)
    }

    /// The most state, as JSON, the turn may hold: a dialect that applies
    /// the acting party's patches keeps the result within it.
    pub fn max_state_bytes(&self) -> usize {
        self.limits.max_state_bytes
    }

    /// The first violation, if the stream broke the protocol.
    pub fn violation(&self) -> Option<&Violation> {
        self.violation.as_ref()
    }

    /// Checks one event. A violation ends the turn: it yields
    /// [`Inbound::Malformed`] once, and everything after it is ignored.
    pub fn push(&mut self, event: WireEvent) -> Vec<Verified> {
        if self.violation.is_some() {
            return Vec::new();
        }
        match self.check(event) {
            Ok(out) => out,
            Err(reason) => self.violate(reason),
        }
    }

    /// The stream closed. If the turn had not ended, that is a failure of
    /// the transport ([`Inbound::TransportLost`]), not a protocol violation.
    pub fn close(&mut self) -> Vec<Verified> {
        if self.is_over() {
            return Vec::new();
        }
        self.ended = true;
        vec![Verified::Inbound(Inbound::TransportLost {
            message: "the stream closed before the turn ended".into(),
        })]
    }

    /// Breaks the turn off for a violation found below this layer (an SSE
    /// or dialect decoder): it ends the turn like any other violation.
    pub fn break_off(&mut self, reason: Violation) -> Vec<Verified> {
        if self.violation.is_some() || self.ended {
            return Vec::new();
        }
        self.violate(reason)
    }

    fn violate(&mut self, reason: Violation) -> Vec<Verified> {
        let inbound = Inbound::Malformed {
            code: reason.code,
            detail: reason.detail.clone(),
        };
        self.violation = Some(reason);
        vec![Verified::Inbound(inbound)]
    }

    /// Counts what `event` sends into its bounded lane: `Some(lane, limit)`
    /// once the turn has sent more than that lane may hold.
    fn over_limit(&mut self, event: &WireEvent) -> Option<(TurnLane, usize)> {
        let json =
            |value: &Value| serde_json::to_string(value).map_or(usize::MAX, |text| text.len());
        let (lane, bytes) = match event {
            WireEvent::MessageDelta { delta, .. } => (TurnLane::Text, delta.len()),
            WireEvent::StateSnapshot {
                snapshot: value, ..
            }
            | WireEvent::StateDelta { patch: value, .. } => (TurnLane::State, json(value)),
            WireEvent::Activity {
                content, activity, ..
            } => (
                TurnLane::State,
                json(content).saturating_add(activity.len()),
            ),
            WireEvent::Custom { value, .. } | WireEvent::ToolCallResult { content: value, .. } => {
                (TurnLane::Custom, json(value))
            }
            WireEvent::Reasoning { delta, .. } => (TurnLane::Reasoning, delta.len()),
            _ => return None,
        };
        let (sent, limit) = match lane {
            TurnLane::Text => (&mut self.sent.text, self.limits.max_text_bytes),
            TurnLane::State => (&mut self.sent.state, self.limits.max_state_bytes),
            TurnLane::Custom => (&mut self.sent.custom, self.limits.max_custom_bytes),
            TurnLane::Reasoning => (&mut self.sent.reasoning, self.limits.max_reasoning_bytes),
        };
        *sent = sent.saturating_add(bytes);
        (*sent > limit).then_some((lane, limit))
    }

    /// A lane went over its limit: the turn ends, typed, and everything
    /// after is ignored.
    fn exceeded(&mut self, lane: TurnLane, limit: usize) -> Vec<Verified> {
        self.violation = Some(Violation::new(
            ProtocolViolation::OverLimit,
            format!("the turn sent more than {limit} bytes of {lane:?}"),
        ));
        let limit = u64::try_from(limit).unwrap_or(u64::MAX);
        vec![Verified::Inbound(Inbound::OverLimit { lane, limit })]
    }

    fn check(&mut self, event: WireEvent) -> Result<Vec<Verified>, Violation> {
        if self.ended {
            return Err(Violation::new(
                ProtocolViolation::OutOfOrder,
                format!("{} after the turn ended", name(&event)),
            ));
        }
        if !self.started {
            return self.check_first(event);
        }
        if let Some((lane, limit)) = self.over_limit(&event) {
            return Ok(self.exceeded(lane, limit));
        }
        match event {
            WireEvent::TurnStarted => Err(Violation::new(
                ProtocolViolation::OutOfOrder,
                "turn-started twice",
            )),
            WireEvent::TurnFinished { outcome } => self.finish(outcome),
            WireEvent::TurnError { message, .. } => {
                self.ended = true;
                Ok(vec![Verified::Inbound(Inbound::TurnFailed { message })])
            }
            WireEvent::MessageStart { message, role } => {
                self.check_room()?;
                if self.started_messages >= self.limits.max_messages {
                    return Err(Violation::new(
                        ProtocolViolation::OverLimit,
                        format!(
                            "the turn started more than {} messages",
                            self.limits.max_messages
                        ),
                    ));
                }
                self.started_messages += 1;
                if !self.messages.insert(message.clone()) {
                    return Err(Violation::new(
                        ProtocolViolation::AlreadyOpen,
                        format!("message `{message}` started twice"),
                    ));
                }
                // Only the acting party's own words go to the run's history.
                if matches!(role.as_deref(), None | Some("assistant")) {
                    self.said.push((message, String::new()));
                }
                Ok(Vec::new())
            }
            WireEvent::MessageDelta { message, delta } => {
                if !self.messages.contains(&message) {
                    return Err(Violation::new(
                        ProtocolViolation::NotOpen,
                        format!("text for message `{message}`, which is not open"),
                    ));
                }
                // Bounded by the text lane, which counted this delta first.
                if let Some((_, said)) = self.said.iter_mut().find(|(id, _)| *id == message) {
                    said.push_str(&delta);
                }
                Ok(vec![Verified::Text { message, delta }])
            }
            WireEvent::MessageEnd { message } => {
                if !self.messages.remove(&message) {
                    return Err(Violation::new(
                        ProtocolViolation::NotOpen,
                        format!("end of message `{message}`, which is not open"),
                    ));
                }
                let said = self.said.iter().position(|(id, _)| *id == message);
                Ok(said
                    .map(|index| self.said.swap_remove(index).1)
                    .filter(|text| !text.is_empty())
                    .map(|text| Verified::Inbound(Inbound::Said { message, text }))
                    .into_iter()
                    .collect())
            }
            WireEvent::ToolCallStart {
                call, tool, via, ..
            } => self.open_call(call, tool, via),
            WireEvent::ToolCallArgs { call, delta } => self.append_arguments(&call, &delta),
            WireEvent::ToolCallEnd { call } => self.close_call(call),
            WireEvent::ToolCallResult { call, content } => {
                let own = self.undeclared.iter().position(|(id, _)| *id == call);
                if let Some((_, own)) = own.map(|index| self.undeclared.remove(index)) {
                    return Ok(vec![Verified::Inbound(Inbound::AgentAct {
                        call: CallId::new(call),
                        tool: own.tool,
                        arguments: own.arguments,
                        result: content,
                    })]);
                }
                Ok(vec![Verified::Custom {
                    name: "tool-call-result".into(),
                    value: serde_json::json!({ "call": call, "content": content }),
                }])
            }
            WireEvent::Reasoning {
                message,
                delta,
                encrypted,
            } => Ok(vec![Verified::Reasoning {
                message,
                delta,
                encrypted,
            }]),
            WireEvent::Activity {
                message,
                activity,
                content,
                patch,
            } => Ok(vec![Verified::Activity {
                message,
                activity,
                content,
                patch,
            }]),
            WireEvent::Elicitation {
                request,
                prompt,
                schema,
                expires_at,
                call,
            } => {
                // An approval of one of the acting party's own calls: the
                // call is the question's, put to the person — neither
                // refused as undeclared nor carried out.
                let held = call.and_then(|id| {
                    let index = self.undeclared.iter().position(|(own, _)| *own == id)?;
                    Some(self.undeclared.remove(index))
                });
                let approval = held.map(|(id, own)| crate::questions::AgentCall {
                    call: CallId::new(id),
                    tool: own.tool,
                    arguments: own.arguments,
                });
                Ok(vec![Verified::Inbound(Inbound::Question {
                    request,
                    prompt,
                    schema,
                    deadline_ms: None,
                    expires_at,
                    approval,
                })])
            }
            WireEvent::StateSnapshot { direction, .. } | WireEvent::StateDelta { direction, .. }
                if direction == Direction::ToAgent =>
            {
                Err(Violation::new(
                    ProtocolViolation::WrongDirection,
                    "the acting party sent `to-agent` state; it may only send its own (`from-agent`)",
                ))
            }
            event @ (WireEvent::StateSnapshot { direction, .. }
            | WireEvent::StateDelta { direction, .. }) => {
                Ok(vec![Verified::State { direction, event }])
            }
            WireEvent::Custom { name, value } => Ok(vec![Verified::Custom { name, value }]),
        }
    }

    /// Before the turn started, only its start or its failure may come.
    fn check_first(&mut self, event: WireEvent) -> Result<Vec<Verified>, Violation> {
        match event {
            WireEvent::TurnStarted => {
                self.started = true;
                Ok(Vec::new())
            }
            WireEvent::TurnError { message, .. } => {
                self.ended = true;
                Ok(vec![Verified::Inbound(Inbound::TurnFailed { message })])
            }
            other => Err(Violation::new(
                ProtocolViolation::OutOfOrder,
                format!("{} before turn-started", name(&other)),
            )),
        }
    }

    /// The turn ends only with nothing left open. A call to an undeclared
    /// tool that got no result of the acting party's own was meant for the
    /// page: it goes to the engine now, which refuses it (AG-21).
    fn finish(&mut self, outcome: TurnOutcome) -> Result<Vec<Verified>, Violation> {
        if let Some(message) = self.messages.iter().next() {
            return Err(Violation::new(
                ProtocolViolation::LeftOpen,
                format!("turn-finished while message `{message}` is open"),
            ));
        }
        if let Some(call) = self.calls.keys().next() {
            return Err(Violation::new(
                ProtocolViolation::LeftOpen,
                format!("turn-finished while tool call `{call}` is open"),
            ));
        }
        self.ended = true;
        let mut out: Vec<Verified> = std::mem::take(&mut self.undeclared)
            .into_iter()
            .map(|(call, own)| {
                Verified::Inbound(Inbound::ToolCall {
                    call: CallId::new(call),
                    capability: capability_of(&own.tool),
                    arguments: own.arguments,
                    via: own.via,
                })
            })
            .collect();
        out.push(Verified::Inbound(match outcome {
            TurnOutcome::Completed | TurnOutcome::Interrupted => Inbound::TurnEnd,
            TurnOutcome::Cancelled => Inbound::TurnFailed {
                message: "the acting party cancelled the turn".into(),
            },
        }));
        Ok(out)
    }

    /// Room for one more open message or tool call.
    fn check_room(&self) -> Result<(), Violation> {
        if self.messages.len() + self.calls.len() >= self.limits.max_open {
            return Err(Violation::new(
                ProtocolViolation::TooManyOpen,
                format!(
                    "more than {} messages and tool calls open at once",
                    self.limits.max_open
                ),
            ));
        }
        Ok(())
    }

    fn open_call(
        &mut self,
        call: String,
        tool: String,
        via: Vec<String>,
    ) -> Result<Vec<Verified>, Violation> {
        self.check_room()?;
        if self.calls.contains_key(&call) {
            return Err(Violation::new(
                ProtocolViolation::AlreadyOpen,
                format!("tool call `{call}` started twice"),
            ));
        }
        if self.seen_calls.len() >= self.limits.max_calls {
            return Err(Violation::new(
                ProtocolViolation::OverLimit,
                format!(
                    "the turn made more than {} tool calls",
                    self.limits.max_calls
                ),
            ));
        }
        // An id used before in this turn, closed since: never reused.
        if !self.seen_calls.insert(call.clone()) {
            return Err(Violation::new(
                ProtocolViolation::DuplicateCall,
                format!("tool call `{call}` started twice"),
            ));
        }
        let open = OpenCall {
            tool,
            arguments: String::new(),
            via,
        };
        self.calls.insert(call, open);
        Ok(Vec::new())
    }

    fn append_arguments(&mut self, call: &str, delta: &str) -> Result<Vec<Verified>, Violation> {
        let limit = self.limits.max_arguments_bytes;
        let open = self.calls.get_mut(call).ok_or_else(|| {
            Violation::new(
                ProtocolViolation::NotOpen,
                format!("arguments for tool call `{call}`, which is not open"),
            )
        })?;
        if open.arguments.len() + delta.len() > limit {
            return Err(Violation::new(
                ProtocolViolation::OverLimit,
                format!("the arguments of tool call `{call}` exceed {limit} bytes"),
            ));
        }
        open.arguments.push_str(delta);
        Ok(Vec::new())
    }

    /// A call's end: its assembled arguments must be JSON (none is `{}`).
    fn close_call(&mut self, call: String) -> Result<Vec<Verified>, Violation> {
        let open = self.calls.remove(&call).ok_or_else(|| {
            Violation::new(
                ProtocolViolation::NotOpen,
                format!("end of tool call `{call}`, which is not open"),
            )
        })?;
        let text = open.arguments.trim();
        let arguments: Value = if text.is_empty() {
            Value::Object(Default::default())
        } else {
            serde_json::from_str(text).map_err(|error| {
                Violation::new(
                    ProtocolViolation::NotJson,
                    format!("the arguments of tool call `{call}` are not JSON: {error}"),
                )
            })?
        };
        let declared = self
            .declared
            .as_ref()
            .is_none_or(|declared| declared.contains(&open.tool));
        if !declared {
            let own = OwnCall {
                tool: open.tool,
                arguments,
                via: open.via,
            };
            self.undeclared.push((call, own));
            return Ok(Vec::new());
        }
        Ok(vec![Verified::Inbound(Inbound::ToolCall {
            call: CallId::new(call),
            capability: capability_of(&open.tool),
            arguments,
            via: open.via,
        })])
    }
}

/// The capability a tool name addresses; one that is not
/// `participant.capability` addresses none, and is refused as undeclared.
fn capability_of(tool: &str) -> CapabilityRef {
    CapabilityRef::parse_tool_name(tool).unwrap_or_else(|| CapabilityRef::new("", tool))
}

/// A complete call to a tool the turn did not declare.
#[derive(Debug, Clone)]
struct OwnCall {
    tool: String,
    arguments: Value,
    via: Vec<String>,
}

fn name(event: &WireEvent) -> &'static str {
    match event {
        WireEvent::TurnStarted => "turn-started",
        WireEvent::TurnFinished { .. } => "turn-finished",
        WireEvent::TurnError { .. } => "turn-error",
        WireEvent::MessageStart { .. } => "message-start",
        WireEvent::MessageDelta { .. } => "message-delta",
        WireEvent::MessageEnd { .. } => "message-end",
        WireEvent::ToolCallStart { .. } => "tool-call-start",
        WireEvent::ToolCallArgs { .. } => "tool-call-args",
        WireEvent::ToolCallEnd { .. } => "tool-call-end",
        WireEvent::ToolCallResult { .. } => "tool-call-result",
        WireEvent::Elicitation { .. } => "elicitation",
        WireEvent::StateSnapshot { .. } => "state-snapshot",
        WireEvent::StateDelta { .. } => "state-delta",
        WireEvent::Reasoning { .. } => "reasoning",
        WireEvent::Activity { .. } => "activity",
        WireEvent::Custom { .. } => "custom",
    }
}
