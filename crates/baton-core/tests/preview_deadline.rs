//! A preview that never arrives does not hold a review forever (AG-31):
//! once it is due, the review shows the call's arguments and says the
//! preview did not arrive, the person can decide, and after drift a missing
//! preview never counts as the change the person approved (AG-29).

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

fn change_of(sim: &Sim, run: &RunId) -> ProposedChange {
    sim.engine
        .run(run)
        .and_then(|run| run.review())
        .expect("under review")
        .items[0]
        .change
        .clone()
}

fn preview_errors(sim: &Sim, run: &RunId) -> Vec<Option<String>> {
    sim.journal_of(run, |entry| match entry {
        JournalEntry::PreviewRendered { error, .. } => Some(error.clone()),
        _ => None,
    })
}

#[test]
fn ag_31_a_preview_that_hangs_is_shown_missing_with_why_once_it_is_due() {
    let mut sim = sim_with(Autonomy::Auto, &[previewing_tasks()]);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    assert_eq!(change_of(&sim, &run), ProposedChange::Pending);
    // The engine asks to be woken when the preview is due.
    assert_eq!(
        sim.engine.poll_timeout(),
        Some(sim.now + PREVIEW_TIMEOUT_MS)
    );
    // Not yet due: still waiting, and authorizing is refused.
    sim.advance(PREVIEW_TIMEOUT_MS - 1);
    assert_eq!(change_of(&sim, &run), ProposedChange::Pending);
    assert!(
        !sim.engine
            .run(&run)
            .and_then(|run| run.review())
            .unwrap()
            .ready
    );
    // Due: the arguments, and why no preview.
    sim.advance(1);
    let ProposedChange::Arguments { arguments, note } = change_of(&sim, &run) else {
        panic!("the arguments are shown");
    };
    assert_eq!(arguments, json!({"id": "c1-1"}), "the call's own arguments");
    assert_eq!(
        note.as_deref(),
        Some("the preview failed: it did not arrive within 10 s")
    );
    assert_eq!(
        preview_errors(&sim, &run),
        [Some("it did not arrive within 10 s".to_owned())],
        "journalled as the participant's failed preview"
    );
    // The run still waits for the person, who can decide now.
    assert_eq!(sim.state(&run), RunState::Reviewing);
    assert!(
        sim.engine
            .run(&run)
            .and_then(|run| run.review())
            .unwrap()
            .ready
    );
    // A preview that turns up late changes nothing the person saw.
    let late = sim.engine.handle(
        sim.now,
        Report::Preview {
            run: run.clone(),
            call: CallId::new("c1-1"),
            change: Ok(json!({"late": true})),
        },
    );
    assert!(
        matches!(late, Err(ReportError::NoSuchCall { .. })),
        "{late:?}"
    );
    assert!(matches!(
        change_of(&sim, &run),
        ProposedChange::Arguments { .. }
    ));
    sim.authorize(&run);
    assert_eq!(sim.state(&run), RunState::Acting);
}

#[test]
fn ag_31_a_preview_that_arrives_in_time_is_not_expired() {
    let mut sim = sim_with(Autonomy::Auto, &[previewing_tasks()]);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    sim.advance(PREVIEW_TIMEOUT_MS / 2);
    let diff = json!({"title": {"from": "Draft", "to": "Ship"}});
    sim.engine
        .handle(
            sim.now,
            Report::Preview {
                run: run.clone(),
                call: CallId::new("c1-1"),
                change: Ok(diff.clone()),
            },
        )
        .unwrap();
    sim.drain();
    sim.advance(PREVIEW_TIMEOUT_MS);
    assert_eq!(
        change_of(&sim, &run),
        ProposedChange::Preview { value: diff }
    );
    assert_eq!(preview_errors(&sim, &run), [None]);
}

#[test]
fn ag_29_a_preview_that_hangs_after_drift_is_never_the_approved_change() {
    let mut sim = sim_with(Autonomy::Auto, &[previewing_tasks(), settings_manifest()]);
    sim.publish("settings", "form", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename(), rename()]);
    for call in ["c1-1", "c1-2"] {
        let diff = json!({"card": call});
        sim.engine
            .handle(
                sim.now,
                Report::Preview {
                    run: run.clone(),
                    call: CallId::new(call),
                    change: Ok(diff),
                },
            )
            .unwrap();
    }
    sim.authorize(&run);
    sim.give_marks();
    sim.publish("settings", "form", 2, Origin::Author);
    sim.apply();
    // The second call's change is rendered again; it never arrives.
    assert!(sim.take_invoke().is_none(), "held until the new preview");
    sim.advance(PREVIEW_TIMEOUT_MS);
    assert!(
        sim.take_invoke().is_none(),
        "a missing preview is not the same change"
    );
    assert_eq!(
        sim.state(&run),
        RunState::Reviewing,
        "the person looks again"
    );
    assert_eq!(
        sim.engine
            .run(&run)
            .and_then(|run| run.review())
            .unwrap()
            .again,
        Some(ReviewAgain::Drift {
            reads: vec![ReadRef::new("settings", "form")]
        })
    );
}

#[test]
fn ag_31_a_preview_timeout_past_the_end_of_time_never_falls_due() {
    let mut config = config();
    config.preview_timeout_ms = u64::MAX;
    let mut sim = Sim::with_config(config.clone());
    sim.engine = Engine::new(config, secret());
    sim.mount(previewing_tasks(), None);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    assert_eq!(sim.state(&run), RunState::Reviewing);
    // Well inside the run's deadline, the preview is still awaited.
    sim.advance(50_000);
    assert_eq!(change_of(&sim, &run), ProposedChange::Pending);
}
