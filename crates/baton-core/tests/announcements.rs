//! What the person hears is decided by the machine (AG-37, AG-39): one
//! announcement per plan or later batch, never per act and never repeated,
//! a closing one that names the outcome in plain terms, the person's own
//! acts attributed to the person, one for a whole kill, and an undo driven
//! and announced by the core (A.2).

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

fn announcements(sim: &Sim) -> Vec<Announcement> {
    sim.log
        .iter()
        .filter_map(|event| match event {
            Event::Announcement(announcement) => Some(announcement.clone()),
            _ => None,
        })
        .collect()
}

fn said(sim: &Sim) -> Vec<Said> {
    announcements(sim).into_iter().map(|a| a.said).collect()
}

#[test]
fn ag_37_one_announcement_per_plan_never_per_act_and_never_again_on_reentry() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), archive(), theme()]);
    sim.apply_all();
    assert_eq!(
        said(&sim),
        [Said::Acting {
            intent: "tidy the board".into(),
            changes: 3,
            participants: vec!["Task board".into(), "Settings".into()],
            later: false,
            via: Vec::new(),
        }],
        "one for the plan of three acts"
    );
    // A later turn goes out of scope: the person is needed, then allows it,
    // and the run re-enters `acting` without the plan being said again.
    sim.propose(&run, &[note()]);
    sim.resolve(&run, Resolution::Allow { budget: None });
    sim.give_marks();
    sim.apply_all();
    let kinds: Vec<&str> = said(&sim)
        .iter()
        .map(|said| match said {
            Said::Acting { later: false, .. } => "plan",
            Said::Acting { later: true, .. } => "batch",
            Said::NeedsYou { .. } => "needs-you",
            Said::Closed { .. } => "closed",
            Said::Killed { .. } => "killed",
            Said::Undone { .. } => "undone",
            Said::UndoHeld { .. } => "undo-held",
        })
        .collect();
    assert_eq!(kinds, ["plan", "batch", "needs-you"]);
    assert!(announcements(&sim)
        .iter()
        .all(|a| a.speaker == Speaker::ActingParty && a.runs == [run.clone()]));
}

#[test]
fn ag_37_the_acting_party_acts_even_when_the_person_authorized_it() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    sim.authorize(&run);
    let acting = announcements(&sim)
        .into_iter()
        .find(|a| matches!(a.said, Said::Acting { .. }))
        .expect("the plan is announced");
    assert_eq!(acting.speaker, Speaker::ActingParty);
    // The person's rejection of a later review is the person's.
    let rejected = sim.delegate(Autonomy::Review);
    sim.propose(&rejected, &[rename()]);
    let revision = sim.revision(&rejected);
    sim.engine
        .handle(
            sim.now,
            Reject {
                run: rejected.clone(),
                revision,
                note: "no".into(),
            },
        )
        .unwrap();
    sim.drain();
    let closed = announcements(&sim).pop().unwrap();
    assert_eq!(closed.speaker, Speaker::Person);
    assert!(matches!(
        closed.said,
        Said::Closed {
            ending: Ending::Rejected,
            ..
        }
    ));
}

#[test]
fn ag_39_the_closing_announcement_names_the_outcome_in_plain_terms() {
    let ending = |sim: &Sim| {
        announcements(sim)
            .into_iter()
            .rev()
            .find_map(|a| match a.said {
                Said::Closed { ending, reason, .. } => Some((a.speaker, ending, reason)),
                _ => None,
            })
            .unwrap()
    };
    // Changed things and finished.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.apply_all();
    sim.propose(&run, &[]);
    assert_eq!(
        ending(&sim),
        (Speaker::ActingParty, Ending::Done, "finished".into())
    );
    // Only replied: no plan at all.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[]);
    assert_eq!(
        ending(&sim),
        (
            Speaker::ActingParty,
            Ending::AnsweredWithoutChanges,
            "no-plan".into()
        )
    );
    // Failed mid-sequence and rolled back.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), archive()]);
    sim.apply();
    sim.fail("the server said no");
    sim.answer_reverts(|_| Ok(()));
    assert_eq!(
        ending(&sim),
        (
            Speaker::ActingParty,
            Ending::RolledBack,
            "call-failed".into()
        )
    );
    // The person's stop is the person's act, never the acting party's.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
    sim.drain();
    assert_eq!(
        ending(&sim),
        (Speaker::Person, Ending::Stopped, "user-interrupt".into())
    );
    assert!(announcements(&sim)
        .iter()
        .all(|a| a.said.clone() != Said::Killed { count: 0 }));
    assert!(announcements(&sim).last().unwrap().closes());
}

#[test]
fn ag_10_a_kill_is_one_announcement_for_every_run_it_ended() {
    let mut sim = Sim::new();
    let first = sim.delegate(Autonomy::Auto);
    let second = sim.delegate(Autonomy::Auto);
    let before = announcements(&sim).len();
    assert_eq!(sim.engine.handle(sim.now, Kill::ALL), 2);
    sim.drain();
    let after: Vec<Announcement> = announcements(&sim).into_iter().skip(before).collect();
    assert_eq!(
        after,
        [Announcement {
            speaker: Speaker::Person,
            runs: vec![first, second],
            said: Said::Killed { count: 2 },
        }]
    );
    assert!(after[0].closes());
}

#[test]
fn undo_is_driven_by_the_core_journalled_per_participant_and_announced_as_the_persons() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), theme()]);
    sim.apply_all();
    sim.propose(&run, &[]);
    let group = sim.undo(&run).unwrap();
    sim.drain();
    // One revert at a time, last touched first, each to its run-start mark.
    let order = sim.answer_reverts(|participant| {
        if participant.as_str() == "tasks" {
            Err("history was cleared".into())
        } else {
            Ok(())
        }
    });
    assert_eq!(order, group);
    let reverted: Vec<(ParticipantId, Option<String>)> =
        sim.journal_of(&run, |entry| match entry {
            JournalEntry::Reverted { participant, error } => {
                Some((participant.clone(), error.clone()))
            }
            _ => None,
        });
    assert_eq!(
        reverted,
        [
            (ParticipantId::new("settings"), None),
            (
                ParticipantId::new("tasks"),
                Some("history was cleared".into())
            )
        ]
    );
    let report = sim
        .log
        .iter()
        .find_map(|event| match event {
            Event::Undone { report } => Some(report.clone()),
            _ => None,
        })
        .expect("the undo finished");
    assert_eq!(report.reverted, [ParticipantId::new("settings")]);
    assert_eq!(report.failed[0].participant, ParticipantId::new("tasks"));
    let last = announcements(&sim).pop().unwrap();
    assert_eq!(last.speaker, Speaker::Person, "the person undid it");
    assert_eq!(
        last.said,
        Said::Undone {
            intent: "tidy the board".into(),
            reverted: vec!["Settings".into()],
            failed: vec!["Task board".into()],
        }
    );
}

#[test]
fn an_undo_whose_reverts_never_answer_still_finishes() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.apply_all();
    sim.propose(&run, &[]);
    sim.undo(&run).unwrap();
    sim.drain();
    let deadline = sim.engine.poll_timeout().expect("the undo has a deadline");
    sim.now = deadline;
    sim.engine.handle(sim.now, Signal::Timeout);
    sim.drain();
    let report = sim
        .log
        .iter()
        .find_map(|event| match event {
            Event::Undone { report } => Some(report.clone()),
            _ => None,
        })
        .expect("the undo finished");
    assert!(report.reverted.is_empty());
    assert_eq!(report.failed.len(), 1);
    assert_eq!(sim.engine.poll_timeout(), None, "nothing left to wait for");
}

#[test]
fn ag_10_a_kill_across_engines_is_announced_once_by_one_of_them() {
    let mut quiet = Sim::new();
    let mut speaking = Sim::new();
    let ended_elsewhere = quiet.delegate(Autonomy::Auto);
    speaking.delegate(Autonomy::Auto);
    let before = announcements(&quiet).len();
    assert_eq!(quiet.engine.handle(quiet.now, Kill(KillScope::Silent)), 1);
    quiet.drain();
    assert!(
        matches!(
            quiet.state(&ended_elsewhere),
            RunState::Returned {
                outcome: Outcome::Aborted,
                reason: ReturnReason::Kill,
                ..
            }
        ),
        "journalled and ended as a kill"
    );
    assert_eq!(announcements(&quiet).len(), before, "says nothing itself");
    speaking
        .engine
        .handle(speaking.now, Kill(KillScope::Announcing { elsewhere: 1 }));
    speaking.drain();
    assert_eq!(
        announcements(&speaking).last().unwrap().said,
        Said::Killed { count: 2 }
    );
    // An engine with nothing active still says it for the others.
    let mut idle = Sim::new();
    assert_eq!(
        idle.engine
            .handle(idle.now, Kill(KillScope::Announcing { elsewhere: 3 })),
        0
    );
    idle.drain();
    assert_eq!(
        announcements(&idle).last().unwrap().said,
        Said::Killed { count: 3 }
    );
    let mut nothing = Sim::new();
    nothing.engine.handle(nothing.now, Kill::ALL);
    nothing.drain();
    assert!(
        announcements(&nothing).is_empty(),
        "a kill that ended nothing says nothing"
    );
}

/// A run whose only failure was a refused call finishes `completed`, and its
/// end says how many of the acting party's calls were refused on the way —
/// in the state `run.returned` gives and in the closing announcement.
#[test]
fn ag_39_a_run_that_finished_with_a_refused_call_says_so() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.inbound(&run, tool_call("c1", rename(), json!("not an object")));
    sim.end_turn(&run);
    sim.give_marks();
    // The acting party hears why, and finishes without another call.
    sim.propose(&run, &[]);
    assert_eq!(
        sim.state(&run),
        RunState::Returned {
            outcome: Outcome::Completed,
            reason: ReturnReason::Finished,
            refused: 1,
        }
    );
    assert!(matches!(
        said(&sim).pop(),
        Some(Said::Closed {
            ending: Ending::AnsweredWithoutChanges,
            refused: 1,
            ..
        })
    ));
    // A run that had nothing refused says nothing of refusals.
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[]);
    assert!(matches!(
        said(&sim).pop(),
        Some(Said::Closed { refused: 0, .. })
    ));
    assert!(!serde_json::to_string(&sim.state(&run))
        .unwrap()
        .contains("refused"));
}
