//! Baton against a real AG-UI peer: a server under `tests/peers/` whose
//! events are built and encoded by the official AG-UI Python SDK and which
//! validates every `RunAgentInput` Baton sends with the same SDK. A real
//! engine drives each scenario; the response bytes reach the SSE decoder in
//! random chunk sizes.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use baton_agui::{AgUiTurn, Thread, DEFAULT_MAX_EVENT_BYTES};
use baton_core::*;
use serde_json::{json, Value};

struct Peer {
    child: Child,
    port: u16,
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn peer() -> Peer {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers/agui_peer.py");
    let mut child = Command::new("python3")
        .arg(&script)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("the peer prints its port");
    let port = line
        .strip_prefix("PORT ")
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| {
            let mut stderr = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut stderr);
            panic!("the AG-UI peer did not start (is `ag-ui-protocol` installed? `cargo xtask test` installs it): {line}{stderr}")
        });
    Peer { child, port }
}

/// POSTs a RunAgentInput over plain HTTP/1.0 and returns status and body bytes.
fn post(port: u16, scenario: &str, input: &Value) -> (u16, Vec<u8>) {
    let body = input.to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(
        stream,
        "POST /{scenario} HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("headers end");
    let head = String::from_utf8_lossy(&response[..split]).to_string();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, response[split + 4..].to_vec())
}

/// Deterministic chunk sizes from 1 to 64 bytes.
struct Chunks(u64);
impl Chunks {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        1 + (self.0 >> 33) as usize % 64
    }
}

/// The task board the Rust and JS tests share.
fn manifest() -> Manifest {
    Manifest::parse(include_str!("../../../tests/fixtures/task-board.json")).unwrap()
}

#[derive(Default)]
struct Record {
    text: String,
    deltas: usize,
    states: Vec<WireEvent>,
    state: Value,
    questions: Vec<Question>,
    refusals: Vec<Refusal>,
    titles: BTreeMap<String, String>,
}

/// Runs one delegation against the peer's `scenario`, answering questions
/// with `answer`. Returns how the run ended and what was seen.
fn delegate(
    scenario: &str,
    seed: u64,
    answer: &dyn Fn(&Question) -> Vec<Value>,
) -> (RunState, Record) {
    delegate_with(scenario, seed, answer, Autonomy::Auto, &|_, _| {})
}

/// [`delegate`] at `autonomy`, with `review` acting for the person each
/// time the run waits for review.
fn delegate_with(
    scenario: &str,
    seed: u64,
    answer: &dyn Fn(&Question) -> Vec<Value>,
    autonomy: Autonomy,
    review: &dyn Fn(&mut Engine, &RunId),
) -> (RunState, Record) {
    let peer = peer();
    let mut config = EngineConfig::new("agui-session");
    config.ceiling = Autonomy::Auto;
    let mut engine = Engine::new(config, ActorSecret::new([3; 32]));
    engine
        .handle(
            0,
            Register {
                manifest: manifest(),
                instance: None,
            },
        )
        .unwrap();
    let run = engine
        .handle(
            0,
            Delegate(Delegation::new("Rename card 7", Initiative::User, autonomy)),
        )
        .unwrap();
    let mut thread = Thread::new();
    let mut record = Record::default();
    let mut chunks = Chunks(seed);
    let now = 0;
    while let Some(event) = engine.poll_event() {
        match event {
            Event::Effect(Effect::OpenTurn {
                run, turn, request, ..
            }) => {
                let input = thread.input(request.session.as_str(), &request);
                let (status, body) = post(peer.port, scenario, &input);
                assert_eq!(
                    status,
                    200,
                    "the SDK refused Baton's RunAgentInput: {}",
                    String::from_utf8_lossy(&body)
                );
                let mut stream =
                    AgUiTurn::new(DEFAULT_MAX_EVENT_BYTES).for_thread(request.session.as_str());
                let mut verifier = TurnVerifier::for_turn(StreamLimits::default(), &request);
                let mut verified = Vec::new();
                let mut rest = &body[..];
                while !rest.is_empty() {
                    let size = chunks.next().min(rest.len());
                    verified.extend(stream.feed(&rest[..size], &mut verifier));
                    rest = &rest[size..];
                }
                verified.extend(stream.finish(&mut verifier));
                record.state = stream.state().clone();
                thread.record(&run, stream.messages());
                for item in verified {
                    match item {
                        Verified::Inbound(inbound) => {
                            let input = Signal::inbound(&run, turn, inbound);
                            engine.handle(now, input);
                        }
                        Verified::Text { delta, .. } => {
                            record.deltas += 1;
                            record.text.push_str(&delta);
                        }
                        Verified::State { event, .. } => record.states.push(event),
                        Verified::Custom { .. }
                        | Verified::Reasoning { .. }
                        | Verified::Activity { .. } => {}
                    }
                }
            }
            Event::Effect(Effect::Mark { run, participant }) => {
                engine
                    .handle(
                        now,
                        Report::Mark {
                            run: run.clone(),
                            participant: participant.clone(),
                            token: Ok(MarkToken::new("m")),
                        },
                    )
                    .unwrap();
            }
            Event::Effect(Effect::Invoke {
                run,
                call,
                arguments,
                actor,
                ..
            }) => {
                assert!(
                    engine.actors().admit(Some(&actor)).is_ok(),
                    "the reference admits the call in flight"
                );
                let id = arguments["id"].as_str().unwrap().to_owned();
                record
                    .titles
                    .insert(id.clone(), arguments["title"].as_str().unwrap().to_owned());
                engine
                    .handle(
                        now,
                        Report::Call {
                            run: run.clone(),
                            call: call.clone(),
                            result: CallResult::Applied {
                                value: json!({"renamed": id}),
                            },
                        },
                    )
                    .unwrap();
            }
            Event::Journal(JournalRecord {
                entry: JournalEntry::CallRefused { refusal, .. },
                ..
            }) => {
                record.refusals.push(refusal);
            }
            Event::Journal(JournalRecord {
                run,
                entry:
                    JournalEntry::Transition {
                        to: RunState::Reviewing,
                        ..
                    },
                ..
            }) => review(&mut engine, &run),
            Event::Question(question) => {
                record.questions.push(question.clone());
                let attempts = answer(&question);
                let (last, first) = attempts.split_last().expect("at least one answer");
                for wrong in first {
                    assert!(matches!(
                        engine.handle(
                            now,
                            Answer {
                                question: question.id.clone(),
                                digest: question.digest,
                                answer: wrong.clone()
                            }
                        ),
                        Err(AnswerError::Schema { .. })
                    ));
                }
                engine
                    .handle(
                        now,
                        Answer {
                            question: question.id.clone(),
                            digest: question.digest,
                            answer: last.clone(),
                        },
                    )
                    .unwrap();
            }
            _ => {}
        }
    }
    (engine.run(&run).unwrap().state().clone(), record)
}

#[test]
fn ag_45_the_adapter_declares_the_protocol_it_speaks_to_the_engine() {
    assert_eq!(check_version(Some(baton_agui::PROTOCOL_VERSION)), Ok(()));
    let (status, body) = post(peer().port, "text", &json!({"threadId": "t"}));
    assert_eq!(
        status, 400,
        "the peer's SDK refuses an input that is not a RunAgentInput"
    );
    assert!(!body.is_empty());
}

fn no_questions(_: &Question) -> Vec<Value> {
    panic!("no question expected")
}

const SEEDS: [u64; 3] = [1, 7, 2026];

#[test]
fn streamed_text_arrives_whole_through_any_chunking() {
    for seed in SEEDS {
        let (state, record) = delegate("text", seed, &no_questions);
        assert_eq!(
            record.text,
            "Twenty small pieces of text arrive one after another."
        );
        assert!(record.deltas >= 15, "{} deltas", record.deltas);
        // A first turn with words and no call is the acting party declining to plan.
        assert_eq!(
            state,
            RunState::Cancelled {
                reason: CancelReason::NoPlan
            }
        );
    }
}

#[test]
fn approve_with_edits_the_agent_hears_the_edited_args_in_the_next_run_agent_input() {
    let (state, record) = delegate_with(
        "tool",
        SEEDS[0],
        &no_questions,
        Autonomy::Review,
        &|engine, run| {
            let revision = engine.run(run).unwrap().revision();
            let edited = json!({"id": "card-7", "title": "Ship it on Friday"});
            engine
                .handle(
                    0,
                    EditCall {
                        run: run.clone(),
                        revision,
                        call: CallId::new("call-1"),
                        arguments: edited,
                    },
                )
                .unwrap();
            let revision = engine.run(run).unwrap().revision();
            engine
                .handle(
                    0,
                    Authorize {
                        run: run.clone(),
                        revision,
                        authorization: Authorization::default(),
                    },
                )
                .unwrap();
        },
    );
    // The participant got the person's arguments, not the agent's.
    assert_eq!(
        record.titles.get("card-7").map(String::as_str),
        Some("Ship it on Friday")
    );
    // The peer's SDK accepted the next RunAgentInput, and its tool message
    // carried AG-UI's `editedArgs` with the result.
    let said: Value = serde_json::from_str(record.text.trim_start_matches("Renamed: ")).unwrap();
    assert_eq!(
        said,
        json!({"result": {"renamed": "card-7"}, "editedArgs": {"id": "card-7", "title": "Ship it on Friday"}})
    );
    assert!(matches!(
        state,
        RunState::Returned {
            outcome: Outcome::Completed,
            ..
        }
    ));
}

#[test]
fn a_tool_call_in_many_small_deltas_reaches_the_participant() {
    for seed in SEEDS {
        let (state, record) = delegate("tool", seed, &no_questions);
        assert_eq!(
            record.titles.get("card-7").map(String::as_str),
            Some("Ship the release")
        );
        // Its result went back in the next RunAgentInput, which the SDK accepted.
        assert_eq!(record.text, "Renamed: {\"renamed\":\"card-7\"}");
        assert_eq!(
            state,
            RunState::Returned {
                outcome: Outcome::Completed,
                reason: ReturnReason::Finished,
                refused: 0,
            }
        );
    }
}

#[test]
fn several_interrupts_are_all_closed_and_every_one_is_covered_by_the_resume() {
    for seed in SEEDS {
        let (state, record) = delegate("interrupts", seed, &|question| {
            assert_ne!(
                question.prompt, "Too late to ask",
                "an expired interrupt is never put"
            );
            if question.prompt.starts_with("What should") {
                assert!(
                    question.deadline_at <= 32_472_144_000_000,
                    "bounded by expiresAt"
                );
                vec![json!({"title": "Named"})]
            } else {
                vec![json!("blue")]
            }
        });
        assert_eq!(record.questions.len(), 2, "one at a time, both put");
        assert_eq!(
            record.text, "Resumed ask-colour=resolved, ask-title=resolved, stale=cancelled",
            "the peer's SDK saw one resume entry for every interrupt"
        );
        // It only asked and replied: no plan, nothing changed.
        assert_eq!(
            state,
            RunState::Cancelled {
                reason: CancelReason::NoPlan
            }
        );
    }
}

#[test]
fn an_interrupt_with_a_response_schema_is_answered_and_resumed() {
    for seed in SEEDS {
        let (state, record) = delegate("interrupt", seed, &|question| {
            assert_eq!(question.prompt, "What should the card be called?");
            assert_eq!(
                question.asker,
                Asker::ActingParty {
                    request: "ask-title".into(),
                    approval: None,
                }
            );
            assert_eq!(
                question.schema.as_ref().unwrap()["required"],
                json!(["title"])
            );
            // The peer's schema is enforced: an empty title fails it.
            vec![
                json!({"title": ""}),
                json!({"title": "Named by the person"}),
            ]
        });
        assert_eq!(record.questions.len(), 1);
        assert_eq!(
            record.titles.get("card-7").map(String::as_str),
            Some("Named by the person")
        );
        assert_eq!(
            state,
            RunState::Returned {
                outcome: Outcome::Completed,
                reason: ReturnReason::Finished,
                refused: 0,
            }
        );
    }
}

#[test]
fn a_state_snapshot_then_a_delta_build_the_agents_state() {
    for seed in SEEDS {
        let (_, record) = delegate("state", seed, &no_questions);
        assert!(matches!(
            record.states[0],
            WireEvent::StateSnapshot {
                direction: Direction::FromAgent,
                ..
            }
        ));
        assert!(matches!(
            record.states[1],
            WireEvent::StateDelta {
                direction: Direction::FromAgent,
                ..
            }
        ));
        assert_eq!(record.state, json!({"count": 2, "items": ["a"]}));
    }
}

#[test]
fn run_error_returns_control_with_the_agents_message() {
    let (state, _) = delegate("error", 1, &no_questions);
    assert_eq!(
        state,
        RunState::Returned {
            outcome: Outcome::Error,
            reason: ReturnReason::TurnFailed {
                message: "model overloaded".into()
            },
            refused: 0,
        }
    );
}

#[test]
fn the_server_closing_mid_stream_is_transport_lost() {
    for seed in SEEDS {
        let (state, record) = delegate("drop", seed, &no_questions);
        assert_eq!(record.text, "Halfway there");
        let RunState::Returned {
            outcome: Outcome::Error,
            reason: ReturnReason::TransportLost { message },
            ..
        } = state
        else {
            panic!("{state:?}");
        };
        assert!(message.contains("closed"), "{message}");
    }
}

#[test]
fn a_run_of_another_thread_on_the_stream_is_foreign_and_nothing_is_applied() {
    let (state, record) = delegate("foreign", 1, &no_questions);
    assert!(record.titles.is_empty(), "nothing was applied");
    let RunState::Returned {
        outcome: Outcome::Error,
        reason: ReturnReason::IntegrityViolation { code, finding },
        ..
    } = state
    else {
        panic!("{state:?}");
    };
    assert_eq!(code, ProtocolViolation::WrongThread, "{finding}");
    // The detail names both threads, for the person reading the journal.
    assert!(
        finding.contains("someone-else") && finding.contains("agui-session"),
        "{finding}"
    );
}

#[test]
fn a_malformed_event_is_an_integrity_violation() {
    let (state, _) = delegate("malformed", 1, &no_questions);
    let RunState::Returned {
        outcome: Outcome::Error,
        reason: ReturnReason::IntegrityViolation { code, finding },
        ..
    } = state
    else {
        panic!("{state:?}");
    };
    assert_eq!(code, ProtocolViolation::NotJson, "{finding}");
}

#[test]
fn an_oversized_argument_is_refused_typed_and_the_agent_hears_it() {
    for seed in SEEDS {
        let (state, record) = delegate("oversized", seed, &no_questions);
        assert!(record.titles.is_empty(), "nothing was applied");
        assert_eq!(
            record.refusals,
            [Refusal::InvalidArguments {
                errors: vec![ArgumentError::TooLarge {
                    argument: "title".into(),
                    limit: 200,
                    size: 5002
                }]
            }]
        );
        assert_eq!(record.text, "Understood: refused: invalid-arguments");
        // The agent finished, having done less than asked: the outcome says so.
        assert_eq!(
            state,
            RunState::Returned {
                outcome: Outcome::Completed,
                reason: ReturnReason::Finished,
                refused: 1,
            }
        );
    }
}
