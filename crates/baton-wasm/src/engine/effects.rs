//! Carrying out the core's effects: marks, calls, previews and reverts
//! through participants' (possibly async) behaviour, turns through the
//! transport with deep reads by attention.

use baton_core::{
    ActorRef, CallId, CapabilityRef, HostFailure, Inbound, PullReads, Report, TraceContext,
};

use super::drive::notify_value;
use super::*;
use crate::transport::Own;

pub(super) fn behaviour(inner: &Shared, participant: &ParticipantId) -> JsValue {
    inner
        .reach(|reach| reach.behaviour(participant))
        .unwrap_or(JsValue::UNDEFINED)
}

/// AG-40: the participant's element is busy exactly while a call mutates it.
/// The element is touched only when that changes: calls of concurrent runs
/// overlap, and the attribute says whether any is under way.
/// `busy` starts a change of the participant (`true`) or ends one: its
/// element, read as the change starts, is the one its end clears — even once
/// the participant has unmounted or the engine has closed meanwhile.
fn set_busy(inner: Option<&Shared>, participant: &ParticipantId, element: &JsValue, busy: bool) {
    let delta = if busy { 1 } else { -1 };
    let changed = inner.is_none_or(|inner| {
        let (before, after) = inner.page(|page| page.busy(participant, delta));
        (before > 0) != (after > 0)
    });
    if let (true, Some(element)) = (changed, element.dyn_ref::<web_sys::Element>()) {
        let _ = if busy {
            element.set_attribute("aria-busy", "true")
        } else {
            element.remove_attribute("aria-busy")
        };
    }
}

/// The element of `participant`, as its behaviour gives it now.
fn element_of(inner: &Shared, participant: &ParticipantId) -> JsValue {
    get(&behaviour(inner, participant), "element")
}

/// Carries out one of the core's effects: a participant is called (its
/// answer reported back later), a turn is opened or cancelled.
pub(super) fn carry_out(inner: &Shared, effect: Effect) {
    match effect {
        Effect::Mark { run, participant } => mark(inner, run, participant),
        Effect::Invoke {
            run,
            call,
            capability,
            arguments,
            planned_against,
            actor,
        } => {
            let context = Context {
                planned_against: planned_against
                    .into_iter()
                    .map(|stamp| (stamp.read.read, stamp.version))
                    .collect(),
            };
            invoke(inner, run, call, capability, &arguments, &actor, &context)
        }
        Effect::Revert {
            run,
            participant,
            token,
        } => revert(inner, run, participant, &token),
        Effect::Preview {
            run,
            call,
            capability,
            arguments,
        } => preview(inner, run, call, &capability, &arguments),
        Effect::OpenTurn {
            run, turn, request, ..
        } => open_turn(inner, run, turn, *request),
        Effect::CancelTurn { run, turn } => {
            // Released before aborting: abort listeners run synchronously
            // and may call back into the engine.
            let controller = inner.reach(|reach| reach.turn_ended(run, turn));
            if let Some(controller) = controller {
                controller.abort();
            }
        }
    }
}

/// `history.mark()`: the token the run reverts to.
fn mark(inner: &Shared, run: RunId, participant: ParticipantId) {
    let weak = inner.downgrade();
    let history = get(&behaviour(inner, &participant), "history");
    call_then(
        inner.downgrade().poisoner(),
        &history,
        "mark",
        &[],
        move |result| {
            report(&weak, || {
                let token = result.map_err(failure).and_then(|value| {
                    convert::value(&value)
                        .map_err(|e| {
                            HostFailure::new(format!(
                                "mark() returned something that is not a token: {e}"
                            ))
                        })
                        .and_then(MarkToken::from_json)
                });
                Report::Mark {
                    run,
                    participant,
                    token,
                }
            });
        },
    );
}

/// What `invoke` is told besides the call: the versions of the
/// participant's reads the call was planned against (AG-20), by read name,
/// so it can write only if they still hold.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Context {
    planned_against: std::collections::BTreeMap<String, u64>,
}

/// `invoke(name, arguments, actor, { plannedAgainst })`, the participant
/// busy meanwhile (AG-40).
fn invoke(
    inner: &Shared,
    run: RunId,
    call: CallId,
    capability: CapabilityRef,
    arguments: &Value,
    actor: &ActorRef,
    context: &Context,
) {
    let weak = inner.downgrade();
    let participant = capability.participant.clone();
    let element = element_of(inner, &participant);
    set_busy(Some(inner), &participant, &element, true);
    let args = to_js(arguments).unwrap_or(JsValue::NULL);
    let name = JsValue::from_str(&capability.capability);
    let actor = JsValue::from_str(actor.as_str());
    let context = to_js(context).unwrap_or(JsValue::NULL);
    call_then(
        inner.downgrade().poisoner(),
        &behaviour(inner, &participant),
        "invoke",
        &[name, args, actor, context],
        move |result| {
            set_busy(weak.upgrade().as_ref(), &participant, &element, false);
            report(&weak, || {
                match result.map(|value| convert::value(&value)) {
                    Ok(Ok(value)) => Report::Call {
                        run,
                        call,
                        result: CallResult::Applied { value },
                    },
                    // It ran; what it returned is lost, and the core says so.
                    Ok(Err(unreadable)) => Report::UnreadableResult {
                        run,
                        call,
                        detail: unreadable.to_string(),
                    },
                    Err(failed) => Report::Call {
                        run,
                        call,
                        result: CallResult::thrown(failed.into_message()),
                    },
                }
            });
        },
    );
}

/// `history.revertTo(token)`, the participant busy meanwhile (AG-40).
fn revert(inner: &Shared, run: RunId, participant: ParticipantId, token: &MarkToken) {
    let weak = inner.downgrade();
    let history = get(&behaviour(inner, &participant), "history");
    // A reverting participant is being changed, as by a call (AG-40).
    let element = element_of(inner, &participant);
    set_busy(Some(inner), &participant, &element, true);
    call_then(
        inner.downgrade().poisoner(),
        &history,
        "revertTo",
        &[to_js(&token.to_json()).unwrap_or(JsValue::UNDEFINED)],
        move |result| {
            set_busy(weak.upgrade().as_ref(), &participant, &element, false);
            report(&weak, || {
                let result = result.map(|_| ()).map_err(failure);
                Report::Revert {
                    run,
                    participant,
                    result,
                }
            });
        },
    );
}

/// `preview(name, arguments)`: the concrete change, for review (AG-31).
fn preview(
    inner: &Shared,
    run: RunId,
    call: CallId,
    capability: &CapabilityRef,
    arguments: &Value,
) {
    let weak = inner.downgrade();
    let args = to_js(arguments).unwrap_or(JsValue::NULL);
    let name = JsValue::from_str(&capability.capability);
    call_then(
        inner.downgrade().poisoner(),
        &behaviour(inner, &capability.participant),
        "preview",
        &[name, args],
        move |result| {
            report(&weak, || {
                // A preview JSON cannot hold is no preview: the person
                // reviews the arguments, with a note that says why.
                let change = result.map_err(failure).and_then(|value| {
                    convert::value(&value).map_err(|unreadable| {
                        HostFailure::new(format!("it is not JSON ({unreadable})"))
                    })
                });
                Report::Preview { run, call, change }
            });
        },
    );
}

/// Opens a turn with the transport: the deep reads are gathered first (a
/// participant's `read` may be async), then `openTurn(request, sink, signal)`
/// is called outside the engine loop. The promise it returns settling ends
/// the stream; a rejection, unless the engine aborted the request, is
/// `transport-lost`.
pub(super) fn open_turn(inner: &Shared, run: RunId, turn: TurnId, mut request: TurnRequest) {
    // The core opens no turn without a transport (AG-50): delegating to an
    // acting party, or resuming one, is refused up front. Should one come
    // anyway, the fact is reported and the core ends the run now.
    let Some(transport) = transport_of(inner, &run) else {
        let lost = Inbound::TransportLost {
            message: "no transport is configured".into(),
        };
        let input = baton_core::Signal::Inbound {
            run: run.clone(),
            turn,
            inbound: lost,
        };
        inner.feed(input);
        return;
    };
    let Ok(controller) = web_sys::AbortController::new() else {
        return;
    };
    let signal = controller.signal();
    inner.reach(|reach| reach.turn_opened(run.clone(), turn, controller));
    if let Some(hook) = inner.reach(|reach| reach.tracer()) {
        request.trace = trace_of(&hook, &run, turn);
    }
    let weak = inner.downgrade();
    weak.clone().spawn(async move {
        let reads = deep_reads(&weak, &request).await;
        let Some(reads) = reads.filter(|_| !signal.aborted()) else {
            // Stopped while the reads were gathered: the turn is not sent.
            return;
        };
        request.reads = reads;
        let limits = weak
            .upgrade()
            .map(|inner| inner.core(|core| core.config().turn_limits))
            .unwrap_or_default();
        let sink = TurnSink::new(Box::new(EngineHost(weak.clone())), &request, limits);
        // Baton's own transports are driven in Rust; any other through its
        // `openTurn(request, sink, signal)`.
        let ended = match Own::of(&transport) {
            Some(own) => own
                .open_turn(request, sink.clone(), signal.clone())
                .await
                .map_err(CallError::Rejected),
            None => match to_js(&request) {
                Err(thrown) => Err(CallError::Threw(message_of(&thrown))),
                Ok(value) => {
                    let args = [value, JsValue::from(sink.clone()), signal.clone().into()];
                    settled(call(&transport, "openTurn", &args)).await.map(drop)
                }
            },
        };
        if signal.aborted() {
            // The engine stopped waiting (a stop, a kill, a deadman turn).
            return;
        }
        match ended {
            Ok(_) => sink.finish(),
            Err(failed) => sink.lost(failed.into_message()),
        }
        if let Some(inner) = weak.upgrade() {
            inner.reach(|reach| reach.turn_ended(run, turn));
        }
    });
}

/// The trace context the app's tracing gives a turn: `hook(run, turn)`,
/// checked by the core. A hook that throws, returns nothing, or returns
/// headers that are not Trace Context sends nothing.
fn trace_of(hook: &js_sys::Function, run: &RunId, turn: TurnId) -> Option<TraceContext> {
    let given = hook
        .call2(&JsValue::NULL, &run.as_str().into(), &turn.0.into())
        .ok()?;
    let traceparent = get(&given, "traceparent").as_string()?;
    let tracestate = get(&given, "tracestate").as_string();
    TraceContext::new(&traceparent, tracestate.as_deref()).ok()
}

/// The transport that reaches a run's acting party: its own, or the
/// engine's.
fn transport_of(inner: &Shared, run: &RunId) -> Option<JsValue> {
    inner.reach(|reach| reach.transport_of(run))
}

/// The core settled calls whose outcome the acting party had not heard
/// when its run ended: a transport that keeps a conversation
/// (`settle({run, results})`, optional in the port) tells the acting party
/// there. What it does is its own; a throw changes nothing in the engine.
/// The transport gets the event as subscribers do.
pub(super) fn settle_calls(inner: &Shared, settled: &baton_core::Event) {
    let baton_core::Event::CallsSettled { run, .. } = settled else {
        return;
    };
    let Some(transport) = transport_of(inner, run) else {
        return;
    };
    if let Some(own) = Own::of(&transport) {
        if let baton_core::Event::CallsSettled { results, .. } = settled {
            own.settle(run, results);
        }
        return;
    }
    if !get(&transport, "settle").is_function() {
        return;
    }
    if let Ok(value) = to_js(settled) {
        let _ignored_by_design = call(&transport, "settle", &[value]);
    }
}

/// Deep reads for a turn: the host gathers every read of the turn's
/// context — its participant's place in the person's attention and the
/// content its `read(name)` gives (a missing or failing `read` is said so)
/// — and the core chooses which go, and journals why (A.1). `None` when the
/// turn closed meanwhile.
pub(super) async fn deep_reads(weak: &WeakShared, request: &TurnRequest) -> Option<Vec<DeepRead>> {
    let mut candidates = Vec::new();
    for stamp in &request.context.reads {
        let inner = weak.upgrade()?;
        let behaviour = behaviour(&inner, &stamp.read.participant);
        drop(inner);
        let attention = attention(&get(&behaviour, "element"));
        let content = read_content(&behaviour, &stamp.read.read).await;
        candidates.push(ReadCandidate {
            stamp: stamp.clone(),
            attention,
            content,
        });
    }
    let inner = weak.upgrade()?;
    inner.tell(PullReads {
        run: request.run.clone(),
        turn: request.turn,
        candidates,
    })
}

/// A read's content through the participant's `read(name)`, with its size
/// in bytes of JSON text, or why there is none.
async fn read_content(behaviour: &JsValue, name: &str) -> Result<(Value, u64), HostFailure> {
    if !get(behaviour, "read").is_function() {
        return Err("the participant has no read function".into());
    }
    let value = settled(call(behaviour, "read", &[JsValue::from_str(name)]))
        .await
        .map_err(|failed| HostFailure::new(format!("read failed: {failed}")))?;
    let not_json =
        |why: String| HostFailure::new(format!("read gave a value that is not JSON: {why}"));
    let text = convert::stringify(&value).map_err(|why| not_json(why.to_string()))?;
    let content = serde_json::from_str(&text).map_err(|error| not_json(error.to_string()))?;
    Ok((content, text.len() as u64))
}

/// Where a participant's element stands in the person's attention.
pub(super) fn attention(element: &JsValue) -> Attention {
    let Some(element) = element.dyn_ref::<web_sys::Element>() else {
        return Attention::Elsewhere;
    };
    let document = web_sys::window().and_then(|w| w.document());
    if let Some(active) = document.and_then(|d| d.active_element()) {
        if element.contains(Some(&active)) {
            return Attention::Focus;
        }
    }
    let rect = element.get_bounding_client_rect();
    let height = web_sys::window()
        .and_then(|w| w.inner_height().ok())
        .and_then(|h| h.as_f64())
        .unwrap_or(0.0);
    if rect.bottom() > 0.0 && rect.top() < height && rect.width() > 0.0 {
        Attention::Viewport
    } else {
        Attention::Elsewhere
    }
}

/// The engine as the receiver of a turn's traffic.
pub(super) struct EngineHost(WeakShared);

impl TurnHost for EngineHost {
    fn stray(&self, run: &RunId, turn: TurnId) {
        if let Some(inner) = self.0.upgrade() {
            let input = baton_core::Signal::AfterTurn {
                run: run.clone(),
                turn,
            };
            inner.tell(input);
        }
    }

    fn deliver(&self, run: &RunId, turn: TurnId, items: Vec<Verified>) {
        let Some(inner) = self.0.upgrade() else {
            return;
        };
        for item in Verified::join_texts(items) {
            // A turn the engine stopped waiting for says nothing more.
            let open = inner.core(|core| core.run(run).and_then(|r| r.open_turn()));
            let open = open == Some(turn);
            if !open && !matches!(item, Verified::Inbound(_)) {
                continue;
            }
            match item {
                Verified::Inbound(inbound) => {
                    let input = baton_core::Signal::Inbound {
                        run: run.clone(),
                        turn,
                        inbound,
                    };
                    inner.tell(input);
                }
                // Text and state reach subscribers and presence surfaces;
                // they are never announced one by one (AG-37).
                Verified::Text { message, delta } => emit(
                    &inner,
                    &HostEvent::Text {
                        run: run.clone(),
                        message,
                        delta,
                    },
                ),
                Verified::State { direction, event } => emit(
                    &inner,
                    &HostEvent::State {
                        run: run.clone(),
                        direction,
                        event,
                    },
                ),
                Verified::Reasoning {
                    message,
                    delta,
                    encrypted,
                } => emit(
                    &inner,
                    &HostEvent::Reasoning {
                        run: run.clone(),
                        message,
                        delta,
                        encrypted,
                    },
                ),
                Verified::Activity {
                    message,
                    activity,
                    content,
                    patch,
                } => emit(
                    &inner,
                    &HostEvent::Activity {
                        run: run.clone(),
                        message,
                        activity,
                        content,
                        patch,
                    },
                ),
                Verified::Custom { name, value } => emit(
                    &inner,
                    &HostEvent::Custom {
                        run: run.clone(),
                        name,
                        value,
                    },
                ),
            }
        }
    }
}

/// An adapter event (not the core's) for subscribers and surfaces.
pub(super) fn emit(inner: &Shared, event: &HostEvent) {
    if inner.page(|page| page.has_listeners()) {
        if let Ok(value) = to_js(event) {
            notify_value(inner, &value);
        }
    }
}

/// Reports back to the core, if the engine is still open, then pumps.
pub(super) fn report(weak: &WeakShared, body: impl FnOnce() -> Report) {
    let Some(inner) = weak.upgrade() else {
        return;
    };
    // A refused report changed nothing; the core recorded it as a finding,
    // which the pump hands to subscribers like any other.
    let _recorded = inner.tell(body());
}

/// What a participant's failing handler said, as the core takes it.
fn failure(failed: CallError) -> HostFailure {
    HostFailure::new(failed.into_message())
}
