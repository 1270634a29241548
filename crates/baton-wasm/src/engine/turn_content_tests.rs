//! What a turn carries and what comes of it, from the browser: the
//! to-agent state (AG-47), a third-party read lowering the ceiling (AG-28),
//! previews before an escalated call is allowed (AG-31), and one
//! announcement per later batch (AG-37, AG-39).

use super::test_support::*;
use super::transport_tests::*;
use super::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn ag_47_every_turn_carries_the_to_agent_state_the_host_set() {
    let transport = pushing_transport(
        &js(serde_json::json!([
            rename_turn("c1", "card-1", "Ship"),
            closing_turn()
        ])),
        "resolve",
    );
    let (engine, _board) = board_with(&transport).await;
    engine
        .set_agent_state(js(serde_json::json!({"focus": "card-1", "view": "board"})))
        .unwrap();
    let refused = engine
        .patch_agent_state(js(
            serde_json::json!([{"op": "remove", "path": "/missing"}]),
        ))
        .unwrap_err();
    assert_eq!(
        get(&refused, "code").as_string().as_deref(),
        Some("invalid-state")
    );
    assert_eq!(
        get(&refused, "requirement").as_string().as_deref(),
        Some("AG-47")
    );
    let run = engine.delegate(delegation("Rename card 1")).unwrap();
    // Between the turns, the person moves on.
    engine
        .patch_agent_state(js(
            serde_json::json!([{"op": "replace", "path": "/focus", "value": "card-2"}]),
        ))
        .unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    let requests = js_sys::Array::from(&get(&log_of(&transport), "requests"));
    let state = |index: u32| -> Value {
        serde_wasm_bindgen::from_value(get(&requests.get(index), "state")).unwrap()
    };
    assert_eq!(
        state(0),
        serde_json::json!({"focus": "card-1", "view": "board"})
    );
    assert_eq!(
        state(1),
        serde_json::json!({"focus": "card-2", "view": "board"})
    );
}

#[wasm_bindgen_test]
async fn ag_31_an_escalated_call_is_allowed_only_after_its_preview_arrived() {
    let send = serde_json::json!([
        {"type": "turn-started"},
        {"type": "tool-call-start", "call": "c2", "tool": "mail.send"},
        {"type": "tool-call-args", "call": "c2", "delta": "{\"to\": \"team@example.com\"}"},
        {"type": "tool-call-end", "call": "c2"},
        {"type": "turn-finished", "outcome": "completed"}
    ]);
    let transport = pushing_transport(
        &js(serde_json::json!([
            rename_turn("c1", "card-1", "Ship"),
            send,
            closing_turn()
        ])),
        "resolve",
    );
    let (engine, _board) = board_with(&transport).await;
    let mail = previewing_mail(150);
    engine.mount(
        js(serde_json::json!({
            "id": "mail", "label": "Mail", "tier": "full-acts", "history": "none", "preview": true,
            "description": "The person's outgoing mail.",
            "capabilities": [{
                "name": "send", "description": "Send one message to its recipient.",
                "arguments": {"type": "object", "required": ["to"], "properties": {"to": {"type": "string"}}, "additionalProperties": false},
                "argumentLimits": {"to": 256},
                "effects": [{"name": "send", "reversible": false}]
            }]
        })),
        mail.clone(),
    );
    let run = engine
        .delegate(delegation("Rename card 1 and tell the team"))
        .unwrap();
    let escalated = || {
        let state: Value =
            serde_wasm_bindgen::from_value(engine.state(JsValue::from(&run)).unwrap()).unwrap();
        state["state"] == "escalated"
    };
    assert!(until(escalated).await, "the send needs the person (AG-25)");
    let sheet: Value =
        serde_wasm_bindgen::from_value(engine.review(JsValue::from(&run)).unwrap()).unwrap();
    assert_eq!(sheet["items"].as_array().unwrap().len(), 1);
    assert_eq!(sheet["items"][0]["change"]["kind"], "pending");
    let blind = engine
        .resolve_escalation(
            JsValue::from(&run),
            JsValue::from(engine.revision(JsValue::from(&run)).unwrap()),
            "allow".into(),
        )
        .unwrap_err();
    assert_eq!(
        get(&blind, "requirement").as_string().as_deref(),
        Some("AG-31")
    );
    let previewed = || {
        engine
            .review(JsValue::from(&run))
            .ok()
            .and_then(|sheet| serde_wasm_bindgen::from_value::<Value>(sheet).ok())
            .is_some_and(|sheet| sheet["ready"] == true)
    };
    assert!(until(previewed).await, "the preview arrives");
    let sheet: Value =
        serde_wasm_bindgen::from_value(engine.review(JsValue::from(&run)).unwrap()).unwrap();
    assert_eq!(sheet["items"][0]["change"]["kind"], "preview");
    assert_eq!(
        sheet["items"][0]["change"]["value"]["to"],
        "team@example.com"
    );
    engine
        .resolve_escalation(
            JsValue::from(&run),
            JsValue::from(sheet["revision"].as_f64().unwrap()),
            "allow".into(),
        )
        .unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert_eq!(get(&state_of(&mail), "applied").as_f64(), Some(1.0));
}

#[wasm_bindgen_test]
async fn ag_28_a_declared_third_party_read_published_as_author_still_lowers_the_ceiling() {
    let transport = pushing_transport(
        &js(serde_json::json!([rename_turn("c1", "card-1", "Ship")])),
        "hang",
    );
    let (engine, board) = board_with(&transport).await;
    let inbox = engine.mount(
        js(serde_json::json!({
            "id": "inbox", "label": "Inbox", "tier": "reads-only", "history": "none",
            "description": "Messages pasted in from email, as received.",
            "reads": [{"name": "messages", "description": "The pasted messages.", "origin": "third-party"}]
        })),
        participant(&element().into(), 0, 0),
    );
    // The participant claims `author`; the declaration says third-party.
    inbox
        .publish(
            JsValue::from("messages"),
            js(serde_json::json!({"version": 1, "origin": "author"})),
        )
        .unwrap();
    let undeclared = inbox
        .publish(
            JsValue::from("secrets"),
            js(serde_json::json!({"version": 1})),
        )
        .unwrap_err();
    assert_eq!(
        get(&undeclared, "code").as_string().as_deref(),
        Some("invalid-read")
    );
    let run = engine.delegate(delegation("Rename card 1")).unwrap();
    let reviewing = || {
        let state: Value =
            serde_wasm_bindgen::from_value(engine.state(JsValue::from(&run)).unwrap()).unwrap();
        state["state"] == "reviewing"
    };
    assert!(
        until(reviewing).await,
        "an auto run with untrusted content in context is reviewed"
    );
    let requests = js_sys::Array::from(&get(&log_of(&transport), "requests"));
    let reads: Value =
        serde_wasm_bindgen::from_value(get(&get(&requests.get(0), "context"), "reads")).unwrap();
    assert_eq!(reads[0]["origin"], "third-party");
    assert_eq!(title(&board, "card-1"), None, "nothing acted unreviewed");
    engine.stop(JsValue::from(&run)).unwrap();
}

#[wasm_bindgen_test]
async fn ag_37_and_ag_39_later_batches_are_announced_once_each_and_a_reply_says_so() {
    let transport = two_renames();
    let (engine, _board) = board_with(&transport).await;
    let heard = listen().await;
    let run = engine.delegate(delegation("Rename two cards")).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert!(until(|| super::test_support::written_all(&engine)).await);
    assert_eq!(
        heard.messages(),
        [
            "Assistant is acting in Task board: 1 change for “Rename two cards”.",
            "Assistant is making 1 more change in Task board for “Rename two cards”.",
            "Assistant: “Rename two cards” is done."
        ]
    );
    // A run whose acting party only replied says so.
    let transport = pushing_transport(&js(serde_json::json!([closing_turn()])), "resolve");
    let (engine, _board) = board_with(&transport).await;
    let heard = listen().await;
    let run = engine
        .delegate(delegation("What is on the board?"))
        .unwrap();
    let ended = || {
        let state: Value =
            serde_wasm_bindgen::from_value(engine.state(JsValue::from(&run)).unwrap()).unwrap();
        state["state"] == "cancelled" && super::test_support::written_all(&engine)
    };
    assert!(until(ended).await);
    assert_eq!(
        heard.messages(),
        ["Assistant answered “What is on the board?” without changes."]
    );
}
