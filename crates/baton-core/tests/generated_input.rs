//! Generated hostile input for the parsers that take what the outside hands
//! over and the core has no test of its own for: persisted snapshots and
//! journal records (as a store gives them back), scripts, and answers. Each
//! target starts from real artefacts of a real run and mutates them — bytes
//! flipped, text cut, a node of the JSON tree replaced with arbitrary JSON —
//! and asserts the parser either refuses typed or yields something the
//! engine can run on, never a panic.
//!
//! A short run of every target is part of `cargo test`. The long run sets
//! the case count (the manual, "Generated input"):
//!
//!     BATON_GENERATED_CASES=1000000 cargo test --release -p baton-core --test generated_input

mod common;

use baton_core::*;
use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};

/// A finished run, a live one and an open question: the artefacts to mutate.
fn session() -> Sim {
    let mut sim = Sim::new();
    let done = sim.delegate(Autonomy::Auto);
    sim.propose(&done, &[rename(), archive()]);
    sim.apply_all();
    sim.end_turn(&done);
    let asking = sim.delegate(Autonomy::Review);
    sim.ask(
        &asking,
        "q1",
        Some(json!({"type": "object", "required": ["column"], "properties": {"column": {"enum": ["todo", "done"]}}})),
    );
    sim
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        ".{0,16}".prop_map(Value::String),
        prop_oneof![
            Just("returned"),
            Just("acting"),
            Just("reviewing"),
            Just("open"),
            Just("answered"),
            Just("call-finished"),
            Just("person"),
            Just("engine"),
            Just("tasks"),
            Just("s/r1"),
        ]
        .prop_map(|s| Value::String(s.into())),
    ]
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-zA-Z]{1,10}", inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Replaces the `pick`-th node (in document order) of `value` with `with`.
fn replace_node(value: &mut Value, pick: usize, with: Value) {
    fn walk(value: &mut Value, left: &mut usize, with: &mut Option<Value>) {
        if *left == 0 {
            if let Some(with) = with.take() {
                *value = with;
            }
            return;
        }
        *left -= 1;
        match value {
            Value::Array(items) => items.iter_mut().for_each(|item| walk(item, left, with)),
            Value::Object(map) => map.values_mut().for_each(|item| walk(item, left, with)),
            _ => {}
        }
    }
    let mut left = pick;
    walk(value, &mut left, &mut Some(with));
}

#[derive(Debug, Clone)]
enum Mutation {
    /// A node of the tree replaced with arbitrary JSON (still JSON).
    Node(usize, Value),
    /// Bytes flipped (rarely JSON any more).
    Flip(Vec<(usize, u8)>),
    /// The text cut short, as a torn write would leave it.
    Cut(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        6 => (any::<usize>(), arbitrary_json()).prop_map(|(at, with)| Mutation::Node(at, with)),
        2 => prop::collection::vec((any::<usize>(), any::<u8>()), 1..8).prop_map(Mutation::Flip),
        1 => any::<usize>().prop_map(Mutation::Cut),
    ]
}

/// `value` as JSON text with `mutation` applied.
fn mutated(value: &Value, mutation: &Mutation) -> String {
    match mutation {
        Mutation::Node(at, with) => {
            let mut copy = value.clone();
            let nodes = count_nodes(value);
            replace_node(&mut copy, at % nodes.max(1), with.clone());
            copy.to_string()
        }
        Mutation::Flip(flips) => {
            let mut bytes = value.to_string().into_bytes();
            for (at, byte) in flips {
                let len = bytes.len();
                bytes[at % len] = *byte;
            }
            String::from_utf8_lossy(&bytes).into_owned()
        }
        Mutation::Cut(at) => {
            let text = value.to_string();
            let mut end = at % (text.len() + 1);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text[..end].to_owned()
        }
    }
}

fn count_nodes(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(count_nodes).sum(),
        Value::Object(map) => map.values().map(count_nodes).sum(),
        _ => 0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: generated_cases(300), failure_persistence: None, ..ProptestConfig::default() })]

    /// A snapshot as a store gives it back, mutated: refused by the decoder,
    /// or restored into an engine that then runs its timers and commands.
    #[test]
    fn a_persisted_snapshot_decodes_typed_or_restores_an_engine_that_runs(mutation in mutation()) {
        let sim = session();
        let snapshot = serde_json::to_value(sim.engine.snapshot()).unwrap();
        let text = mutated(&snapshot, &mutation);
        if let Ok(decoded) = serde_json::from_str::<EngineSnapshot>(&text) {
            let mut engine = Engine::restore(config(), secret(), decoded);
            engine.handle(sim.now + 1_000_000, Signal::Timeout);
            while engine.poll_event().is_some() {}
            let _ = engine.handle(sim.now + 1_000_001, Delegate(Delegation::new("again", Initiative::User, Autonomy::Review)));
            while engine.poll_event().is_some() {}
        }
    }

    /// A journal record as a store gives it back, mutated: decoded or refused.
    #[test]
    fn a_persisted_journal_record_decodes_typed(mutation in mutation(), pick in any::<usize>()) {
        let sim = session();
        let records: Vec<Value> = sim.log.iter().filter_map(|event| match event {
            Event::Journal(record) => Some(serde_json::to_value(record).unwrap()),
            _ => None,
        }).collect();
        let record = &records[pick % records.len()];
        // The unmutated record round-trips exactly.
        let back: JournalRecord = serde_json::from_value(record.clone()).unwrap();
        prop_assert_eq!(&serde_json::to_value(&back).unwrap(), record);
        let _ = serde_json::from_str::<JournalRecord>(&mutated(record, &mutation));
    }

    /// A script, mutated: parsed (and then well-formed) or refused typed.
    #[test]
    fn a_script_parses_or_is_refused_typed(mutation in mutation()) {
        let script = json!({
            "protocol": "baton/1",
            "turns": [{"events": [
                {"atMs": 0, "event": {"type": "turn-started"}},
                {"atMs": 5, "event": {"type": "tool-call-start", "call": "c1", "tool": "tasks.rename"}},
                {"atMs": 6, "event": {"type": "tool-call-args", "call": "c1", "delta": "{\"id\":\"a\"}"}},
                {"atMs": 7, "event": {"type": "tool-call-end", "call": "c1"}},
                {"atMs": 9, "event": {"type": "turn-finished", "outcome": "completed"}}
            ]}]
        });
        prop_assert!(Script::parse(&script.to_string()).is_ok());
        if let Ok(parsed) = Script::parse(&mutated(&script, &mutation)) {
            for turn in &parsed.turns {
                prop_assert!(turn.events.windows(2).all(|pair| pair[0].at_ms <= pair[1].at_ms));
            }
        }
    }

    /// Any answer to an open question: accepted only when it satisfies the
    /// question's schema, otherwise a typed refusal; never a panic.
    #[test]
    fn an_answer_is_accepted_only_when_it_satisfies_the_schema(answer in arbitrary_json()) {
        let mut sim = session();
        let question = sim.engine.questions().iter().find(|q| q.state == QuestionState::Open).cloned().expect("an open question");
        let satisfies = answer.get("column").and_then(Value::as_str).is_some_and(|c| c == "todo" || c == "done");
        let accepted = sim.reply(&question, answer).is_ok();
        prop_assert_eq!(accepted, satisfies);
    }
}
