//! The custody machine driven by generated ops (the property tests in
//! `machine_properties.rs`): the ops and their strategies, and a host that
//! carries out the engine's effects when the ops say so.

use std::collections::BTreeMap;

use baton_core::*;
use proptest::prelude::*;
use serde_json::json;

use crate::common::*;

#[derive(Debug, Clone)]
pub(crate) enum Op {
    Delegate {
        initiative: u8,
        autonomy: u8,
        fixed: bool,
        turns: u32,
        calls: u32,
    },
    Authorize {
        run: usize,
        stale: bool,
        narrow: bool,
    },
    Reject(usize),
    Resolve(usize, u8),
    Stop(usize),
    Pause(usize),
    Resume(usize),
    KillAll,
    Disable,
    Enable,
    ToolCall {
        run: usize,
        capability: usize,
        reuse_id: bool,
    },
    TurnEnd(usize),
    TurnFailed(usize),
    TransportLost(usize),
    Malformed(usize),
    /// Traffic to a turn that is not open (or a run that does not exist).
    Stray {
        run: usize,
        turn: u32,
    },
    Mark {
        run: usize,
        ok: bool,
    },
    CallResult {
        run: usize,
        kind: u8,
    },
    Revert {
        run: usize,
        ok: bool,
    },
    /// A report naming something the engine is not waiting for.
    BogusReport {
        run: usize,
        kind: u8,
    },
    Advance(u64),
    /// The acting party asks the person something in the open turn.
    Ask {
        run: usize,
        schema: bool,
    },
    /// The person replies to the newest open question in one of several ways.
    Reply {
        kind: u8,
    },
    /// The cooperative next step for a run: whatever a well-behaved acting
    /// party, participant or person would do next.
    Progress {
        run: usize,
        choice: usize,
    },
}

pub(crate) fn op() -> impl Strategy<Value = Op> {
    // Run indexes count back from the newest run, so most ops land on runs
    // that are still live and sequences reach deep states (acting,
    // escalations, rollbacks) often.
    let run = prop_oneof![6 => 0usize..2, 1 => 0usize..6];
    let clock = prop_oneof![
        6 => 0u64..50,
        3 => 1_000u64..12_000,
        1 => 15_000u64..70_000,
        1 => Just(3_600_000u64),
    ];
    prop_oneof![
        4 => (0u8..3, 0u8..3, any::<bool>(), 0u32..4, 0u32..5).prop_map(|(initiative, autonomy, fixed, turns, calls)| Op::Delegate { initiative, autonomy, fixed, turns, calls }),
        4 => (run.clone(), prop::bool::weighted(0.1), prop::bool::weighted(0.3)).prop_map(|(run, stale, narrow)| Op::Authorize { run, stale, narrow }),
        1 => run.clone().prop_map(Op::Reject),
        4 => (run.clone(), 0u8..5).prop_map(|(run, kind)| Op::Resolve(run, kind)),
        1 => run.clone().prop_map(Op::Stop),
        1 => run.clone().prop_map(Op::Pause),
        1 => run.clone().prop_map(Op::Resume),
        1 => Just(Op::KillAll),
        1 => Just(Op::Disable),
        2 => Just(Op::Enable),
        10 => (run.clone(), 0usize..5, prop::bool::weighted(0.05)).prop_map(|(run, capability, reuse_id)| Op::ToolCall { run, capability, reuse_id }),
        8 => run.clone().prop_map(Op::TurnEnd),
        1 => run.clone().prop_map(Op::TurnFailed),
        1 => run.clone().prop_map(Op::TransportLost),
        1 => run.clone().prop_map(Op::Malformed),
        1 => (0usize..8, 0u32..5).prop_map(|(run, turn)| Op::Stray { run, turn }),
        8 => (run.clone(), prop::bool::weighted(0.95)).prop_map(|(run, ok)| Op::Mark { run, ok }),
        10 => (run.clone(), 0u8..8).prop_map(|(run, kind)| Op::CallResult { run, kind }),
        6 => (run.clone(), prop::bool::weighted(0.85)).prop_map(|(run, ok)| Op::Revert { run, ok }),
        1 => (0usize..8, 0u8..3).prop_map(|(run, kind)| Op::BogusReport { run, kind }),
        6 => clock.prop_map(Op::Advance),
        24 => (run.clone(), 0usize..8).prop_map(|(run, choice)| Op::Progress { run, choice }),
        2 => (run.clone(), any::<bool>()).prop_map(|(run, schema)| Op::Ask { run, schema }),
        3 => (0u8..7).prop_map(|kind| Op::Reply { kind }),
    ]
}

pub(crate) fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(op(), 1..64)
}

pub(crate) fn capability(index: usize) -> CapabilityRef {
    match index {
        0 => rename(),
        1 => archive(),
        2 => note(),
        3 => theme(),
        _ => CapabilityRef::new("ghost", "haunt"),
    }
}

/// A host that carries out the engine's effects when the ops say so.
pub(crate) struct Harness {
    pub(crate) engine: Engine,
    pub(crate) now: u64,
    pub(crate) runs: Vec<RunId>,
    pub(crate) effects: Vec<Effect>,
    /// Journal revisions as they were emitted, per run.
    pub(crate) emitted: BTreeMap<RunId, Vec<u64>>,
    pub(crate) calls: u32,
    /// Transitions the machine's table refused: none may ever be attempted.
    pub(crate) illegal: Vec<String>,
}

impl Harness {
    pub(crate) fn new() -> Self {
        let engine = engine();
        Harness {
            engine,
            now: 1_000,
            runs: Vec::new(),
            effects: Vec::new(),
            emitted: BTreeMap::new(),
            calls: 0,
            illegal: Vec::new(),
        }
    }

    /// The `index`-th newest run.
    pub(crate) fn run(&self, index: usize) -> Option<RunId> {
        let count = self.runs.len();
        (count > 0).then(|| self.runs[count - 1 - index % count].clone())
    }

    pub(crate) fn drain(&mut self) {
        while let Some(event) = self.engine.poll_event() {
            match event {
                Event::Effect(effect) => self.effects.push(effect),
                Event::Journal(record) => self
                    .emitted
                    .entry(record.run.clone())
                    .or_default()
                    .push(record.revision),
                Event::Finding(Finding {
                    reason:
                        FindingReason::Integrity {
                            code: ProtocolViolation::IllegalTransition,
                            detail,
                        },
                    ..
                }) => self.illegal.push(detail),
                _ => {}
            }
        }
    }

    pub(crate) fn take_effect(&mut self, pred: impl Fn(&Effect) -> bool) -> Option<Effect> {
        let position = self.effects.iter().position(pred)?;
        Some(self.effects.remove(position))
    }

    pub(crate) fn apply(&mut self, op: &Op) {
        let now = self.now;
        match op.clone() {
            Op::Delegate {
                initiative,
                autonomy,
                fixed,
                turns,
                calls,
            } => {
                let initiative = [Initiative::User, Initiative::System, Initiative::Scheduled]
                    [initiative as usize];
                let autonomy =
                    [Autonomy::Suggest, Autonomy::Review, Autonomy::Auto][autonomy as usize];
                let mut delegation =
                    Delegation::new("p", initiative, autonomy).with_budget(Budget {
                        max_turns: turns,
                        max_calls: calls,
                        ..config().default_budget
                    });
                if fixed {
                    delegation = delegation.with_plan(
                        (0..3)
                            .map(|i| PlannedCall {
                                capability: capability(i),
                                arguments: json!({}),
                            })
                            .collect(),
                    );
                }
                if let Ok(run) = self.engine.handle(now, Delegate(delegation)) {
                    self.runs.push(run);
                }
            }
            Op::Authorize { run, stale, narrow } => {
                if let Some(run) = self.run(run) {
                    let revision = self.engine.run(&run).unwrap().revision() - u64::from(stale);
                    let authorization = Authorization {
                        allowlist: narrow.then(|| vec![rename()]),
                        budget: None,
                        grant_ms: None,
                    };
                    let _ = self.engine.handle(
                        now,
                        Authorize {
                            run: run.clone(),
                            revision,
                            authorization,
                        },
                    );
                }
            }
            Op::Reject(run) => {
                if let Some(run) = self.run(run) {
                    let revision = self.engine.run(&run).unwrap().revision();
                    let _ = self.engine.handle(
                        now,
                        Reject {
                            run: run.clone(),
                            revision,
                            note: "no".into(),
                        },
                    );
                }
            }
            Op::Resolve(run, kind) => {
                if let Some(run) = self.run(run) {
                    let revision = self.engine.run(&run).unwrap().revision();
                    let resolution = match kind {
                        0 => Resolution::Allow { budget: None },
                        1 => Resolution::Allow {
                            budget: Some(Budget {
                                max_turns: 6,
                                max_calls: 10,
                                ..config().default_budget
                            }),
                        },
                        2 => Resolution::Deny,
                        3 => Resolution::Review,
                        _ => Resolution::Return,
                    };
                    let _ = self.engine.handle(
                        now,
                        ResolveEscalation {
                            run: run.clone(),
                            revision,
                            resolution,
                        },
                    );
                }
            }
            Op::Stop(run) => {
                if let Some(run) = self.run(run) {
                    let _ = self.engine.handle(now, Stop(run.clone()));
                }
            }
            Op::Pause(run) => {
                if let Some(run) = self.run(run) {
                    let _ = self.engine.handle(now, Pause(run.clone()));
                }
            }
            Op::Resume(run) => {
                if let Some(run) = self.run(run) {
                    if let Ok(next) = self.engine.handle(
                        now,
                        Resume {
                            run: run.clone(),
                            budget: None,
                        },
                    ) {
                        self.runs.push(next);
                    }
                }
            }
            Op::KillAll => {
                self.engine.handle(now, Kill::ALL);
            }
            Op::Disable => self.engine.handle(0, Disable),
            Op::Enable => self.engine.handle(0, Enable),
            Op::ToolCall {
                run,
                capability: index,
                reuse_id,
            } => {
                if self.open(run).is_some() {
                    if !reuse_id {
                        self.calls += 1;
                    }
                    let inbound = Inbound::ToolCall {
                        call: CallId::new(format!("c{}", self.calls)),
                        capability: capability(index),
                        arguments: json!({}),
                        via: Vec::new(),
                    };
                    self.say_in_open_turn(now, run, inbound);
                }
            }
            Op::TurnEnd(run) => self.say_in_open_turn(now, run, Inbound::TurnEnd),
            Op::TurnFailed(run) => {
                let message = "x".into();
                self.say_in_open_turn(now, run, Inbound::TurnFailed { message });
            }
            Op::TransportLost(run) => {
                let message = "x".into();
                self.say_in_open_turn(now, run, Inbound::TransportLost { message });
            }
            Op::Malformed(run) => {
                let inbound = Inbound::Malformed {
                    code: ProtocolViolation::NotAnEvent,
                    detail: "x".into(),
                };
                self.say_in_open_turn(now, run, inbound);
            }
            Op::Stray { run, turn } => {
                let run = self
                    .runs
                    .get(run)
                    .cloned()
                    .unwrap_or_else(|| RunId::new("s/r404"));
                let open = self.engine.run(&run).and_then(|run| run.open_turn());
                if open != Some(TurnId(turn)) {
                    self.engine
                        .handle(now, Signal::inbound(&run, TurnId(turn), Inbound::TurnEnd));
                }
            }
            Op::Mark { run, ok } => {
                if let Some(run) = self.run(run) {
                    if let Some(Effect::Mark { run, participant }) =
                        self.take_effect(|e| matches!(e, Effect::Mark { run: r, .. } if *r == run))
                    {
                        let result = if ok {
                            Ok(MarkToken::new("m"))
                        } else {
                            Err("no history".into())
                        };
                        let _ = self.engine.handle(
                            now,
                            Report::Mark {
                                run: run.clone(),
                                participant: participant.clone(),
                                token: result,
                            },
                        );
                    }
                }
            }
            Op::CallResult { run, kind } => {
                if let Some(run) = self.run(run) {
                    if let Some(Effect::Invoke { run, call, .. }) = self
                        .take_effect(|e| matches!(e, Effect::Invoke { run: r, .. } if *r == run))
                    {
                        let result = match kind {
                            0..=4 => CallResult::Applied { value: json!(1) },
                            5 | 6 => CallResult::Refused {
                                refusal: Refusal::Declined {
                                    message: "re-read".into(),
                                },
                            },
                            _ => CallResult::Failed {
                                message: "boom".into(),
                            },
                        };
                        let _ = self.engine.handle(
                            now,
                            Report::Call {
                                run: run.clone(),
                                call: call.clone(),
                                result,
                            },
                        );
                    }
                }
            }
            Op::Revert { run, ok } => {
                if let Some(run) = self.run(run) {
                    if let Some(Effect::Revert {
                        run, participant, ..
                    }) = self
                        .take_effect(|e| matches!(e, Effect::Revert { run: r, .. } if *r == run))
                    {
                        let result = if ok { Ok(()) } else { Err("gone".into()) };
                        let _ = self.engine.handle(
                            now,
                            Report::Revert {
                                run: run.clone(),
                                participant: participant.clone(),
                                result,
                            },
                        );
                    }
                }
            }
            Op::BogusReport { run, kind } => {
                let run = self
                    .runs
                    .get(run)
                    .cloned()
                    .unwrap_or_else(|| RunId::new("s/r404"));
                let participant = ParticipantId::new("nobody");
                let outcome = match kind {
                    0 => self
                        .engine
                        .handle(
                            now,
                            Report::Mark {
                                run: run.clone(),
                                participant: participant.clone(),
                                token: Ok(MarkToken::new("m")),
                            },
                        )
                        .is_err(),
                    1 => self
                        .engine
                        .handle(
                            now,
                            Report::Call {
                                run: run.clone(),
                                call: CallId::new("bogus"),
                                result: CallResult::Applied { value: json!(0) },
                            },
                        )
                        .is_err(),
                    _ => self
                        .engine
                        .handle(
                            now,
                            Report::Revert {
                                run: run.clone(),
                                participant: participant.clone(),
                                result: Ok(()),
                            },
                        )
                        .is_err(),
                };
                assert!(outcome, "a report naming nothing pending must be refused");
            }
            Op::Advance(ms) => {
                self.now += ms;
                self.engine.handle(self.now, Signal::Timeout);
            }
            Op::Progress { run, choice } => self.progress(run, choice),
            Op::Ask { run, schema } => {
                if let Some((run, turn)) = self.open(run) {
                    self.calls += 1;
                    let inbound = Inbound::Question {
                        request: format!("q{}", self.calls),
                        prompt: "?".into(),
                        schema: schema.then(|| json!({"type": "object"})),
                        deadline_ms: None,
                        expires_at: None,
                        approval: None,
                    };
                    self.engine
                        .handle(now, Signal::inbound(&run, turn, inbound));
                }
            }
            Op::Reply { kind } => self.reply(kind),
        }
        self.drain();
    }

    pub(crate) fn reply(&mut self, kind: u8) {
        let now = self.now;
        let Some(question) = self
            .engine
            .questions()
            .iter()
            .filter(|q| q.state.is_open())
            .last()
            .cloned()
        else {
            return;
        };
        let valid = if question.schema.is_some() {
            json!({})
        } else {
            json!("text")
        };
        let result = match kind {
            0 | 1 => self
                .engine
                .handle(
                    now,
                    Answer {
                        question: question.id.clone(),
                        digest: question.digest,
                        answer: valid,
                    },
                )
                .map(|_| ()),
            2 => self
                .engine
                .handle(
                    now,
                    Answer {
                        question: question.id.clone(),
                        digest: question.digest,
                        answer: json!(17),
                    },
                )
                .map(|_| ()),
            3 => self
                .engine
                .handle(
                    now,
                    Answer {
                        question: question.id.clone(),
                        digest: Digest::of_bytes(b"x"),
                        answer: valid,
                    },
                )
                .map(|_| ()),
            4 => self.engine.handle(now, Decline(question.id.clone())),
            5 => self.engine.handle(now, Dismiss(question.id.clone())),
            _ => self.engine.handle(
                now,
                Postpone {
                    question: question.id.clone(),
                    until: now + 1_000,
                },
            ),
        };
        if matches!(kind, 2 | 3) {
            assert!(result.is_err(), "a bad answer must fail closed");
        }
    }

    pub(crate) fn progress(&mut self, index: usize, choice: usize) {
        let Some(run) = self.run(index) else {
            return;
        };
        if self
            .engine
            .questions()
            .iter()
            .any(|q| q.run == run && q.state.is_open())
        {
            self.reply(0);
            return;
        }
        let pending = self.effects.iter().any(|e| match e {
            Effect::Mark { run: r, .. }
            | Effect::Invoke { run: r, .. }
            | Effect::Revert { run: r, .. } => *r == run,
            _ => false,
        });
        if pending {
            // Answer the oldest request for this run, successfully.
            let kind = self.effects.iter().find_map(|e| match e {
                Effect::Mark { run: r, .. } if *r == run => Some(0),
                Effect::Invoke { run: r, .. } if *r == run => Some(1),
                Effect::Revert { run: r, .. } if *r == run => Some(2),
                _ => None,
            });
            match kind {
                Some(0) => self.apply(&Op::Mark {
                    run: index,
                    ok: true,
                }),
                Some(1) => self.apply(&Op::CallResult {
                    run: index,
                    kind: 0,
                }),
                _ => self.apply(&Op::Revert {
                    run: index,
                    ok: true,
                }),
            }
            return;
        }
        let Some(state) = self.engine.run(&run).map(|r| r.state().name()) else {
            return;
        };
        let open = self
            .engine
            .run(&run)
            .and_then(|run| run.open_turn())
            .is_some();
        match state {
            StateName::Reviewing => self.apply(&Op::Authorize {
                run: index,
                stale: false,
                narrow: false,
            }),
            StateName::Escalated => {
                self.apply(&Op::Resolve(index, if choice % 2 == 0 { 1 } else { 0 }))
            }
            _ if open && choice < 5 => self.apply(&Op::ToolCall {
                run: index,
                capability: choice,
                reuse_id: false,
            }),
            _ if open => self.apply(&Op::TurnEnd(index)),
            _ => {}
        }
    }

    pub(crate) fn open(&self, run: usize) -> Option<(RunId, TurnId)> {
        let run = self.run(run)?;
        let turn = self.engine.run(&run)?.open_turn()?;
        Some((run, turn))
    }

    /// What the acting party says in the open turn of the `run`th run, if
    /// it has one (a closed turn hears nothing: that is `Op::Stray`).
    fn say_in_open_turn(&mut self, now: u64, run: usize, inbound: Inbound) {
        if let Some((run, turn)) = self.open(run) {
            self.engine
                .handle(now, Signal::inbound(&run, turn, inbound));
        }
    }

    /// Lets time run out for everything: every run must end up terminal.
    pub(crate) fn run_out_the_clock(&mut self) {
        let far = self.now + config().max_budget.run_deadline_ms + 1;
        self.now = far;
        self.engine.handle(self.now, Signal::Timeout);
        self.now += config().revert_timeout_ms;
        self.engine.handle(self.now, Signal::Timeout);
        self.drain();
    }
}
