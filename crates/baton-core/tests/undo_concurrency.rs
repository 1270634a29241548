//! Undo is a write with optimistic concurrency (A.2): a participant the
//! person or a later run changed after the run did is not reverted blindly,
//! and a change the person publishes while a run's call is under way is the
//! person's, not the run's.

mod common;

use baton_core::*;
use common::*;

/// A run that renamed on the task board and returned, with the board's
/// read published before it (version 1) and by the run's call (version 2).
fn a_returned_rename(sim: &mut Sim) -> RunId {
    sim.publish("tasks", "board", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.give_marks();
    let actor = sim
        .engine
        .run(&run)
        .and_then(|run| run.actor())
        .expect("the rename is in flight");
    sim.publish_as(&actor, "tasks", "board", 2);
    sim.apply();
    sim.propose(&run, &[]);
    assert!(sim.state(&run).is_terminal());
    run
}

fn reverted(sim: &mut Sim) -> Vec<ParticipantId> {
    sim.answer_reverts(|_| Ok(()))
        .into_iter()
        .map(|(participant, _)| participant)
        .collect()
}

#[test]
fn undo_with_nothing_changed_since_reverts_as_before() {
    let mut sim = Sim::new();
    let run = a_returned_rename(&mut sim);
    assert_eq!(
        sim.engine.changes().last(&ParticipantId::new("tasks")),
        Some(&ChangedBy::Run { run: run.clone() }),
        "the run's own publish and call are its changes"
    );
    sim.undo(&run).unwrap();
    sim.drain();
    assert_eq!(reverted(&mut sim), [ParticipantId::new("tasks")]);
    assert_eq!(
        sim.engine.changes().last(&ParticipantId::new("tasks")),
        Some(&ChangedBy::Person),
        "the undo is the person's change"
    );
}

#[test]
fn the_persons_edit_since_holds_the_undo_back_journalled_and_said() {
    let mut sim = Sim::new();
    let run = a_returned_rename(&mut sim);
    // The person renames the card again: a publish without an actor.
    sim.publish("tasks", "board", 3, Origin::Author);
    let revision = sim.engine.run(&run).unwrap().revision();
    let held = sim.undo(&run);
    let Err(CommandError::UndoConflict {
        conflicts,
        untouched,
        ..
    }) = held
    else {
        panic!("not held back: {held:?}");
    };
    assert_eq!(
        conflicts,
        [UndoConflict {
            participant: ParticipantId::new("tasks"),
            changed_by: ChangedBy::Person
        }]
    );
    assert!(untouched.is_empty());
    assert_eq!(
        CommandError::UndoConflict {
            run: run.clone(),
            conflicts: conflicts.clone(),
            untouched
        }
        .code(),
        "undo-conflict"
    );
    sim.drain();
    assert!(sim.take_reverts().is_empty(), "nothing is reverted blindly");
    let journalled: Vec<Vec<UndoConflict>> = sim.journal_of(&run, |entry| match entry {
        JournalEntry::UndoHeld { conflicts } => Some(conflicts.clone()),
        _ => None,
    });
    assert_eq!(journalled, [conflicts]);
    assert_eq!(sim.engine.run(&run).unwrap().revision(), revision + 1);
    let said = sim.log.iter().rev().find_map(|event| match event {
        Event::Announcement(Announcement {
            said: Said::UndoHeld { changed_by_you, .. },
            speaker,
            ..
        }) => Some((changed_by_you.clone(), *speaker)),
        _ => None,
    });
    assert_eq!(said, Some((vec!["Task board".to_owned()], Speaker::Person)));
    // Still undoable: the person chooses to force it.
    sim.engine
        .handle(
            sim.now,
            Undo {
                run: run.clone(),
                scope: UndoScope::Force,
            },
        )
        .unwrap();
    sim.drain();
    assert_eq!(reverted(&mut sim), [ParticipantId::new("tasks")]);
    let overridden: Vec<usize> = sim.journal_of(&run, |entry| match entry {
        JournalEntry::Undone { overridden, .. } => Some(overridden.len()),
        _ => None,
    });
    assert_eq!(overridden, [1], "the forced undo says what it overrode");
}

#[test]
fn a_later_runs_change_is_named_and_only_the_untouched_are_reverted() {
    let mut sim = Sim::new();
    sim.publish("settings", "form", 1, Origin::Author);
    let first = a_returned_rename(&mut sim);
    // The first run also changed the settings.
    let undo_group_before = sim.engine.run(&first).unwrap().undo_group().len();
    assert_eq!(undo_group_before, 1);
    let both = sim.delegate(Autonomy::Auto);
    sim.propose(&both, &[theme()]);
    sim.apply_all();
    sim.propose(&both, &[]);
    // A later run renames on the board again.
    let later = sim.delegate(Autonomy::Auto);
    sim.propose(&later, &[rename()]);
    sim.apply_all();
    sim.propose(&later, &[]);
    let Err(CommandError::UndoConflict { conflicts, .. }) = sim.undo(&first) else {
        panic!("not held back");
    };
    assert_eq!(
        conflicts[0].changed_by,
        ChangedBy::Run { run: later.clone() }
    );
    // The settings run's undo is untouched by the later run.
    sim.undo(&both).unwrap();
    sim.drain();
    assert_eq!(reverted(&mut sim), [ParticipantId::new("settings")]);
    // Only the untouched participants of the first run: none are left.
    assert!(matches!(
        sim.engine.handle(
            sim.now,
            Undo {
                run: first.clone(),
                scope: UndoScope::Untouched
            }
        ),
        Err(CommandError::NotUndoable { .. })
    ));
}

#[test]
fn untouched_reverts_the_others_and_keeps_what_changed_since() {
    let mut sim = Sim::new();
    sim.publish("tasks", "board", 1, Origin::Author);
    sim.publish("settings", "form", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), theme()]);
    sim.apply_all();
    sim.propose(&run, &[]);
    sim.publish("settings", "form", 2, Origin::Author);
    let Err(CommandError::UndoConflict { untouched, .. }) = sim.undo(&run) else {
        panic!("not held back");
    };
    assert_eq!(untouched, [ParticipantId::new("tasks")]);
    sim.engine
        .handle(
            sim.now,
            Undo {
                run: run.clone(),
                scope: UndoScope::Untouched,
            },
        )
        .unwrap();
    sim.drain();
    assert_eq!(reverted(&mut sim), [ParticipantId::new("tasks")]);
    let kept: Vec<Vec<ParticipantId>> = sim.journal_of(&run, |entry| match entry {
        JournalEntry::Undone { kept, .. } => {
            Some(kept.iter().map(|c| c.participant.clone()).collect())
        }
        _ => None,
    });
    assert_eq!(kept, [vec![ParticipantId::new("settings")]]);
}

#[test]
fn the_same_version_published_again_is_no_change() {
    let mut sim = Sim::new();
    let run = a_returned_rename(&mut sim);
    // A re-render publishes what is already known.
    sim.publish("tasks", "board", 2, Origin::Author);
    sim.undo(&run).unwrap();
}

#[test]
fn ag_20_the_persons_publish_during_a_call_is_theirs_and_the_next_call_is_stale() {
    let mut sim = Sim::new();
    // Renames that act on the board's read.
    sim.engine = Engine::new(config(), secret());
    sim.mount(board_manifest(), None);
    sim.publish("tasks", "board", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), rename()]);
    sim.give_marks();
    // While the first rename is in flight, the person edits the board.
    sim.publish("tasks", "board", 2, Origin::Author);
    sim.apply();
    assert!(
        sim.take_invoke().is_none(),
        "the second rename, planned on version 1, is not dispatched"
    );
    let refused: Vec<Refusal> = sim.journal_of(&run, |entry| match entry {
        JournalEntry::CallRefused { refusal, .. } => Some(refusal.clone()),
        _ => None,
    });
    assert_eq!(
        refused,
        [Refusal::Stale {
            read: ReadRef::new("tasks", "board"),
            planned: Some(1),
            current: Some(2)
        }]
    );
    assert_eq!(
        sim.engine.changes().last(&ParticipantId::new("tasks")),
        Some(&ChangedBy::Run { run: run.clone() }),
        "the applied call came after the person's publish"
    );
}

#[test]
fn ag_33_a_publish_with_a_reference_this_engine_did_not_mint_is_refused() {
    let mut sim = Sim::new();
    sim.publish("tasks", "board", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.give_marks();
    let genuine = sim.engine.run(&run).and_then(|run| run.actor()).unwrap();
    let stamp = |version| ReadStamp {
        read: ReadRef::new("tasks", "board"),
        version,
        origin: Origin::Author,
    };
    let forged = ActorRef::new(format!("{genuine}0"));
    let refusal = sim
        .engine
        .handle(
            sim.now,
            PublishRead {
                stamp: stamp(2),
                actor: Some(forged.clone()),
            },
        )
        .unwrap_err();
    assert_eq!(refusal.code(), "invalid-actor");
    assert_eq!(refusal.requirement(), Some("AG-33"));
    // A genuine reference of the run vouches only for the participant it
    // changed.
    let elsewhere = ReadStamp {
        read: ReadRef::new("settings", "form"),
        version: 1,
        origin: Origin::Author,
    };
    assert!(sim
        .engine
        .handle(
            sim.now,
            PublishRead {
                stamp: elsewhere,
                actor: Some(genuine.clone())
            }
        )
        .is_err());
    assert!(sim
        .engine
        .handle(
            sim.now,
            PublishRead {
                stamp: stamp(2),
                actor: Some(genuine.clone())
            }
        )
        .is_ok());
}
