//! The participation contract, Delegation Contract §3 (AG-12 … AG-23);
//! addressing among several instances (AG-23): `addressing.rs`.

mod common;

use baton_core::*;
use common::*;
use serde_json::{json, Value};

fn parse(manifest: &Value) -> Result<Manifest, ManifestError> {
    Manifest::parse(&manifest.to_string())
}

fn with(mut manifest: Value, pointer: &str, value: Value) -> Value {
    *manifest.pointer_mut(pointer).expect("pointer exists") = value;
    manifest
}

fn problem_paths(error: &ManifestError) -> Vec<String> {
    error.problems.iter().map(|p| p.path.clone()).collect()
}

#[test]
fn ag_12_registration_is_inert_until_a_delegation_reads_it() {
    let mut sim = Sim::new();
    sim.engine = Engine::new(config(), secret());
    let run = sim.delegate(Autonomy::Auto);
    let TurnRequest { tools, .. } = sim.last_request();
    assert!(tools.is_empty());
    let before = sim.engine.run(&run).unwrap().clone();
    let timeout = sim.engine.poll_timeout();
    let manifest = sim
        .engine
        .handle(0, ParseManifest(tasks_manifest().to_string()))
        .unwrap();
    sim.engine
        .handle(
            0,
            Register {
                manifest,
                instance: None,
            },
        )
        .unwrap();
    // Nothing happened: no event, no change to any run, no new timer.
    assert_eq!(sim.engine.poll_event(), None);
    assert_eq!(sim.engine.run(&run).unwrap().run(), &before);
    assert_eq!(sim.engine.poll_timeout(), timeout);
    // The delegation reads it when it acts, and its next turn offers it.
    sim.propose(&run, &[rename()]);
    sim.apply();
    let TurnRequest { tools, .. } = sim.last_request();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["tasks.rename", "tasks.archive"]);
}

#[test]
fn ag_13_a_participant_behaves_the_same_with_no_agent_present() {
    // Mounted, with reads published, and no delegation anywhere: the
    // person's own changes need nothing from the engine, and the engine
    // asks nothing of the participant.
    let mut sim = Sim::new();
    sim.publish("tasks", "board", 1, Origin::Author);
    for _ in 0..3 {
        assert_eq!(sim.engine.actors().admit(None), Ok(Attribution::Person));
        sim.publish("tasks", "board", 2, Origin::Author);
    }
    assert_eq!(
        sim.engine.poll_event(),
        None,
        "no effect was asked of any participant"
    );
    assert_eq!(sim.engine.poll_timeout(), None, "no timer runs");
    assert_eq!(sim.engine.counters(sim.now), Counters::default());
    assert_eq!(sim.engine.runs().count(), 0);
}

#[test]
fn ag_14_every_capability_and_read_needs_a_real_description() {
    for (pointer, text) in [
        ("/description", ""),
        ("/capabilities/0/description", "   "),
        ("/capabilities/0/description", "TODO"),
        ("/capabilities/1/description", "archive"),
        ("/reads/0/description", "tbd."),
        ("/reads/0/description", "The board"),
    ] {
        let error = parse(&with(tasks_manifest(), pointer, json!(text))).unwrap_err();
        assert!(error.breaks("AG-14"), "{pointer} = {text:?}: {error}");
        let path = format!(
            "${}",
            pointer
                .replace('/', ".")
                .replace(".0", "[0]")
                .replace(".1", "[1]")
        );
        assert!(
            problem_paths(&error).contains(&path),
            "{path} not in {error}"
        );
        assert!(error.to_string().starts_with("AG-14: "), "{error}");
    }
}

#[test]
fn ag_15_arguments_are_typed_by_json_schema_and_projected_unchanged() {
    // Refused at registration: invalid, remote, oversized, not an object.
    for (schema, fragment) in [
        (json!({"type": "objekt"}), "invalid"),
        (
            json!({"type": "object", "$ref": "https://example.org/s.json"}),
            "self-contained",
        ),
        (
            json!({"type": "object", "enum": (0..20_000).collect::<Vec<u32>>()}),
            "bytes",
        ),
        (json!({"type": "array"}), "object"),
    ] {
        let error =
            parse(&with(tasks_manifest(), "/capabilities/0/arguments", schema)).unwrap_err();
        assert!(error.breaks("AG-15"), "{error}");
        assert!(error.to_string().contains(fragment), "{fragment}: {error}");
        assert!(problem_paths(&error).contains(&"$.capabilities[0].arguments".to_owned()));
    }
    // Projected to the acting party exactly as declared.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    let TurnRequest { tools, .. } = sim.last_request();
    let rename_tool = tools.iter().find(|t| t.name == "tasks.rename").unwrap();
    assert_eq!(
        rename_tool.parameters,
        tasks_manifest()["capabilities"][0]["arguments"]
    );
    assert_eq!(rename_tool.description, "Rename one card on the board.");
    // Arguments that fail the schema are refused with path and keyword, not dispatched.
    let turn = sim.turn(&run);
    sim.engine.handle(
        sim.now,
        Signal::inbound(
            &run,
            turn,
            tool_call("bad", rename(), json!({"id": 7, "colour": "red"})),
        ),
    );
    sim.call(&run, "good", rename());
    sim.end_turn(&run);
    sim.apply_all();
    assert_eq!(sim.invoked(&rename()), 1);
    let TurnRequest { results, .. } = sim.last_request();
    let CallResult::Refused {
        refusal: Refusal::InvalidArguments { errors },
    } = &results[0].result
    else {
        panic!("{results:?}");
    };
    let keywords: Vec<(String, String)> = errors
        .iter()
        .map(|e| match e {
            ArgumentError::Schema(issue) => (issue.instance_path.clone(), issue.keyword.clone()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(
        keywords.contains(&("/id".into(), "type".into())),
        "{keywords:?}"
    );
    assert!(
        keywords.contains(&("".into(), "additionalProperties".into())),
        "{keywords:?}"
    );
}

#[test]
fn ag_16_a_polynomial_pattern_needs_a_limit_it_can_be_checked_within() {
    // `^\S+@\S+\.\S+$` may take time growing with the cube of its text:
    // within the step budget it can be checked on 170 characters.
    let pattern = "^\\S+@\\S+\\.\\S+$";
    let manifest = |limit: usize| {
        let mut manifest = with(
            tasks_manifest(),
            "/capabilities/0/arguments/properties/id",
            json!({"type": "object", "properties": {"email": {"type": "string", "pattern": pattern}}}),
        );
        manifest["capabilities"][0]["argumentLimits"] = json!({ "id": limit });
        manifest
    };
    let error = parse(&manifest(4096)).unwrap_err();
    assert!(error.breaks("AG-16"), "{error}");
    let problem = &error.problems[0];
    assert_eq!(problem.path, "$.capabilities[0].argumentLimits.id");
    assert!(
        problem.message.contains(pattern) && problem.message.contains("at most 170"),
        "names the pattern and the limit that would do: {}",
        problem.message
    );
    assert!(parse(&manifest(170)).is_ok());
    // A linear pattern needs no limit of its own.
    let linear = with(
        manifest(1 << 20),
        "/capabilities/0/arguments/properties/id/properties/email/pattern",
        json!("^[^@\\s]+@[^@\\s]+$"),
    );
    assert!(parse(&linear).is_ok());
}

#[test]
fn ag_16_an_oversized_argument_is_a_typed_failure_never_a_truncation() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    let turn = sim.turn(&run);
    let long = "x".repeat(100);
    sim.engine.handle(
        sim.now,
        Signal::inbound(&run, turn, tool_call("big", rename(), json!({"id": long}))),
    );
    sim.end_turn(&run);
    sim.apply_all();
    assert_eq!(
        sim.invoked(&rename()),
        0,
        "never dispatched, so never truncated"
    );
    assert_eq!(sim.state(&run), RunState::Acting, "the run goes on");
    let TurnRequest { results, .. } = sim.last_request();
    assert_eq!(
        results[0].result,
        CallResult::Refused {
            refusal: Refusal::InvalidArguments {
                errors: vec![ArgumentError::TooLarge {
                    argument: "id".into(),
                    limit: 64,
                    size: 102
                }]
            }
        }
    );
    let text = ArgumentError::TooLarge {
        argument: "id".into(),
        limit: 64,
        size: 102,
    }
    .to_string();
    assert!(
        text.starts_with("AG-16:")
            && text.contains("`id`")
            && text.contains("64")
            && text.contains("102")
    );

    // Every argument needs a limit, its own or the manifest's default.
    let no_limit = with(
        tasks_manifest(),
        "/capabilities/0/argumentLimits",
        json!({}),
    );
    let error = parse(&no_limit).unwrap_err();
    assert!(error.breaks("AG-16"), "{error}");
    let mut with_default = no_limit.clone();
    with_default["defaultArgumentLimit"] = json!(128);
    assert!(parse(&with_default).is_ok());
    // An open schema without a default leaves arguments unlimited: refused.
    let open = with(
        tasks_manifest(),
        "/capabilities/0/arguments/additionalProperties",
        json!(true),
    );
    assert!(parse(&open).unwrap_err().breaks("AG-16"));
}

#[test]
fn ag_17_the_declared_tier_is_audited_against_what_is_exposed() {
    let reads_only = with(tasks_manifest(), "/tier", json!("reads-only"));
    let error = parse(&reads_only).unwrap_err();
    assert!(error.breaks("AG-17") && problem_paths(&error).contains(&"$.capabilities".to_owned()));
    let mut irreversible = tasks_manifest();
    irreversible["capabilities"][1]["effects"] = json!([{"name": "purge", "reversible": false}]);
    let error = parse(&irreversible).unwrap_err();
    assert!(error.breaks("AG-17"), "{error}");
    assert!(problem_paths(&error).contains(&"$.capabilities[1].effects[0]".to_owned()));
    let full = with(irreversible, "/tier", json!("full-acts"));
    assert_eq!(parse(&full).unwrap().tier(), Tier::FullActs);
    let mut readers = tasks_manifest();
    readers["tier"] = json!("reads-only");
    readers["capabilities"] = json!([]);
    assert_eq!(parse(&readers).unwrap().tier(), Tier::ReadsOnly);
}

#[test]
fn ag_18_reversibility_is_per_effect_and_external_effects_are_irreversible() {
    let mut manifest = with(tasks_manifest(), "/tier", json!("full-acts"));
    manifest["capabilities"][0]["effects"] = json!([
        {"name": "retitle", "reversible": true},
        {"name": "send-digest", "reversible": true},
        {"name": "webhook", "reversible": true, "external": true},
        {"name": "notify", "reversible": true}
    ]);
    let parsed = parse(&manifest).unwrap();
    let effects = parsed.capability("rename").unwrap().effects();
    let irreversible: Vec<bool> = effects.iter().map(EffectDecl::is_irreversible).collect();
    assert_eq!(irreversible, [false, true, true, true]);
    assert!(parsed.capability("rename").unwrap().is_irreversible());
    assert!(!parsed.capability("archive").unwrap().is_irreversible());
    // Declared reversible or not, a `send` is not allowed in reversible-acts.
    let error = parse(&with(manifest, "/tier", json!("reversible-acts"))).unwrap_err();
    assert!(
        error.breaks("AG-17") && error.to_string().contains("AG-18"),
        "{error}"
    );
}

#[test]
fn ag_19_reversal_goes_only_through_the_participants_own_history() {
    // A reversible effect without a native history is a claim nobody can honour.
    let error = parse(&with(tasks_manifest(), "/history", json!("none"))).unwrap_err();
    assert!(error.breaks("AG-19"), "{error}");
    // Rollback asks the history to revert to its mark; it never invokes a
    // capability (a compensating call) to undo.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), archive()]);
    sim.apply();
    let invokes_before = sim.effects_of(|e| matches!(e, Effect::Invoke { .. })).len();
    sim.fail("conflict");
    let reverted = sim.answer_reverts(|_| Ok(()));
    assert_eq!(reverted.len(), 1);
    assert_eq!(
        sim.effects_of(|e| matches!(e, Effect::Invoke { .. })).len(),
        invokes_before
    );
    assert!(matches!(
        sim.state(&run),
        RunState::Returned {
            outcome: Outcome::RolledBack,
            ..
        }
    ));
}

#[test]
fn ag_20_a_stale_read_is_a_recoverable_error_not_a_run_failure() {
    let mut sim = Sim::new();
    sim.engine = Engine::new(config(), secret());
    sim.mount(board_manifest(), None);
    sim.publish("tasks", "board", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Auto);
    // The acting party plans on version 1; the person edits the board meanwhile.
    sim.call(&run, "c1", rename());
    sim.publish("tasks", "board", 2, Origin::Author);
    sim.end_turn(&run);
    sim.give_marks();
    assert!(
        sim.take_invoke().is_none(),
        "the stale act is not dispatched"
    );
    assert_eq!(
        sim.state(&run),
        RunState::Acting,
        "recoverable: the run goes on"
    );
    let TurnRequest {
        results, context, ..
    } = sim.last_request();
    assert_eq!(
        results[0].result,
        CallResult::Refused {
            refusal: Refusal::Stale {
                read: ReadRef::new("tasks", "board"),
                planned: Some(1),
                current: Some(2)
            }
        }
    );
    // Re-read (the new turn's context) and re-plan: it goes through.
    assert_eq!(
        context
            .get(&ReadRef::new("tasks", "board"))
            .unwrap()
            .version,
        2
    );
    sim.propose(&run, &[rename(), rename()]);
    sim.give_marks();
    // The first rename moves the board on, published with the call's actor
    // reference: the run's own write is not staleness.
    let actor = sim
        .engine
        .run(&run)
        .and_then(|run| run.actor())
        .expect("a call is in flight");
    sim.publish_as(&actor, "tasks", "board", 3);
    sim.apply();
    sim.apply();
    // Each act carried the version it was planned against.
    let planned: Vec<Vec<u64>> = sim
        .effects_of(|e| matches!(e, Effect::Invoke { .. }))
        .into_iter()
        .map(|e| match e {
            Effect::Invoke {
                planned_against, ..
            } => planned_against.iter().map(|s| s.version).collect(),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(planned, [vec![2], vec![3]]);
}

#[test]
fn ag_21_an_undeclared_capability_is_correctable_and_bounded_by_budget() {
    let mut sim = Sim::new();
    let run = sim.delegate_with(
        Delegation::new("x", Initiative::User, Autonomy::Auto).with_budget(Budget {
            max_calls: 3,
            ..config().default_budget
        }),
    );
    let ghost = CapabilityRef::new("tasks", "teleport");
    sim.propose(&run, &[ghost.clone(), ghost.clone()]);
    assert_eq!(sim.state(&run), RunState::Acting, "not ended by itself");
    let TurnRequest { results, .. } = sim.last_request();
    assert!(results.iter().all(|r| r.result
        == CallResult::Refused {
            refusal: Refusal::UndeclaredCapability
        }));
    // Correcting costs calls; the budget bounds it.
    sim.propose(&run, &[ghost.clone(), ghost]);
    assert_eq!(
        sim.state(&run),
        RunState::Escalated {
            reason: EscalationReason::BudgetExhausted {
                limit: BudgetLimit::Calls
            }
        }
    );
}

#[test]
fn ag_13_a_refused_registration_offers_nothing_and_only_a_call_to_it_fails() {
    let mut sim = Sim::new();
    let mut broken = tasks_manifest();
    broken["id"] = json!("board");
    broken["capabilities"][0]["description"] = json!("TODO");
    let refused = sim
        .engine
        .handle(
            0,
            RegisterText {
                text: broken.to_string(),
                instance: None,
            },
        )
        .unwrap_err();
    assert_eq!(refused.participant, Some(ParticipantId::new("board")));
    assert_eq!(refused.problems.len(), 1);
    assert_eq!(refused.problems[0].requirement.as_deref(), Some("AG-14"));
    assert_eq!(refused.problems[0].path, "$.capabilities[0].description");
    // It offers no tools…
    assert!(sim
        .engine
        .registry()
        .tools()
        .iter()
        .all(|tool| !tool.name.starts_with("board.")));
    // …and everything else works as before, until a call names it.
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[CapabilityRef::new("board", "rename"), rename()]);
    sim.give_marks();
    sim.apply();
    assert_eq!(sim.state(&run), RunState::Acting, "the run goes on");
    let TurnRequest { results, .. } = sim.last_request();
    assert_eq!(
        results[0].result,
        CallResult::Refused {
            refusal: Refusal::RegistrationRefused {
                problems: refused.problems.clone()
            }
        }
    );
    assert!(matches!(results[1].result, CallResult::Applied { .. }));
    // Text that is not even JSON is refused with no id to remember.
    let garbage = sim
        .engine
        .handle(
            0,
            RegisterText {
                text: ("{\"id\": ").into(),
                instance: None,
            },
        )
        .unwrap_err();
    assert_eq!(garbage.participant, None);
    assert!(!garbage.problems.is_empty());
    // A second mount under a mounted id is refused and leaves the first be.
    let again = sim
        .engine
        .handle(
            0,
            RegisterText {
                text: tasks_manifest().to_string(),
                instance: None,
            },
        )
        .unwrap_err();
    assert_eq!(again.participant, Some(ParticipantId::new("tasks")));
    assert!(sim
        .engine
        .registry()
        .get(&ParticipantId::new("tasks"))
        .is_some());
}

#[test]
fn ag_15_tool_names_stay_reversible_and_within_what_model_apis_accept() {
    for (id, why) in [
        ("task__board", "contains `__`"),
        ("tasks_", "ends with `_`"),
    ] {
        let error = parse(&with(tasks_manifest(), "/id", json!(id))).unwrap_err();
        let problem = error
            .problems
            .iter()
            .find(|p| p.path == "$.id")
            .unwrap_or_else(|| panic!("{id} ({why}) was accepted"));
        assert_eq!(problem.requirement.as_deref(), Some("AG-15"));
    }
    let long = "a".repeat(60);
    let error = parse(&with(tasks_manifest(), "/capabilities/0/name", json!(long))).unwrap_err();
    assert!(error
        .problems
        .iter()
        .any(|p| p.path == "$.capabilities[0].name" && p.message.contains("67 characters")));
    // Within the rules, the wire name reads back to the same capability.
    for (participant, capability) in [("tasks", "rename"), ("a-b_c", "d__e"), ("x", "y-")] {
        let address = CapabilityRef::new(participant, capability);
        let wire = address.wire_name();
        assert!(wire
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
        assert_eq!(CapabilityRef::parse_wire_name(&wire), Some(address));
    }
}

#[test]
fn manifests_reject_unknown_fields_with_their_path() {
    let mut manifest = tasks_manifest();
    manifest["capabilities"][1]["argumentz"] = json!({});
    let error = parse(&manifest).unwrap_err();
    assert_eq!(error.problems[0].path, "$.capabilities[1].argumentz");
    assert!(error.problems[0].message.contains("argumentz"), "{error}");
    let mut manifest = tasks_manifest();
    manifest["reads"][0]["origin"] = json!("the internet");
    let error = parse(&manifest).unwrap_err();
    assert_eq!(error.problems[0].path, "$.reads[0].origin");
    assert!(Manifest::parse("{\"id\": ").is_err());
    assert!(Manifest::parse("[]").is_err());
    let twice = with(tasks_manifest(), "/capabilities/1/name", json!("rename"));
    assert!(parse(&twice)
        .unwrap_err()
        .to_string()
        .contains("declared twice"));
}

#[test]
fn registration_refuses_conflicts_and_bad_instance_names() {
    let mut engine = Engine::new(config(), secret());
    let manifest = engine
        .handle(0, ParseManifest(tasks_manifest().to_string()))
        .unwrap();
    engine
        .handle(
            0,
            Register {
                manifest: manifest.clone(),
                instance: None,
            },
        )
        .unwrap();
    assert_eq!(
        engine.handle(
            0,
            Register {
                manifest: manifest.clone(),
                instance: None
            }
        ),
        Err(RegisterError::AlreadyMounted(ParticipantId::new("tasks")))
    );
    let different = engine
        .handle(
            0,
            ParseManifest(
                (&with(
                    tasks_manifest(),
                    "/capabilities/0/description",
                    json!("Rename a card and nothing else."),
                )
                .to_string())
                    .into(),
            ),
        )
        .unwrap();
    assert_eq!(
        engine.handle(
            0,
            Register {
                manifest: different,
                instance: Some("b".into())
            }
        ),
        Err(RegisterError::ConflictingManifest(ParticipantId::new(
            "tasks"
        )))
    );
    assert!(matches!(
        engine.handle(
            0,
            Register {
                manifest,
                instance: Some("a.b".into())
            }
        ),
        Err(RegisterError::InvalidInstance(_))
    ));
}

#[test]
fn ag_50_a_paused_run_is_not_resumed_without_a_transport() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Review);
    sim.engine.handle(sim.now, Pause(run.clone())).unwrap();
    sim.drain();
    let snapshot = sim.engine.snapshot();
    let mut config = config();
    config.transport = false;
    let mut engine = Engine::restore(config, secret(), snapshot);
    assert_eq!(
        engine.handle(
            sim.now,
            Resume {
                run: run.clone(),
                budget: None
            }
        ),
        Err(DelegateError::NoTransport)
    );
    // Nothing was started, and the paused run can still be resumed later.
    assert!(std::iter::from_fn(|| engine.poll_event())
        .all(|event| !matches!(event, Event::Effect(Effect::OpenTurn { .. }))));
    assert!(engine.run(&run).unwrap().is_resumable());
}

#[test]
fn ag_50_without_a_transport_only_what_needs_an_acting_party_is_refused() {
    let mut config = config();
    config.ceiling = Autonomy::Auto;
    config.transport = false;
    let mut sim = Sim::with_config(config);
    // Participants are mounted and publish as ever.
    sim.publish("tasks", "board", 1, Origin::Author);
    assert_eq!(
        sim.engine.handle(
            sim.now,
            Delegate(Delegation::new("tidy", Initiative::User, Autonomy::Auto))
        ),
        Err(DelegateError::NoTransport)
    );
    assert_eq!(DelegateError::NoTransport.requirement(), Some("AG-50"));
    assert_eq!(DelegateError::NoTransport.code(), "no-transport");
    // A fixed plan needs no acting party: it runs.
    let plan =
        Delegation::new("rename", Initiative::User, Autonomy::Auto).with_plan(vec![PlannedCall {
            capability: rename(),
            arguments: json!({ "id": "a" }),
        }]);
    let run = sim.delegate_with(plan);
    sim.apply_all();
    assert!(matches!(
        sim.state(&run),
        RunState::Returned {
            outcome: Outcome::Completed,
            ..
        }
    ));
}

/// Argument schemas as teams already write them: what `zod-to-json-schema`
/// emits by default — draft-07, `definitions` with `$ref`s to them — is
/// registered as it is, and validates with draft-07's semantics (AG-15).
#[test]
fn ag_15_a_zod_to_json_schema_output_registers_as_it_is() {
    let zod = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "title": {"$ref": "#/definitions/title"},
            "tags": {"type": "array", "items": [{"type": "string"}], "additionalItems": false}
        },
        "required": ["id", "title"],
        "additionalProperties": false,
        "definitions": {"title": {"type": "string", "minLength": 1, "maxLength": 120}}
    });
    let manifest = with(tasks_manifest(), "/capabilities/0/arguments", zod.clone());
    let mut manifest = manifest;
    manifest["defaultArgumentLimit"] = json!(1_000);
    let manifest = parse(&manifest).expect("a draft-07 schema registers");
    let mut engine = Engine::new(config(), secret());
    engine
        .handle(
            0,
            Register {
                manifest,
                instance: None,
            },
        )
        .expect("and mounts");
    let schema = Schema::compile(&zod).unwrap();
    assert!(schema.is_valid(&json!({"id": "7", "title": "Ship", "tags": ["a"]})));
    // Draft-07's own semantics: `items` as an array, then `additionalItems`.
    assert!(!schema.is_valid(&json!({"id": "7", "title": "Ship", "tags": ["a", "b"]})));
    assert!(!schema.is_valid(&json!({"id": "7", "title": ""})));
}
