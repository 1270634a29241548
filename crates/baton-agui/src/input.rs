//! `RunAgentInput`: what one AG-UI run receives (one Baton turn).

use baton_core::{AnswerOutcome, CallResult, CapabilityRef, TurnRequest};
use serde_json::{json, Value};

/// The conversation of one run as the AG-UI agent sees it: the person's
/// intent, then each turn's assistant message and the tool results that
/// answered it. The transport keeps one per run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Thread {
    messages: Vec<Value>,
}

impl Thread {
    /// An empty thread.
    pub fn new() -> Self {
        Self::default()
    }

    /// The messages so far.
    pub fn messages(&self) -> &[Value] {
        &self.messages
    }

    /// Adds what the agent said in a turn (its text and tool calls).
    pub fn push_assistant(&mut self, message: Value) {
        self.messages.push(message);
    }

    /// Builds the `RunAgentInput` for a turn: `threadId` is the session,
    /// `runId` names the run and turn, the tools come from the manifests and
    /// the context from the reads; call results become tool messages and
    /// question answers become `resume` entries.
    pub fn input(&mut self, request: &TurnRequest) -> Value {
        if self.messages.is_empty() {
            self.messages.push(json!({"id": format!("{}/intent", request.run), "role": "user", "content": request.intent}));
        }
        for report in &request.results {
            let (mut content, error) = match &report.result {
                CallResult::Applied { value } => (value.to_string(), None),
                CallResult::Refused { refusal } => (
                    serde_json::to_string(refusal).unwrap_or_default(),
                    Some(format!("refused: {}", refusal.code())),
                ),
                CallResult::Failed { message } => {
                    (json!({"error": message}).to_string(), Some(message.clone()))
                }
            };
            // Approve with edits: the person replaced the arguments the agent
            // proposed — a full replacement, AG-UI's `editedArgs` — and the
            // call ran with them.
            if let Some(edited) = &report.edited {
                let result =
                    serde_json::from_str::<Value>(&content).unwrap_or(Value::String(content));
                content = json!({"result": result, "editedArgs": edited}).to_string();
            }
            let mut message = json!({
                "id": format!("{}/result/{}", request.run, report.call),
                "role": "tool",
                "toolCallId": report.call,
                "content": content,
            });
            if let Some(error) = error {
                message["error"] = json!(error);
            }
            self.messages.push(message);
        }
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| json!({"name": wire_name(&tool.name), "description": tool.description, "parameters": tool.parameters}))
            .collect();
        let mut context: Vec<Value> = request
            .index
            .iter()
            .map(|entry| {
                let mut description = format!("{} ({}: {})", entry.id, entry.kind, entry.label);
                if let (Some(version), Some(origin)) = (entry.version, entry.origin) {
                    let origin = serde_json::to_value(origin).unwrap_or_default();
                    description.push_str(&format!(
                        ", version {version}, origin {}",
                        origin.as_str().unwrap_or_default()
                    ));
                }
                json!({"description": description, "value": entry.summary})
            })
            .collect();
        context.extend(
            request
                .reads
                .iter()
                .map(|read| json!({"description": format!("{} (version {})", read.id, read.stamp.version), "value": read.content.to_string()})),
        );
        let mut input = json!({
            "threadId": request.session,
            "runId": format!("{}/{}", request.run, request.turn),
            "protocolVersion": crate::AGUI_VERSION,
            "state": if request.state.is_null() { json!({}) } else { request.state.clone() },
            "messages": self.messages,
            "tools": tools,
            "context": context,
            "forwardedProps": {},
        });
        if !request.answers.is_empty() {
            let resume: Vec<Value> = request
                .answers
                .iter()
                .map(|answer| match &answer.outcome {
                    AnswerOutcome::Answered { answer: payload } => {
                        json!({"interruptId": answer.request, "status": "resolved", "payload": payload})
                    }
                    // AG-UI 1.0: a cancellation carries no payload; why is metadata.
                    other => json!({"interruptId": answer.request, "status": "cancelled", "metadata": {"baton": other}}),
                })
                .collect();
            input["resume"] = json!(resume);
        }
        input
    }
}

/// A tool's name on the AG-UI wire: `participant__capability`
/// ([`CapabilityRef::wire_name`]), the form model APIs accept
/// (`^[a-zA-Z0-9_-]{1,64}$`), because an AG-UI agent forwards its frontend
/// tools to one.
pub(crate) fn wire_name(tool: &str) -> String {
    CapabilityRef::parse_tool_name(tool)
        .map_or_else(|| tool.to_owned(), |capability| capability.wire_name())
}

/// A tool name from the wire as Baton addresses it
/// (`participant.capability`). A name not in the wire form is kept as it is:
/// the engine refuses it as undeclared, correctably (AG-21).
pub(crate) fn baton_name(wire: &str) -> String {
    CapabilityRef::parse_wire_name(wire)
        .map_or_else(|| wire.to_owned(), |capability| capability.to_string())
}
