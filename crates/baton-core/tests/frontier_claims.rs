//! The contract's frontier claims (Annex A), through the engine: context by
//! attention (A.1) — which deep reads a turn carried, and why — and
//! delegation as a transaction (A.2) — a plan whose premise changes under
//! it is superseded.

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

#[test]
fn a1_the_deep_reads_a_turn_carried_are_chosen_by_attention_and_journalled() {
    let mut sim = Sim::new();
    sim.publish("tasks", "board", 1, Origin::Author);
    sim.publish("mail", "inbox", 4, Origin::ThirdParty);
    let run = sim.delegate(Autonomy::Auto);
    let turn = sim.engine.run(&run).unwrap().open_turn().unwrap();
    let stamp = |read: &str, version, origin| ReadStamp {
        read: ReadRef::new(if read == "board" { "tasks" } else { "mail" }, read),
        version,
        origin,
    };
    let reads = sim
        .engine
        .handle(
            sim.now,
            PullReads {
                run: run.clone(),
                turn,
                candidates: vec![
                    ReadCandidate {
                        stamp: stamp("inbox", 4, Origin::ThirdParty),
                        attention: Attention::Elsewhere,
                        content: Ok((json!({"messages": ["hi"]}), DEEP_READ_BYTES)),
                    },
                    ReadCandidate {
                        stamp: stamp("board", 1, Origin::Author),
                        attention: Attention::Focus,
                        content: Ok((json!({"cards": []}), 12)),
                    },
                ],
            },
        )
        .expect("the turn is open");
    assert_eq!(reads.len(), 1, "the focused read fits, the rest does not");
    assert_eq!(reads[0].id, "tasks.board");
    let journalled = sim.journal_of(&run, |entry| match entry {
        JournalEntry::ReadsPulled { turn: t, reads } if *t == turn => Some(reads.clone()),
        _ => None,
    });
    let fates: Vec<(String, ReadFate)> = journalled[0]
        .iter()
        .map(|read| (read.stamp.read.to_string(), read.fate.clone()))
        .collect();
    assert_eq!(
        fates,
        [
            ("tasks.board".to_owned(), ReadFate::Pulled { bytes: 12 }),
            (
                "mail.inbox".to_owned(),
                ReadFate::OverBudget {
                    bytes: DEEP_READ_BYTES,
                    budget: DEEP_READ_BYTES
                }
            ),
        ]
    );
    // Once the turn is over, nothing is chosen and nothing is sent.
    sim.engine.handle(sim.now, Stop(run.clone())).unwrap();
    assert_eq!(
        sim.engine.handle(
            sim.now,
            PullReads {
                run: run.clone(),
                turn,
                candidates: Vec::new()
            }
        ),
        None
    );
}

/// A plan under review on the board at version 1, with previews.
fn reviewing_on_board() -> (Sim, RunId) {
    let mut sim = Sim::new();
    sim.engine = Engine::new(config(), secret());
    let mut board = board_manifest();
    board["preview"] = json!(true);
    sim.mount(board, None);
    sim.mount(settings_manifest(), None);
    sim.publish("tasks", "board", 1, Origin::Author);
    sim.publish("settings", "form", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    sim.engine
        .handle(
            sim.now,
            Report::Preview {
                run: run.clone(),
                call: CallId::new("c1-1"),
                change: Ok(json!({"from": "Draft"})),
            },
        )
        .unwrap();
    assert_eq!(sim.state(&run), RunState::Reviewing);
    (sim, run)
}

#[test]
fn a2_a_persons_edit_supersedes_the_plan_under_review() {
    let (mut sim, run) = reviewing_on_board();
    let before = sim.engine.run(&run).and_then(|run| run.review()).unwrap();
    assert_eq!(before.items[0].stale, None);
    // A read the plan does not act on changes: nothing is superseded.
    sim.publish("settings", "form", 2, Origin::Author);
    assert_eq!(
        sim.engine
            .run(&run)
            .and_then(|run| run.review())
            .unwrap()
            .revision,
        before.revision
    );
    // The person edits the board the plan was made on.
    sim.publish("tasks", "board", 2, Origin::Author);
    sim.drain();
    let superseded = sim.journal_of(&run, |entry| match entry {
        JournalEntry::ReviewSuperseded { read } => Some(read.clone()),
        _ => None,
    });
    assert_eq!(superseded, [ReadRef::new("tasks", "board")]);
    let after = sim.engine.run(&run).and_then(|run| run.review()).unwrap();
    assert_eq!(
        after.items[0].stale,
        Some(StaleRead {
            read: ReadRef::new("tasks", "board"),
            planned: Some(1),
            current: Some(2),
        }),
        "the sheet says which act is stale, and why"
    );
    assert_eq!(
        after.items[0].change,
        ProposedChange::Pending,
        "its preview is rendered again"
    );
    assert!(
        sim.effects_of(|e| matches!(e, Effect::Preview { .. }))
            .len()
            >= 2,
        "the participant was asked again"
    );
    // What the person saw before the edit can no longer be authorized.
    assert!(matches!(
        sim.authorize_at(&run, before.revision, Authorization::default()),
        Err(CommandError::StaleRevision { .. })
    ));
    // Authorizing the superseded plan: the stale act is refused, the run
    // goes on, and the acting party re-plans against the board as it is.
    sim.engine
        .handle(
            sim.now,
            Report::Preview {
                run: run.clone(),
                call: CallId::new("c1-1"),
                change: Ok(json!({"from": "Edited"})),
            },
        )
        .unwrap();
    sim.authorize(&run);
    sim.give_marks();
    assert!(
        sim.take_invoke().is_none(),
        "the stale act is not dispatched"
    );
    assert_eq!(sim.state(&run), RunState::Acting);
    let TurnRequest {
        results, context, ..
    } = sim.last_request();
    assert!(matches!(
        results[0].result,
        CallResult::Refused {
            refusal: Refusal::Stale { .. }
        }
    ));
    assert_eq!(
        context
            .get(&ReadRef::new("tasks", "board"))
            .unwrap()
            .version,
        2
    );
}
