//! What subscribers hear: every event once, in the core's order, each before
//! the adapter carries it out — though a step's events cross into JS
//! together.

use super::test_support::{counting_participant, element, manifest, open, plan, record, returned};
use super::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn subscribers_hear_each_record_once_in_order_and_before_its_call_runs() {
    let engine = open().await;
    let heard = record(&engine, None);
    let board = counting_participant(&element().into(), &heard);
    engine.mount(manifest(), board.clone());
    let run = engine.delegate(plan(4)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    let events: Vec<Value> = serde_wasm_bindgen::from_value(heard.clone().into()).unwrap();
    let revisions: Vec<u64> = events
        .iter()
        .filter(|event| event["type"] == "journal" && event["run"] == run.as_str())
        .map(|event| event["revision"].as_u64().unwrap())
        .collect();
    let journal =
        js_sys::Array::from(&engine.journal(JsValue::from(&run)).unwrap()).length() as u64;
    assert_eq!(
        revisions,
        (1..=journal).collect::<Vec<_>>(),
        "each record once, in order"
    );
    let seen: Vec<Value> = serde_wasm_bindgen::from_value(get(&board, "seen")).unwrap();
    assert_eq!(seen.len(), 4);
    for call in seen {
        let heard_by_then = call["heard"].as_u64().unwrap() as usize;
        let dispatched = events[..heard_by_then].iter().any(|event| {
            event["entry"]["kind"] == "call-dispatched"
                && event["entry"]["arguments"]["id"] == call["id"]
        });
        assert!(
            dispatched,
            "the dispatch of {} was heard before the call ran",
            call["id"]
        );
    }
}
