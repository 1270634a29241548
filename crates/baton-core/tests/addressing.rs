//! Addressing a capability several registered instances answer to
//! (Delegation Contract §3, AG-23): the person is asked which, and the
//! engine never guesses.

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

/// Proposes `tasks.rename` to a run where several instances answer to it:
/// nothing is invoked, and the person is asked which of `candidates`.
fn asked_which(sim: &mut Sim, run: &RunId, candidates: &[ParticipantId]) -> Question {
    sim.propose(run, &[rename()]);
    sim.give_marks();
    assert!(sim.take_invoke().is_none(), "no guess");
    let question = sim.last_question();
    assert_eq!(
        question.asker,
        Asker::Engine {
            call: CallId::new("c1-1"),
            candidates: candidates.to_vec()
        }
    );
    question
}

#[test]
fn ag_23_an_ambiguous_address_asks_the_person_and_never_guesses() {
    let mut sim = Sim::new();
    sim.engine = Engine::new(config(), secret());
    let sprint = sim.mount(tasks_manifest(), Some("sprint"));
    let backlog = sim.mount(tasks_manifest(), Some("backlog"));
    assert_eq!(sprint.as_str(), "tasks#sprint");
    let run = sim.delegate(Autonomy::Auto);
    let question = asked_which(&mut sim, &run, &[backlog.clone(), sprint.clone()]);
    assert_eq!(
        sim.state(&run),
        RunState::Escalated {
            reason: EscalationReason::AwaitingAnswer {
                question: question.id.clone()
            }
        }
    );
    // Only an instance it offered is a valid answer.
    assert!(matches!(
        sim.reply(&question, json!({"participant": "tasks#other"})),
        Err(AnswerError::Schema { .. })
    ));
    sim.reply(&question, json!({"participant": "tasks#sprint"}))
        .unwrap();
    sim.drain();
    sim.give_marks();
    let (_, _, capability) = sim
        .take_invoke()
        .expect("dispatched to the chosen instance");
    assert_eq!(capability, CapabilityRef::new("tasks#sprint", "rename"));
    // An explicit address is not ambiguous.
    sim.engine
        .handle(
            sim.now,
            Report::Call {
                run: run.clone(),
                call: CallId::new("c1-1"),
                result: CallResult::Applied { value: json!(null) },
            },
        )
        .unwrap();
    sim.drain();
    sim.propose(&run, &[CapabilityRef::new("tasks#backlog", "rename")]);
    // A new address is a new scope (AG-7): the person allows it.
    assert!(matches!(
        sim.state(&run),
        RunState::Escalated {
            reason: EscalationReason::OutOfScope { .. }
        }
    ));
    sim.resolve(&run, Resolution::Allow { budget: None });
    sim.give_marks();
    let (_, _, capability) = sim.take_invoke().expect("explicit instance");
    assert_eq!(capability.participant, backlog);
}

#[test]
fn ag_23_a_bare_mount_beside_a_named_one_is_ambiguous_too() {
    let mut sim = Sim::new();
    sim.engine = Engine::new(config(), secret());
    let bare = sim.mount(tasks_manifest(), None);
    let named = sim.mount(tasks_manifest(), Some("b"));
    assert_eq!(bare.as_str(), "tasks");
    let run = sim.delegate(Autonomy::Auto);
    // `tasks.rename` could be answered by either instance: the bare mount's
    // id matching exactly is not a reason to pick it.
    let question = asked_which(&mut sim, &run, &[bare.clone(), named.clone()]);
    sim.reply(&question, json!({"participant": "tasks"}))
        .unwrap();
    sim.drain();
    sim.give_marks();
    let (_, _, capability) = sim.take_invoke().expect("the chosen instance");
    assert_eq!(capability, CapabilityRef::new("tasks", "rename"));
}
