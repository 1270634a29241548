//! Delegating to an acting party from the browser: the transport port, the
//! scripted transport, AG-UI over `fetch` against the real peer under
//! `tests/peers/` (in `agui_tests`), deep reads, undo, escalations and surfaces.

use super::test_support::{
    element, focus_inside, listen, log_of, manifest, outcome, participant, pushing_transport,
    readable, record, returned, state_of, until,
};
use super::*;
use crate::ScriptedTransport;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

pub(super) fn js(value: serde_json::Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).unwrap()
}

/// One turn that proposes renaming `card` (its arguments in two pieces).
pub(super) fn rename_turn(call: &str, card: &str, title: &str) -> serde_json::Value {
    let arguments = serde_json::json!({"id": card, "title": title}).to_string();
    let (head, tail) = arguments.split_at(arguments.len() / 2);
    serde_json::json!([
        {"type": "turn-started"},
        {"type": "tool-call-start", "call": call, "tool": "tasks.rename"},
        {"type": "tool-call-args", "call": call, "delta": head},
        {"type": "tool-call-args", "call": call, "delta": tail},
        {"type": "tool-call-end", "call": call},
        {"type": "turn-finished", "outcome": "completed"}
    ])
}

/// An acting party that renames card 1, then card 2, then finishes.
pub(super) fn two_renames() -> JsValue {
    pushing_transport(
        &js(serde_json::json!([
            rename_turn("c1", "card-1", "One"),
            rename_turn("c2", "card-2", "Two"),
            closing_turn()
        ])),
        "resolve",
    )
}

pub(super) fn closing_turn() -> serde_json::Value {
    serde_json::json!([
        {"type": "turn-started"},
        {"type": "message-start", "message": "m1"},
        {"type": "message-delta", "message": "m1", "delta": "Done."},
        {"type": "message-end", "message": "m1"},
        {"type": "turn-finished", "outcome": "completed"}
    ])
}

pub(super) async fn open_with(
    transport: &JsValue,
    extra: serde_json::Value,
) -> Result<Engine, JsValue> {
    let mut options = serde_json::json!({"appName": "Board", "ceiling": "auto"});
    if let (Some(options), Some(extra)) = (options.as_object_mut(), extra.as_object()) {
        options.extend(extra.clone());
    }
    let options = js(options);
    js_sys::Reflect::set(&options, &"transport".into(), transport).unwrap();
    Engine::open(options).await
}

/// An engine with `transport` and the task board mounted; returns both.
pub(super) async fn board_with(transport: &JsValue) -> (Engine, JsValue) {
    let engine = open_with(transport, serde_json::json!({})).await.unwrap();
    let board = participant(&element().into(), 0, 0);
    engine.mount(manifest(), board.clone());
    (engine, board)
}

/// The title the task board holds for a card.
pub(super) fn title(board: &JsValue, card: &str) -> Option<String> {
    get(&get(&state_of(board), "titles"), card).as_string()
}

pub(super) fn delegation(intent: &str) -> JsValue {
    js(serde_json::json!({
        "intent": intent, "initiative": "user", "autonomy": "auto",
        "budget": {"maxTurns": 4, "maxCalls": 8, "runDeadlineMs": 60_000, "turnDeadlineMs": 10_000}
    }))
}

pub(super) fn reason(engine: &Engine, run: &str) -> Option<String> {
    let state = engine.state(JsValue::from(run)).unwrap();
    get(&get(&state, "reason"), "kind").as_string()
}

#[wasm_bindgen_test]
async fn an_app_transport_drives_a_delegation_end_to_end() {
    let transport = pushing_transport(
        &js(serde_json::json!([
            rename_turn("c1", "card-7", "Ship it"),
            closing_turn()
        ])),
        "resolve",
    );
    let (engine, board) = board_with(&transport).await;
    let heard = listen().await;
    let texts = record(&engine, Some("text"));
    let run = engine.delegate(delegation("Rename card 7")).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert_eq!(
        title(&board, "card-7").as_deref(),
        Some("Ship it"),
        "the arguments were assembled from their pieces and applied"
    );
    // The second turn heard the result of the first.
    let requests = js_sys::Array::from(&get(&log_of(&transport), "requests"));
    assert_eq!(requests.length(), 2);
    let results = js_sys::Array::from(&get(&requests.get(1), "results"));
    assert_eq!(results.length(), 1);
    assert_eq!(
        get(&results.get(0), "call").as_string().as_deref(),
        Some("c1")
    );
    let tools = js_sys::Array::from(&get(&requests.get(0), "tools"));
    assert_eq!(
        get(&tools.get(0), "name").as_string().as_deref(),
        Some("tasks.rename")
    );
    // Text reaches subscribers, never the live region one delta at a time.
    assert_eq!(texts.length(), 1);
    assert!(until(|| !heard.messages().is_empty()).await);
    assert!(heard.messages().iter().all(|m| !m.contains("Done.")));
}

#[wasm_bindgen_test]
async fn ag_45_a_transport_must_declare_baton_1() {
    let transport = pushing_transport(&js(serde_json::json!([])), "resolve");
    js_sys::Reflect::set(&transport, &"protocolVersion".into(), &"baton/2".into()).unwrap();
    let thrown = open_with(&transport, serde_json::json!({}))
        .await
        .err()
        .unwrap();
    assert_eq!(
        get(&thrown, "code").as_string().as_deref(),
        Some("invalid-transport")
    );
    assert_eq!(
        get(&thrown, "requirement").as_string().as_deref(),
        Some("AG-45")
    );
    js_sys::Reflect::delete_property(
        transport.unchecked_ref::<js_sys::Object>(),
        &"protocolVersion".into(),
    )
    .unwrap();
    let thrown = open_with(&transport, serde_json::json!({}))
        .await
        .err()
        .unwrap();
    assert_eq!(
        get(&thrown, "requirement").as_string().as_deref(),
        Some("AG-45")
    );
}

#[wasm_bindgen_test]
async fn a_stream_that_ends_mid_turn_is_transport_lost_and_announced() {
    let half = serde_json::json!([[
        {"type": "turn-started"},
        {"type": "tool-call-start", "call": "c1", "tool": "tasks.rename"},
        {"type": "tool-call-args", "call": "c1", "delta": "{\"id\": \"ca"}
    ]]);
    for after in ["resolve", "reject"] {
        let transport = pushing_transport(&js(half.clone()), after);
        let (engine, board) = board_with(&transport).await;
        let heard = listen().await;
        let run = engine.delegate(delegation("Rename card 7")).unwrap();
        assert_eq!(
            returned(&engine, &run).await.as_deref(),
            Some("error"),
            "{after}"
        );
        assert_eq!(
            reason(&engine, &run).as_deref(),
            Some("transport-lost"),
            "{after}"
        );
        assert_eq!(get(&state_of(&board), "applied").as_f64(), Some(0.0));
        let lost = || {
            heard
                .messages()
                .last()
                .is_some_and(|m| m.contains("failed because the connection was lost"))
        };
        assert!(until(lost).await);
        let last = heard.messages().pop().unwrap_or_default();
        assert!(
            last.contains("failed because the connection was lost"),
            "{last}"
        );
        // Nothing reconnected: one request only.
        let requests = js_sys::Array::from(&get(&log_of(&transport), "requests"));
        assert_eq!(requests.length(), 1, "{after}");
    }
}

#[wasm_bindgen_test]
async fn ag_9_stop_aborts_the_request_of_the_open_turn() {
    let transport = pushing_transport(&js(serde_json::json!([[{"type": "turn-started"}]])), "hang");
    let (engine, _board) = board_with(&transport).await;
    let run = engine.delegate(delegation("Think hard")).unwrap();
    let log = log_of(&transport);
    assert!(until(|| js_sys::Array::from(&get(&log, "requests")).length() == 1).await);
    engine.stop(JsValue::from(&run)).unwrap();
    assert!(
        until(|| get(&log, "aborted").as_f64() == Some(1.0)).await,
        "the transport's signal was aborted"
    );
    assert_eq!(outcome(&engine, &run).as_deref(), Some("aborted"));
    assert_eq!(reason(&engine, &run).as_deref(), Some("user-interrupt"));
}

#[wasm_bindgen_test]
async fn the_scripted_transport_plays_a_script_turn_by_turn() {
    let script = serde_json::json!({
        "protocol": "baton/1",
        "turns": [
            {"events": rename_turn("c1", "card-2", "Plan the sprint").as_array().unwrap().iter().enumerate()
                .map(|(i, event)| serde_json::json!({"atMs": i * 5, "event": event})).collect::<Vec<_>>()},
            {"events": closing_turn().as_array().unwrap().iter()
                .map(|event| serde_json::json!({"atMs": 0, "event": event})).collect::<Vec<_>>()}
        ]
    });
    let transport: JsValue = ScriptedTransport::new(js(script)).unwrap().into();
    let (engine, board) = board_with(&transport).await;
    let run = engine.delegate(delegation("Plan")).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert_eq!(title(&board, "card-2").as_deref(), Some("Plan the sprint"));
    // A script in another protocol is refused (AG-45).
    let thrown =
        ScriptedTransport::new(js(serde_json::json!({"protocol": "baton/9", "turns": []})))
            .err()
            .unwrap();
    assert_eq!(
        get(&thrown, "requirement").as_string().as_deref(),
        Some("AG-45")
    );
}

#[wasm_bindgen_test]
fn baton_s_own_transports_are_driven_in_rust_with_nothing_to_call_in_js() {
    // (That the engine plays it: `the_scripted_transport_plays_a_script_turn_by_turn`.)
    let script = serde_json::json!({"protocol": "baton/1", "turns": []});
    let transport: JsValue = ScriptedTransport::new(js(script)).unwrap().into();
    // No `openTurn` to call or wrap: the engine finds its Rust side, and
    // takes it as a transport.
    assert!(!get(&transport, "openTurn").is_function());
    assert!(crate::transport::Own::of(&transport).is_some());
    assert!(check_transport(&transport).is_ok());
    // A plain object claiming a handle is not one of Baton's own: without
    // an `openTurn` it is refused as any such transport is.
    let claimed = js(serde_json::json!({"protocolVersion": "baton/1", "batonTransport": 999_999}));
    assert!(crate::transport::Own::of(&claimed).is_none());
    assert!(check_transport(&claimed).is_err());
    // Freed, a transport is forgotten.
    let freed = ScriptedTransport::new(js(serde_json::json!({"protocol": "baton/1", "turns": []})))
        .unwrap();
    let handle = freed.handle();
    drop(freed);
    let again = js(serde_json::json!({"protocolVersion": "baton/1", "batonTransport": handle}));
    assert!(crate::transport::Own::of(&again).is_none());
}

#[wasm_bindgen_test]
async fn deep_reads_follow_attention_and_carry_their_stamp() {
    let transport = pushing_transport(&js(serde_json::json!([closing_turn()])), "resolve");
    let engine = open_with(&transport, serde_json::json!({})).await.unwrap();
    let with_reads = |id: &str| {
        js(serde_json::json!({
            "id": id, "label": id, "tier": "reads-only", "history": "none",
            "description": "A board of cards the team works through.",
            "reads": [{"name": "cards", "description": "The cards on the board."}]
        }))
    };
    let far = element();
    let near = element();
    let first = engine.mount(
        with_reads("far"),
        readable(&participant(&far.clone().into(), 0, 0), "far away"),
    );
    let second = engine.mount(
        with_reads("near"),
        readable(&participant(&near.clone().into(), 0, 0), "in focus"),
    );
    first
        .publish(
            JsValue::from("cards"),
            js(serde_json::json!({"version": 3})),
        )
        .unwrap();
    second
        .publish(
            JsValue::from("cards"),
            js(serde_json::json!({"version": 5, "origin": "third-party"})),
        )
        .unwrap();
    let _focus = focus_inside(&near);
    let unknown = first
        .publish(JsValue::from("nope"), js(serde_json::json!({"version": 1})))
        .unwrap_err();
    assert_eq!(
        get(&unknown, "code").as_string().as_deref(),
        Some("invalid-read")
    );
    engine.delegate(delegation("Summarise the boards")).unwrap();
    let log = log_of(&transport);
    assert!(until(|| js_sys::Array::from(&get(&log, "requests")).length() == 1).await);
    let request = js_sys::Array::from(&get(&log, "requests")).get(0);
    let reads = js_sys::Array::from(&get(&request, "reads"));
    assert_eq!(reads.length(), 2);
    assert_eq!(
        get(&reads.get(0), "id").as_string().as_deref(),
        Some("near.cards"),
        "the participant holding focus comes first"
    );
    assert_eq!(
        get(&get(&reads.get(0), "content"), "content")
            .as_string()
            .as_deref(),
        Some("in focus")
    );
    let stamp = get(&reads.get(0), "stamp");
    assert_eq!(get(&stamp, "version").as_f64(), Some(5.0));
    assert_eq!(
        get(&stamp, "origin").as_string().as_deref(),
        Some("third-party")
    );
    // Unregistered, a participant leaves the index of the next turn.
    second.unregister().unwrap();
    let near = ParticipantId::new("near");
    assert!(engine
        .live()
        .unwrap()
        .core(|core| core.registry().get(&near).is_none()));
}

#[wasm_bindgen_test]
async fn undo_reverts_a_whole_delegation_in_one_step_and_only_once() {
    let transport = two_renames();
    let (engine, board) = board_with(&transport).await;
    let heard = listen().await;
    let undone = record(&engine, Some("undone"));
    let run = engine.delegate(delegation("Rename two cards")).unwrap();
    let thrown = engine
        .undo(JsValue::from(&run), JsValue::UNDEFINED)
        .err()
        .unwrap();
    assert_eq!(
        get(&thrown, "code").as_string().as_deref(),
        Some("not-undoable")
    );
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    let report = JsFuture::from(
        engine
            .undo(JsValue::from(&run), JsValue::UNDEFINED)
            .unwrap(),
    )
    .await
    .unwrap();
    let reverted = js_sys::Array::from(&get(&report, "reverted"));
    assert_eq!(reverted.length(), 1, "one participant, one revert");
    let state = state_of(&board);
    let marks = js_sys::Array::from(&get(&state, "reverted"));
    assert_eq!(
        marks.get(0).as_string().as_deref(),
        Some("mark-1"),
        "back to the mark before the run"
    );
    assert_eq!(
        js_sys::Object::keys(get(&state, "titles").unchecked_ref::<js_sys::Object>()).length(),
        0
    );
    assert_eq!(undone.length(), 1);
    let journal = js_sys::Array::from(&engine.journal(JsValue::from(&run)).unwrap());
    let kind =
        |back: u32| get(&get(&journal.get(journal.length() - back), "entry"), "kind").as_string();
    assert_eq!(
        kind(1).as_deref(),
        Some("reverted"),
        "each revert is journalled"
    );
    assert_eq!(kind(2).as_deref(), Some("undone"), "the undo is journalled");
    assert!(
        until(
            || heard.messages().last().map(String::as_str) == Some("You undid “Rename two cards”.")
        )
        .await,
        "{:?}",
        heard.messages()
    );
    let again = engine
        .undo(JsValue::from(&run), JsValue::UNDEFINED)
        .err()
        .unwrap();
    assert_eq!(
        get(&again, "code").as_string().as_deref(),
        Some("not-undoable")
    );
}

#[wasm_bindgen_test]
async fn ag_41_questions_reach_surfaces_and_can_be_dismissed() {
    let turn = serde_json::json!([
        {"type": "turn-started"},
        {"type": "elicitation", "request": "ask-1", "prompt": "Which column?", "schema": {"type": "string"}},
        {"type": "turn-finished", "outcome": "interrupted"}
    ]);
    let transport = pushing_transport(&js(serde_json::json!([turn, closing_turn()])), "resolve");
    let (engine, _board) = board_with(&transport).await;
    let seen = js_sys::Array::new();
    let surface = js_sys::Object::new();
    let sink = seen.clone();
    let handle = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
        if get(&event, "type").as_string().as_deref() == Some("question") {
            sink.push(&event);
        }
    });
    js_sys::Reflect::set(&surface, &"handleEvent".into(), handle.as_ref()).unwrap();
    handle.forget();
    let attach = get(&engine.presence().unwrap(), "attach");
    let detach: js_sys::Function = attach
        .unchecked_ref::<js_sys::Function>()
        .call1(&JsValue::NULL, &surface)
        .unwrap()
        .unchecked_into();
    let run = engine.delegate(delegation("Sort the cards")).unwrap();
    assert!(
        until(|| seen.length() == 1).await,
        "the surface got the question"
    );
    let questions = js_sys::Array::from(&engine.questions().unwrap());
    assert_eq!(questions.length(), 1);
    let id = get(&seen.get(0), "id").as_string().unwrap();
    assert_eq!(
        outcome(&engine, &run),
        None,
        "nothing blocks while it waits"
    );
    engine.dismiss(JsValue::from(&id)).unwrap();
    // The acting party heard the question was dismissed and had nothing
    // more to do: a run that never planned anything is cancelled.
    assert!(
        until(|| get(&engine.state(JsValue::from(&run)).unwrap(), "state")
            .as_string()
            .as_deref()
            == Some("cancelled"))
        .await,
        "{:?}",
        js_sys::JSON::stringify(&engine.state(JsValue::from(&run)).unwrap())
    );
    let requests = js_sys::Array::from(&get(&log_of(&transport), "requests"));
    let answers = js_sys::Array::from(&get(&requests.get(1), "answers"));
    assert_eq!(
        answers.length(),
        1,
        "the acting party heard what became of its question"
    );
    detach.call0(&JsValue::NULL).unwrap();
    assert_eq!(
        engine.live().unwrap().page(|page| page.surfaces_attached()),
        0
    );
}

#[wasm_bindgen_test]
async fn an_out_of_scope_call_escalates_and_resolve_escalation_allows_it() {
    let turn = serde_json::json!([
        {"type": "turn-started"},
        {"type": "tool-call-start", "call": "c1", "tool": "tasks.rename"},
        {"type": "tool-call-args", "call": "c1", "delta": "{\"id\": \"card-1\", \"title\": \"Allowed\"}"},
        {"type": "tool-call-end", "call": "c1"},
        {"type": "turn-finished", "outcome": "completed"}
    ]);
    let transport = pushing_transport(&js(serde_json::json!([turn, closing_turn()])), "resolve");
    let engine = open_with(&transport, serde_json::json!({"ceiling": "review"}))
        .await
        .unwrap();
    let board = participant(&element().into(), 0, 0);
    engine.mount(manifest(), board.clone());
    let request = js(serde_json::json!({
        "intent": "Rename card 1", "initiative": "user", "autonomy": "review",
        "budget": {"maxTurns": 4, "maxCalls": 8, "runDeadlineMs": 60_000, "turnDeadlineMs": 10_000}
    }));
    let run = engine.delegate(request).unwrap();
    assert!(
        until(|| engine
            .review(JsValue::from(&run))
            .map(|sheet| !sheet.is_null())
            .unwrap_or(false))
        .await,
        "the plan is under review"
    );
    let revision = engine.revision(JsValue::from(&run)).unwrap();
    let stale = engine
        .resolve_escalation(JsValue::from(&run), JsValue::from(revision), "allow".into())
        .unwrap_err();
    // Resolving is not what a run under review needs: a UI tells this
    // apart from a stale revision by its code.
    assert_eq!(
        get(&stale, "code").as_string().as_deref(),
        Some("illegal-transition")
    );
    let bad = engine
        .resolve_escalation(JsValue::from(&run), JsValue::from(revision), "maybe".into())
        .unwrap_err();
    assert_eq!(
        get(&bad, "code").as_string().as_deref(),
        Some("invalid-resolution")
    );
    engine
        .authorize(
            JsValue::from(&run),
            JsValue::from(revision),
            JsValue::UNDEFINED,
        )
        .unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert_eq!(get(&state_of(&board), "applied").as_f64(), Some(1.0));
}

#[wasm_bindgen_test]
async fn disable_refuses_new_runs_until_enabled_and_leaves_active_ones() {
    let transport = pushing_transport(&js(serde_json::json!([[{"type": "turn-started"}]])), "hang");
    let (engine, _board) = board_with(&transport).await;
    let run = engine.delegate(delegation("Think")).unwrap();
    engine.disable().unwrap();
    assert_eq!(outcome(&engine, &run), None, "the active run goes on");
    let refused = engine.delegate(delegation("Again")).unwrap_err();
    assert_eq!(
        get(&refused, "code").as_string().as_deref(),
        Some("delegation-disabled")
    );
    assert_eq!(
        get(&refused, "requirement").as_string().as_deref(),
        Some("AG-10")
    );
    engine.enable().unwrap();
    assert!(engine.delegate(delegation("Again")).is_ok());
}

#[wasm_bindgen_test]
async fn ag_11_a_run_whose_transport_was_lost_is_resumed_by_a_chained_run() {
    let turns = serde_json::json!([
        [{"type": "turn-started"}, {"type": "message-start", "message": "m1"}],
        rename_turn("c1", "card-3", "Resumed"),
        closing_turn()
    ]);
    let transport = pushing_transport(&js(turns), "resolve");
    let (engine, board) = board_with(&transport).await;
    let lost = engine.delegate(delegation("Rename card 3")).unwrap();
    assert_eq!(returned(&engine, &lost).await.as_deref(), Some("error"));
    assert_eq!(reason(&engine, &lost).as_deref(), Some("transport-lost"));
    let log = log_of(&transport);
    assert_eq!(
        js_sys::Array::from(&get(&log, "requests")).length(),
        1,
        "nothing reconnected"
    );
    let chained = engine
        .resume(JsValue::from(&lost), JsValue::UNDEFINED)
        .unwrap();
    assert_ne!(chained, lost);
    assert_eq!(
        returned(&engine, &chained).await.as_deref(),
        Some("completed")
    );
    assert_eq!(title(&board, "card-3").as_deref(), Some("Resumed"));
    let again = engine
        .resume(JsValue::from(&lost), JsValue::UNDEFINED)
        .unwrap_err();
    assert_eq!(
        get(&again, "code").as_string().as_deref(),
        Some("not-resumable")
    );
    // A pause returns the run; resuming it is the same chained run.
    let paused_turns = serde_json::json!([[{"type": "turn-started"}]]);
    let hanging = pushing_transport(&js(paused_turns), "hang");
    let (other, _board) = board_with(&hanging).await;
    let run = other.delegate(delegation("Think")).unwrap();
    other.pause(JsValue::from(&run)).unwrap();
    assert_eq!(reason(&other, &run).as_deref(), Some("paused"));
    assert!(other
        .resume(JsValue::from(&run), JsValue::UNDEFINED)
        .is_ok());
}

#[wasm_bindgen_test]
async fn a_transport_may_call_back_from_inside_the_abort() {
    let transport = pushing_transport(
        &js(serde_json::json!([[{"type": "turn-started"}]])),
        "report",
    );
    let (engine, _board) = board_with(&transport).await;
    let run = engine.delegate(delegation("Think")).unwrap();
    let log = log_of(&transport);
    assert!(until(|| js_sys::Array::from(&get(&log, "requests")).length() == 1).await);
    engine.stop(JsValue::from(&run)).unwrap();
    assert_eq!(reason(&engine, &run).as_deref(), Some("user-interrupt"));
    // The engine is whole: the next run goes through.
    let next = engine.delegate(delegation("Again")).unwrap();
    assert!(until(|| js_sys::Array::from(&get(&log, "requests")).length() == 2).await);
    engine.stop(JsValue::from(&next)).unwrap();
}

#[wasm_bindgen_test]
async fn a_subscriber_may_call_commands_from_inside_a_notification() {
    let (engine, board) = board_with(&JsValue::UNDEFINED).await;
    let _ = board;
    let calls = Rc::new(std::cell::Cell::new(0u32));
    let inner = engine.live().unwrap().downgrade();
    let seen = Rc::clone(&calls);
    let listener = Closure::<dyn Fn(JsValue)>::new(move |_event: JsValue| {
        // Commands from inside a notification (each pumps, nested in the
        // step being drained).
        if let Some(inner) = inner.upgrade() {
            let again = Engine {
                inner: std::cell::Cell::new(Some(inner)),
            };
            let _ = again.counters().unwrap();
            again.enable().unwrap();
        }
        seen.set(seen.get() + 1);
    });
    let _unsubscribe = engine.subscribe(JsValue::from(
        listener
            .as_ref()
            .unchecked_ref::<js_sys::Function>()
            .clone(),
    ));
    listener.forget();
    let run = engine.delegate(super::test_support::plan(3)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert!(calls.get() > 5);
    let journal: Vec<serde_json::Value> =
        serde_wasm_bindgen::from_value(engine.journal(JsValue::from(&run)).unwrap()).unwrap();
    let revisions: Vec<u64> = journal
        .iter()
        .map(|r| r["revision"].as_u64().unwrap())
        .collect();
    assert_eq!(revisions, (1..=journal.len() as u64).collect::<Vec<_>>());
}

#[wasm_bindgen_test]
async fn traffic_after_a_turn_ended_is_a_finding_and_never_acted_on() {
    // The planning turn finishes, then keeps talking: a second tool call.
    let mut late = rename_turn("c1", "card-1", "Ship");
    let extra = rename_turn("c9", "card-9", "Sneaky");
    late.as_array_mut()
        .unwrap()
        .extend(extra.as_array().unwrap().iter().skip(1).cloned());
    let transport = pushing_transport(&js(serde_json::json!([late, closing_turn()])), "resolve");
    let (engine, board) = board_with(&transport).await;
    let findings = record(&engine, Some("finding"));
    let run = engine.delegate(delegation("Rename card 1")).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert_eq!(title(&board, "card-1").as_deref(), Some("Ship"));
    assert_eq!(title(&board, "card-9"), None, "never acted on");
    assert_eq!(findings.length(), 1, "reported once, however much follows");
    let finding = findings.get(0);
    assert_eq!(
        get(&get(&finding, "reason"), "kind").as_string().as_deref(),
        Some("after-turn-ended")
    );
    assert_eq!(
        get(&finding, "run").as_string().as_deref(),
        Some(run.as_str())
    );
}

/// Bounded turns in every lane, configured at `Engine.open`: a turn that
/// streams more text than `turnLimits` allows ends the run, typed.
#[wasm_bindgen_test]
async fn a_turn_over_the_engines_text_limit_returns_turn_over_limit() {
    let chatty = pushing_transport(
        &js(serde_json::json!([[
            {"type": "turn-started"},
            {"type": "message-start", "message": "m1"},
            {"type": "message-delta", "message": "m1", "delta": "more than ten bytes of text"},
            {"type": "message-end", "message": "m1"},
            {"type": "turn-finished", "outcome": "completed"}
        ]])),
        "resolve",
    );
    let limits = serde_json::json!({"turnLimits": {"maxTextBytes": 10}});
    let engine = open_with(&chatty, limits.clone()).await.unwrap();
    let run = engine.delegate(delegation("Say a lot")).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("error"));
    let reason = get(&engine.state(JsValue::from(&run)).unwrap(), "reason");
    assert_eq!(
        get(&reason, "kind").as_string().as_deref(),
        Some("turn-over-limit")
    );
    assert_eq!(get(&reason, "lane").as_string().as_deref(), Some("text"));
    assert_eq!(get(&reason, "limit").as_f64(), Some(10.0));
    // The same limit holds on the scripted transport: one verifier per
    // turn, owned by the turn, whatever the transport.
    let events = closing_turn()
        .as_array()
        .unwrap()
        .iter()
        .map(|event| {
            let mut event = event.clone();
            if event["type"] == "message-delta" {
                event["delta"] = serde_json::json!("more than ten bytes of text");
            }
            serde_json::json!({"atMs": 0, "event": event})
        })
        .collect::<Vec<_>>();
    let script = serde_json::json!({"protocol": "baton/1", "turns": [{"events": events}]});
    let scripted: JsValue = ScriptedTransport::new(js(script)).unwrap().into();
    let engine = open_with(&scripted, limits.clone()).await.unwrap();
    let run = engine.delegate(delegation("Say a lot")).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("error"));
    assert_eq!(
        get(
            &get(&engine.state(JsValue::from(&run)).unwrap(), "reason"),
            "kind"
        )
        .as_string()
        .as_deref(),
        Some("turn-over-limit")
    );
    // A limit the engine does not know is refused when it opens.
    let unknown = serde_json::json!({"turnLimits": {"maxWords": 10}});
    let refused = open_with(&chatty, unknown).await.err().unwrap();
    assert_eq!(
        get(&refused, "code").as_string().as_deref(),
        Some("invalid-options")
    );
}
