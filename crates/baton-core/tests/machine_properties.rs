//! Property tests of the custody machine's invariants over arbitrary sequences
//! of commands, transport inputs, host reports and clock jumps. Each property
//! runs 10,000 cases in the normal test run.

mod common;
mod machine;

use std::collections::BTreeMap;

use baton_core::*;
use common::*;
use machine::*;
use proptest::prelude::*;
use serde_json::json;

const CASES: u32 = 10_000;

fn proptest_config() -> ProptestConfig {
    ProptestConfig {
        cases: CASES,
        max_shrink_iters: 2_000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(proptest_config())]

    /// Every run is terminal once its deadline has passed (or is rolling back,
    /// bounded by the revert allowance), and every run is terminal after a kill.
    #[test]
    fn runs_are_terminal_after_deadline_or_kill(ops in ops()) {
        let mut harness = Harness::new();
        let revert = config().revert_timeout_ms;
        for op in &ops {
            harness.apply(op);
            let now = harness.now;
            for run in harness.engine.runs() {
                if matches!(op, Op::KillAll) {
                    prop_assert!(run.state().is_terminal(), "{} survived the kill: {:?}", run.id(), run.state());
                }
                if matches!(op, Op::Advance(_)) && now >= run.deadline_at() {
                    let bounded = run.rollback_deadline().is_some_and(|at| at <= now + revert);
                    prop_assert!(run.state().is_terminal() || bounded,
                        "{} is past its deadline and still {:?}", run.id(), run.state());
                }
            }
        }
        harness.run_out_the_clock();
        for run in harness.engine.runs() {
            prop_assert!(run.state().is_terminal(), "{} never returned: {:?}", run.id(), run.state());
        }
        prop_assert_eq!(harness.engine.poll_timeout(), None);
    }

    /// A terminal run never changes again: not its state, not its journal.
    #[test]
    fn terminal_runs_never_change(ops in ops()) {
        let mut harness = Harness::new();
        let mut frozen: BTreeMap<RunId, (RunState, u64)> = BTreeMap::new();
        for op in &ops {
            harness.apply(op);
            for run in harness.engine.runs() {
                let now = (run.state().clone(), run.revision());
                match frozen.get(run.id()) {
                    Some(before) => prop_assert_eq!(before, &now, "{} changed after it ended", run.id()),
                    None if run.state().is_terminal() => { frozen.insert(run.id().clone(), now); }
                    None => {}
                }
            }
            // And no question stays open for a run that has ended.
            for question in harness.engine.questions().iter().filter(|q| q.state.is_open()) {
                let run = harness.engine.run(&question.run).unwrap();
                prop_assert!(!run.state().is_terminal(), "{} is open for ended run {}", question.id, run.id());
            }
        }
    }

    /// Journal revisions start at 1 and increase by exactly one, both in the
    /// run's journal and in the stream of events a store would persist.
    #[test]
    fn journal_revisions_increase_without_gaps(ops in ops()) {
        let mut harness = Harness::new();
        for op in &ops {
            harness.apply(op);
        }
        harness.run_out_the_clock();
        for run in harness.engine.runs() {
            let journal: Vec<u64> = run.journal().iter().map(|r| r.revision).collect();
            let expected: Vec<u64> = (1..=journal.len() as u64).collect();
            prop_assert_eq!(&journal, &expected);
            prop_assert_eq!(run.revision(), journal.len() as u64);
            prop_assert_eq!(harness.emitted.get(run.id()), Some(&journal));
        }
    }

    /// The machine never panics, whatever arrives in whatever order, and a
    /// snapshot always restores to an engine that keeps going.
    #[test]
    fn machine_never_panics(ops in ops()) {
        let mut harness = Harness::new();
        for (index, op) in ops.iter().enumerate() {
            harness.apply(op);
            if index % 7 == 6 {
                let json = serde_json::to_string(&harness.engine.snapshot()).unwrap();
                let snapshot: EngineSnapshot = serde_json::from_str(&json).unwrap();
                let mut restored = Engine::restore(config(), secret(), snapshot);
                declare_all(&mut restored);
                restored.handle(harness.now, Reconcile);
                let later = harness.now + 1_000_000;
                restored.handle(later, Signal::Timeout);
                prop_assert_eq!(restored.runs().filter(|run| !run.state().is_terminal()).count(), 0);
                // It keeps going: a new delegation is accepted and acted on.
                restored.handle(0, Enable);
                let plan = vec![PlannedCall {
                    capability: rename(),
                    arguments: json!({"id": "card-1", "title": "Ship"}),
                }];
                let delegation = Delegation::new("rename a card", Initiative::User, Autonomy::Auto).with_plan(plan);
                let run = restored.handle(later, Delegate(delegation));
                prop_assert!(run.is_ok(), "{run:?}");
                let run = run.unwrap();
                let mut asked = false;
                while let Some(event) = restored.poll_event() {
                    asked |= matches!(
                        &event,
                        Event::Effect(Effect::Mark { run: asked_for, .. } | Effect::Invoke { run: asked_for, .. })
                            if *asked_for == run
                    );
                }
                prop_assert!(asked, "the restored engine asks its host to act on the new run");
                prop_assert!(!restored.run(&run).unwrap().state().is_terminal());
                restored.handle(later, Stop(run.clone())).unwrap();
                prop_assert!(restored.run(&run).unwrap().state().is_terminal());
            }
        }
        // Nothing the ops did made the engine attempt a forbidden transition.
        harness.drain();
        prop_assert_eq!(harness.illegal.clone(), Vec::<String>::new());
    }
}

/// Guards the properties above against a generator that never gets deep:
/// the same op distribution must reach every outcome, escalations and rollbacks.
#[test]
fn generator_reaches_every_outcome() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..2_000 {
        let ops = ops().new_tree(&mut runner).unwrap().current();
        let mut harness = Harness::new();
        for op in &ops {
            harness.apply(op);
            for run in harness.engine.runs() {
                if let RunState::Escalated { .. } = run.state() {
                    *seen.entry("escalated".into()).or_default() += 1;
                }
            }
        }
        for run in harness.engine.runs() {
            if let RunState::Returned {
                outcome, reason, ..
            } = run.state()
            {
                *seen.entry(format!("{outcome:?}")).or_default() += 1;
                if let ReturnReason::RollbackFailed { .. } = reason {
                    *seen.entry("rollback-failed".into()).or_default() += 1;
                }
            }
        }
    }
    for wanted in [
        "Completed",
        "Partial",
        "RolledBack",
        "Aborted",
        "Error",
        "escalated",
        "rollback-failed",
    ] {
        assert!(
            seen.get(wanted).copied().unwrap_or(0) > 0,
            "the generator never reached {wanted}: {seen:?}"
        );
    }
}
