//! AG-UI over `fetch` in the browser, against the real peer under
//! `tests/peers/` (the official Python SDK) that `cargo xtask test` starts.

use super::tests::{listen, record, returned, until};
use super::transport_tests::{board_with, delegation, js, reason, title};
use super::*;
use crate::AgUiTransport;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The AG-UI peer `cargo xtask test` starts for the browser tests.
const PEER: &str = match option_env!("BATON_AGUI_PEER") {
    Some(url) => url,
    None => "http://127.0.0.1:47310",
};

/// The same AG-UI peer as the protocol tests, reached with `fetch`.
fn agui(scenario: &str) -> JsValue {
    AgUiTransport::new(js(
        serde_json::json!({"url": format!("{PEER}/{scenario}"), "headers": {"X-Test": "1"}}),
    ))
    .unwrap()
    .into()
}

#[wasm_bindgen_test]
async fn agui_a_tool_call_from_the_real_peer_mutates_a_participant() {
    let (engine, board) = board_with(&agui("tool")).await;
    let run = engine.delegate(delegation("Rename card 7")).unwrap();
    assert_eq!(
        returned(&engine, &run).await.as_deref(),
        Some("completed"),
        "is the AG-UI peer running at {PEER}? `cargo xtask test` starts it"
    );
    assert_eq!(title(&board, "card-7").as_deref(), Some("Ship the release"));
}

#[wasm_bindgen_test]
async fn agui_an_interrupt_is_answered_and_the_run_resumes() {
    let (engine, board) = board_with(&agui("interrupt")).await;
    let questions = record(&engine, Some("question"));
    let run = engine.delegate(delegation("Rename card 7")).unwrap();
    assert!(
        until(|| questions.length() == 1).await,
        "the interrupt became a question (is the AG-UI peer running at {PEER}?)"
    );
    let question = questions.get(0);
    let id = get(&question, "id").as_string().unwrap();
    let digest = get(&question, "digest").as_string().unwrap();
    let wrong = engine
        .answer(&id, &digest, js(serde_json::json!({"name": 7})))
        .unwrap_err();
    assert_eq!(
        get(&wrong, "code").as_string().as_deref(),
        Some("invalid-answer")
    );
    engine
        .answer(
            &id,
            &digest,
            js(serde_json::json!({"title": "Chosen title"})),
        )
        .unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert_eq!(title(&board, "card-7").as_deref(), Some("Chosen title"));
}

#[wasm_bindgen_test]
async fn agui_the_server_dropping_mid_stream_is_transport_lost() {
    let (engine, _board) = board_with(&agui("drop")).await;
    let heard = listen().await;
    let texts = record(&engine, Some("text"));
    let run = engine.delegate(delegation("Say something")).unwrap();
    assert_eq!(
        returned(&engine, &run).await.as_deref(),
        Some("error"),
        "is the AG-UI peer running at {PEER}?"
    );
    assert_eq!(reason(&engine, &run).as_deref(), Some("transport-lost"));
    assert_eq!(texts.length(), 1, "the text before the drop was delivered");
    assert!(
        until(|| heard
            .messages()
            .last()
            .is_some_and(|m| m.contains("failed because the connection was lost")))
        .await,
        "{:?}",
        heard.messages()
    );
}

#[wasm_bindgen_test]
async fn agui_an_unreachable_agent_is_transport_lost() {
    let transport: JsValue =
        AgUiTransport::new(js(serde_json::json!({"url": "http://127.0.0.1:9/none"})))
            .unwrap()
            .into();
    let (engine, _board) = board_with(&transport).await;
    let run = engine.delegate(delegation("Anything")).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("error"));
    assert_eq!(reason(&engine, &run).as_deref(), Some("transport-lost"));
}
