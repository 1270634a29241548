//! What the agent said and did in one AG-UI run, as messages of its
//! thread's transcript, grouped as AG-UI's reference client groups them: a
//! text message under its own id, a tool call under its `parentMessageId`
//! (joining that message when it is the last one), and the result of one of
//! the agent's own tools as a `tool` message under the agent's id for it.

use baton_core::WireEvent;
use serde_json::{json, Map, Value};

/// The messages of one run, in the order the agent produced them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Spoken {
    messages: Vec<Map<String, Value>>,
    /// The whole conversation as the agent last said it holds it
    /// (`MESSAGES_SNAPSHOT`); the messages above are what came after it.
    snapshot: Option<Vec<Value>>,
    /// The agent's own calls it asked the person to approve: the `resume`
    /// answers them, never a `tool` message.
    approvals: Vec<String>,
    /// Calls started and not ended (the stream broke, or was cut off,
    /// mid-call): left out of the transcript, their arguments unfinished.
    unfinished: Vec<String>,
}

impl Spoken {
    /// The calls the agent asked the person to approve this run.
    pub(crate) fn approvals(&self) -> &[String] {
        &self.approvals
    }

    /// The conversation as the agent's last `MESSAGES_SNAPSHOT` gave it.
    pub(crate) fn snapshot(&self) -> Option<&[Value]> {
        self.snapshot.as_deref()
    }

    /// The messages, leaving out the calls that never ended and an
    /// assistant message that said nothing.
    pub(crate) fn messages(&self) -> Vec<Value> {
        self.messages
            .iter()
            .map(|message| self.finished(message))
            .filter(|message| {
                !is_assistant(message)
                    || message.contains_key("content")
                    || message.contains_key("toolCalls")
            })
            .map(Value::Object)
            .collect()
    }

    /// `message` without the calls that never ended.
    fn finished(&self, message: &Map<String, Value>) -> Map<String, Value> {
        let mut message = message.clone();
        if self.unfinished.is_empty() {
            return message;
        }
        if let Some(Value::Array(calls)) = message.get_mut("toolCalls") {
            calls.retain(|call| {
                !self
                    .unfinished
                    .iter()
                    .any(|open| call["id"] == open.as_str())
            });
            if calls.is_empty() {
                message.remove("toolCalls");
            }
        }
        message
    }

    /// `delta` of the assistant's `message`.
    pub(crate) fn say(&mut self, message: &str, delta: &str) {
        if let Some(said) = self.assistant(message) {
            let content = said
                .entry("content")
                .or_insert_with(|| Value::String(String::new()));
            if let Value::String(content) = content {
                content.push_str(delta);
            }
        }
    }

    /// Takes in one mapped event; `raw` is the AG-UI event it came from.
    #[inline(never)]
    pub(crate) fn remember(&mut self, event: &WireEvent, raw: &Value) {
        match event {
            WireEvent::MessageStart { message, role }
                if matches!(role.as_deref(), None | Some("assistant"))
                    && self.assistant(message).is_none() =>
            {
                self.messages.push(assistant_message(message));
            }
            WireEvent::MessageDelta { message, delta } => self.say(message, delta),
            WireEvent::ToolCallStart {
                call,
                tool,
                parent_message,
                ..
            } => {
                let spoken = json!({
                    "id": call,
                    "type": "function",
                    "function": {"name": crate::input::wire_name(tool), "arguments": ""},
                });
                self.unfinished.push(call.clone());
                let parent = parent_message.as_deref().unwrap_or(call);
                let joins_last = self.messages.last().is_some_and(|last| {
                    last.get("id").and_then(Value::as_str) == Some(parent) && is_assistant(last)
                });
                if !joins_last {
                    self.messages.push(assistant_message(parent));
                }
                if let Some(last) = self.messages.last_mut() {
                    if let Value::Array(calls) = last
                        .entry("toolCalls")
                        .or_insert_with(|| Value::Array(Vec::new()))
                    {
                        calls.push(spoken);
                    }
                }
            }
            WireEvent::ToolCallEnd { call } => self.unfinished.retain(|open| open != call),
            WireEvent::ToolCallArgs { call, delta } => {
                let arguments = self
                    .messages
                    .iter_mut()
                    .rev()
                    .filter_map(|message| message.get_mut("toolCalls")?.as_array_mut())
                    .flat_map(|calls| calls.iter_mut())
                    .find(|spoken| spoken["id"] == call.as_str())
                    .and_then(|spoken| spoken.get_mut("function")?.get_mut("arguments"));
                if let Some(Value::String(arguments)) = arguments {
                    arguments.push_str(delta);
                }
            }
            // The agent's own account of the whole conversation (as a
            // server that keeps history sends it): it replaces what this
            // run said so far, as AG-UI's reference client does.
            WireEvent::Custom { name, value } if name == "ag-ui/MESSAGES_SNAPSHOT" => {
                if let Some(messages) = value.get("messages").and_then(Value::as_array) {
                    self.snapshot = Some(messages.clone());
                    self.messages.clear();
                }
            }
            WireEvent::Elicitation {
                call: Some(call), ..
            } => self.approvals.push(call.clone()),
            WireEvent::ToolCallResult { call, content } => {
                let id = raw
                    .get("messageId")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("{call}/result"), str::to_owned);
                let content = match content {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                let message =
                    json!({"id": id, "role": "tool", "toolCallId": call, "content": content});
                if let Value::Object(message) = message {
                    self.messages.push(message);
                }
            }
            _ => {}
        }
    }

    fn assistant(&mut self, id: &str) -> Option<&mut Map<String, Value>> {
        self.messages.iter_mut().rev().find(|message| {
            message.get("id").and_then(Value::as_str) == Some(id) && is_assistant(message)
        })
    }
}

/// Whether `message` is the assistant's. (Compared as text: a `json!`
/// value to compare with would be made, and dropped, on every delta.)
fn is_assistant(message: &Map<String, Value>) -> bool {
    message.get("role").and_then(Value::as_str) == Some("assistant")
}

fn assistant_message(id: &str) -> Map<String, Value> {
    let mut message = Map::new();
    message.insert("id".into(), json!(id));
    message.insert("role".into(), json!("assistant"));
    message
}
