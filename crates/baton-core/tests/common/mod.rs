//! A deterministic host for the custody machine: a hand-advanced clock, an
//! inbox of effects, and helpers that play the acting party and participants.
#![allow(dead_code)]

use std::collections::VecDeque;

use baton_core::*;
use serde_json::{json, Value};

pub const SESSION: &str = "s";

/// Every Rust source file of the crate, as `(path from src/, text)`.
pub fn source_files() -> Vec<(std::path::PathBuf, String)> {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                files.push((path.strip_prefix(&src).unwrap().to_path_buf(), text));
            }
        }
    }
    files
}

/// Cases for a generated-input target: `BATON_GENERATED_CASES` when set (the
/// documented long run, the manual, "Generated input"), else its short run.
pub fn generated_cases(short: u32) -> u32 {
    std::env::var("BATON_GENERATED_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(short)
}

/// The acting party's own call `id` of `capability`, with `arguments`.
pub fn tool_call(id: &str, capability: CapabilityRef, arguments: Value) -> Inbound {
    Inbound::ToolCall {
        call: CallId::new(id),
        capability,
        arguments,
        via: Vec::new(),
    }
}

pub fn rename() -> CapabilityRef {
    CapabilityRef::new("tasks", "rename")
}
pub fn archive() -> CapabilityRef {
    CapabilityRef::new("tasks", "archive")
}
/// Declared with `accepts_partial_close`.
pub fn note() -> CapabilityRef {
    CapabilityRef::new("notes", "add")
}
pub fn theme() -> CapabilityRef {
    CapabilityRef::new("settings", "theme")
}

/// What a grant covers: `participant`'s `capability`, or all of its
/// capabilities (`None`).
pub fn scope(participant: &str, capability: Option<&str>) -> GrantScope {
    GrantScope {
        participant: ParticipantId::new(participant),
        capability: capability.map(Into::into),
    }
}

pub fn config() -> EngineConfig {
    let mut config = EngineConfig::new(SESSION);
    config.default_budget = Budget {
        max_turns: 4,
        max_calls: 8,
        run_deadline_ms: 60_000,
        turn_deadline_ms: 10_000,
    };
    config.escalation_timeout_ms = 20_000;
    config.revert_timeout_ms = 5_000;
    config.hourly_quota = 3;
    config.ceiling = Autonomy::Auto;
    config.authorization_ttl_ms = 3_600_000;
    config
}

pub fn secret() -> ActorSecret {
    ActorSecret::new([42; 32])
}

pub fn engine() -> Engine {
    let mut engine = Engine::new(config(), secret());
    declare_all(&mut engine);
    engine
}

/// A capability whose arguments are an optional short `id`.
fn capability(name: &str, description: &str, accepts_partial_close: bool) -> Value {
    json!({
        "name": name,
        "description": description,
        "arguments": {
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "additionalProperties": false
        },
        "argumentLimits": {"id": 64},
        "effects": [{"name": format!("{name}-item"), "reversible": true}],
        "acceptsPartialClose": accepts_partial_close
    })
}

/// A simulation at `ceiling` with exactly these manifests mounted.
pub fn sim_with(ceiling: Autonomy, manifests: &[Value]) -> Sim {
    let mut config = config();
    config.ceiling = ceiling;
    let mut sim = Sim::with_config(config.clone());
    sim.engine = Engine::new(config, secret());
    for manifest in manifests {
        sim.mount(manifest.clone(), None);
    }
    sim
}

/// The task board that renders previews of its acts (AG-31).
pub fn previewing_tasks() -> Value {
    let mut manifest = tasks_manifest();
    manifest["preview"] = json!(true);
    manifest
}

/// The task board whose `rename` acts on the `board` read (AG-20).
pub fn board_manifest() -> Value {
    let mut manifest = tasks_manifest();
    manifest["capabilities"][0]["reads"] = json!(["board"]);
    manifest
}

pub fn tasks_manifest() -> Value {
    json!({
        "id": "tasks",
        "label": "Task board",
        "description": "The team's task board: cards in columns.",
        "tier": "reversible-acts",
        "history": "native",
        "capabilities": [
            capability("rename", "Rename one card on the board.", false),
            capability("archive", "Archive one card, hiding it from the board.", false)
        ],
        "reads": [{"name": "board", "description": "Every card with its column and title.", "origin": "author"}]
    })
}

pub fn notes_manifest() -> Value {
    json!({
        "id": "notes",
        "label": "Notes",
        "description": "Free-form notes kept beside the board.",
        "tier": "reversible-acts",
        "history": "native",
        "capabilities": [capability("add", "Append one note to the list of notes.", true)]
    })
}

pub fn settings_manifest() -> Value {
    json!({
        "id": "settings",
        "label": "Settings",
        "description": "The application's settings form.",
        "tier": "reversible-acts",
        "history": "native",
        "capabilities": [capability("theme", "Switch the colour theme of the application.", false)],
        "reads": [{"name": "form", "description": "Every setting with its current value.", "origin": "author"}]
    })
}

/// Reads only: messages pasted in from outside, declared third-party.
pub fn inbox_manifest() -> Value {
    json!({
        "id": "mail",
        "label": "Inbox",
        "description": "Messages pasted in from email, as received.",
        "tier": "reads-only",
        "history": "none",
        "capabilities": [],
        "reads": [{"name": "inbox", "description": "The pasted messages, newest first.", "origin": "third-party"}]
    })
}

/// The test manifests, parsed once per test binary.
pub fn manifests() -> &'static [Manifest] {
    static PARSED: std::sync::OnceLock<Vec<Manifest>> = std::sync::OnceLock::new();
    PARSED.get_or_init(|| {
        [
            tasks_manifest(),
            notes_manifest(),
            settings_manifest(),
            inbox_manifest(),
        ]
        .iter()
        .map(|m| Manifest::parse(&m.to_string()).expect("test manifests are valid"))
        .collect()
    })
}

pub fn declare_all(engine: &mut Engine) {
    for manifest in manifests() {
        engine
            .handle(
                0,
                Register {
                    manifest: manifest.clone(),
                    instance: None,
                },
            )
            .expect("mounted");
    }
}

pub struct Sim {
    pub engine: Engine,
    pub now: u64,
    /// Every event polled so far, in order.
    pub log: Vec<Event>,
    /// Effects not yet answered.
    pub effects: VecDeque<Effect>,
    next_mark: u32,
}

impl Sim {
    /// The person undoes `run` now, holding back for anything changed
    /// since ([`UndoScope::Checked`]).
    pub fn undo(&mut self, run: &RunId) -> Result<Vec<(ParticipantId, MarkToken)>, CommandError> {
        let undo = Undo {
            run: run.clone(),
            scope: UndoScope::Checked,
        };
        self.engine.handle(self.now, undo)
    }

    pub fn new() -> Self {
        Self::with_config(config())
    }

    pub fn with_config(config: EngineConfig) -> Self {
        let mut engine = Engine::new(config, secret());
        declare_all(&mut engine);
        Sim {
            engine,
            now: 1_000,
            log: Vec::new(),
            effects: VecDeque::new(),
            next_mark: 0,
        }
    }

    /// Polls every pending event into the log and the effect inbox; returns the new ones.
    pub fn drain(&mut self) -> Vec<Event> {
        let mut fresh = Vec::new();
        while let Some(event) = self.engine.poll_event() {
            if let Event::Effect(effect) = &event {
                self.effects.push_back(effect.clone());
            }
            self.log.push(event.clone());
            fresh.push(event);
        }
        fresh
    }

    pub fn advance(&mut self, ms: u64) {
        self.now += ms;
        self.engine.handle(self.now, Signal::Timeout);
        self.drain();
    }

    pub fn state(&self, run: &RunId) -> RunState {
        self.engine.run(run).expect("run exists").state().clone()
    }

    pub fn revision(&self, run: &RunId) -> u64 {
        self.engine.run(run).expect("run exists").revision()
    }

    pub fn delegate(&mut self, autonomy: Autonomy) -> RunId {
        let run = self
            .engine
            .handle(
                self.now,
                Delegate(Delegation::new(
                    "tidy the board",
                    Initiative::User,
                    autonomy,
                )),
            )
            .expect("delegation accepted");
        self.drain();
        run
    }

    /// A run at `auto` allowed one call, that planned two: the first is
    /// applied, the second escalates as budget exhaustion (AG-7).
    pub fn past_its_call_budget() -> (Sim, RunId) {
        let mut sim = Sim::new();
        let run = sim.delegate_with(
            Delegation::new("x", Initiative::User, Autonomy::Auto).with_budget(Budget {
                max_calls: 1,
                ..config().default_budget
            }),
        );
        sim.propose(&run, &[rename(), archive()]);
        sim.apply_all();
        (sim, run)
    }

    pub fn delegate_with(&mut self, delegation: Delegation) -> RunId {
        let run = self
            .engine
            .handle(self.now, Delegate(delegation))
            .expect("delegation accepted");
        self.drain();
        run
    }

    pub fn turn(&self, run: &RunId) -> TurnId {
        self.engine
            .run(run)
            .and_then(|run| run.open_turn())
            .expect("a turn is open")
    }

    pub fn call(&mut self, run: &RunId, id: &str, capability: CapabilityRef) {
        self.inbound(run, tool_call(id, capability, json!({ "id": id })));
    }

    /// Delivers traffic to the run's open turn and drains.
    pub fn inbound(&mut self, run: &RunId, inbound: Inbound) {
        let turn = self.turn(run);
        self.engine
            .handle(self.now, Signal::inbound(run, turn, inbound));
        self.drain();
    }

    pub fn end_turn(&mut self, run: &RunId) {
        let turn = self.turn(run);
        self.engine
            .handle(self.now, Signal::inbound(run, turn, Inbound::TurnEnd));
        self.drain();
    }

    /// One turn proposing `calls` (named c1, c2, … after the calls already seen).
    pub fn propose(&mut self, run: &RunId, calls: &[CapabilityRef]) {
        let seen = self
            .log
            .iter()
            .filter(|event| matches!(event, Event::Journal(JournalRecord { entry: JournalEntry::TurnEnded { proposed, .. }, run: r, .. }) if r == run && *proposed > 0))
            .count();
        for (index, capability) in calls.iter().enumerate() {
            self.call(
                run,
                &format!("c{}-{}", seen + 1, index + 1),
                capability.clone(),
            );
        }
        self.end_turn(run);
    }

    /// The participant's preview of `call` arrives (or fails), and drains.
    pub fn preview(&mut self, run: &RunId, call: &str, rendered: Result<Value, String>) {
        self.engine
            .handle(
                self.now,
                Report::Preview {
                    run: run.clone(),
                    call: CallId::new(call),
                    change: rendered.map_err(HostFailure::new),
                },
            )
            .expect("a preview was asked for");
        self.drain();
    }

    /// Answers every pending mark request with a fresh token.
    pub fn give_marks(&mut self) {
        let pending: Vec<Effect> = self
            .effects
            .iter()
            .filter(|e| matches!(e, Effect::Mark { .. }))
            .cloned()
            .collect();
        self.effects.retain(|e| !matches!(e, Effect::Mark { .. }));
        for effect in pending {
            if let Effect::Mark { run, participant } = effect {
                self.next_mark += 1;
                let token = MarkToken::new(format!("{participant}@{}", self.next_mark));
                self.engine
                    .handle(
                        self.now,
                        Report::Mark {
                            run: run.clone(),
                            participant: participant.clone(),
                            token: Ok(token),
                        },
                    )
                    .expect("mark accepted");
                self.drain();
            }
        }
    }

    /// Takes the pending invocation, if any.
    pub fn take_invoke(&mut self) -> Option<(RunId, CallId, CapabilityRef)> {
        let position = self
            .effects
            .iter()
            .position(|e| matches!(e, Effect::Invoke { .. }))?;
        match self.effects.remove(position)? {
            Effect::Invoke {
                run,
                call,
                capability,
                ..
            } => Some((run, call, capability)),
            _ => None,
        }
    }

    pub fn answer(&mut self, result: CallResult) -> (RunId, CallId, CapabilityRef) {
        self.give_marks();
        let (run, call, capability) = self.take_invoke().expect("an invocation is pending");
        self.engine
            .handle(
                self.now,
                Report::Call {
                    run: run.clone(),
                    call: call.clone(),
                    result,
                },
            )
            .expect("result accepted");
        self.drain();
        (run, call, capability)
    }

    pub fn apply(&mut self) -> (RunId, CallId, CapabilityRef) {
        self.answer(CallResult::Applied {
            value: json!({ "ok": true }),
        })
    }

    /// Applies every invocation until none is pending.
    pub fn apply_all(&mut self) -> usize {
        let mut count = 0;
        loop {
            self.give_marks();
            if !self
                .effects
                .iter()
                .any(|e| matches!(e, Effect::Invoke { .. }))
            {
                return count;
            }
            self.apply();
            count += 1;
        }
    }

    pub fn fail(&mut self, message: &str) -> (RunId, CallId, CapabilityRef) {
        self.answer(CallResult::Failed {
            message: message.into(),
        })
    }

    /// Pending revert requests, in the order they were emitted, removed from the inbox.
    pub fn take_reverts(&mut self) -> Vec<(RunId, ParticipantId, MarkToken)> {
        let mut out = Vec::new();
        self.effects.retain(|effect| match effect {
            Effect::Revert {
                run,
                participant,
                token,
            } => {
                out.push((run.clone(), participant.clone(), token.clone()));
                false
            }
            _ => true,
        });
        out
    }

    /// Answers reverts one at a time (each answer may emit the next) with `result(participant)`.
    pub fn answer_reverts(
        &mut self,
        mut result: impl FnMut(&ParticipantId) -> Result<(), String>,
    ) -> Vec<(ParticipantId, MarkToken)> {
        let mut order = Vec::new();
        loop {
            let reverts = self.take_reverts();
            if reverts.is_empty() {
                return order;
            }
            for (run, participant, token) in reverts {
                let answer = result(&participant);
                order.push((participant.clone(), token));
                self.engine
                    .handle(
                        self.now,
                        Report::Revert {
                            run: run.clone(),
                            participant: participant.clone(),
                            result: answer.map_err(HostFailure::new),
                        },
                    )
                    .expect("revert report accepted");
                self.drain();
            }
        }
    }

    pub fn effects_of(&self, pred: impl Fn(&Effect) -> bool) -> Vec<Effect> {
        self.log
            .iter()
            .filter_map(|event| match event {
                Event::Effect(effect) if pred(effect) => Some(effect.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn open_turns(&self, run: &RunId) -> usize {
        self.effects_of(|e| matches!(e, Effect::OpenTurn { run: r, .. } if r == run))
            .len()
    }

    pub fn invoked(&self, capability: &CapabilityRef) -> usize {
        self.effects_of(|e| matches!(e, Effect::Invoke { capability: c, .. } if c == capability))
            .len()
    }

    pub fn transitions(&self, run: &RunId) -> Vec<StateName> {
        let mut names = vec![StateName::Offered];
        for record in self.engine.run(run).expect("run").journal() {
            if let JournalEntry::Transition { to, .. } = &record.entry {
                names.push(to.name());
            }
        }
        names
    }

    /// Authorizes at the run's current revision with the default scope.
    pub fn authorize(&mut self, run: &RunId) {
        let revision = self.revision(run);
        self.authorize_at(run, revision, Authorization::default())
            .expect("authorized");
        self.drain();
    }

    /// Authorizes `run` now, as the person saw it at `revision` (the
    /// revision fence: an older one is `StaleRevision`).
    pub fn authorize_at(
        &mut self,
        run: &RunId,
        revision: u64,
        authorization: Authorization,
    ) -> Result<(), CommandError> {
        self.engine.handle(
            self.now,
            Authorize {
                run: run.clone(),
                revision,
                authorization,
            },
        )
    }

    /// Answers `question` now, at the digest it was asked with.
    pub fn reply(&mut self, question: &Question, answer: Value) -> Result<Acceptance, AnswerError> {
        self.engine.handle(
            self.now,
            Answer {
                question: question.id.clone(),
                digest: question.digest,
                answer,
            },
        )
    }

    /// Adds a standing grant (AG-30) for `ttl_ms` from now.
    pub fn grant(
        &mut self,
        scope: GrantScope,
        decision: Decision,
        ttl_ms: u64,
    ) -> Result<Grant, GrantError> {
        self.engine.handle(
            self.now,
            AddGrant {
                scope,
                decision,
                ttl_ms,
            },
        )
    }

    /// The person pauses `run`, and drains.
    pub fn pause(&mut self, run: &RunId) {
        self.engine.handle(self.now, Pause(run.clone())).unwrap();
        self.drain();
    }

    /// The person resumes the paused `run` with its own budget: the chained
    /// run, drained.
    pub fn resume(&mut self, run: &RunId) -> RunId {
        let resume = Resume {
            run: run.clone(),
            budget: None,
        };
        let chained = self.engine.handle(self.now, resume).unwrap();
        self.drain();
        chained
    }

    pub fn resolve(&mut self, run: &RunId, resolution: Resolution) {
        let revision = self.revision(run);
        self.resolve_at(run, revision, resolution)
            .expect("resolved");
        self.drain();
    }

    /// Resolves `run`'s escalation now, as the person saw it at `revision`.
    pub fn resolve_at(
        &mut self,
        run: &RunId,
        revision: u64,
        resolution: Resolution,
    ) -> Result<(), CommandError> {
        self.engine.handle(
            self.now,
            ResolveEscalation {
                run: run.clone(),
                revision,
                resolution,
            },
        )
    }
}

impl Sim {
    /// Parses and mounts a manifest given as JSON.
    pub fn mount(&mut self, manifest: Value, instance: Option<&str>) -> ParticipantId {
        let manifest = self
            .engine
            .handle(0, ParseManifest(manifest.to_string()))
            .expect("valid manifest");
        self.engine
            .handle(
                0,
                Register {
                    manifest,
                    instance: instance.map(Into::into),
                },
            )
            .expect("mounted")
    }

    /// Picks entries out of a run's journal.
    pub fn journal_of<T>(&self, run: &RunId, pick: impl Fn(&JournalEntry) -> Option<T>) -> Vec<T> {
        self.engine
            .run(run)
            .expect("run exists")
            .journal()
            .iter()
            .filter_map(|record| pick(&record.entry))
            .collect()
    }

    /// The last question put to the person.
    pub fn last_question(&self) -> Question {
        self.log
            .iter()
            .rev()
            .find_map(|event| match event {
                Event::Question(question) => Some(question.clone()),
                _ => None,
            })
            .expect("a question was asked")
    }

    /// The request of the last turn the engine opened, for any run.
    pub fn last_request(&self) -> TurnRequest {
        match self.last_turn() {
            Effect::OpenTurn { request, .. } => *request,
            _ => unreachable!(),
        }
    }

    /// The last turn the engine opened, for any run.
    pub fn last_turn(&self) -> Effect {
        self.effects_of(|e| matches!(e, Effect::OpenTurn { .. }))
            .pop()
            .expect("a turn was opened")
    }

    /// The acting party asks a question in the open turn, then ends it.
    pub fn ask(&mut self, run: &RunId, request: &str, schema: Option<Value>) {
        let turn = self.turn(run);
        self.engine.handle(
            self.now,
            Signal::inbound(
                run,
                turn,
                Inbound::Question {
                    request: request.into(),
                    prompt: "Which column should the cards go to?".into(),
                    schema,
                    deadline_ms: None,
                    expires_at: None,
                    approval: None,
                },
            ),
        );
        self.end_turn(run);
    }

    /// The person's change: a read published without an actor reference.
    pub fn publish(&mut self, participant: &str, read: &str, version: u64, origin: Origin) {
        self.publish_by(None, participant, read, version, origin);
    }

    /// A run's change: the read published with the actor reference its
    /// call was invoked with.
    pub fn publish_as(&mut self, actor: &ActorRef, participant: &str, read: &str, version: u64) {
        self.publish_by(Some(actor), participant, read, version, Origin::Author);
    }

    fn publish_by(
        &mut self,
        actor: Option<&ActorRef>,
        participant: &str,
        read: &str,
        version: u64,
        origin: Origin,
    ) {
        let stamp = ReadStamp {
            read: ReadRef::new(participant, read),
            version,
            origin,
        };
        self.engine
            .handle(
                self.now,
                PublishRead {
                    stamp,
                    actor: actor.cloned(),
                },
            )
            .unwrap();
    }
}

pub fn returned(outcome: Outcome, reason: ReturnReason) -> RunState {
    RunState::Returned {
        outcome,
        reason,
        refused: 0,
    }
}

pub fn args(value: Value) -> Value {
    value
}
