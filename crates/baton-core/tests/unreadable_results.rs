//! What a participant returns that cannot be read as JSON is never turned
//! into `null` silently: the call ran, so it counts as applied, and a
//! finding says what was lost.

mod common;

use baton_core::*;
use common::*;

#[test]
fn an_unreadable_call_result_is_applied_and_reported_as_a_finding() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.give_marks();
    let (id, call, _) = sim.take_invoke().expect("an invocation is pending");
    sim.engine
        .handle(
            sim.now,
            Report::UnreadableResult {
                run: id.clone(),
                call: call.clone(),
                detail: "a BigInt".into(),
            },
        )
        .unwrap();
    sim.drain();
    let finished: Vec<CallResult> = sim.journal_of(&run, |entry| match entry {
        JournalEntry::CallFinished { result, .. } => Some(result.clone()),
        _ => None,
    });
    assert_eq!(
        finished,
        [CallResult::Applied {
            value: serde_json::Value::Null
        }]
    );
    let finding = sim.engine.findings().last().cloned().expect("a finding");
    assert_eq!(finding.run, Some(run.clone()));
    assert_eq!(
        finding.reason,
        FindingReason::UnreadableResult {
            call: call.clone(),
            detail: "a BigInt".into()
        }
    );
    // Reported for a call that is not in flight, it is refused: no
    // unreadable result is made up, and the refusal itself is recorded.
    let before = sim.engine.findings().len();
    assert!(sim
        .engine
        .handle(
            sim.now,
            Report::UnreadableResult {
                run: id.clone(),
                call: call.clone(),
                detail: "again".into()
            }
        )
        .is_err());
    let after: Vec<&FindingReason> = sim.engine.findings()[before..]
        .iter()
        .map(|finding| &finding.reason)
        .collect();
    assert!(
        matches!(after.as_slice(), [FindingReason::ReportRefused { .. }]),
        "{after:?}"
    );
}
