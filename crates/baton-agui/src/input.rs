//! `RunAgentInput`: what one AG-UI run receives (one Baton turn).

use baton_core::{
    AnswerOutcome, CallReport, CallResult, CapabilityRef, Refusal, RunId, TurnRequest,
};
use serde_json::{json, Value};

/// Which conversation a run's turns belong to, on the AG-UI wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThreadScope {
    /// One thread per engine session (`threadId` is the session): every
    /// delegation continues the same conversation. The default.
    #[default]
    Session,
    /// One thread per delegation (`threadId` is the run): each starts a
    /// conversation of its own.
    Run,
}

impl ThreadScope {
    /// The thread a turn belongs to: the one the app named for its run
    /// (`delegate({ thread })`), else this scope's.
    pub fn thread_of(self, request: &TurnRequest) -> String {
        if let Some(thread) = &request.thread {
            return thread.clone();
        }
        match self {
            ThreadScope::Session => request.session.to_string(),
            ThreadScope::Run => request.run.to_string(),
        }
    }
}

/// One conversation as the AG-UI agent sees it, kept whole: each
/// delegation's intent, then what the agent said and did — its messages
/// under its own ids, with their tool calls — and a `tool` message answering
/// every call, whether the page carried it out, refused it, or never got to
/// it. Every request on the thread carries all of it, so an agent that keeps
/// history on the client and one that keeps it on the server (a
/// checkpointer keyed by `threadId`) see the same conversation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Thread {
    messages: Vec<Value>,
    /// The runs whose intent is in the transcript.
    runs: Vec<String>,
    /// Tool calls in the transcript, as (run, call): an agent may use the
    /// same call id again in a later delegation.
    calls: Vec<(String, String)>,
    /// The calls a `tool` message answers, as (run, call).
    answered: Vec<(String, String)>,
}

impl Thread {
    /// An empty thread.
    pub fn new() -> Self {
        Self::default()
    }

    /// The transcript so far.
    pub fn messages(&self) -> &[Value] {
        &self.messages
    }

    /// Records what the agent said and did in a turn of `run`
    /// ([`crate::AgUiTurn::messages`]), before the engine hears the turn
    /// ended, so the next request already carries it.
    pub fn record(&mut self, run: &RunId, messages: Vec<Value>) {
        let run = run.to_string();
        for message in messages {
            if let Some(calls) = message.get("toolCalls").and_then(Value::as_array) {
                for call in calls {
                    if let Some(id) = call.get("id").and_then(Value::as_str) {
                        self.calls.push((run.clone(), id.to_owned()));
                    }
                }
            }
            if let Some(id) = message.get("toolCallId").and_then(Value::as_str) {
                self.answered.push((run.clone(), id.to_owned()));
            }
            self.messages.push(message);
        }
    }

    /// The agent's own account of the conversation (`MESSAGES_SNAPSHOT`,
    /// sent by a server that keeps the thread's history) becomes the
    /// transcript, so what it holds and what the next request sends are the
    /// same messages under the same ids — nothing sent twice. Calls already
    /// known keep their run; new ones are `run`'s.
    pub fn adopt(&mut self, run: &RunId, snapshot: &[Value]) {
        let known = std::mem::take(&mut self.calls);
        self.answered.clear();
        self.messages.clear();
        let run = run.to_string();
        for message in snapshot {
            if let Some(calls) = message.get("toolCalls").and_then(Value::as_array) {
                for call in calls.iter().filter_map(|call| call.get("id")?.as_str()) {
                    let owner = known
                        .iter()
                        .find(|(_, id)| id == call)
                        .map_or_else(|| run.clone(), |(owner, _)| owner.clone());
                    self.calls.push((owner, call.to_owned()));
                }
            }
            if let Some(call) = message.get("toolCallId").and_then(Value::as_str) {
                let owner = (self.calls.iter().rev())
                    .find(|(_, id)| id == call)
                    .map_or_else(|| run.clone(), |(owner, _)| owner.clone());
                self.answered.push((owner, call.to_owned()));
            }
            self.messages.push(message.clone());
        }
    }

    /// Calls of `run` the agent asked the person to approve: the `resume`
    /// answers them, so no `tool` message ever will — not even once the run
    /// has moved on.
    pub fn await_resume(&mut self, run: &RunId, calls: &[String]) {
        for call in calls {
            self.answered.push((run.to_string(), call.clone()));
        }
    }

    /// A `tool` message for a call of `run`, unless one already answers it.
    /// A result a chained run carries (a resumed run's) answers the call
    /// under the run that made it.
    fn answer(&mut self, run: &str, call: &str, content: String, error: Option<String>) {
        let owner = (self.calls.iter().rev())
            .find(|(owner, id)| id == call && (owner == run || !self.is_answered(owner, call)))
            .map_or_else(|| run.to_owned(), |(owner, _)| owner.clone());
        let run = owner.as_str();
        if self.is_answered(run, call) {
            return;
        }
        self.answered.push((run.to_owned(), call.to_owned()));
        let id = format!("{run}/result/{call}");
        let mut message = json!({"id": id, "role": "tool", "toolCallId": call, "content": content});
        if let Some(error) = error {
            message["error"] = json!(error);
        }
        self.messages.push(message);
    }

    /// What became of calls of `run`, each as a `tool` message — a result
    /// the engine sends with the next turn, or, once a run has ended, the
    /// results it never sent and the calls it never carried out (a rejected
    /// plan: `error` says so, with the person's note).
    pub fn settle(&mut self, run: &RunId, results: &[CallReport]) {
        let run = run.to_string();
        for report in results {
            let (content, error) = tool_content(report);
            self.answer(&run, report.call.as_str(), content, error);
        }
    }

    fn is_answered(&self, run: &str, call: &str) -> bool {
        self.answered.iter().any(|(r, c)| r == run && c == call)
    }

    /// Answers every call still unanswered that `closes` says will never be
    /// carried out: the agent is told, so no call is left hanging in its
    /// history (model APIs refuse a history with one).
    fn close_unanswered(&mut self, closes: impl Fn(&str) -> bool) {
        let open: Vec<(String, String)> = self
            .calls
            .iter()
            .filter(|(run, call)| !self.is_answered(run, call) && closes(run))
            .cloned()
            .collect();
        for (run, call) in open {
            let content = json!({
                "code": "not-carried-out",
                "message": "the delegation went on or ended without carrying this call out",
            });
            self.answer(
                &run,
                &call,
                content.to_string(),
                Some("not carried out".into()),
            );
        }
    }

    /// Builds the `RunAgentInput` for a turn on thread `thread`: the whole
    /// transcript, with this turn's call results as `tool` messages and its
    /// question answers as `resume` entries; the tools from the manifests,
    /// the context from the reads.
    pub fn input(&mut self, thread: &str, request: &TurnRequest) -> Value {
        let run = request.run.to_string();
        // The results first: a chained run's carry its predecessor's calls.
        self.settle(&request.run, &request.results);
        if !self.runs.contains(&run) {
            self.runs.push(run.clone());
            // A new delegation on the thread: the calls of those before it
            // that are still unanswered never will be.
            self.close_unanswered(|other| other != run);
            self.messages.push(
                json!({"id": format!("{run}/intent"), "role": "user", "content": request.intent}),
            );
        }
        // This run's calls the engine did not answer now, it never will.
        self.close_unanswered(|other| other == run);
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
            "threadId": thread,
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
                .map(|answer| {
                    let mut entry = match &answer.outcome {
                        AnswerOutcome::Answered { answer: payload } => {
                            json!({"interruptId": answer.request, "status": "resolved", "payload": payload})
                        }
                        // AG-UI 1.0: a cancellation carries no payload; why is metadata.
                        other => json!({"interruptId": answer.request, "status": "cancelled", "metadata": {"baton": other}}),
                    };
                    // The person's decision about the agent's own call: its
                    // record, which the transport signs (`signature`).
                    if let Some(record) = &answer.record {
                        entry["metadata"]["approval"] = json!({"record": record});
                    }
                    entry
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

/// A call's outcome as a `tool` message's content and, when it did not run
/// as asked, its `error`.
fn tool_content(report: &CallReport) -> (String, Option<String>) {
    let (mut content, error) = match &report.result {
        CallResult::Applied { value } => (value.to_string(), None),
        CallResult::Refused { refusal } => {
            let error = match refusal {
                Refusal::NotCarriedOut { reason, note } => match note {
                    Some(note) => format!("not carried out ({reason}): {note}"),
                    None => format!("not carried out ({reason})"),
                },
                other => format!("refused: {}", other.code()),
            };
            (
                serde_json::to_string(refusal).unwrap_or_default(),
                Some(error),
            )
        }
        CallResult::Failed { message } => {
            (json!({"error": message}).to_string(), Some(message.clone()))
        }
    };
    // Approve with edits: the person replaced the arguments the agent
    // proposed — a full replacement, AG-UI's `editedArgs` — and the call ran
    // with them.
    if let Some(edited) = &report.edited {
        let result = serde_json::from_str::<Value>(&content).unwrap_or(Value::String(content));
        content = json!({"result": result, "editedArgs": edited}).to_string();
    }
    (content, error)
}
