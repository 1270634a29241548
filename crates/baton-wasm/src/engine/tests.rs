//! The JS engine in headless Chromium: participants with real (and async)
//! behaviour, the real DOM, real timers.

use super::test_support::*;
use super::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn ag_3_a_macro_is_a_run_through_the_same_engine() {
    let engine = open().await;
    let board = participant(&element().into(), 0, 0);
    engine.mount(manifest(), board.clone());
    let events = record(&engine, None);
    let run = engine.delegate(plan(1)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    let titles = get(&state_of(&board), "titles");
    assert_eq!(get(&titles, "card-0").as_string().as_deref(), Some("Ship"));
    assert!(events.length() > 5, "subscribers saw the run's events");
}

#[wasm_bindgen_test]
async fn ag_37_and_ag_39_a_plan_of_fifty_acts_is_announced_once_and_its_outcome_once() {
    let engine = open().await;
    let heard = listen().await;
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    let run = engine.delegate(plan(50)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert!(until(|| heard.messages().len() >= 2).await);
    let announced = heard.messages();
    assert_eq!(announced.len(), 2, "{announced:?}");
    assert_eq!(
        announced[0],
        "Assistant is acting in Task board: 50 changes for “Rename the cards”."
    );
    // AG-39: the closing message carries the outcome.
    assert_eq!(announced[1], "Assistant: “Rename the cards” is done.");
}

#[wasm_bindgen_test]
async fn ag_40_the_element_is_busy_exactly_while_a_call_mutates_it() {
    let engine = open().await;
    let section = element();
    engine.mount(manifest(), participant(&section.clone().into(), 300, 0));
    let run = engine.delegate(plan(1)).unwrap();
    assert!(
        until(|| section.get_attribute("aria-busy").as_deref() == Some("true")).await,
        "busy while the call runs"
    );
    assert_eq!(outcome(&engine, &run), None, "still running");
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert_eq!(
        section.get_attribute("aria-busy"),
        None,
        "cleared when it is done"
    );
}

#[wasm_bindgen_test]
async fn ag_40_and_ag_8_a_failing_call_clears_busy_rolls_back_and_says_so() {
    let engine = open().await;
    let heard = listen().await;
    let section = element();
    let board = participant(&section.clone().into(), 5, 2);
    engine.mount(manifest(), board.clone());
    let run = engine.delegate(plan(3)).unwrap();
    assert_eq!(
        returned(&engine, &run).await.as_deref(),
        Some("rolled-back")
    );
    assert_eq!(section.get_attribute("aria-busy"), None);
    let reverted = get(&state_of(&board), "reverted");
    assert_eq!(
        js_sys::Array::from(&reverted).length(),
        1,
        "reverted once, to the run's mark"
    );
    let announced = heard.messages();
    assert_eq!(
        announced.last().unwrap(),
        "Assistant: “Rename the cards” failed because a change failed, and every change was undone."
    );
}

#[wasm_bindgen_test]
async fn ag_50_without_a_transport_participants_work_and_only_delegating_to_an_agent_fails() {
    let engine = open().await;
    // Registration is fine without a transport.
    assert_eq!(
        engine
            .mount(manifest(), participant(&element().into(), 0, 0))
            .id(),
        "tasks"
    );
    let request =
        js_sys::JSON::parse(r#"{"intent": "Tidy up", "initiative": "user", "autonomy": "auto"}"#)
            .unwrap();
    let thrown = engine.delegate(request).unwrap_err();
    assert_eq!(
        get(&thrown, "code").as_string().as_deref(),
        Some("no-transport")
    );
    assert_eq!(
        get(&thrown, "requirement").as_string().as_deref(),
        Some("AG-50")
    );
}

#[wasm_bindgen_test]
async fn ag_9_stop_returns_control_mid_plan_and_clears_busy() {
    let engine = open().await;
    let section = element();
    engine.mount(manifest(), participant(&section.clone().into(), 100, 0));
    let run = engine.delegate(plan(5)).unwrap();
    assert!(until(|| section.get_attribute("aria-busy").is_some()).await);
    engine.stop(JsValue::from(&run)).unwrap();
    assert_eq!(outcome(&engine, &run).as_deref(), Some("aborted"));
    assert!(
        until(|| section.get_attribute("aria-busy").is_none()).await,
        "the call in flight finished and busy cleared"
    );
}

#[wasm_bindgen_test]
async fn ag_40_a_call_in_flight_when_the_engine_closes_leaves_no_busy_mark() {
    let engine = open().await;
    let section = element();
    engine.mount(manifest(), participant(&section.clone().into(), 100, 0));
    engine.delegate(plan(1)).unwrap();
    assert!(until(|| section.get_attribute("aria-busy").is_some()).await);
    engine.close();
    assert!(
        until(|| section.get_attribute("aria-busy").is_none()).await,
        "the call finished after the engine closed, and its busy mark went with it"
    );
}

#[wasm_bindgen_test]
async fn a_listener_that_closes_the_engine_mid_step_stops_the_rest_of_it() {
    let engine = std::rc::Rc::new(open().await);
    let board = participant(&element().into(), 0, 0);
    engine.mount(manifest(), board.clone());
    let heard = js_sys::Array::new();
    let (closer, after) = (engine.clone(), heard.clone());
    // `Fn`, not `FnMut`: closing calls it again, with `closed`, from within.
    let listener = Closure::<dyn Fn(JsValue)>::new(move |event: JsValue| {
        after.push(&get(&event, "type"));
        let invoking = get(&event, "kind").as_string().as_deref() == Some("invoke");
        if invoking && get(&event, "type").as_string().as_deref() == Some("effect") {
            closer.close();
        }
    });
    engine.subscribe(listener.into_js_value()).unwrap();
    engine.delegate(plan(1)).unwrap();
    settle(100).await;
    assert_eq!(
        get(&state_of(&board), "applied").as_f64(),
        Some(0.0),
        "the participant is not called by an engine closed before the call"
    );
    let last = heard.get(heard.length() - 1).as_string();
    assert_eq!(
        last.as_deref(),
        Some("closed"),
        "closed is the last event heard"
    );
}

#[wasm_bindgen_test]
async fn ag_36_two_engines_share_the_one_polite_region() {
    let regions = || {
        web_sys::window()
            .unwrap()
            .document()
            .unwrap()
            .query_selector_all("[aria-live=polite]")
            .unwrap()
            .length()
    };
    let first = Engine::open(JsValue::UNDEFINED).await.unwrap();
    // The page's one polite region (engines of earlier tests joined it too).
    assert_eq!(regions(), 1, "one polite region once an engine is open");
    let second = Engine::open(JsValue::UNDEFINED).await.unwrap();
    assert_eq!(regions(), 1, "the second engine joined it, and added none");
    assert_ne!(
        first.session(),
        second.session(),
        "each engine has its own session"
    );
    first.close();
    second.close();
}

#[wasm_bindgen_test]
async fn ag_13_registration_never_throws_and_lists_its_problems() {
    let engine = open().await;
    let early = record(&engine, Some("registration-refused"));
    let broken = serde_json::json!({
        "id": "notes", "label": "Notes", "tier": "reads-only", "history": "native", "description": "TODO"
    });
    let refused = engine.mount(
        JsValue::from_str(&broken.to_string()),
        participant(&element().into(), 0, 0),
    );
    assert_eq!(refused.id(), "notes");
    let problems = js_sys::Array::from(&refused.problems());
    assert_eq!(problems.length(), 1);
    let problem = problems.get(0);
    assert_eq!(
        get(&problem, "requirement").as_string().as_deref(),
        Some("AG-14")
    );
    assert_eq!(
        get(&problem, "path").as_string().as_deref(),
        Some("$.description")
    );
    // Publishing on the refused handle changes nothing and throws nothing.
    refused
        .publish(
            JsValue::from("anything"),
            js_sys::JSON::parse(r#"{"version": 1}"#).unwrap(),
        )
        .unwrap();
    // One event now, and the same event for a subscriber that comes later.
    assert_eq!(early.length(), 1);
    let late = record(&engine, Some("registration-refused"));
    assert_eq!(late.length(), 1);
    assert_eq!(
        get(&late.get(0), "participant").as_string().as_deref(),
        Some("notes")
    );
    // Everything else works; only a call to the refused participant fails,
    // with its problems (and a fixed plan, with no one to correct it, ends
    // there: AG-3, AG-8).
    let board = participant(&element().into(), 0, 0);
    let mounted = engine.mount(manifest(), board.clone());
    assert_eq!(js_sys::Array::from(&mounted.problems()).length(), 0);
    let fixed = |capability: &str, arguments: Value| {
        let request = serde_json::json!({
            "intent": "Tidy", "initiative": "user", "autonomy": "auto",
            "plan": [{"capability": capability, "arguments": arguments}]
        });
        engine
            .delegate(js_sys::JSON::parse(&request.to_string()).unwrap())
            .unwrap()
    };
    let works = fixed(
        "tasks.rename",
        serde_json::json!({"id": "a", "title": "Ship"}),
    );
    assert_eq!(
        returned(&engine, &works).await.as_deref(),
        Some("completed")
    );
    let titles = get(&state_of(&board), "titles");
    assert_eq!(get(&titles, "a").as_string().as_deref(), Some("Ship"));
    let run = fixed("notes.add", serde_json::json!({}));
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("error"));
    let reason = get(&engine.state(JsValue::from(&run)).unwrap(), "reason");
    assert_eq!(
        get(&reason, "kind").as_string().as_deref(),
        Some("plan-refused")
    );
    let journal: Value =
        serde_wasm_bindgen::from_value(engine.journal(JsValue::from(&run)).unwrap()).unwrap();
    let refusal = journal
        .as_array()
        .unwrap()
        .iter()
        .find_map(|record| record["entry"]["refusal"].as_object().cloned())
        .expect("the call to the refused participant was refused");
    assert_eq!(refusal["code"], "registration-refused");
    assert_eq!(refusal["problems"][0]["requirement"], "AG-14");
    // Text that is not a manifest at all is refused the same way.
    let garbage = engine.mount(JsValue::from_str("{"), JsValue::UNDEFINED);
    assert_eq!(garbage.id(), "");
    assert!(js_sys::Array::from(&garbage.problems()).length() > 0);
}

#[wasm_bindgen_test]
async fn ag_2_delegate_without_an_initiative_is_refused() {
    let engine = open().await;
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    let request = js_sys::JSON::parse(
        r#"{"intent": "Tidy", "autonomy": "auto", "plan": [{"capability": "tasks.rename", "arguments": {"id": "a", "title": "T"}}]}"#,
    )
    .unwrap();
    let thrown = engine.delegate(request).unwrap_err();
    assert!(thrown.is_instance_of::<js_sys::Error>());
    assert_eq!(
        get(&thrown, "code").as_string().as_deref(),
        Some("invalid-delegation")
    );
    assert_eq!(
        get(&thrown, "requirement").as_string().as_deref(),
        Some("AG-2")
    );
    let counters = engine.counters().unwrap();
    assert_eq!(get(&counters, "awaitingReview").as_f64(), Some(0.0));
}

#[wasm_bindgen_test]
async fn mark_tokens_are_kept_exactly_and_anything_else_fails_the_mark() {
    let engine = open().await;
    let board = marking_with(&element().into(), &JsValue::from_f64(3.0));
    engine.mount(manifest(), board.clone());
    let run = engine.delegate(plan(1)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    JsFuture::from(
        engine
            .undo(JsValue::from(&run), JsValue::UNDEFINED)
            .unwrap(),
    )
    .await
    .unwrap();
    let reverted = js_sys::Array::from(&get(&state_of(&board), "reverted"));
    assert_eq!(
        reverted.get(0).as_f64(),
        Some(3.0),
        "the number, not a text"
    );

    let engine = open().await;
    let object = js_sys::JSON::parse(r#"{"depth": 3}"#).unwrap();
    engine.mount(manifest(), marking_with(&element().into(), &object));
    let run = engine.delegate(plan(1)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("error"));
    let state: Value =
        serde_wasm_bindgen::from_value(engine.state(JsValue::from(&run)).unwrap()).unwrap();
    assert_eq!(state["reason"]["kind"], "mark-failed", "{state}");
    assert!(
        state["reason"]["message"]
            .as_str()
            .unwrap()
            .contains("string or a finite number"),
        "{state}"
    );
}

#[wasm_bindgen_test]
async fn ag_10_kill_all_returns_every_run_with_one_message() {
    let engine = open().await;
    let heard = listen().await;
    let board = element();
    engine.mount(manifest(), participant(&board.clone().into(), 30, 0));
    let first = engine.delegate(plan(3)).unwrap();
    let second = engine.delegate(plan(3)).unwrap();
    settle(5).await;
    assert_eq!(engine.kill_all().unwrap(), 2);
    assert_eq!(outcome(&engine, &first).as_deref(), Some("aborted"));
    assert_eq!(outcome(&engine, &second).as_deref(), Some("aborted"));
    // The message comes once the step is written (AG-39).
    assert!(until(|| written_all(&engine)).await);
    let announced = heard.messages();
    assert_eq!(
        announced.last().unwrap(),
        "You stopped 2 delegations in Board; control is back with you."
    );
    assert!(
        !announced.iter().any(|m| m.contains("You stopped “")),
        "no message per run: {announced:?}"
    );
    settle(100).await;
    // The call the kill caught in flight finished; nothing is left busy (AG-40).
    assert_eq!(board.get_attribute("aria-busy"), None);
}

#[wasm_bindgen_test]
async fn ag_38_focus_stays_where_the_person_put_it_through_a_whole_run() {
    let engine = open().await;
    let board = element();
    engine.mount(manifest(), participant(&board.clone().into(), 5, 0));
    let document = web_sys::window().unwrap().document().unwrap();
    let input: web_sys::HtmlElement = document.create_element("input").unwrap().unchecked_into();
    document.body().unwrap().append_child(&input).unwrap();
    input.focus().unwrap();
    let focused = || {
        document
            .active_element()
            .map(|e| e.is_same_node(Some(&input)))
    };
    let run = engine.delegate(plan(5)).unwrap();
    settle(8).await;
    assert_eq!(focused(), Some(true), "while acting");
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert_eq!(
        focused(),
        Some(true),
        "after control returned and was announced"
    );
    input.remove();
}

fn press_escape() -> bool {
    let init = web_sys::KeyboardEventInit::new();
    init.set_key("Escape");
    init.set_bubbles(true);
    init.set_cancelable(true);
    let event =
        web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    let document = web_sys::window().unwrap().document().unwrap();
    document.dispatch_event(&event).unwrap();
    event.default_prevented()
}

#[wasm_bindgen_test]
async fn ag_42_escape_returns_control_while_a_run_is_active_and_only_then() {
    let engine = open().await;
    let heard = listen().await;
    engine.mount(manifest(), participant(&element().into(), 200, 0));
    // No run: Escape is the page's, untouched.
    assert!(!press_escape());
    let run = engine.delegate(plan(3)).unwrap();
    settle(5).await;
    press_escape();
    let state = engine.state(JsValue::from(&run)).unwrap();
    assert_eq!(
        get(&state, "outcome").as_string().as_deref(),
        Some("aborted")
    );
    assert_eq!(
        get(&get(&state, "reason"), "kind").as_string().as_deref(),
        Some("user-interrupt")
    );
    assert!(until(|| written_all(&engine)).await);
    let announced = heard.messages();
    assert_eq!(
        announced.last().unwrap(),
        "You stopped “Rename the cards”; control is back with you."
    );
    // A closed or dropped engine leaves no listener behind.
    engine.close();
    let spy = spy_on_keydown();
    let opened = open().await;
    assert_eq!(get(&spy, "live").as_f64(), Some(1.0));
    drop(opened);
    assert_eq!(
        get(&spy, "live").as_f64(),
        Some(0.0),
        "dropping the engine removed its listener"
    );
    let restore: js_sys::Function = get(&spy, "restore").dyn_into().unwrap();
    restore.call0(&JsValue::NULL).unwrap();
    settle(250).await;
}

async fn open_with(options: &str) -> Engine {
    Engine::open(js_sys::JSON::parse(options).unwrap())
        .await
        .unwrap()
}

#[wasm_bindgen_test]
async fn ag_35_acting_with_no_presence_is_reported_under_warn() {
    let engine = open_with(r#"{"ceiling": "auto"}"#).await;
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    let seen = record(&engine, Some("presence-missing"));
    let run = engine.delegate(plan(1)).unwrap();
    assert_eq!(
        returned(&engine, &run).await.as_deref(),
        Some("completed"),
        "warn still acts"
    );
    assert_eq!(seen.length(), 1);
    assert_eq!(get(&seen.get(0), "run").as_string(), Some(run));
}

#[wasm_bindgen_test]
async fn ag_35_require_refuses_until_a_presence_attaches() {
    let engine = open_with(r#"{"ceiling": "auto", "presence": "require"}"#).await;
    let board = participant(&element().into(), 0, 0);
    engine.mount(manifest(), board.clone());
    let refused = engine.delegate(plan(1)).unwrap();
    let state = engine.state(JsValue::from(&refused)).unwrap();
    assert_eq!(get(&state, "outcome").as_string().as_deref(), Some("error"));
    assert_eq!(
        get(&get(&state, "reason"), "kind").as_string().as_deref(),
        Some("presence-missing")
    );
    assert_eq!(
        get(&state_of(&board), "applied").as_f64(),
        Some(0.0),
        "nothing acted"
    );
    // A surface attaches: the next run acts; detached again, it is refused again.
    let presence = engine.presence().unwrap();
    let attach: js_sys::Function = get(&presence, "attach").dyn_into().unwrap();
    let detach: js_sys::Function = attach
        .call1(&JsValue::NULL, &js_sys::Object::new())
        .unwrap()
        .dyn_into()
        .unwrap();
    let run = engine.delegate(plan(1)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    detach.call0(&JsValue::NULL).unwrap();
    let again = engine.delegate(plan(1)).unwrap();
    assert_eq!(outcome(&engine, &again).as_deref(), Some("error"));
}

#[wasm_bindgen_test]
async fn ag_23_and_ag_41_an_ambiguous_address_is_answered_in_js() {
    let engine = open().await;
    let sprint = participant(&element().into(), 0, 0);
    let backlog = participant(&element().into(), 0, 0);
    let behaviour = |p: &JsValue, instance: &str| {
        js_sys::Reflect::set(p, &"instance".into(), &instance.into()).unwrap();
        p.clone()
    };
    engine.mount(manifest(), behaviour(&sprint, "sprint"));
    engine.mount(manifest(), behaviour(&backlog, "backlog"));
    let questions = record(&engine, Some("question"));
    let actors = keep_actors(&backlog);
    let run = engine.delegate(plan(1)).unwrap();
    assert!(
        until(|| questions.length() == 1).await,
        "the engine asked instead of guessing"
    );
    let question = questions.get(0);
    let id = get(&question, "id").as_string().unwrap();
    let digest = get(&question, "digest").as_string().unwrap();
    // A wrong digest fails closed, with the requirement named.
    let thrown = engine
        .answer(
            JsValue::from(&id),
            JsValue::from(&"0".repeat(64)),
            js_sys::JSON::parse(r#"{"participant": "tasks#backlog"}"#).unwrap(),
        )
        .unwrap_err();
    assert_eq!(
        get(&thrown, "requirement").as_string().as_deref(),
        Some("AG-41")
    );
    let acceptance = engine
        .answer(
            JsValue::from(&id),
            JsValue::from(&digest),
            js_sys::JSON::parse(r#"{"participant": "tasks#backlog"}"#).unwrap(),
        )
        .unwrap();
    assert_eq!(get(&acceptance, "question").as_string(), Some(id));
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert_eq!(get(&state_of(&backlog), "applied").as_f64(), Some(1.0));
    assert_eq!(get(&state_of(&sprint), "applied").as_f64(), Some(0.0));
    // The reference the participant received resolves to this run (AG-32, AG-33).
    let actor = actors.get(0).as_string().unwrap();
    let identity = engine.resolve_actor(JsValue::from(&actor)).unwrap();
    assert_eq!(get(&identity, "run").as_string(), Some(run.clone()));
    assert!(engine
        .resolve_actor(JsValue::from(&format!("{actor}0")))
        .unwrap()
        .is_null());
    // And the journal tells the whole story.
    let journal = js_sys::Array::from(&engine.journal(JsValue::from(&run)).unwrap());
    assert!(journal.length() > 5);
}

#[wasm_bindgen_test]
async fn an_undo_under_way_when_the_engine_closes_rejects_closed() {
    let engine = open().await;
    let board = slow_to_revert(&element().into(), 200);
    engine.mount(manifest(), board);
    let run = engine.delegate(plan(1)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    let undone = engine
        .undo(JsValue::from(&run), JsValue::UNDEFINED)
        .unwrap();
    engine.close();
    // Raced against a sleep well past the revert: a promise that never
    // settles loses the race, which then resolves.
    let race = js_sys::Promise::race(&js_sys::Array::of2(&undone, &sleep(1_000)));
    let thrown = JsFuture::from(race)
        .await
        .expect_err("the undo's promise rejects");
    assert_eq!(get(&thrown, "code").as_string().as_deref(), Some("closed"));
}

#[wasm_bindgen_test]
async fn ag_40_a_participant_is_busy_while_it_reverts_for_an_undo() {
    let engine = open().await;
    let heard = listen().await;
    let section = element();
    let board = slow_to_revert(&section.clone().into(), 200);
    engine.mount(manifest(), board.clone());
    let run = engine.delegate(plan(1)).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    let undone = JsFuture::from(
        engine
            .undo(JsValue::from(&run), JsValue::UNDEFINED)
            .unwrap(),
    );
    assert!(
        until(|| section.get_attribute("aria-busy").as_deref() == Some("true")).await,
        "busy while it reverts"
    );
    let report = undone.await.unwrap();
    assert_eq!(js_sys::Array::from(&get(&report, "reverted")).length(), 1);
    assert_eq!(
        section.get_attribute("aria-busy"),
        None,
        "cleared when reverted"
    );
    let announced = heard.messages();
    assert_eq!(
        announced.last().unwrap(),
        "You undid “Rename the cards”.",
        "the person's undo is the person's, not the assistant's"
    );
    let journal: Value =
        serde_wasm_bindgen::from_value(engine.journal(JsValue::from(&run)).unwrap()).unwrap();
    let kinds: Vec<&str> = journal
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|record| record["entry"]["kind"].as_str())
        .collect();
    assert_eq!(
        &kinds[kinds.len() - 2..],
        ["undone", "reverted"],
        "each revert journalled"
    );
}

#[wasm_bindgen_test]
async fn ag_10_kill_all_spans_every_engine_of_the_page_and_the_origins_tabs() {
    let other_tab = listen_for_kills();
    let first = open().await;
    let second = open().await;
    let heard = listen().await;
    first.mount(manifest(), participant(&element().into(), 30, 0));
    second.mount(manifest(), participant(&element().into(), 30, 0));
    let a = first.delegate(plan(3)).unwrap();
    let b = second.delegate(plan(3)).unwrap();
    settle(5).await;
    assert_eq!(first.kill_all().unwrap(), 2, "both engines' runs");
    assert_eq!(outcome(&first, &a).as_deref(), Some("aborted"));
    assert_eq!(outcome(&second, &b).as_deref(), Some("aborted"));
    let written = || written_all(&first) && written_all(&second);
    assert!(until(written).await);
    // Said once, for every run in the page: one message, not one per engine.
    let said = heard.messages();
    assert_eq!(
        said.last().map(String::as_str),
        Some("You stopped 2 delegations in Board; control is back with you.")
    );
    assert_eq!(
        said.iter().filter(|m| m.contains("You stopped")).count(),
        1,
        "no second message: {said:?}"
    );
    // The origin's other tabs were told.
    assert!(until(|| get(&other_tab, "kills").as_f64() == Some(1.0)).await);
    // A kill from another tab reaches this page; anything else on the channel is ignored.
    let c = second.delegate(plan(3)).unwrap();
    settle(5).await;
    kill_from_another_tab(&js_sys::JSON::parse(r#"{"type": "something-else"}"#).unwrap());
    settle(50).await;
    assert_eq!(
        outcome(&second, &c),
        None,
        "a foreign message changes nothing"
    );
    kill_from_another_tab(&js_sys::JSON::parse(r#"{"type": "baton/kill-all"}"#).unwrap());
    assert!(until(|| outcome(&second, &c).as_deref() == Some("aborted")).await);
    let close = get(&other_tab, "close");
    close
        .unchecked_ref::<js_sys::Function>()
        .call0(&other_tab)
        .unwrap();
}

fn reviewed_plan(engine: &Engine) -> String {
    let request = serde_json::json!({
        "intent": "Rename a card", "initiative": "user", "autonomy": "review",
        "plan": [{"capability": "tasks.rename", "arguments": {"id": "a", "title": "Ship"}}]
    });
    engine
        .delegate(js_sys::JSON::parse(&request.to_string()).unwrap())
        .unwrap()
}

fn js(value: serde_json::Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).unwrap()
}

#[wasm_bindgen_test]
async fn ag_7_and_ag_30_authorization_scope_and_standing_grants_from_js() {
    let engine = open().await;
    engine.mount(manifest(), participant(&element().into(), 0, 0));
    let run = reviewed_plan(&engine);
    assert!(
        until(|| engine
            .review(JsValue::from(&run))
            .is_ok_and(|sheet| !sheet.is_null()))
        .await
    );
    let revision = engine.revision(JsValue::from(&run)).unwrap();
    // Integers from JS are checked, never cast.
    for bad in [revision + 0.5, -1.0, f64::NAN] {
        let thrown = engine
            .authorize(JsValue::from(&run), JsValue::from(bad), JsValue::UNDEFINED)
            .unwrap_err();
        assert_eq!(
            get(&thrown, "code").as_string().as_deref(),
            Some("invalid-number")
        );
    }
    let wrong = engine
        .authorize(
            JsValue::from(&run),
            JsValue::from(revision),
            js(serde_json::json!({"allowlist": ["rename"]})),
        )
        .unwrap_err();
    assert_eq!(
        get(&wrong, "code").as_string().as_deref(),
        Some("invalid-authorization")
    );
    assert_eq!(
        get(&wrong, "requirement").as_string().as_deref(),
        Some("AG-7")
    );
    // Authorized, narrowed, and made to stand for a minute.
    engine
        .authorize(
            JsValue::from(&run),
            JsValue::from(revision),
            js(serde_json::json!({"allowlist": ["tasks.rename"], "grant": {"ttlMs": 60_000}})),
        )
        .unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    let grants: Value = serde_wasm_bindgen::from_value(engine.grants().unwrap()).unwrap();
    assert_eq!(grants.as_array().unwrap().len(), 1);
    assert_eq!(grants[0]["scope"]["capability"], "rename");
    assert_eq!(grants[0]["decision"], "allow");
    assert_eq!(grants[0]["live"], true);
    // While it stands, the same change needs no review.
    let next = reviewed_plan(&engine);
    assert_eq!(returned(&engine, &next).await.as_deref(), Some("completed"));
    // Revoked, the next one is reviewed again.
    let id = grants[0]["id"].as_f64().unwrap();
    assert!(engine.revoke_grant(JsValue::from(id)).unwrap());
    assert!(
        !engine.revoke_grant(JsValue::from(id)).unwrap(),
        "only once"
    );
    let third = reviewed_plan(&engine);
    assert!(
        until(|| engine
            .review(JsValue::from(&third))
            .is_ok_and(|sheet| !sheet.is_null()))
        .await
    );
    engine.stop(JsValue::from(&third)).unwrap();
    // A "never allow" grant refuses the call; a grant needs a real scope.
    let denied = engine
        .grant(js(
            serde_json::json!({"participant": "tasks", "decision": "deny", "ttlMs": 60_000}),
        ))
        .unwrap();
    assert_eq!(
        get(&denied, "decision").as_string().as_deref(),
        Some("deny")
    );
    // A fixed plan has no one to correct a refusal: it ends as an error.
    let fourth = reviewed_plan(&engine);
    assert_eq!(returned(&engine, &fourth).await.as_deref(), Some("error"));
    let journal: Value =
        serde_wasm_bindgen::from_value(engine.journal(JsValue::from(&fourth)).unwrap()).unwrap();
    assert!(journal
        .as_array()
        .unwrap()
        .iter()
        .any(|record| record["entry"]["refusal"]["code"] == "denied"));
    let unknown = engine
        .grant(js(
            serde_json::json!({"participant": "nope", "decision": "allow", "ttlMs": 1}),
        ))
        .unwrap_err();
    assert_eq!(
        get(&unknown, "code").as_string().as_deref(),
        Some("invalid-grant")
    );
    assert_eq!(
        get(&unknown, "requirement").as_string().as_deref(),
        Some("AG-30")
    );
}

#[wasm_bindgen_test]
async fn a_closed_engine_throws_closed_from_every_method_and_closing_again_does_nothing() {
    let engine = open().await;
    let participant = engine.mount(manifest(), participant(&element().into(), 0, 0));
    let run = engine.delegate(plan(1)).unwrap();
    engine.close();
    let code = |thrown: JsValue| get(&thrown, "code").as_string();
    let closed = Some("closed".to_owned());
    assert_eq!(
        code(engine.state(JsValue::from(&run)).unwrap_err()),
        closed,
        "state"
    );
    assert_eq!(
        code(engine.delegate(plan(1)).unwrap_err()),
        closed,
        "delegate"
    );
    assert_eq!(code(engine.storage().unwrap_err()), closed, "storage");
    assert_eq!(code(engine.session().unwrap_err()), closed, "session");
    let listener: js_sys::Function = Closure::<dyn Fn()>::new(|| {})
        .into_js_value()
        .unchecked_into();
    assert_eq!(
        code(engine.subscribe(JsValue::from(listener)).unwrap_err()),
        closed,
        "subscribe"
    );
    let refused = engine.register(manifest(), JsValue::UNDEFINED).unwrap_err();
    assert_eq!(code(refused), closed, "register");
    assert_eq!(code(engine.kill_all().unwrap_err()), closed, "killAll");
    let stamp = js_sys::JSON::parse(r#"{"version": 2}"#).unwrap();
    let published = participant.publish(JsValue::from("board"), stamp);
    assert_eq!(code(published.unwrap_err()), closed, "a participant of it");
    engine.close();
}
