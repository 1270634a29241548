//! AG-UI over `fetch` in the browser, against the real peer under
//! `tests/peers/` (the official Python SDK) that `cargo xtask test` starts.

use super::test_support::participant;
use super::test_support::{listen, record, returned, until};
use super::transport_tests::{board_with, delegation, js, open_with, reason, title};
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
        .answer(
            JsValue::from(&id),
            JsValue::from(&digest),
            js(serde_json::json!({"name": 7})),
        )
        .unwrap_err();
    assert_eq!(
        get(&wrong, "code").as_string().as_deref(),
        Some("invalid-answer")
    );
    engine
        .answer(
            JsValue::from(&id),
            JsValue::from(&digest),
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

/// An engine with `transport`, the task board mounted, and `options`.
async fn board_opened(transport: &JsValue, options: serde_json::Value) -> (Engine, JsValue) {
    let engine = open_with(transport, options).await.unwrap();
    let board = participant(&super::test_support::element().into(), 0, 0);
    engine.mount(super::test_support::manifest(), board.clone());
    (engine, board)
}

/// The kinds of a run's journal entries, in order.
fn journal_kinds(engine: &Engine, run: &str) -> Vec<String> {
    let journal: js_sys::Array = engine.journal(JsValue::from(run)).unwrap().unchecked_into();
    journal
        .iter()
        .map(|record| {
            get(&get(&record, "entry"), "kind")
                .as_string()
                .unwrap_or_default()
        })
        .collect()
}

#[wasm_bindgen_test]
async fn turn_limits_hold_on_the_agui_transport() {
    // Thirty bytes of text against a limit of eight: the run ends, typed.
    let limits = serde_json::json!({"turnLimits": {"maxTextBytes": 8}});
    let (engine, _board) = board_opened(&agui("chatty"), limits).await;
    let run = engine.delegate(delegation("Say something")).unwrap();
    assert_eq!(
        returned(&engine, &run).await.as_deref(),
        Some("error"),
        "is the AG-UI peer running at {PEER}?"
    );
    let state = engine.state(JsValue::from(&run)).unwrap();
    let why = get(&state, "reason");
    assert_eq!(
        get(&why, "kind").as_string().as_deref(),
        Some("turn-over-limit")
    );
    assert_eq!(get(&why, "lane").as_string().as_deref(), Some("text"));
    assert_eq!(get(&why, "limit").as_f64(), Some(8.0));
    // A limit the text fits: the same stream is an answer without changes.
    let roomy = serde_json::json!({"turnLimits": {"maxTextBytes": 1000}});
    let (engine, _board) = board_opened(&agui("chatty"), roomy).await;
    let run = engine.delegate(delegation("Say something")).unwrap();
    assert_eq!(cancelled(&engine, &run).await.as_deref(), Some("no-plan"));
}

/// Waits (up to two seconds) for the run to be cancelled, and gives why.
async fn cancelled(engine: &Engine, run: &str) -> Option<String> {
    let why = || {
        let state = engine.state(JsValue::from(run)).ok()?;
        (get(&state, "state").as_string().as_deref() == Some("cancelled"))
            .then(|| get(&get(&state, "reason"), "kind").as_string())
            .flatten()
    };
    until(|| why().is_some()).await;
    why()
}

#[wasm_bindgen_test]
async fn agui_reasoning_is_its_own_bounded_lane_and_reaches_subscribers() {
    let (engine, _board) = board_opened(&agui("reasoning"), serde_json::json!({})).await;
    let reasoning = record(&engine, Some("reasoning"));
    let run = engine.delegate(delegation("Think first")).unwrap();
    assert_eq!(cancelled(&engine, &run).await.as_deref(), Some("no-plan"));
    assert!(reasoning.length() > 0, "the reasoning reached subscribers");
    assert_eq!(get(&reasoning.get(0), "encrypted").as_bool(), Some(false));
    let limits = serde_json::json!({"turnLimits": {"maxReasoningBytes": 100}});
    let (engine, _board) = board_opened(&agui("reasoning"), limits).await;
    let run = engine.delegate(delegation("Think first")).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("error"));
    let why = get(&engine.state(JsValue::from(&run)).unwrap(), "reason");
    assert_eq!(get(&why, "lane").as_string().as_deref(), Some("reasoning"));
}

#[wasm_bindgen_test]
async fn agui_the_agents_own_tool_is_its_act_and_the_run_goes_on() {
    let (engine, board) = board_with(&agui("own_tool")).await;
    let run = engine.delegate(delegation("Rename card 7")).unwrap();
    assert_eq!(
        returned(&engine, &run).await.as_deref(),
        Some("completed"),
        "{:?}",
        engine
            .state(JsValue::from(&run))
            .ok()
            .map(|s| js_sys::JSON::stringify(&s).unwrap())
    );
    assert_eq!(title(&board, "card-7").as_deref(), Some("Ship the release"));
    let kinds = journal_kinds(&engine, &run);
    assert!(kinds.iter().any(|k| k == "agent-acted"), "{kinds:?}");
    assert!(!kinds.iter().any(|k| k == "call-refused"), "{kinds:?}");
    // The agent's closing words are in the run's history.
    assert!(kinds.iter().any(|k| k == "said"), "{kinds:?}");
    let journal: js_sys::Array = engine
        .journal(JsValue::from(&run))
        .unwrap()
        .unchecked_into();
    let act = journal
        .iter()
        .find(|record| {
            get(&get(record, "entry"), "kind").as_string().as_deref() == Some("agent-acted")
        })
        .unwrap();
    assert_eq!(
        get(&get(&act, "actor"), "kind").as_string().as_deref(),
        Some("acting-party")
    );
    assert_eq!(
        get(&get(&act, "entry"), "tool").as_string().as_deref(),
        Some("web_search")
    );
}

/// Why a run on the peer's `scenario` returned: it must be `agent-error`.
async fn agent_error(scenario: &str) -> JsValue {
    let (engine, _board) = board_with(&agui(scenario)).await;
    let run = engine.delegate(delegation("Anything")).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("error"));
    let why = get(&engine.state(JsValue::from(&run)).unwrap(), "reason");
    assert_eq!(
        get(&why, "kind").as_string().as_deref(),
        Some("agent-error")
    );
    why
}

#[wasm_bindgen_test]
async fn agui_an_http_error_from_the_agent_is_agent_error_with_its_status() {
    let why = agent_error("refuse").await;
    assert_eq!(get(&why, "status").as_f64(), Some(500.0));
}

/// An error whose body never ends is read only as far as what is said of
/// it: the run ends at once on the agent's error, not at the turn's deadman.
#[wasm_bindgen_test]
async fn agui_an_http_error_whose_body_never_ends_is_agent_error_at_once() {
    let why = agent_error("flood").await;
    assert_eq!(get(&why, "status").as_f64(), Some(503.0));
    let message = get(&why, "message").as_string().unwrap_or_default();
    assert!(
        message.starts_with("the agent answered HTTP 503: overloaded"),
        "{message}"
    );
    assert!(
        message.chars().count() <= 600,
        "{} characters",
        message.chars().count()
    );
}

/// The follow-up request carries the assistant message that made the call
/// it answers, however fast the participant answers: the peer refuses a
/// history that lacks it (HTTP 500), as pydantic-ai does. Twenty
/// delegations on one thread, each with an instant `invoke`.
#[wasm_bindgen_test]
async fn agui_every_follow_up_carries_the_call_it_answers_on_one_thread() {
    let (engine, board) = board_with(&agui("tool")).await;
    for attempt in 0..20 {
        let run = engine.delegate(delegation("Rename card 7")).unwrap();
        assert_eq!(
            returned(&engine, &run).await.as_deref(),
            Some("completed"),
            "delegation {attempt}: {:?}",
            engine
                .state(JsValue::from(&run))
                .ok()
                .map(|s| js_sys::JSON::stringify(&s).unwrap())
        );
    }
    assert_eq!(title(&board, "card-7").as_deref(), Some("Ship the release"));
}

/// Who acted is a chain: a call made through the peer's subagent is
/// announced, journalled and attributed as the subagent's, for the acting
/// party (AG-32, AG-37).
#[wasm_bindgen_test]
async fn agui_a_subagents_call_is_announced_and_journalled_as_the_chain() {
    let (engine, board) = board_with(&agui("subagent")).await;
    let heard = listen().await;
    let run = engine.delegate(delegation("Rename card 7")).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert_eq!(title(&board, "card-7").as_deref(), Some("Researched title"));
    assert!(
        heard
            .messages()
            .iter()
            .any(|said| said.starts_with("Researcher, for Assistant, is making 1 change in")),
        "{:?}",
        heard.messages()
    );
    let journal: js_sys::Array = engine
        .journal(JsValue::from(&run))
        .unwrap()
        .unchecked_into();
    let dispatched = journal
        .iter()
        .map(|record| get(&record, "entry"))
        .find(|entry| get(entry, "kind").as_string().as_deref() == Some("call-dispatched"))
        .unwrap();
    assert_eq!(
        js_sys::JSON::stringify(&get(&dispatched, "via"))
            .unwrap()
            .as_string()
            .as_deref(),
        Some("[\"researcher\"]")
    );
}

/// A plan the person rejected is told to the agent: the next delegation on
/// the thread carries a `tool` message for the call, its `error` saying it
/// was not carried out, with the person's note.
#[wasm_bindgen_test]
async fn agui_a_rejection_reaches_the_agent_with_the_persons_note() {
    let (engine, board) = board_with(&agui("heard")).await;
    let review = js(serde_json::json!({
        "intent": "Rename card 7", "initiative": "user", "autonomy": "review",
    }));
    let run = engine.delegate(review).unwrap();
    assert!(
        until(|| get(&engine.state(JsValue::from(&run)).unwrap(), "state")
            .as_string()
            .as_deref()
            == Some("reviewing"))
        .await,
        "the plan came for review"
    );
    let revision = get(&engine.review(JsValue::from(&run)).unwrap(), "revision")
        .as_f64()
        .unwrap();
    engine
        .reject(
            JsValue::from(&run),
            JsValue::from(revision),
            JsValue::from("not that card"),
        )
        .unwrap();
    let next = engine.delegate(delegation("Anything else?")).unwrap();
    assert!(
        until(|| journal_kinds(&engine, &next).iter().any(|k| k == "said")).await,
        "{:?}",
        journal_kinds(&engine, &next)
    );
    let journal: js_sys::Array = engine
        .journal(JsValue::from(&next))
        .unwrap()
        .unchecked_into();
    let said = journal
        .iter()
        .map(|record| get(&record, "entry"))
        .find(|entry| get(entry, "kind").as_string().as_deref() == Some("said"))
        .unwrap();
    assert_eq!(
        get(&said, "text").as_string().as_deref(),
        Some("Heard: not carried out (rejected): not that card")
    );
    assert_eq!(title(&board, "card-7"), None, "nothing ran");
}

/// `delegate({ thread })` names the conversation a run continues: two
/// delegations on `support-42` share one transcript and `threadId`, while
/// one that names none stays on the session's own.
#[wasm_bindgen_test]
async fn agui_a_named_thread_is_its_own_conversation() {
    let (engine, _board) = board_with(&agui("thread")).await;
    let said_by = |run: &str| {
        let journal: js_sys::Array = engine.journal(JsValue::from(run)).unwrap().unchecked_into();
        journal
            .iter()
            .map(|record| get(&record, "entry"))
            .find(|entry| get(entry, "kind").as_string().as_deref() == Some("said"))
            .and_then(|entry| get(&entry, "text").as_string())
    };
    let mut said = Vec::new();
    for thread in [Some("support-42"), None, Some("support-42")] {
        let mut request =
            serde_json::json!({"intent": "Hello", "initiative": "user", "autonomy": "auto"});
        if let Some(thread) = thread {
            request["thread"] = thread.into();
        }
        let run = engine.delegate(js(request)).unwrap();
        assert!(
            until(|| said_by(&run).is_some()).await,
            "{:?}",
            journal_kinds(&engine, &run)
        );
        said.push(said_by(&run).unwrap());
    }
    let session = engine.session().unwrap();
    assert_eq!(
        said,
        [
            "Thread support-42: 1 delegations".to_owned(),
            format!("Thread {session}: 1 delegations"),
            "Thread support-42: 2 delegations".to_owned(),
        ]
    );
    // A thread is named by 1 to 256 bytes: an empty name is refused, typed.
    let refused = engine
        .delegate(js(
            serde_json::json!({"intent": "x", "initiative": "user", "thread": ""}),
        ))
        .unwrap_err();
    assert_eq!(
        get(&refused, "code").as_string().as_deref(),
        Some("invalid-delegation")
    );
}

/// A run whose only failure was a refused call ends `completed`, and says
/// so: `refused` in the state `run.returned` gives, and in what the person
/// hears.
#[wasm_bindgen_test]
async fn agui_a_run_that_finished_with_a_refused_call_says_so() {
    let (engine, board) = board_with(&agui("oversized")).await;
    let heard = listen().await;
    let run = engine.delegate(delegation("Rename card 7")).unwrap();
    assert_eq!(returned(&engine, &run).await.as_deref(), Some("completed"));
    assert_eq!(title(&board, "card-7"), None, "nothing ran");
    assert_eq!(
        get(&engine.state(JsValue::from(&run)).unwrap(), "refused").as_f64(),
        Some(1.0)
    );
    assert!(until(|| super::test_support::written_all(&engine)).await);
    assert_eq!(
        heard.messages().last().map(String::as_str),
        Some("Assistant answered “Rename card 7” without changes; 1 call was refused.")
    );
}

/// The words of a run's first `said` record, once it has one.
async fn first_said(engine: &Engine, run: &str) -> Option<String> {
    let said = || {
        let journal: js_sys::Array = engine.journal(JsValue::from(run)).unwrap().unchecked_into();
        journal
            .iter()
            .map(|record| get(&record, "entry"))
            .find(|entry| get(entry, "kind").as_string().as_deref() == Some("said"))
            .and_then(|entry| get(&entry, "text").as_string())
    };
    until(|| said().is_some()).await;
    said()
}

/// `engine.traceTurns(hook)`: the trace context the app's tracing names for
/// a turn reaches the agent as `traceparent` / `tracestate` headers; one
/// that is not Trace Context, or no hook at all, sends nothing.
#[wasm_bindgen_test]
async fn agui_a_turn_carries_the_trace_context_the_app_names() {
    let (engine, _board) = board_with(&agui("traced")).await;
    let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let asked = js_sys::Array::new();
    let heard = asked.clone();
    let hook = Closure::<dyn Fn(JsValue, JsValue) -> JsValue>::new(move |run, turn| {
        heard.push(&js_sys::Array::of2(&run, &turn));
        js(serde_json::json!({"traceparent": parent, "tracestate": "baton=t1"}))
    });
    engine.trace_turns(hook.as_ref().clone()).unwrap();
    let run = engine.delegate(delegation("Who is tracing?")).unwrap();
    assert_eq!(
        first_said(&engine, &run).await.as_deref(),
        Some(format!("traceparent={parent} tracestate=baton=t1").as_str()),
        "is the AG-UI peer running at {PEER}?"
    );
    assert_eq!(asked.length(), 1, "the hook is asked once per turn");
    let asked = js_sys::Array::from(&asked.get(0));
    assert_eq!(asked.get(0).as_string().as_deref(), Some(run.as_str()));
    assert_eq!(asked.get(1).as_f64(), Some(1.0), "the run's first turn");

    let forged = Closure::<dyn Fn(JsValue) -> JsValue>::new(|_| {
        js(serde_json::json!({"traceparent": "00-zz\r\nx-injected: 1", "tracestate": "a=b"}))
    });
    engine.trace_turns(forged.as_ref().clone()).unwrap();
    let run = engine.delegate(delegation("And now?")).unwrap();
    assert_eq!(
        first_said(&engine, &run).await.as_deref(),
        Some("traceparent=None tracestate=None"),
        "a header that is not Trace Context is not sent"
    );

    engine.trace_turns(JsValue::NULL).unwrap();
    let run = engine.delegate(delegation("Untraced?")).unwrap();
    assert_eq!(
        first_said(&engine, &run).await.as_deref(),
        Some("traceparent=None tracestate=None"),
        "without a hook nothing is sent"
    );
    let wrong = engine.trace_turns(JsValue::from(7)).unwrap_err();
    assert_eq!(
        get(&wrong, "code").as_string().as_deref(),
        Some("invalid-value")
    );
}
