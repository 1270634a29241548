//! Bad input gets a typed error, never a panic, and loses nothing: malformed
//! manifests, hostile schemas, oversized values, arbitrary JSON.

mod common;

use baton_core::*;
use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};

#[test]
fn malformed_manifests_are_typed_errors() {
    let cases = [
        "",
        "null",
        "[]",
        "{}",
        "{\"id\": 3}",
        r#"{"id": "tasks", "label": "T", "description": "A board of tasks.", "tier": "everything", "history": "native"}"#,
        r#"{"id": "tasks", "label": "T", "description": "A board of tasks.", "tier": "full-acts", "history": "native", "capabilities": {}}"#,
        r#"{"id": "ta.sks", "label": "T", "description": "A board of tasks.", "tier": "reads-only", "history": "native"}"#,
        r#"{"id": "tasks", "label": "", "description": "A board of tasks.", "tier": "reads-only", "history": "native"} trailing"#,
    ];
    for text in cases {
        let error = Manifest::parse(text).unwrap_err();
        assert!(!error.problems.is_empty(), "{text}");
        assert!(
            error.problems.iter().all(|p| p.path.starts_with('$')),
            "{error}"
        );
    }
}

#[test]
fn hostile_schemas_are_refused_or_bounded() {
    // Nesting deeper than the limit.
    let mut deep = json!({"type": "object"});
    for _ in 0..80 {
        deep = json!({"type": "object", "properties": {"a": deep}});
    }
    assert!(matches!(
        Schema::compile(&deep),
        Err(SchemaError::TooDeep { .. })
    ));
    // Nesting deeper than any JSON parser here will go: an error, not a stack overflow.
    let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(Schema::compile_str(&text).is_err());
    assert!(Manifest::parse(&text).is_err());
    // A huge enum.
    let huge =
        json!({"type": "object", "properties": {"x": {"enum": (0..50_000).collect::<Vec<u32>>()}}});
    assert!(matches!(
        Schema::compile(&huge),
        Err(SchemaError::TooLarge { .. })
    ));
    // A pathological pattern is refused before it can run.
    assert!(matches!(
        Schema::compile(&json!({"type": "string", "pattern": "^(a|a)*$"})),
        Err(SchemaError::Pattern(PatternError::Catastrophic { .. }))
    ));
    // A pattern that is not a regular expression.
    assert!(matches!(
        Schema::compile(&json!({"type": "string", "pattern": "(unclosed"})),
        Err(SchemaError::Pattern(PatternError::Syntax { .. }))
    ));
}

#[test]
fn an_oversized_value_is_measured_not_validated() {
    let manifest = Manifest::parse(&tasks_manifest().to_string()).unwrap();
    let rename = manifest.capability("rename").unwrap();
    let huge = json!({"id": "x".repeat(1 << 20)});
    assert_eq!(
        rename.check_arguments(&huge),
        Err(vec![ArgumentError::TooLarge {
            argument: "id".into(),
            limit: 64,
            size: (1 << 20) + 2
        }])
    );
    assert_eq!(
        rename.check_arguments(&json!([1])),
        Err(vec![ArgumentError::NotAnObject])
    );
}

#[test]
fn reports_for_unknown_things_are_typed_errors_and_change_nothing() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    let revision = sim.revision(&run);
    let unknown = RunId::new("s/r404");
    assert_eq!(
        sim.engine.handle(
            sim.now,
            Report::Call {
                run: unknown.clone(),
                call: CallId::new("c"),
                result: CallResult::Applied { value: json!(0) }
            }
        ),
        Err(ReportError::UnknownRun(unknown.clone()))
    );
    assert!(matches!(
        sim.engine.handle(
            sim.now,
            Report::Call {
                run: run.clone(),
                call: CallId::new("c"),
                result: CallResult::Applied { value: json!(0) }
            }
        ),
        Err(ReportError::NoSuchCall { .. })
    ));
    assert!(matches!(
        sim.engine.handle(
            sim.now,
            Report::Mark {
                run: run.clone(),
                participant: ParticipantId::new("tasks"),
                token: Ok(MarkToken::new("m"))
            }
        ),
        Err(ReportError::NotWaitingFor { .. })
    ));
    assert!(matches!(
        sim.engine.handle(
            sim.now,
            Report::Preview {
                run: run.clone(),
                call: CallId::new("c"),
                change: Ok(json!(0))
            }
        ),
        Err(ReportError::NoSuchCall { .. })
    ));
    assert_eq!(
        sim.authorize_at(&unknown, 1, Authorization::default()),
        Err(CommandError::UnknownRun(unknown))
    );
    assert_eq!(sim.revision(&run), revision);
    // An over-large budget is refused up front.
    let huge = Budget {
        max_calls: u32::MAX,
        ..config().default_budget
    };
    assert!(matches!(
        sim.engine.handle(
            sim.now,
            Delegate(Delegation::new("x", Initiative::User, Autonomy::Auto).with_budget(huge))
        ),
        Err(DelegateError::InvalidBudget(_))
    ));
}

#[test]
fn a_refused_report_is_recorded_as_a_finding_never_lost() {
    // A participant's mark arrives after the person stopped the run.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.call(&run, "c1", rename());
    sim.end_turn(&run);
    assert!(!sim
        .effects_of(|effect| matches!(effect, Effect::Mark { .. }))
        .is_empty());
    sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
    sim.drain();
    let before = sim.engine.findings().len();
    let late = Report::Mark {
        run: run.clone(),
        participant: ParticipantId::new("tasks"),
        token: Ok(MarkToken::new("m1")),
    };
    assert_eq!(
        sim.engine.handle(sim.now, late),
        Err(ReportError::RunEnded(run.clone()))
    );
    let recorded: Vec<FindingReason> = sim
        .drain()
        .into_iter()
        .filter_map(|event| match event {
            Event::Finding(finding) => Some(finding.reason),
            _ => None,
        })
        .collect();
    assert!(
        matches!(
            recorded.as_slice(),
            [FindingReason::ReportRefused { code: ReportRefusal::RunEnded, detail }] if detail.contains("has ended")
        ),
        "{recorded:?}"
    );
    assert_eq!(sim.engine.findings().len(), before + 1);
    // Every kind of refusal has its code.
    let unknown = RunId::new("s/r404");
    let refused = sim
        .engine
        .handle(
            sim.now,
            Report::Preview {
                run: unknown.clone(),
                call: CallId::new("c"),
                change: Err(HostFailure::new("x")),
            },
        )
        .unwrap_err();
    assert_eq!(refused.refusal(), ReportRefusal::UnknownRun);
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "[a-z$#/.:]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("object"),
            Just("string"),
            Just("integer"),
            Just("array"),
            Just("#/$defs/a"),
            Just("email"),
            Just("^a+$"),
            Just("reversible-acts"),
            Just("native"),
            Just("tasks"),
        ]
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        let key = prop_oneof![
            "[a-z]{1,6}",
            Just("type".to_owned()),
            Just("properties".to_owned()),
            Just("required".to_owned()),
            Just("$ref".to_owned()),
            Just("$defs".to_owned()),
            Just("items".to_owned()),
            Just("format".to_owned()),
            Just("pattern".to_owned()),
            Just("enum".to_owned()),
            Just("id".to_owned()),
            Just("capabilities".to_owned()),
            Just("arguments".to_owned()),
            Just("effects".to_owned()),
            Just("reads".to_owned()),
            Just("description".to_owned()),
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key, inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: generated_cases(2_000), ..ProptestConfig::default() })]

    #[test]
    fn the_manifest_parser_never_panics_on_arbitrary_json(value in arbitrary_json()) {
        let mut cache = SchemaCache::new();
        if let Err(error) = Manifest::from_value(&value, &mut cache) {
            prop_assert!(!error.problems.is_empty());
        }
        let _ = Manifest::parse(&value.to_string());
    }

    #[test]
    fn the_manifest_parser_never_panics_on_arbitrary_text(text in ".{0,200}") {
        prop_assert!(Manifest::parse(&text).is_err());
    }

    #[test]
    fn compile_and_validate_never_panic(schema in arbitrary_json(), instance in arbitrary_json()) {
        if let Ok(compiled) = Schema::compile(&schema) {
            let result = compiled.validate(&instance);
            prop_assert_eq!(result.valid, result.errors.is_empty());
            prop_assert_eq!(result.valid, compiled.is_valid(&instance));
        }
    }

    #[test]
    fn argument_checks_never_panic(arguments in arbitrary_json()) {
        let manifest = &manifests()[0];
        let rename = manifest.capability("rename").unwrap();
        let _ = rename.check_arguments(&arguments);
    }
}
