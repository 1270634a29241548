//! Where a person's trust breaks, in the browser: an undo that would destroy
//! later work (A.2), and an Escape a widget already used (AG-42).

use super::test_support::{
    attach_handle, big_int_participant, edit_as_person, element, open, participant, plan,
    press_escape_in, publishing_board, returned, settle, state_of,
};
use super::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The task board, its rename acting on a `board` read.
fn board_manifest() -> JsValue {
    let mut manifest: Value =
        serde_json::from_str(include_str!("../../../../tests/fixtures/task-board.json")).unwrap();
    manifest["reads"] = serde_json::json!([
        {"name": "board", "description": "Every card with its title.", "origin": "author"}
    ]);
    manifest["capabilities"][0]["reads"] = serde_json::json!(["board"]);
    JsValue::from_str(&manifest.to_string())
}

async fn a_returned_rename(engine: &Engine, board: &JsValue) -> String {
    let handle = engine.mount(board_manifest(), board.clone());
    attach_handle(board, handle.into());
    let run = engine.delegate(plan(2)).unwrap();
    assert_eq!(returned(engine, &run).await.as_deref(), Some("completed"));
    run
}

#[wasm_bindgen_test]
async fn a_call_is_told_what_it_was_planned_against_and_its_own_publish_is_not_stale() {
    let engine = open().await;
    let board = publishing_board(&element().into());
    // Two renames on one read: the first one's publish, with its actor,
    // does not make the second stale.
    a_returned_rename(&engine, &board).await;
    let contexts: Vec<Value> =
        serde_wasm_bindgen::from_value(get(&get(&board, "state"), "contexts")).unwrap();
    assert_eq!(
        contexts,
        [
            serde_json::json!({"plannedAgainst": {"board": 1}}),
            serde_json::json!({"plannedAgainst": {"board": 2}})
        ]
    );
}

#[wasm_bindgen_test]
async fn undo_after_the_persons_edit_is_held_back_then_forced() {
    let engine = open().await;
    let heard = super::test_support::listen().await;
    let board = publishing_board(&element().into());
    let run = a_returned_rename(&engine, &board).await;
    edit_as_person(&board);
    let held = JsFuture::from(
        engine
            .undo(JsValue::from(&run), JsValue::UNDEFINED)
            .unwrap(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        get(&held, "code").as_string().as_deref(),
        Some("undo-conflict")
    );
    let conflicts: Value = serde_wasm_bindgen::from_value(get(&held, "conflicts")).unwrap();
    assert_eq!(
        conflicts,
        serde_json::json!([{"participant": "tasks", "changedBy": {"kind": "person"}}])
    );
    let untouched: Vec<String> = serde_wasm_bindgen::from_value(get(&held, "untouched")).unwrap();
    assert!(untouched.is_empty());
    assert_eq!(
        get(&get(&board, "state"), "reverted").as_f64(),
        Some(0.0),
        "nothing reverted blindly"
    );
    assert!(
        super::test_support::until(|| heard
            .messages()
            .last()
            .is_some_and(|m| m.contains("was not undone")))
        .await
    );
    let said = heard.messages().last().cloned().unwrap();
    assert_eq!(
        said,
        "“Rename the cards” was not undone: since then, you changed Task board. Undo only the rest, or undo everything anyway."
    );
    // Options that are not one of the two choices are refused.
    let both = js_sys::JSON::parse(r#"{"only": "untouched", "force": true}"#).unwrap();
    let refused = engine.undo(JsValue::from(&run), both).unwrap_err();
    assert_eq!(
        get(&refused, "code").as_string().as_deref(),
        Some("invalid-value")
    );
    // Only the untouched: there are none.
    let only = js_sys::JSON::parse(r#"{"only": "untouched"}"#).unwrap();
    let none = engine.undo(JsValue::from(&run), only).unwrap_err();
    assert_eq!(
        get(&none, "code").as_string().as_deref(),
        Some("not-undoable")
    );
    let force = js_sys::JSON::parse(r#"{"force": true}"#).unwrap();
    let report = JsFuture::from(engine.undo(JsValue::from(&run), force).unwrap())
        .await
        .unwrap();
    let reverted: Vec<String> = serde_wasm_bindgen::from_value(get(&report, "reverted")).unwrap();
    assert_eq!(reverted, ["tasks"]);
}

#[wasm_bindgen_test]
async fn undo_with_nothing_changed_since_goes_through() {
    let engine = open().await;
    let board = publishing_board(&element().into());
    let run = a_returned_rename(&engine, &board).await;
    let report = JsFuture::from(
        engine
            .undo(JsValue::from(&run), JsValue::UNDEFINED)
            .unwrap(),
    )
    .await
    .unwrap();
    let reverted: Vec<String> = serde_wasm_bindgen::from_value(get(&report, "reverted")).unwrap();
    assert_eq!(reverted, ["tasks"]);
}

#[wasm_bindgen_test]
async fn ag_33_a_publish_with_a_forged_actor_is_refused() {
    let engine = open().await;
    let handle = engine.mount(board_manifest(), participant(&element().into(), 0, 0));
    let forged = js_sys::JSON::parse(r#"{"version": 2, "actor": "baton1.forged.ref"}"#).unwrap();
    let thrown = handle.publish(JsValue::from("board"), forged).unwrap_err();
    assert_eq!(
        get(&thrown, "code").as_string().as_deref(),
        Some("invalid-actor")
    );
    assert_eq!(
        get(&thrown, "requirement").as_string().as_deref(),
        Some("AG-33")
    );
}

#[wasm_bindgen_test]
async fn ag_42_an_escape_a_widget_used_stops_nothing_and_one_nobody_used_stops_every_run() {
    let engine = open().await;
    let section = element();
    let board = participant(&section.clone().into(), 200, 0);
    engine.mount(super::test_support::manifest(), board.clone());
    let run = engine.delegate(plan(3)).unwrap();
    settle(5).await;
    // An editor inside the page closes on Escape and uses the key up.
    let editor = web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .create_element("input")
        .unwrap();
    section.append_child(&editor).unwrap();
    assert!(press_escape_in(&editor, true));
    assert_eq!(
        get(&engine.state(JsValue::from(&run)).unwrap(), "state")
            .as_string()
            .as_deref(),
        Some("acting"),
        "the widget's Escape stopped nothing"
    );
    // Nobody used this one: every active run stops.
    press_escape_in(&editor, false);
    let state = engine.state(JsValue::from(&run)).unwrap();
    assert_eq!(
        get(&state, "outcome").as_string().as_deref(),
        Some("aborted")
    );
    let _ = state_of(&board);
}

#[wasm_bindgen_test]
async fn a_result_that_is_not_json_is_applied_and_reported_never_silently_null() {
    let engine = open().await;
    engine.mount(
        super::test_support::manifest(),
        big_int_participant(&element().into()),
    );
    let findings = super::test_support::record(&engine, Some("finding"));
    let run = engine.delegate(plan(1)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    let heard: Vec<Value> = serde_wasm_bindgen::from_value(findings.into()).unwrap();
    let reason = &heard.last().expect("a finding")["reason"];
    assert_eq!(reason["kind"], "unreadable-result");
    assert!(
        reason["detail"].as_str().unwrap().contains("BigInt"),
        "{reason}"
    );
}
