//! Persistence in the real browser: real IndexedDB, real Web Locks.

use super::test_support::{
    count_readwrite_transactions, count_transactions, database_exists, element, fill_the_disk,
    hanging_transport, hide_indexed_db, hold_old_connection, journal_rows, keep_actors, manifest,
    outcome, participant, plan, put_journal_row, record, returned, settle, unique_name, until,
    upgrade_database,
};
use super::*;
use baton_core::Event;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

pub(super) async fn open_on(
    db: &str,
    session: &str,
    transport: Option<&JsValue>,
) -> Result<Engine, JsValue> {
    let options = js_sys::JSON::parse(
        &serde_json::json!({"appName": "Board", "ceiling": "auto", "dbName": db, "session": session})
            .to_string(),
    )
    .unwrap();
    if let Some(transport) = transport {
        js_sys::Reflect::set(&options, &"transport".into(), transport).unwrap();
    }
    Engine::open(options).await
}

pub(super) fn storage(engine: &Engine) -> serde_json::Value {
    serde_wasm_bindgen::from_value(engine.storage().unwrap()).unwrap()
}

pub(super) async fn history(engine: &Engine, run: &str) -> Vec<serde_json::Value> {
    let value = JsFuture::from(engine.history(JsValue::from(run)).unwrap())
        .await
        .unwrap();
    serde_wasm_bindgen::from_value(value).unwrap()
}

/// Waits until every step is written.
pub(super) async fn written(engine: &Engine) {
    assert!(
        until(|| super::test_support::written_all(engine)).await,
        "the writes finished"
    );
}

/// Why `run` ended, as the last record of its journal says (`interrupted`,
/// `kill`, …).
pub(super) async fn ended_for(engine: &Engine, run: &str) -> serde_json::Value {
    let records = history(engine, run).await;
    records.last().expect("a journal")["entry"]["to"]["reason"]["kind"].clone()
}

/// An engine of `session` with one agent's run under way (its transport
/// never answers), the run written.
pub(super) async fn acting(db: &str, session: &str, transport: &JsValue) -> (Engine, String) {
    let engine = open_on(db, session, Some(transport)).await.unwrap();
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    let run = engine.delegate(agent_delegation()).unwrap();
    written(&engine).await;
    (engine, run)
}

pub(super) fn agent_delegation() -> JsValue {
    js_sys::JSON::parse(
        &serde_json::json!({
            "intent": "Think it over", "initiative": "user", "autonomy": "auto",
            "budget": {"maxTurns": 2, "maxCalls": 4, "runDeadlineMs": 600_000, "turnDeadlineMs": 600_000}
        })
        .to_string(),
    )
    .unwrap()
}

fn kinds(records: &[serde_json::Value]) -> Vec<String> {
    records
        .iter()
        .map(|r| r["entry"]["kind"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A step's records of one run are one row (IndexedDB's cost is per put),
/// and a row of one record, as an earlier version wrote it, still reads
/// back in its place.
#[wasm_bindgen_test]
async fn a_steps_records_of_a_run_are_one_row_and_rows_of_one_record_still_read_back() {
    let db = unique_name("baton-test");
    let engine = open_on(&db, "s-rows", None).await.unwrap();
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    let run = engine.delegate(plan(3)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    written(&engine).await;
    let journalled = history(&engine, &run).await;
    let rows = js_sys::Array::from(&JsFuture::from(journal_rows(&db, &run)).await.unwrap());
    let stored: usize = rows
        .iter()
        .map(|row| {
            let chunk: Vec<serde_json::Value> =
                serde_json::from_str(&row.as_string().unwrap()).unwrap();
            chunk.len()
        })
        .sum();
    assert_eq!(
        stored,
        journalled.len(),
        "every record is in exactly one row"
    );
    assert!(
        rows.length() < journalled.len() as u32,
        "{} rows for {} records: the records of a step share one",
        rows.length(),
        journalled.len()
    );
    let next = journalled.len() as u64 + 1;
    let mut older = journalled[journalled.len() - 1].clone();
    older["revision"] = next.into();
    let key = js_sys::Array::of2(&run.as_str().into(), &JsValue::from_f64(next as f64));
    JsFuture::from(put_journal_row(&db, key.into(), &older.to_string()))
        .await
        .unwrap();
    let read = history(&engine, &run).await;
    assert_eq!(read.len(), journalled.len() + 1);
    assert_eq!(read[..journalled.len()], journalled[..]);
    assert_eq!(
        read.last(),
        Some(&older),
        "the one-record row reads back as it was written"
    );
}

/// An engine opened on `db` for `session`, and how many IndexedDB
/// transactions opening it took.
async fn opened_counting(db: &str, session: &str) -> (Engine, f64) {
    let counter = count_transactions();
    let engine = open_on(db, session, None).await.unwrap();
    let count = js_sys::Reflect::get(&counter, &"count".into())
        .unwrap()
        .as_f64()
        .unwrap();
    let stop: js_sys::Function = js_sys::Reflect::get(&counter, &"stop".into())
        .unwrap()
        .into();
    stop.call0(&counter).unwrap();
    (engine, count)
}

/// Opening an engine on a database that already holds a session reads what
/// it needs (the key, the session's header, every session's live rows) in
/// one transaction.
#[wasm_bindgen_test]
async fn reopening_reads_in_one_transaction() {
    let db = unique_name("baton-test");
    let engine = open_on(&db, "s-first", None).await.unwrap();
    let board = participant(&element().into(), 0, 0);
    engine.mount(manifest(), board);
    let run = engine.delegate(plan(1)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    written(&engine).await;
    engine.close();
    let (reopened, count) = opened_counting(&db, "s-first").await;
    assert_eq!(storage(&reopened)["mode"], "indexeddb");
    assert_eq!(count, 1.0, "one transaction to read, none to write");
}

/// Opening an engine on a database that does not exist yet takes no
/// transaction of its own to keep the key for actor references: it is
/// written by the transaction that creates the database. A new session
/// writes nothing until it does something: its header is the default one.
#[wasm_bindgen_test]
async fn a_new_database_keeps_its_key_without_a_transaction_of_its_own() {
    let db = unique_name("baton-test");
    let (engine, count) = opened_counting(&db, "s-new").await;
    assert_eq!(storage(&engine)["mode"], "indexeddb");
    // (That the key survives a reload is the package's reload test.)
    assert_eq!(
        count, 0.0,
        "the key is written as the database is created, and a database this open created holds nothing else to read"
    );
    engine.close();
    let (again, count) = opened_counting(&db, "s-new").await;
    assert_eq!(storage(&again)["mode"], "indexeddb");
    assert_eq!(
        count, 1.0,
        "a database that was there is read in one transaction; none to keep the key, none for a session that has done nothing yet"
    );
    again.close();
}

#[wasm_bindgen_test]
async fn records_survive_closing_and_reopening_the_engine() {
    let db = unique_name("baton-test");
    let engine = open_on(&db, "s-reopen", None).await.unwrap();
    assert_eq!(storage(&engine)["mode"], "indexeddb");
    let board = participant(&element().into(), 0, 0);
    engine.mount(manifest(), board.clone());
    let actors = keep_actors(&board);
    let run = engine.delegate(plan(3)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    let before = history(&engine, &run).await;
    let in_memory: Vec<serde_json::Value> =
        serde_wasm_bindgen::from_value(engine.journal(JsValue::from(&run)).unwrap()).unwrap();
    assert_eq!(
        before, in_memory,
        "what was written is what the engine journalled"
    );
    let revisions: Vec<u64> = before
        .iter()
        .map(|r| r["revision"].as_u64().unwrap())
        .collect();
    assert_eq!(
        revisions,
        (1..=before.len() as u64).collect::<Vec<_>>(),
        "gap-free"
    );
    let reference = actors.get(0).as_string().unwrap();
    engine.close();

    let reopened = open_on(&db, "s-reopen", None).await.unwrap();
    let after = history(&reopened, &run).await;
    assert_eq!(after, before, "nothing lost, nothing duplicated");
    // References minted before the reload still resolve (the key persists).
    assert!(!reopened
        .resolve_actor(JsValue::from(&reference))
        .unwrap()
        .is_null());
    // New runs continue the numbering.
    let next = reopened.delegate(plan(1)).unwrap();
    assert_ne!(next, run);
}

#[wasm_bindgen_test]
async fn reconcile_returns_runs_a_reload_interrupted() {
    let db = unique_name("baton-test");
    let transport = hanging_transport();
    let (engine, run) = acting(&db, "s-reload", &transport).await;
    assert_eq!(
        outcome(&engine, &run),
        None,
        "active when the page goes away"
    );
    drop(engine);

    let heard = super::test_support::listen().await;
    let reloaded = open_on(&db, "s-reload", Some(&transport)).await.unwrap();
    let state: serde_json::Value =
        serde_wasm_bindgen::from_value(reloaded.state(JsValue::from(&run)).unwrap()).unwrap();
    assert_eq!(state["outcome"], "aborted", "{state}");
    assert_eq!(state["reason"]["kind"], "interrupted", "{state}");
    written(&reloaded).await;
    assert_eq!(ended_for(&reloaded, &run).await, "interrupted");
    assert!(
        super::test_support::until(|| heard
            .messages()
            .iter()
            .any(|m| m.contains("was cut off by a reload")))
        .await,
        "{:?}",
        heard.messages()
    );
}

#[wasm_bindgen_test]
async fn a_session_that_is_gone_is_reconciled_by_the_next_engine_and_a_live_one_is_not() {
    let db = unique_name("baton-test");
    let transport = hanging_transport();
    let (gone, lost_run) = acting(&db, "s-gone", &transport).await;
    drop(gone);

    let (live, live_run) = acting(&db, "s-live", &transport).await;
    assert_eq!(storage(&live)["reconciled"], 1, "the session that is gone");

    // A second tab: it must not touch the live tab's run.
    let other = open_on(&db, "s-other", Some(&transport)).await.unwrap();
    assert_eq!(storage(&other)["reconciled"], 0);
    settle(50).await;
    assert_eq!(
        outcome(&live, &live_run),
        None,
        "the live tab's run goes on"
    );
    let records = history(&other, &lost_run).await;
    assert_eq!(
        records.last().unwrap()["entry"]["to"]["reason"]["kind"],
        "interrupted"
    );
    let revisions: Vec<u64> = records
        .iter()
        .map(|r| r["revision"].as_u64().unwrap())
        .collect();
    assert_eq!(revisions, (1..=records.len() as u64).collect::<Vec<_>>());

    // One session, one live engine.
    let thrown = open_on(&db, "s-live", None).await.err().unwrap();
    assert_eq!(
        get(&thrown, "code").as_string().as_deref(),
        Some("session-in-use")
    );
}

#[wasm_bindgen_test]
async fn group_commit_writes_one_step_in_one_transaction() {
    let db = unique_name("baton-test");
    let transport = hanging_transport();
    let engine = open_on(&db, "s-group", Some(&transport)).await.unwrap();
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    let runs: Vec<String> = (0..5)
        .map(|_| engine.delegate(agent_delegation()).unwrap())
        .collect();
    written(&engine).await;
    let counter = count_readwrite_transactions();
    let records_before = storage(&engine)["records"].as_u64().unwrap();
    // One step ends five runs.
    assert_eq!(engine.kill_all().unwrap(), 5);
    written(&engine).await;
    let transactions = get(&counter, "count").as_f64().unwrap();
    let restore: js_sys::Function = get(&counter, "restore").unchecked_into();
    restore.call0(&JsValue::NULL).unwrap();
    let written_now = storage(&engine)["records"].as_u64().unwrap() - records_before;
    assert!(
        written_now >= 5,
        "{written_now} records, at least one per run"
    );
    assert_eq!(
        transactions, 1.0,
        "{written_now} records in one transaction"
    );
    for run in &runs {
        assert_eq!(ended_for(&engine, run).await, "kill");
    }
}

#[wasm_bindgen_test]
async fn steps_taken_while_a_transaction_commits_are_written_together_in_the_next() {
    let db = unique_name("baton-test");
    let transport = hanging_transport();
    let engine = open_on(&db, "s-queued", Some(&transport)).await.unwrap();
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    written(&engine).await;
    let counter = count_readwrite_transactions();
    // Eight steps in one task: the first opens a transaction, and the
    // other seven happen while it commits.
    let runs: Vec<String> = (0..8)
        .map(|_| engine.delegate(agent_delegation()).unwrap())
        .collect();
    assert_eq!(
        engine
            .live()
            .unwrap()
            .persistence(|persistence| persistence.in_flight()),
        1,
        "one transaction in flight"
    );
    written(&engine).await;
    let transactions = get(&counter, "count").as_f64().unwrap();
    let restore: js_sys::Function = get(&counter, "restore").unchecked_into();
    restore.call0(&JsValue::NULL).unwrap();
    assert_eq!(
        transactions, 2.0,
        "the first step, then the seven queued behind it"
    );
    for run in &runs {
        let records = history(&engine, run).await;
        let revisions: Vec<u64> = records
            .iter()
            .map(|r| r["revision"].as_u64().unwrap())
            .collect();
        assert_eq!(revisions, (1..=records.len() as u64).collect::<Vec<_>>());
        assert!(!records.is_empty());
    }
    engine.kill_all().unwrap();
}

#[wasm_bindgen_test]
async fn history_read_while_steps_wait_behind_a_commit_has_them_too() {
    let db = unique_name("baton-test");
    let transport = hanging_transport();
    let engine = open_on(&db, "s-history-queued", Some(&transport))
        .await
        .unwrap();
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    let run = engine.delegate(agent_delegation()).unwrap();
    written(&engine).await;
    // One step opens a transaction; the run's stop waits behind it.
    engine.delegate(agent_delegation()).unwrap();
    engine.stop(JsValue::from(&run)).unwrap();
    assert!(
        engine
            .live()
            .unwrap()
            .persistence(|persistence| persistence.has_queued()),
        "the stop waits behind the first write"
    );
    let records = history(&engine, &run).await;
    let held: Vec<serde_json::Value> =
        serde_wasm_bindgen::from_value(engine.journal(JsValue::from(&run)).unwrap()).unwrap();
    assert_eq!(records, held, "every record, the ones not yet written too");
    engine.kill_all().unwrap();
}

#[wasm_bindgen_test]
async fn closing_with_steps_queued_behind_a_commit_still_writes_them() {
    let db = unique_name("baton-test");
    let transport = hanging_transport();
    let engine = open_on(&db, "s-close-queued", Some(&transport))
        .await
        .unwrap();
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    written(&engine).await;
    let runs: Vec<String> = (0..4)
        .map(|_| engine.delegate(agent_delegation()).unwrap())
        .collect();
    assert!(
        engine
            .live()
            .unwrap()
            .persistence(|persistence| persistence.has_queued()),
        "steps wait behind the first"
    );
    engine.close();

    let reopened = open_on(&db, "s-close-queued", None).await.unwrap();
    for run in &runs {
        let records = history(&reopened, run).await;
        assert_eq!(
            records.first().map(|r| r["entry"]["kind"].clone()),
            Some(serde_json::json!("created")),
            "{run} was written before the engine went"
        );
    }
}

#[wasm_bindgen_test]
async fn a_header_change_without_a_record_is_written_a_grant_and_disabling_survive_reopening() {
    let db = unique_name("baton-test");
    let engine = open_on(&db, "s-header", None).await.unwrap();
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    engine
        .grant(
            js_sys::JSON::parse(
                r#"{"participant": "tasks", "decision": "allow", "ttlMs": 3600000}"#,
            )
            .unwrap(),
        )
        .unwrap();
    engine.disable().unwrap();
    written(&engine).await;
    engine.close();

    let reopened = open_on(&db, "s-header", None).await.unwrap();
    let grants: serde_json::Value =
        serde_wasm_bindgen::from_value(reopened.grants().unwrap()).unwrap();
    assert_eq!(grants.as_array().map(Vec::len), Some(1), "{grants}");
    let refused = reopened.delegate(plan(1)).unwrap_err();
    assert_eq!(
        get(&refused, "code").as_string().as_deref(),
        Some("delegation-disabled")
    );
}

/// An engine of `session` opened while `break_storage` has broken
/// IndexedDB (it returns what mends it): in memory, its storage degraded
/// for a reason that says `why`.
async fn opened_in_memory(
    break_storage: fn() -> js_sys::Function,
    session: &str,
    why: &str,
) -> Engine {
    let mend = break_storage();
    let opened = open_on(&unique_name("baton-test"), session, None).await;
    mend.call0(&JsValue::NULL).unwrap();
    let engine = opened.unwrap();
    let status = storage(&engine);
    assert_eq!(status["mode"], "memory");
    let degraded = status["degraded"].as_str().unwrap_or_default();
    assert!(degraded.contains(why), "{status}");
    engine
}

#[wasm_bindgen_test]
async fn ag_50_without_indexeddb_the_engine_runs_in_memory_and_says_so() {
    let engine = opened_in_memory(hide_indexed_db, "s-none", "unavailable").await;
    let events = record(&engine, Some("storage-degraded"));
    assert_eq!(events.length(), 1, "a subscriber learns it at once");
    let board = participant(&element().into(), 0, 0);
    engine.mount(manifest(), board.clone());
    let run = engine.delegate(plan(2)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert!(js_sys::Array::from(&engine.journal(JsValue::from(&run)).unwrap()).length() > 5);
}

#[wasm_bindgen_test]
async fn an_open_indexeddb_never_answers_is_given_up_and_the_engine_runs_in_memory() {
    let silence = super::test_support::silence_indexed_db;
    let engine = opened_in_memory(silence, "s-silent", "did not answer").await;
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    let run = engine.delegate(plan(1)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
}

#[wasm_bindgen_test]
async fn ag_39_an_outcome_whose_write_commits_after_the_engine_closed_is_still_said() {
    let db = unique_name("baton-test");
    let engine = std::rc::Rc::new(open_on(&db, "s-close-outcome", None).await.unwrap());
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    written(&engine).await;
    let heard = super::test_support::listen().await;
    // As `await run.returned; engine.close()` does: closed in a microtask
    // right after the step that ended the run, before its write commits.
    let closer = engine.clone();
    let listener = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
        let state = get(&get(&get(&event, "entry"), "to"), "state");
        if state.as_string().as_deref() == Some("returned") {
            let closer = closer.clone();
            wasm_bindgen_futures::spawn_local(async move { closer.close() });
        }
    });
    engine.subscribe(listener.into_js_value()).unwrap();
    engine.delegate(plan(1)).unwrap();
    assert!(
        until(|| heard.messages().len() >= 2).await,
        "{:?}",
        heard.messages()
    );
    assert_eq!(
        heard.messages()[1],
        "Assistant: “Rename the cards” is done."
    );
}

#[wasm_bindgen_test]
async fn finished_runs_stay_in_memory_when_the_store_goes_while_their_write_commits() {
    let db = unique_name("baton-test");
    let engine = open_on(&db, "s-gone-mid-write", None).await.unwrap();
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    let mut runs = Vec::new();
    for _ in 0..baton_core::FINISHED_RUNS_KEPT {
        let run = engine.delegate(plan(1)).unwrap();
        assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
        runs.push(run);
    }
    written(&engine).await;
    // One more run, in two writes: the second, which holds its end, is
    // opened when another page's upgrade takes the store away.
    let live = engine.live().unwrap();
    let upgraded = Closure::once_into_js(move || {
        super::writes::degrade(&live, crate::store::StoreError::Upgraded);
    });
    super::test_support::after_readwrite_transactions(2, &upgraded);
    let last = engine.delegate(plan(1)).unwrap();
    assert_eq!(returned(&engine, &last).await.as_deref(), Some("completed"));
    settle(100).await;
    assert_eq!(storage(&engine)["mode"], "memory");
    assert!(
        engine.journal(JsValue::from(&runs[0])).is_ok(),
        "with no store to read it back from, the oldest run stays in memory"
    );
}

#[wasm_bindgen_test]
async fn a_full_disk_degrades_to_memory_and_loses_nothing() {
    let engine = open_on(&unique_name("baton-test"), "s-full", None)
        .await
        .unwrap();
    let events = record(&engine, Some("storage-degraded"));
    let board = participant(&element().into(), 0, 0);
    engine.mount(manifest(), board.clone());
    let restore = fill_the_disk();
    let run = engine.delegate(plan(3)).unwrap();
    let ended = returned(&engine, &run).await;
    restore.call0(&JsValue::NULL).unwrap();
    assert_eq!(ended.as_deref(), Some("completed"), "the run went on");
    assert_eq!(events.length(), 1, "said once");
    let cause = get(&events.get(0), "cause").as_string().unwrap_or_default();
    assert!(cause.contains("QuotaExceededError"), "{cause}");
    assert_eq!(storage(&engine)["mode"], "memory");
    let journal: Vec<serde_json::Value> =
        serde_wasm_bindgen::from_value(engine.journal(JsValue::from(&run)).unwrap()).unwrap();
    assert!(
        kinds(&journal)
            .iter()
            .filter(|k| *k == "call-dispatched")
            .count()
            == 3
    );
    // Later steps stay in memory and the history is still complete there.
    assert_eq!(history(&engine, &run).await, journal);
}

#[wasm_bindgen_test]
async fn storage_memory_is_a_choice_not_a_failure() {
    let options = js_sys::JSON::parse(r#"{"storage": "memory"}"#).unwrap();
    let engine = Engine::open(options).await.unwrap();
    let status = storage(&engine);
    assert_eq!(status["mode"], "memory");
    assert!(status.get("degraded").is_none());
    let thrown = Engine::open(js_sys::JSON::parse(r#"{"storage": "disk"}"#).unwrap())
        .await
        .err()
        .unwrap();
    assert_eq!(
        get(&thrown, "code").as_string().as_deref(),
        Some("invalid-options")
    );
}

#[wasm_bindgen_test]
async fn a_version_change_from_another_page_closes_the_connection_and_degrades() {
    let db = unique_name("baton-test");
    let engine = open_on(&db, "s-upgrade", None).await.unwrap();
    let events = record(&engine, Some("storage-degraded"));
    // The other page gets its upgrade: this engine let go of the database.
    JsFuture::from(upgrade_database(&db, 3)).await.unwrap();
    assert_eq!(events.length(), 1);
    let cause = get(&events.get(0), "cause").as_string().unwrap_or_default();
    assert!(cause.contains("upgraded"), "{cause}");
    let board = participant(&element().into(), 0, 0);
    engine.mount(manifest(), board);
    let run = engine.delegate(plan(1)).unwrap();
    assert_eq!(
        returned(&engine, &run).await.as_deref(),
        Some("completed"),
        "it goes on in memory"
    );
}

#[wasm_bindgen_test]
async fn a_close_right_after_a_kill_keeps_the_kill() {
    let db = unique_name("baton-test");
    let transport = hanging_transport();
    let (engine, run) = acting(&db, "s-close", &transport).await;
    assert_eq!(engine.kill_all().unwrap(), 1);
    engine.close();
    let reopened = open_on(&db, "s-close", None).await.unwrap();
    assert_eq!(
        ended_for(&reopened, &run).await,
        "kill",
        "the kill was written before the connection closed"
    );
}

#[wasm_bindgen_test]
async fn a_session_whose_engine_is_still_going_away_is_reconciled_once_it_lets_go() {
    // A reload: the new page's engine opens while the old page's still holds
    // its session. Its cut-off run is ended as soon as the old one lets go.
    let db = unique_name("baton-test");
    let transport = hanging_transport();
    let (leaving, run) = acting(&db, "s-leaving", &transport).await;
    let next = open_on(&db, "s-next", Some(&transport)).await.unwrap();
    assert_eq!(storage(&next)["reconciled"], 0, "its engine still holds it");
    let heard = record(&next, Some("storage-reconciled"));
    drop(leaving);
    assert!(
        until(|| heard.length() == 1).await,
        "reconciled once it let go"
    );
    assert_eq!(
        get(&heard.get(0), "session").as_string().as_deref(),
        Some("s-leaving")
    );
    assert_eq!(storage(&next)["reconciled"], 1);
    assert_eq!(ended_for(&next, &run).await, "interrupted");
    // A subscriber that comes later hears it too.
    assert_eq!(record(&next, Some("storage-reconciled")).length(), 1);
}

#[wasm_bindgen_test]
async fn finished_runs_past_the_most_recent_leave_memory_once_written_and_are_read_back() {
    let db = unique_name("baton-test");
    let engine = open_on(&db, "s-retention", None).await.unwrap();
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    let mut runs = Vec::new();
    for _ in 0..baton_core::FINISHED_RUNS_KEPT + 6 {
        let run = engine.delegate(plan(1)).unwrap();
        assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
        runs.push(run);
    }
    written(&engine).await;
    let first = &runs[0];
    let gone = engine.journal(JsValue::from(first)).unwrap_err();
    assert_eq!(
        get(&gone, "code").as_string().as_deref(),
        Some("unknown-run")
    );
    let records = history(&engine, first).await;
    assert_eq!(
        records.last().unwrap()["entry"]["to"]["state"],
        "returned",
        "its journal is read back whole from IndexedDB"
    );
    let kept = runs.last().unwrap();
    assert!(
        engine.journal(JsValue::from(kept)).is_ok(),
        "the most recent stay"
    );
    let in_memory = engine.live().unwrap().core(|core| core.runs().count());
    assert_eq!(in_memory, baton_core::FINISHED_RUNS_KEPT);

    // In memory by choice there is nowhere else to keep them: they stay.
    let memory = Engine::open(
        js_sys::JSON::parse(r#"{"appName": "Board", "ceiling": "auto", "storage": "memory"}"#)
            .unwrap(),
    )
    .await
    .unwrap();
    memory.mount(manifest(), participant(&element().into(), 0, 0));
    let mut first_in_memory = None;
    for _ in 0..baton_core::FINISHED_RUNS_KEPT + 6 {
        let run = memory.delegate(plan(1)).unwrap();
        assert_eq!(returned(&memory, &run).await.as_deref(), Some("completed"));
        first_in_memory.get_or_insert(run);
    }
    assert!(memory
        .journal(JsValue::from(&first_in_memory.unwrap()))
        .is_ok());
}

/// A `journal` event is written from the record's own JSON text, not by
/// serializing it twice: it must say exactly what the core's `Event` says.
#[wasm_bindgen_test]
async fn the_journal_event_written_from_the_records_text_is_the_cores_event() {
    let engine = open_on(&unique_name("baton-test"), "s-event", None)
        .await
        .unwrap();
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    let run = engine.delegate(plan(2)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    let journal: Vec<baton_core::JournalRecord> =
        serde_wasm_bindgen::from_value(engine.journal(JsValue::from(&run)).unwrap()).unwrap();
    assert!(journal.len() > 5);
    for record in journal {
        let expected = serde_json::to_value(Event::Journal(record.clone())).unwrap();
        let written = persist::Journalled::new(record).event_json().unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&written).unwrap(),
            expected
        );
    }
}

#[wasm_bindgen_test]
async fn refused_options_touch_no_storage() {
    let db = unique_name("baton-test");
    let options = js_sys::JSON::parse(
        &serde_json::json!({"dbName": db, "appName": 42, "session": "s-wrong"}).to_string(),
    )
    .unwrap();
    let refused = Engine::open(options).await.err().expect("refused");
    let code = js_sys::Reflect::get(&refused, &"code".into()).unwrap();
    assert_eq!(code.as_string().as_deref(), Some("invalid-options"));
    let exists = JsFuture::from(database_exists(&db)).await.unwrap();
    assert_eq!(exists.as_bool(), Some(false), "no database was created");
    // A live region's parent given as a selector, not an element.
    let options = js_sys::JSON::parse(
        &serde_json::json!({"dbName": db, "liveRegionParent": "#main"}).to_string(),
    )
    .unwrap();
    let refused = Engine::open(options).await.err().expect("refused");
    let code = js_sys::Reflect::get(&refused, &"code".into()).unwrap();
    assert_eq!(code.as_string().as_deref(), Some("invalid-options"));
}

#[wasm_bindgen_test]
async fn a_version_change_another_connection_holds_up_leaves_the_engine_in_memory_saying_so() {
    let db = unique_name("baton-test");
    let close_old = JsFuture::from(hold_old_connection(&db)).await.unwrap();
    let engine = open_on(&db, "s-blocked", None).await.unwrap();
    let status = storage(&engine);
    assert_eq!(status["mode"], "memory");
    assert!(
        status["degraded"]
            .as_str()
            .unwrap()
            .contains("version change"),
        "{status}"
    );
    // The old connection goes; the connection that then arrives late is
    // closed, holding no newer page up.
    close_old
        .unchecked_ref::<js_sys::Function>()
        .call0(&JsValue::NULL)
        .unwrap();
    let upgraded = super::test_support::within(&upgrade_database(&db, 9), 3_000);
    assert_eq!(
        JsFuture::from(upgraded).await.unwrap().as_bool(),
        Some(true)
    );
    engine.close();
}
