//! A reload loses nothing the person was shown (A.2, AG-11): a plan waiting
//! for review, or a question waiting for an answer, when the page went away
//! is offered again by the engine that reconciles it. The person reviews it
//! again as a chained run — previewed afresh, the stale rule applying — or
//! discards it; either way the cut-off run's journal says so, once.

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

/// The board whose rename acts on the `board` read and renders previews.
fn previewing_board() -> serde_json::Value {
    let mut manifest = board_manifest();
    manifest["preview"] = json!(true);
    manifest
}

/// The engine of the page that opens next: another session, the board
/// mounted again and its read published at `version`.
fn next_page(version: u64) -> Sim {
    let mut sim = sim_with(Autonomy::Auto, &[previewing_board()]);
    let mut config = config();
    config.session = SessionId::new("next");
    sim.engine = Engine::new(config, secret());
    sim.mount(previewing_board(), None);
    sim.publish("tasks", "board", version, Origin::Author);
    sim
}

/// What reconciling the page that went away does: its engine restored from
/// what it stored, then reconciled.
fn reconciled(sim: &Sim) -> Engine {
    let stored = serde_json::to_string(&sim.engine.snapshot()).unwrap();
    let mut gone = Engine::restore(config(), secret(), serde_json::from_str(&stored).unwrap());
    gone.handle(sim.now + 1, Reconcile);
    while gone.poll_event().is_some() {}
    gone
}

/// A plan of one rename, under review with its preview shown, planned
/// against version 1 of the board.
fn under_review() -> (Sim, RunId) {
    let mut sim = sim_with(Autonomy::Auto, &[previewing_board()]);
    sim.publish("tasks", "board", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    sim.preview(&run, "c1-1", Ok(json!({"title": "Ship"})));
    assert_eq!(sim.state(&run), RunState::Reviewing);
    (sim, run)
}

fn offers_journalled(engine: &Engine, run: &RunId) -> Vec<JournalEntry> {
    engine
        .run(run)
        .unwrap()
        .journal()
        .iter()
        .map(|record| record.entry.clone())
        .filter(|entry| {
            matches!(
                entry,
                JournalEntry::OfferedAgain { .. } | JournalEntry::OfferSettled { .. }
            )
        })
        .collect()
}

#[test]
fn ag_11_a_plan_under_review_cut_off_by_a_reload_is_reviewed_again_as_a_chained_run() {
    let (sim, run) = under_review();
    let mut gone = reconciled(&sim);
    assert!(matches!(
        gone.run(&run).unwrap().state(),
        RunState::Returned {
            reason: ReturnReason::Interrupted,
            ..
        }
    ));
    // Offered again, with what the person was shown, and journalled.
    let offered = gone.cut_off();
    assert_eq!(offered.len(), 1);
    assert_eq!(offered[0].run, run);
    assert_eq!(offered[0].intent, "tidy the board");
    assert_eq!(offered[0].waiting, Waiting::Review);
    assert_eq!(
        offers_journalled(&gone, &run),
        [JournalEntry::OfferedAgain {
            waiting: Waiting::Review
        }]
    );
    // What a store keeps of it reads back: a later reload still offers it.
    let stored = serde_json::to_string(&gone.snapshot()).unwrap();
    let again = Engine::restore(config(), secret(), serde_json::from_str(&stored).unwrap());
    assert_eq!(again.cut_off(), offered);

    // The next page adopts it and reviews it again: a chained run of its
    // own puts the plan before the person.
    let mut next = next_page(1);
    next.engine.take_header_changed();
    next.engine.handle(0, Adopt(gone.handle(0, TakeOffered)));
    assert!(
        next.engine.take_header_changed(),
        "the adopted run's row is this session's: its header is written beside it"
    );
    assert!(gone.cut_off().is_empty(), "handed over");
    assert_eq!(next.engine.cut_off(), offered);
    let chained = next
        .engine
        .handle(next.now, ReviewCutOff(run.clone()))
        .unwrap();
    next.drain();
    assert_eq!(next.state(&chained), RunState::Reviewing);
    assert_eq!(next.engine.run(&chained).unwrap().resumes(), Some(&run));
    let sheet = next
        .engine
        .run(&chained)
        .and_then(|run| run.review())
        .unwrap();
    assert_eq!(sheet.again, Some(ReviewAgain::CutOff { run: run.clone() }));
    assert_eq!(sheet.items.len(), 1);
    assert_eq!(sheet.items[0].stale, None, "the board is as it was");
    // Previewed afresh, against the reads as they are now.
    assert_eq!(sheet.items[0].change, ProposedChange::Pending);
    assert_eq!(
        next.effects_of(|e| matches!(e, Effect::Preview { .. }))
            .len(),
        1
    );
    next.engine
        .handle(
            next.now,
            Report::Preview {
                run: chained.clone(),
                call: CallId::new("c1-1"),
                change: Ok(json!({"title": "Ship"})),
            },
        )
        .unwrap();
    next.drain();
    next.authorize(&chained);
    next.give_marks();
    next.apply();
    assert_eq!(
        next.invoked(&rename()),
        1,
        "applied once, by the chained run"
    );

    // Taken up once: no longer offered, and the journal says so.
    assert!(next.engine.cut_off().is_empty());
    assert_eq!(
        offers_journalled(&next.engine, &run),
        [
            JournalEntry::OfferedAgain {
                waiting: Waiting::Review
            },
            JournalEntry::OfferSettled {
                reviewed_again: true
            }
        ]
    );
    let twice = next
        .engine
        .handle(next.now, ReviewCutOff(run.clone()))
        .unwrap_err();
    assert_eq!(twice.code(), "not-cut-off");
    assert_eq!(twice.requirement(), Some("AG-11"));
}

#[test]
fn ag_20_a_plan_reviewed_again_after_its_read_changed_is_marked_stale_and_refused_as_stale() {
    let (sim, _) = under_review();
    let mut gone = reconciled(&sim);
    // The board changed while the page was away.
    let mut next = next_page(2);
    next.engine.handle(0, Adopt(gone.handle(0, TakeOffered)));
    let run = next.engine.cut_off()[0].run.clone();
    let chained = next
        .engine
        .handle(next.now, ReviewCutOff(run.clone()))
        .unwrap();
    next.drain();
    let sheet = next
        .engine
        .run(&chained)
        .and_then(|run| run.review())
        .unwrap();
    let stale = sheet.items[0].stale.clone().expect("the act is stale");
    assert_eq!((stale.planned, stale.current), (Some(1), Some(2)));
    next.engine
        .handle(
            next.now,
            Report::Preview {
                run: chained.clone(),
                call: CallId::new("c1-1"),
                change: Ok(json!({})),
            },
        )
        .unwrap();
    next.drain();
    next.authorize(&chained);
    next.give_marks();
    assert_eq!(next.invoked(&rename()), 0, "a stale act is not applied");
    let refused = next.journal_of(&chained, |entry| match entry {
        JournalEntry::CallRefused { refusal, .. } => Some(refusal.clone()),
        _ => None,
    });
    assert!(
        matches!(refused.as_slice(), [Refusal::Stale { .. }]),
        "{refused:?}"
    );
}

#[test]
fn ag_41_a_question_cut_off_by_a_reload_is_put_again_and_its_answer_goes_on() {
    let mut sim = sim_with(Autonomy::Auto, &[previewing_board()]);
    let run = sim.delegate(Autonomy::Review);
    sim.ask(&run, "q-7", None);
    let asked = sim.last_question();
    let mut gone = reconciled(&sim);
    let offered = gone.cut_off();
    assert_eq!(offered.len(), 1);
    assert_eq!(offered[0].waiting, Waiting::Answer);

    let mut next = next_page(1);
    let chained = adopted_and_reviewed_again(&mut next, &mut gone, &run);
    let question = next.last_question();
    assert_eq!(question.run, chained);
    assert_eq!(question.prompt, asked.prompt, "the same question");
    assert!(question.state.is_open());
    let acceptance = next
        .engine
        .handle(
            next.now,
            Answer {
                question: question.id.clone(),
                digest: question.digest,
                answer: json!("done"),
            },
        )
        .unwrap();
    assert_eq!(acceptance.run, chained);
    next.drain();
    // The acting party hears the answer in the chained run's next turn.
    let request = next.last_request();
    assert_eq!(request.answers.len(), 1, "{:?}", request.answers);
    assert_eq!(request.answers[0].request, "q-7");
}

#[test]
fn a_cut_off_plan_can_be_discarded_and_a_run_that_did_not_wait_for_the_person_is_not_offered() {
    let (mut sim, run) = under_review();
    // A second run, acting: its call is in flight when the page goes away.
    let acting = sim.delegate(Autonomy::Auto);
    sim.propose(&acting, &[rename()]);
    sim.give_marks();
    let mut gone = reconciled(&sim);
    let offered: Vec<RunId> = gone.cut_off().into_iter().map(|cut| cut.run).collect();
    assert_eq!(
        offered,
        std::slice::from_ref(&run),
        "only what waited for the person"
    );
    gone.handle(sim.now, Discard(run.clone())).unwrap();
    assert!(gone.cut_off().is_empty());
    assert_eq!(
        offers_journalled(&gone, &run).last(),
        Some(&JournalEntry::OfferSettled {
            reviewed_again: false
        })
    );
    assert!(offers_journalled(&gone, &acting).is_empty());
    let unknown = gone
        .handle(sim.now, Discard(RunId::new("nowhere/r9")))
        .unwrap_err();
    assert_eq!(unknown.code(), "unknown-run");
}

/// The acting party's question `request`, given `deadline_ms` to answer and
/// withdrawn at `expires_at`.
fn question(request: &str, deadline_ms: Option<u64>, expires_at: Option<u64>) -> Inbound {
    Inbound::Question {
        request: request.into(),
        prompt: format!("Question {request}?"),
        schema: None,
        deadline_ms,
        expires_at,
        approval: None,
    }
}

/// Answers the question open on `sim`'s engine, and returns its request's
/// prompt.
fn answer_open(sim: &mut Sim) -> String {
    let open = sim.last_question();
    assert!(open.state.is_open(), "{open:?}");
    sim.engine
        .handle(
            sim.now,
            Answer {
                question: open.id.clone(),
                digest: open.digest,
                answer: json!("done"),
            },
        )
        .unwrap();
    sim.drain();
    open.prompt
}

/// The next page (board at version 1, its clock 10 s on) adopts what
/// `sim`'s page left when it went, and reviews `run` again: that page, and
/// the chained run.
fn next_page_reviews_again(sim: &Sim, run: &RunId) -> (Sim, RunId) {
    let mut gone = reconciled(sim);
    let mut next = next_page(1);
    next.now = sim.now + 10_000;
    let chained = adopted_and_reviewed_again(&mut next, &mut gone, run);
    (next, chained)
}

/// `next` adopts what `gone` offers again and reviews `run` again: the
/// chained run, drained.
fn adopted_and_reviewed_again(next: &mut Sim, gone: &mut Engine, run: &RunId) -> RunId {
    next.engine.handle(0, Adopt(gone.handle(0, TakeOffered)));
    let chained = next
        .engine
        .handle(next.now, ReviewCutOff(run.clone()))
        .unwrap();
    next.drain();
    chained
}

/// A run whose one turn asked `questions`, cut off by a reload while the
/// first was open, and reviewed again 10 s later on the next page: that
/// page, and the chained run.
fn asked_then_reloaded(questions: Vec<Inbound>) -> (Sim, RunId) {
    let mut sim = sim_with(Autonomy::Auto, &[previewing_board()]);
    let run = sim.delegate(Autonomy::Review);
    let turn = sim.turn(&run);
    for asked in questions {
        sim.engine
            .handle(sim.now, Signal::inbound(&run, turn, asked));
    }
    sim.end_turn(&run);
    next_page_reviews_again(&sim, &run)
}

#[test]
fn ag_41_every_question_a_reload_cut_off_is_put_again_in_order_with_its_time() {
    let (mut next, chained) = asked_then_reloaded(vec![
        question("q-1", Some(60_000), None),
        question("q-2", None, None),
    ]);
    let again = next.last_question();
    assert_eq!(again.run, chained);
    assert_eq!(
        again.deadline_at,
        next.now + 60_000,
        "AG-41: the question keeps the time it gives the person"
    );
    assert_eq!(answer_open(&mut next), "Question q-1?");
    assert_eq!(
        answer_open(&mut next),
        "Question q-2?",
        "AG-41: the question the reload cut off before it was put is put next"
    );
    let request = next.last_request();
    let answered: Vec<&str> = request.answers.iter().map(|a| a.request.as_str()).collect();
    assert_eq!(answered, ["q-1", "q-2"]);
}

#[test]
fn ag_41_a_question_put_again_still_ends_when_the_acting_party_stops_waiting() {
    let expires_at = 30_000;
    let (next, _) = asked_then_reloaded(vec![question("q-1", None, Some(expires_at))]);
    assert!(next.now < expires_at);
    assert_eq!(
        next.last_question().deadline_at,
        expires_at,
        "AG-41: the acting party's expiry bounds the question asked again"
    );
}

#[test]
fn ag_41_a_question_asked_beside_a_plan_a_reload_cut_off_is_put_once_the_plan_is_done() {
    let mut sim = sim_with(Autonomy::Auto, &[previewing_board()]);
    sim.publish("tasks", "board", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Review);
    sim.call(&run, "c1-1", rename());
    sim.inbound(&run, question("q-1", None, None));
    sim.end_turn(&run);
    sim.preview(&run, "c1-1", Ok(json!({"title": "Ship"})));
    assert_eq!(sim.state(&run), RunState::Reviewing);
    let (mut next, chained) = next_page_reviews_again(&sim, &run);
    next.preview(&chained, "c1-1", Ok(json!({"title": "Ship"})));
    next.authorize(&chained);
    next.apply();
    assert_eq!(
        answer_open(&mut next),
        "Question q-1?",
        "AG-41: the plan's question is put once its calls are done"
    );
    let request = next.last_request();
    assert_eq!(request.answers.len(), 1, "{:?}", request.answers);
}

#[test]
fn ag_26_a_scheduled_plan_reviewed_again_after_a_reload_stays_clamped() {
    let mut sim = sim_with(Autonomy::Auto, &[previewing_board()]);
    sim.publish("tasks", "board", 1, Origin::Author);
    let run = sim.delegate_with(Delegation::new("x", Initiative::Scheduled, Autonomy::Auto));
    sim.propose(&run, &[rename()]);
    assert_eq!(sim.state(&run), RunState::Reviewing);
    let (next, chained) = next_page_reviews_again(&sim, &run);
    let view = next.engine.run(&chained).unwrap();
    assert_eq!(view.initiative(), Initiative::Scheduled);
    assert_eq!(
        view.autonomy(),
        Autonomy::Review,
        "AG-26: reviewing a scheduled plan again does not lift it to auto"
    );
}

#[test]
fn ag_11_a_which_instance_question_cut_off_after_a_change_offers_no_partial_plan() {
    let mut sim = Sim::new();
    sim.engine = Engine::new(config(), secret());
    let sprint = sim.mount(tasks_manifest(), Some("sprint"));
    sim.mount(tasks_manifest(), Some("backlog"));
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(
        &run,
        &[CapabilityRef::new(sprint.as_str(), "rename"), rename()],
    );
    let (_, _, applied) = sim.apply();
    assert_eq!(applied.participant, sprint);
    assert!(
        matches!(sim.last_question().asker, Asker::Engine { .. }),
        "the second call asks which instance"
    );
    let gone = reconciled(&sim);
    assert!(
        gone.cut_off().is_empty(),
        "AG-11: what is left of a plan that already changed things is not a whole plan to review"
    );
    assert!(matches!(
        gone.run(&run).unwrap().state(),
        RunState::Returned {
            reason: ReturnReason::Interrupted,
            ..
        }
    ));
}
