//! Finished runs leave memory once a store holds them, all but the most
//! recently finished; nothing unsettled ever leaves.

mod common;

use baton_core::{
    Adopt, Disable, Enable, Pause, ReleaseFinished, Resume, RevokeGrant, Signal, Stop, Written,
};
use baton_core::{Autonomy, RunId};
use common::*;

/// A run that renamed a card and was stopped: returned, undoable, and
/// written to the store up to its last record.
fn finished(sim: &mut Sim) -> RunId {
    sim.advance(10);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.apply_all();
    sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
    sim.drain();
    written(sim, &run);
    run
}

fn written(sim: &mut Sim, run: &RunId) {
    let revision = sim.engine.run(run).unwrap().revision();
    sim.engine.handle(
        0,
        Written {
            run: run.clone(),
            revision,
        },
    );
}

#[test]
fn a_run_leaves_only_once_the_store_holds_its_every_record() {
    let mut sim = Sim::new();
    let run = finished(&mut sim);
    let last = sim.engine.run(&run).unwrap().revision();
    // An undo adds records the store does not hold yet.
    sim.undo(&run).unwrap();
    sim.drain();
    sim.answer_reverts(|_| Ok(()));
    sim.engine.handle(
        0,
        Written {
            run: run.clone(),
            revision: last,
        },
    );
    assert!(
        sim.engine.handle(0, ReleaseFinished { keep: 0 }).is_empty(),
        "its undo is not written yet"
    );
    written(&mut sim, &run);
    assert_eq!(sim.engine.handle(0, ReleaseFinished { keep: 0 }), [run]);
}

#[test]
fn finished_runs_beyond_the_kept_ones_leave_memory_oldest_first() {
    let mut sim = Sim::new();
    let runs: Vec<RunId> = (0..5).map(|_| finished(&mut sim)).collect();
    let active = sim.delegate(Autonomy::Auto);
    let left = sim.engine.handle(0, ReleaseFinished { keep: 2 });
    assert_eq!(left, runs[..3]);
    assert!(runs[..3].iter().all(|run| sim.engine.run(run).is_none()));
    assert!(runs[3..].iter().all(|run| sim.engine.run(run).is_some()));
    assert!(
        sim.engine.run(&active).is_some(),
        "an active run never leaves"
    );
    assert!(
        sim.engine.handle(0, ReleaseFinished { keep: 2 }).is_empty(),
        "only once"
    );
    // The kept ones are still one undo step each (AG-19).
    assert!(sim.undo(&runs[4]).is_ok());
}

#[test]
fn runs_that_finish_at_one_instant_leave_in_the_order_they_were_made() {
    let mut sim = Sim::new();
    let runs: Vec<RunId> = (0..12)
        .map(|_| {
            let run = sim.delegate(Autonomy::Auto);
            sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
            sim.drain();
            written(&mut sim, &run);
            run
        })
        .collect();
    assert_eq!(runs[9].as_str().rsplit('/').next(), Some("r10"));
    let left = sim.engine.handle(0, ReleaseFinished { keep: 2 });
    assert_eq!(left, runs[..10], "r10 was made after r9, not before r2");
    assert!(runs[10..].iter().all(|run| sim.engine.run(run).is_some()));
}

#[test]
fn ag_11_a_paused_run_stays_resumable_however_many_finish_after_it() {
    let mut sim = Sim::new();
    let paused = sim.delegate(Autonomy::Auto);
    sim.engine.handle(sim.now, Pause(paused.clone())).unwrap();
    sim.drain();
    written(&mut sim, &paused);
    let later: Vec<RunId> = (0..3).map(|_| finished(&mut sim)).collect();
    let left = sim.engine.handle(0, ReleaseFinished { keep: 1 });
    assert_eq!(left, later[..2], "the paused run is not history");
    let resumed = sim.engine.handle(
        sim.now,
        Resume {
            run: paused.clone(),
            budget: None,
        },
    );
    assert!(resumed.is_ok(), "{resumed:?}");
}

#[test]
fn a_run_being_undone_stays_until_the_undo_is_over() {
    let mut sim = Sim::new();
    let run = finished(&mut sim);
    sim.undo(&run).unwrap();
    sim.drain();
    assert!(
        sim.engine.handle(0, ReleaseFinished { keep: 0 }).is_empty(),
        "its reverts are still to come"
    );
    sim.answer_reverts(|_| Ok(()));
    written(&mut sim, &run);
    assert_eq!(sim.engine.handle(0, ReleaseFinished { keep: 0 }), [run]);
}

#[test]
fn released_runs_are_unknown_and_new_runs_never_reuse_their_ids() {
    let mut sim = Sim::new();
    let first = finished(&mut sim);
    sim.engine.handle(0, ReleaseFinished { keep: 0 });
    assert!(sim.undo(&first).is_err());
    let second = finished(&mut sim);
    assert_ne!(first, second);
    let journal = sim.engine.run(&second).unwrap().run().journal();
    assert_eq!(journal.first().map(|record| record.revision), Some(1));
}

#[test]
fn findings_are_kept_for_inspection_only_up_to_a_bound() {
    let mut sim = Sim::new();
    // A turn that does not exist, reported again and again: one finding each.
    let run = sim.delegate(Autonomy::Auto);
    let turn = sim.turn(&run);
    sim.inbound(&run, baton_core::Inbound::TurnEnd);
    for _ in 0..3 * baton_core::FINDINGS_KEPT {
        sim.engine.handle(
            sim.now,
            Signal::inbound(&run, turn, baton_core::Inbound::TurnEnd),
        );
    }
    let made = sim
        .drain()
        .iter()
        .filter(|event| matches!(event, baton_core::Event::Finding(_)))
        .count();
    assert!(made > 2 * baton_core::FINDINGS_KEPT, "{made} findings made");
    let kept = sim.engine.findings().len();
    assert!(
        (baton_core::FINDINGS_KEPT..=2 * baton_core::FINDINGS_KEPT).contains(&kept),
        "{kept} kept"
    );
}

/// A standing `allow` grant on every capability of `tasks`, for a minute.
fn allow_tasks(sim: &mut Sim) -> baton_core::Grant {
    let tasks = scope("tasks", None);
    sim.grant(tasks, baton_core::Decision::Allow, 60_000)
        .unwrap()
}

#[test]
fn the_header_is_written_again_only_when_it_changed() {
    let mut sim = Sim::new();
    assert!(
        !sim.engine.take_header_changed(),
        "a new engine's header is the one an absent header opens with: nothing to write"
    );
    sim.engine.handle(0, Adopt(Vec::new()));
    assert!(
        !sim.engine.take_header_changed(),
        "adopting nothing changes nothing"
    );
    sim.engine.handle(0, Disable);
    assert!(
        sim.engine.take_header_changed(),
        "disabling changes it, without a record"
    );
    sim.engine.handle(0, Enable);
    assert!(sim.engine.take_header_changed());
    let grant = allow_tasks(&mut sim);
    assert!(sim.engine.take_header_changed(), "a grant given");
    assert!(sim.engine.handle(0, RevokeGrant(grant.id)));
    assert!(sim.engine.take_header_changed(), "a grant revoked");
    assert!(!sim.engine.handle(0, RevokeGrant(99)));
    assert!(
        !sim.engine.take_header_changed(),
        "revoking nothing changes nothing"
    );
    let mut restored = baton_core::Engine::restore(config(), secret(), sim.engine.snapshot());
    assert!(
        !restored.take_header_changed(),
        "what was restored is what the store holds"
    );
}

#[test]
fn a_grant_given_and_revoked_between_two_writes_still_writes_the_header() {
    let mut sim = Sim::new();
    assert!(!sim.engine.take_header_changed());
    let grant = allow_tasks(&mut sim);
    assert!(sim.engine.handle(0, RevokeGrant(grant.id)));
    assert!(
        sim.engine.take_header_changed(),
        "no grant stands, but the grants' counter moved: a grant id is never reused after a reload"
    );
}
