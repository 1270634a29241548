//! The subject for `baton-core`: the engine in memory, with participants
//! that answer at once as each fixture's behaviour says, and the acting
//! party's traffic verified as `baton/1` before it reaches the engine.

use baton_core::{
    Answer, Authorize, Decline, Delegate, Disable, Dismiss, Enable, Kill, Pause, Postpone,
    PublishRead, RegisterText, Reject, ResolveEscalation, Resume, Signal, Stop, Undo,
};
use std::collections::{BTreeMap, BTreeSet};

use baton_core::{
    ActorRef, ActorSecret, Authorization, CallId, CallResult, CapabilityRef, Delegation, Digest,
    Effect, Engine, EngineConfig, Event, HostFailure, MarkToken, ParticipantId, ProtocolViolation,
    ReadRef, ReadStamp, Refusal, Report, Resolution, RunId, StreamLimits, TurnId, TurnVerifier,
    Verified, Violation, WireEvent,
};
use serde_json::{json, Map, Value};

use crate::subject::{
    Behaviour, Command, ConformanceSubject, DigestChoice, Reply, Revision, Setup, SubjectError,
};

/// `baton-core` as a conformance subject.
#[derive(Default)]
pub struct CoreSubject {
    engine: Option<Engine>,
    now: u64,
    behaviours: BTreeMap<ParticipantId, Behaviour>,
    aliases: BTreeMap<String, RunId>,
    verifiers: BTreeMap<(RunId, TurnId), TurnVerifier>,
    started: BTreeSet<(RunId, TurnId)>,
    turns: BTreeMap<RunId, usize>,
    protocols: BTreeMap<RunId, Vec<String>>,
    marks: usize,
    invocations: Vec<Value>,
    reverts: Vec<Value>,
    announcements: Vec<Value>,
    findings: Vec<Value>,
    texts: usize,
    states: usize,
    customs: usize,
}

fn error(code: impl std::fmt::Display, message: impl ToString) -> SubjectError {
    SubjectError::new(code.to_string(), message.to_string())
}

impl CoreSubject {
    /// A subject; `start` gives it an engine.
    pub fn new() -> Self {
        Self::default()
    }

    fn engine(&mut self) -> Result<&mut Engine, SubjectError> {
        self.engine
            .as_mut()
            .ok_or_else(|| error("not-started", "the subject was not started"))
    }

    fn run_id(&self, alias: &str) -> Result<RunId, SubjectError> {
        self.aliases
            .get(alias)
            .cloned()
            .ok_or_else(|| error("unknown-run", format!("no run called `{alias}`")))
    }

    fn alias_of(&self, run: &RunId) -> Value {
        self.aliases
            .iter()
            .find(|(_, id)| *id == run)
            .map_or(Value::Null, |(alias, _)| Value::from(alias.as_str()))
    }

    fn behaviour(&self, participant: &ParticipantId) -> Behaviour {
        self.behaviours
            .get(participant)
            .cloned()
            .unwrap_or_default()
    }

    /// Everything the last input set off: effects are carried out at once,
    /// until the engine has nothing more to say.
    fn settle(&mut self) {
        while let Some(event) = self.engine.as_mut().and_then(Engine::poll_event) {
            match event {
                Event::Effect(effect) => self.carry_out(effect),
                Event::Announcement(announcement) => {
                    let mut said = serde_json::to_value(&announcement).unwrap_or_default();
                    let runs: Vec<Value> = announcement
                        .runs
                        .iter()
                        .map(|run| self.alias_of(run))
                        .collect();
                    said["runs"] = Value::from(runs);
                    self.announcements.push(said);
                }
                Event::Finding(finding) => {
                    let reason = serde_json::to_value(&finding.reason).unwrap_or_default();
                    self.findings.push(reason);
                }
                _ => {}
            }
        }
    }

    fn carry_out(&mut self, effect: Effect) {
        let now = self.now;
        match effect {
            Effect::OpenTurn {
                run, turn, request, ..
            } => {
                *self.turns.entry(run.clone()).or_default() += 1;
                self.protocols
                    .entry(run.clone())
                    .or_default()
                    .push(request.protocol.clone());
                let verifier = TurnVerifier::for_turn(StreamLimits::default(), &request);
                self.verifiers.insert((run, turn), verifier);
            }
            Effect::CancelTurn { run, turn } => {
                self.verifiers.remove(&(run, turn));
            }
            Effect::Mark { run, participant } => {
                self.marks += 1;
                let result = match self.behaviour(&participant).mark {
                    Reply::Ok => Ok(MarkToken::new(format!("mark-{}", self.marks))),
                    Reply::Fail(message) | Reply::Decline(message) => {
                        Err(HostFailure::new(message))
                    }
                };
                let report = Report::Mark {
                    run,
                    participant,
                    token: result,
                };
                self.report(now, report);
            }
            Effect::Invoke {
                run,
                call,
                capability,
                arguments,
                actor,
                ..
            } => self.invoke(run, call, capability, arguments, actor),
            Effect::Preview {
                run,
                call,
                capability,
                arguments,
            } => {
                let result = match self.behaviour(&capability.participant).preview {
                    Reply::Ok => Ok(json!({ "preview": arguments })),
                    Reply::Fail(message) | Reply::Decline(message) => {
                        Err(HostFailure::new(message))
                    }
                };
                self.report(
                    now,
                    Report::Preview {
                        run,
                        call,
                        change: result,
                    },
                );
            }
            Effect::Revert {
                run, participant, ..
            } => {
                self.reverts.push(json!({
                    "run": self.alias_of(&run),
                    "participant": participant.to_string(),
                }));
                let result = match self.behaviour(&participant).revert {
                    Reply::Ok => Ok(()),
                    Reply::Fail(message) | Reply::Decline(message) => {
                        Err(HostFailure::new(message))
                    }
                };
                let report = Report::Revert {
                    run,
                    participant,
                    result,
                };
                self.report(now, report);
            }
        }
    }

    /// A participant's handler, as the fixture scripts it; the call's actor
    /// reference is checked to be genuine (AG-32, AG-33).
    fn invoke(
        &mut self,
        run: RunId,
        call: CallId,
        capability: CapabilityRef,
        arguments: Value,
        actor: ActorRef,
    ) {
        let now = self.now;
        // A genuine reference names this very call (AG-32, AG-33).
        let identity = self
            .engine
            .as_ref()
            .and_then(|engine| engine.actors().resolve(&actor))
            .filter(|identity| identity.run == run && identity.call == call);
        let mut invocation = json!({
            "run": self.alias_of(&run),
            "capability": capability.to_string(),
            "arguments": arguments,
            "actor": if identity.is_some() { "genuine" } else { "unresolved" },
        });
        // Who acted, when a subagent did: the chain the reference names.
        if let Some(via) = identity
            .map(|identity| identity.via)
            .filter(|via| !via.is_empty())
        {
            invocation["via"] = json!(via);
        }
        self.invocations.push(invocation);
        let result = match self.behaviour(&capability.participant).invoke {
            Reply::Ok => CallResult::Applied {
                value: json!({ "ok": true }),
            },
            Reply::Fail(message) => CallResult::Failed { message },
            Reply::Decline(message) => CallResult::Refused {
                refusal: Refusal::Declined { message },
            },
        };
        self.report(now, Report::Call { run, call, result });
    }

    /// Gives the engine a host's report. One it refuses (a run that ended
    /// meanwhile) is recorded by the engine as a finding; nothing else
    /// needs doing here.
    fn report(&mut self, now: u64, report: Report) {
        if let Some(engine) = self.engine.as_mut() {
            let _refused_and_recorded = engine.handle(now, report);
        }
    }

    /// The acting party's events on the run's open turn, verified first.
    fn turn(&mut self, alias: &str, events: &[Value]) -> Result<(), SubjectError> {
        let run = self.run_id(alias)?;
        let turn = self
            .engine()?
            .run(&run)
            .and_then(|run| run.open_turn())
            .ok_or_else(|| error("no-open-turn", format!("`{alias}` has no open turn")))?;
        let key = (run.clone(), turn);
        let mut wire = Vec::new();
        if self.started.insert(key.clone())
            && events.first().and_then(|e| e["type"].as_str()) != Some("turn-started")
        {
            wire.push(Ok(WireEvent::TurnStarted));
        }
        for event in events {
            match expand(event) {
                Ok(events) => wire.extend(events.into_iter().map(Ok)),
                // What does not parse breaks the protocol, as on a real wire.
                Err(problem) => wire.push(Err(Violation::new(
                    ProtocolViolation::NotAnEvent,
                    problem.message,
                ))),
            }
        }
        for event in wire {
            let verifier = self
                .verifiers
                .entry(key.clone())
                .or_insert_with(|| TurnVerifier::new(StreamLimits::default()));
            let verified = match event {
                Ok(event) => verifier.push(event),
                Err(problem) => verifier.break_off(problem),
            };
            self.deliver(&run, turn, verified);
        }
        Ok(())
    }

    fn deliver(&mut self, run: &RunId, turn: TurnId, verified: Vec<Verified>) {
        for item in verified {
            match item {
                Verified::Inbound(inbound) => {
                    let now = self.now;
                    if let Some(engine) = self.engine.as_mut() {
                        let input = Signal::inbound(run, turn, inbound);
                        engine.handle(now, input);
                    }
                    self.settle();
                }
                // Reasoning is the acting party's text, activity its state:
                // counted in the lanes that bound them.
                Verified::Text { .. } | Verified::Reasoning { .. } => self.texts += 1,
                Verified::State { .. } | Verified::Activity { .. } => self.states += 1,
                Verified::Custom { .. } => self.customs += 1,
            }
        }
    }

    fn question(&self, index: usize) -> Result<baton_core::Question, SubjectError> {
        let mut questions: Vec<baton_core::Question> = self
            .engine
            .as_ref()
            .map(|engine| engine.questions().iter().cloned().collect())
            .unwrap_or_default();
        questions.sort_by(|a, b| (a.asked_at, &a.id).cmp(&(b.asked_at, &b.id)));
        questions
            .get(index)
            .cloned()
            .ok_or_else(|| error("unknown-question", format!("no question {index}")))
    }

    fn revision(&mut self, run: &RunId) -> Result<u64, SubjectError> {
        self.engine()?
            .run(run)
            .map(|run| run.revision())
            .ok_or_else(|| error("unknown-run", run))
    }

    fn dispatch(&mut self, command: &Command) -> Result<(), SubjectError> {
        let now = self.now;
        match command {
            Command::Delegate { alias, request } => self.delegate(alias, request)?,
            Command::Turn { run, events } => self.turn(run, events)?,
            Command::CloseTurn { run } => self.close_turn(run)?,
            Command::Authorize {
                run,
                revision,
                authorization,
            } => self.authorize(run, revision, authorization)?,
            Command::Reject { run, note } => {
                let id = self.run_id(run)?;
                let at = self.revision(&id)?;
                self.engine()?
                    .handle(
                        now,
                        Reject {
                            run: id.clone(),
                            revision: at,
                            note: note.into(),
                        },
                    )
                    .map_err(|e| error(e.code(), &e))?;
            }
            Command::Resolve { run, resolution } => self.resolve(run, resolution)?,
            Command::Stop { run } | Command::Pause { run } => {
                let id = self.run_id(run)?;
                let engine = self.engine()?;
                let ended = if matches!(command, Command::Stop { .. }) {
                    engine.handle(now, Stop(id.clone()))
                } else {
                    engine.handle(now, Pause(id.clone()))
                };
                ended.map_err(|e| error(e.code(), &e))?;
            }
            Command::Resume { run, alias } => self.resume(run, alias)?,
            Command::KillAll => {
                self.engine()?.handle(now, Kill::ALL);
            }
            Command::Disable => self.engine()?.handle(now, Disable),
            Command::Enable => self.engine()?.handle(now, Enable),
            Command::Answer {
                question,
                value,
                digest,
            } => self.answer(*question, value, digest)?,
            Command::Decline { question } => {
                let id = self.question(*question)?.id;
                self.engine()?
                    .handle(now, Decline(id.clone()))
                    .map_err(|e| error(e.code(), &e))?;
            }
            Command::Dismiss { question } => {
                let id = self.question(*question)?.id;
                self.engine()?
                    .handle(now, Dismiss(id.clone()))
                    .map_err(|e| error(e.code(), &e))?;
            }
            Command::Postpone { question, ms } => {
                let id = self.question(*question)?.id;
                self.engine()?
                    .handle(
                        now,
                        Postpone {
                            question: id.clone(),
                            until: now + ms,
                        },
                    )
                    .map_err(|e| error(e.code(), &e))?;
            }
            Command::Undo { run } => {
                let id = self.run_id(run)?;
                self.engine()?
                    .handle(
                        now,
                        Undo {
                            run: id.clone(),
                            scope: baton_core::UndoScope::Checked,
                        },
                    )
                    .map_err(|e| error(e.code(), &e))?;
            }
            Command::Advance { ms } => {
                self.now += ms;
                let now = self.now;
                self.engine()?.handle(now, Signal::Timeout);
            }
            Command::Publish {
                participant,
                read,
                version,
                origin,
            } => self.publish(participant, read, *version, origin)?,
        }
        Ok(())
    }

    /// The person delegates; the run is known by `alias` from now on.
    fn delegate(&mut self, alias: &str, request: &Map<String, Value>) -> Result<(), SubjectError> {
        let now = self.now;
        let delegation = Delegation::from_json(Value::Object(request.clone()))
            .map_err(|e| error(e.code(), &e))?;
        let run = self
            .engine()?
            .handle(now, Delegate(delegation))
            .map_err(|e| error(e.code(), &e))?;
        self.aliases.insert(alias.to_owned(), run);
        Ok(())
    }

    /// The person resumes paused `run` as a new run known by `alias`.
    fn resume(&mut self, run: &str, alias: &str) -> Result<(), SubjectError> {
        let now = self.now;
        let id = self.run_id(run)?;
        let next = self
            .engine()?
            .handle(
                now,
                Resume {
                    run: id.clone(),
                    budget: None,
                },
            )
            .map_err(|e| error(e.code(), &e))?;
        self.aliases.insert(alias.to_owned(), next);
        Ok(())
    }

    /// The stream of `alias`'s open turn closed.
    fn close_turn(&mut self, run: &str) -> Result<(), SubjectError> {
        let id = self.run_id(run)?;
        let turn = self.engine()?.run(&id).and_then(|run| run.open_turn());
        let Some(turn) = turn else {
            return Err(error("no-open-turn", format!("`{run}` has no open turn")));
        };
        let closed = self
            .verifiers
            .get_mut(&(id.clone(), turn))
            .map(TurnVerifier::close)
            .unwrap_or_default();
        self.deliver(&id, turn, closed);
        Ok(())
    }

    /// The person authorizes `run` at the revision the fixture names.
    fn authorize(
        &mut self,
        run: &str,
        revision: &Revision,
        authorization: &Map<String, Value>,
    ) -> Result<(), SubjectError> {
        let now = self.now;
        let id = self.run_id(run)?;
        let current = self.revision(&id)?;
        let at = match revision {
            Revision::Current => current,
            Revision::Previous => current.saturating_sub(1),
        };
        let authorization = Authorization::from_json(Value::Object(authorization.clone()))
            .map_err(|e| error(e.code(), &e))?;
        self.engine()?
            .handle(
                now,
                Authorize {
                    run: id.clone(),
                    revision: at,
                    authorization,
                },
            )
            .map_err(|e| error(e.code(), &e))?;
        Ok(())
    }

    /// The person resolves `run`'s escalation (a kind, or a whole resolution).
    fn resolve(&mut self, run: &str, resolution: &Value) -> Result<(), SubjectError> {
        let now = self.now;
        let id = self.run_id(run)?;
        let at = self.revision(&id)?;
        let resolution = match resolution {
            Value::String(kind) => json!({ "kind": kind }),
            other => other.clone(),
        };
        let resolution: Resolution =
            serde_json::from_value(resolution).map_err(|e| error("invalid-resolution", e))?;
        self.engine()?
            .handle(
                now,
                ResolveEscalation {
                    run: id.clone(),
                    revision: at,
                    resolution,
                },
            )
            .map_err(|e| error(e.code(), &e))?;
        Ok(())
    }

    /// The person answers question `question`, with its digest or a forged one.
    fn answer(
        &mut self,
        question: usize,
        value: &Value,
        digest: &DigestChoice,
    ) -> Result<(), SubjectError> {
        let now = self.now;
        let asked = self.question(question)?;
        let digest = match digest {
            DigestChoice::Given => asked.digest,
            DigestChoice::Forged => Digest::of_bytes(b"not the question asked"),
        };
        self.engine()?
            .handle(
                now,
                Answer {
                    question: asked.id.clone(),
                    digest,
                    answer: value.clone(),
                },
            )
            .map_err(|e| error(e.code(), &e))?;
        Ok(())
    }

    /// A participant publishes a read.
    fn publish(
        &mut self,
        participant: &str,
        read: &str,
        version: u64,
        origin: &str,
    ) -> Result<(), SubjectError> {
        let now = self.now;
        let origin =
            serde_json::from_value(Value::from(origin)).map_err(|e| error("invalid-read", e))?;
        let stamp = ReadStamp {
            read: ReadRef::new(participant, read),
            version,
            origin,
        };
        self.engine()?
            .handle(now, PublishRead { stamp, actor: None })
            .map_err(|e| error(e.code(), e))?;
        Ok(())
    }

    fn observe_run(&self, engine: &Engine, alias: &str, id: &RunId) -> Value {
        let Some(run) = engine.run(id) else {
            return Value::Null;
        };
        let state = serde_json::to_value(run.state()).unwrap_or_default();
        let mut states = vec![Value::from("offered")];
        let mut kinds = Vec::new();
        let mut refusals = Vec::new();
        for record in run.journal() {
            let entry = serde_json::to_value(&record.entry).unwrap_or_default();
            kinds.push(entry["kind"].clone());
            match entry["kind"].as_str() {
                Some("transition") => states.push(entry["to"]["state"].clone()),
                Some("call-refused") => refusals.push(entry["refusal"]["code"].clone()),
                Some("call-finished") if entry["result"]["kind"] == "refused" => {
                    refusals.push(entry["result"]["refusal"]["code"].clone());
                }
                _ => {}
            }
        }
        json!({
            "alias": alias,
            "state": state["state"],
            "outcome": state.get("outcome").cloned().unwrap_or(Value::Null),
            "reason": state.pointer("/reason/kind").cloned().unwrap_or(Value::Null),
            "states": states,
            "journal": kinds,
            "refusals": refusals,
            "turns": self.turns.get(id).copied().unwrap_or_default(),
            "protocols": self.protocols.get(id).cloned().unwrap_or_default(),
            "usage": run.usage(),
            "revision": run.revision(),
        })
    }
}

/// One fixture event as `baton/1` wire events: `call` is shorthand for a
/// whole tool call.
fn expand(event: &Value) -> Result<Vec<WireEvent>, SubjectError> {
    let parse = |value: Value| {
        serde_json::from_value::<WireEvent>(value.clone())
            .map_err(|e| error("invalid-event", format!("{value}: {e}")))
    };
    if event["type"] == "call" {
        let call = event["call"].clone();
        let mut start = json!({"type": "tool-call-start", "call": call, "tool": event["tool"]});
        if let Some(via) = event.get("via") {
            start["via"] = via.clone();
        }
        return Ok(vec![
            parse(start)?,
            parse(
                json!({"type": "tool-call-args", "call": call, "delta": event["arguments"].to_string()}),
            )?,
            parse(json!({"type": "tool-call-end", "call": call}))?,
        ]);
    }
    Ok(vec![parse(event.clone())?])
}

impl ConformanceSubject for CoreSubject {
    fn start(&mut self, setup: &Setup) -> Result<(), SubjectError> {
        *self = CoreSubject::new();
        self.now = 1_000;
        let mut config = EngineConfig::new("conformance");
        let setting = |key: &str| setup.engine.get(key).cloned();
        let invalid = |e: serde_json::Error| error("invalid-options", e);
        if let Some(ceiling) = setting("ceiling") {
            config.ceiling = serde_json::from_value(ceiling).map_err(invalid)?;
        }
        if let Some(presence) = setting("presence") {
            config.presence = serde_json::from_value(presence).map_err(invalid)?;
        }
        if let Some(ms) = setting("escalationTimeoutMs").and_then(|v| v.as_u64()) {
            config.escalation_timeout_ms = ms;
        }
        if let Some(ms) = setting("authorizationTtlMs").and_then(|v| v.as_u64()) {
            config.authorization_ttl_ms = ms;
        }
        if let Some(quota) = setting("hourlyQuota").and_then(|v| v.as_u64()) {
            config.hourly_quota = quota as u32;
        }
        config.transport = setting("transport").is_none_or(|transport| transport != "none");
        let mut engine = Engine::new(config, ActorSecret::new([7; 32]));
        for participant in &setup.participants {
            let text = participant.manifest.to_string();
            let id = match engine.handle(
                0,
                RegisterText {
                    text,
                    instance: participant.instance.as_deref().map(Into::into),
                },
            ) {
                Ok(id) => Some(id),
                // Refused registrations are the engine's to record (AG-13).
                Err(refused) => refused.participant,
            };
            if let Some(id) = id {
                self.behaviours.insert(id, participant.behaviour.clone());
            }
        }
        self.engine = Some(engine);
        self.settle();
        Ok(())
    }

    fn command(&mut self, command: &Command) -> Result<(), SubjectError> {
        let result = self.dispatch(command);
        self.settle();
        result
    }

    fn observe(&mut self) -> Value {
        let Some(engine) = self.engine.as_ref() else {
            return Value::Null;
        };
        let runs: Map<String, Value> = self
            .aliases
            .iter()
            .map(|(alias, id)| (alias.clone(), self.observe_run(engine, alias, id)))
            .collect();
        let mut questions: Vec<&baton_core::Question> = engine.questions().iter().collect();
        questions.sort_by(|a, b| (a.asked_at, &a.id).cmp(&(b.asked_at, &b.id)));
        let questions: Vec<Value> = questions
            .into_iter()
            .map(|question| {
                let state = serde_json::to_value(&question.state).unwrap_or_default();
                let asker = serde_json::to_value(&question.asker).unwrap_or_default();
                json!({
                    "run": self.alias_of(&question.run),
                    "state": state["state"],
                    "asker": asker["kind"],
                })
            })
            .collect();
        let mut tools = engine.registry().tools();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        let tools: Vec<Value> = tools
            .into_iter()
            .map(|tool| json!({ "name": tool.name, "described": !tool.description.trim().is_empty() }))
            .collect();
        json!({
            "runs": runs,
            "tools": tools,
            "states": self.states,
            "customs": self.customs,
            "invocations": self.invocations,
            "reverts": self.reverts,
            "questions": questions,
            "announcements": self.announcements,
            "findings": self.findings,
            "texts": self.texts,
        })
    }
}
