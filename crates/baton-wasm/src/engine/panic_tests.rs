//! Panics in the real browser: what one striking a step, a task or an
//! opening does to the engine, its session's lock and its connection.

use super::persist_tests::{acting, ended_for, open_on, storage};
use super::test_support::{
    element, hanging_transport, manifest, participant, plan, settle, unique_name, until,
    upgrade_database,
};
use super::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn a_panic_in_a_step_closes_the_engine_cleanly_and_the_next_engine_reconciles_its_runs() {
    let db = unique_name("baton-test");
    let transport = hanging_transport();
    let (engine, run) = acting(&db, "s-panic", &transport).await;
    // A panic strikes in the middle of a step (what the hook does, without
    // the trap).
    engine
        .live()
        .unwrap()
        .during_step(|| crate::panic::as_if_panicked("boom at core.rs:1:1"));
    let first = engine.state(JsValue::from(&run)).unwrap_err();
    let read = |thrown: &JsValue, key: &str| js_sys::Reflect::get(thrown, &key.into()).unwrap();
    assert_eq!(read(&first, "code").as_string().as_deref(), Some("closed"));
    assert_eq!(
        read(&first, "message").as_string().unwrap(),
        "the engine closed itself after an internal error: boom at core.rs:1:1"
    );
    // Closed for good: its lock let go, as a closed engine's does.
    let again = engine.counters().unwrap_err();
    assert_eq!(read(&again, "code").as_string().as_deref(), Some("closed"));
    // Its runs are left as they stood: the next engine of the session
    // reconciles them as cut off.
    let reloaded = open_on(&db, "s-panic", Some(&transport)).await.unwrap();
    let state: serde_json::Value =
        serde_wasm_bindgen::from_value(reloaded.state(JsValue::from(&run)).unwrap()).unwrap();
    assert_eq!(state["outcome"], "aborted", "{state}");
    assert_eq!(state["reason"]["kind"], "interrupted", "{state}");
}

#[wasm_bindgen_test]
async fn a_panic_while_a_promise_is_worked_on_rejects_it_as_internal_and_closes_the_engine() {
    let db = unique_name("baton-test");
    let transport = hanging_transport();
    let (engine, run) = acting(&db, "s-panic-async", &transport).await;
    // A panic strikes while one of the engine's promises is worked on,
    // outside any step and any call from JS: what the hook does, then the
    // trap (the future is never polled again).
    let struck = engine.live().unwrap().downgrade().promise(async {
        settle(0).await;
        crate::panic::as_if_panicked("boom at reading.rs:1:1");
        std::future::pending().await
    });
    let rejected = JsFuture::from(struck).await.unwrap_err();
    let read = |thrown: &JsValue, key: &str| js_sys::Reflect::get(thrown, &key.into()).unwrap();
    assert_eq!(
        read(&rejected, "code").as_string().as_deref(),
        Some("internal")
    );
    assert!(
        read(&rejected, "message")
            .as_string()
            .unwrap()
            .contains("boom at reading.rs:1:1"),
        "{rejected:?}"
    );
    // The engine it served closes itself at its next call.
    let closed = engine.state(JsValue::from(&run)).unwrap_err();
    assert_eq!(read(&closed, "code").as_string().as_deref(), Some("closed"));
    // Its runs are left as they stood, for the next engine of the session.
    let reloaded = open_on(&db, "s-panic-async", Some(&transport))
        .await
        .unwrap();
    let state: serde_json::Value =
        serde_wasm_bindgen::from_value(reloaded.state(JsValue::from(&run)).unwrap()).unwrap();
    assert_eq!(state["reason"]["kind"], "interrupted", "{state}");
}

#[wasm_bindgen_test]
async fn a_panic_in_a_task_of_the_engine_closes_it() {
    let db = unique_name("baton-test");
    let engine = open_on(&db, "s-struck-report", None).await.unwrap();
    engine.mount(manifest(), participant(&element().into(), 5, 0));
    // Struck in the task that hands a participant's (async) report back
    // to the engine, outside any call from JS.
    let _armed = crate::panic::arm("report");
    let run = engine.delegate(plan(1)).unwrap();
    settle(50).await;
    let closed = engine.state(JsValue::from(&run)).unwrap_err();
    let read = |key: &str| js_sys::Reflect::get(&closed, &key.into()).unwrap();
    assert_eq!(read("code").as_string().as_deref(), Some("closed"));
    assert!(
        read("message")
            .as_string()
            .unwrap()
            .contains("boom at report"),
        "{closed:?}"
    );
}

/// `Engine.open` of `session` in `db`, as the app calls it, with a panic
/// struck at `point`: the open rejects as `internal`.
async fn open_struck_at(db: &str, session: &str, point: &'static str) {
    let options =
        js_sys::JSON::parse(&serde_json::json!({"dbName": db, "session": session}).to_string())
            .unwrap();
    let _armed = crate::panic::arm(point);
    let rejected = JsFuture::from(Engine::open_js(options)).await.unwrap_err();
    let code = js_sys::Reflect::get(&rejected, &"code".into()).unwrap();
    assert_eq!(code.as_string().as_deref(), Some("internal"));
}

/// Opens session `session` with a panic struck at `point`: the open
/// rejects as `internal`, the session opens again (its lock was let go
/// of), and no connection holds a newer page's version change up.
async fn struck_while_opening_lets_go(point: &'static str, session: &str) {
    let db = unique_name("baton-test");
    open_struck_at(&db, session, point).await;
    let again = open_on(&db, session, None)
        .await
        .expect("the session is free");
    assert_eq!(storage(&again)["mode"], "indexeddb");
    again.close();
    let upgraded = super::test_support::within(&upgrade_database(&db, 9), 3_000);
    assert_eq!(
        JsFuture::from(upgraded).await.unwrap().as_bool(),
        Some(true)
    );
}

#[wasm_bindgen_test]
async fn a_panic_while_opening_rejects_the_open_and_lets_go_of_the_lock_and_the_connection() {
    // Struck once the session's lock is held and the database open, before
    // the engine exists to hold them.
    struck_while_opening_lets_go("opened", "s-struck").await;
}

#[wasm_bindgen_test]
async fn a_panic_while_opening_lets_go_of_a_lock_and_a_connection_still_to_come() {
    // Struck once the lock and the database are asked for, before either
    // answered: they are let go of when they come.
    struck_while_opening_lets_go("asked", "s-asked").await;
}

#[wasm_bindgen_test]
async fn what_a_panic_does_to_a_task_is_done_once() {
    // A trap does not come back to pop what the task put on the stack the
    // hook reads: the hook takes it, so a later panic elsewhere does not
    // strike this task again.
    let struck = Rc::new(std::cell::Cell::new(0));
    let count = Rc::clone(&struck);
    crate::panic::spawn(
        Box::pin(async {
            crate::panic::as_if_panicked("boom at one.rs:1:1");
            crate::panic::as_if_panicked("boom at two.rs:1:1");
        }),
        Rc::new(move || count.set(count.get() + 1)),
    );
    settle(0).await;
    assert_eq!(struck.get(), 1);
}

/// The next engine sweeps what `gone` left: its lock is free again.
async fn swept_by_the_next(db: &str, run: &str, transport: &JsValue) {
    let next = open_on(db, "s-after", Some(transport)).await.unwrap();
    assert_eq!(storage(&next)["reconciled"], 1, "the session that is gone");
    assert_eq!(ended_for(&next, run).await, "interrupted");
}

#[wasm_bindgen_test]
async fn a_panic_while_opening_sweeps_a_session_lets_go_of_its_lock() {
    let db = unique_name("baton-test");
    let transport = hanging_transport();
    // A closed tab's session: its engine let go, its run cut off.
    let (gone, run) = acting(&db, "s-gone", &transport).await;
    drop(gone);
    open_struck_at(&db, "s-struck", "sweeping").await;
    swept_by_the_next(&db, &run, &transport).await;
}

#[wasm_bindgen_test]
async fn a_panic_while_a_session_is_swept_once_free_lets_go_of_its_lock() {
    // A reload: the old page's session is swept once it lets go, in a
    // task of the new page's engine, which the panic closes.
    let db = unique_name("baton-test");
    let transport = hanging_transport();
    let (leaving, run) = acting(&db, "s-leaving", &transport).await;
    let struck = open_on(&db, "s-struck", Some(&transport)).await.unwrap();
    assert_eq!(
        storage(&struck)["reconciled"],
        0,
        "its engine still holds it"
    );
    let armed = crate::panic::arm("sweeping");
    drop(leaving);
    assert!(
        until(|| struck.counters().is_err()).await,
        "the sweep was struck"
    );
    drop(armed);
    swept_by_the_next(&db, &run, &transport).await;
}
