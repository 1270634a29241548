//! How an engine reaches the parties it calls out to and answers: the
//! acting party's transport, the transports of runs that bring their own,
//! the requests of the turns open now, the participants' behaviours, and
//! the promises of undos under way.

use std::collections::BTreeMap;

use baton_core::{ParticipantId, RunId, TurnId};
use wasm_bindgen::JsValue;

pub(super) struct Reach {
    /// The acting party's transport, if any (AG-50).
    transport: Option<JsValue>,
    /// Transports of runs that reach their acting party their own way (a
    /// browser agent's session), by run.
    /// (A list: there are few, and a map of its own would cost the module
    /// a tree's code for this alone.)
    run_transports: Vec<(RunId, JsValue)>,
    /// Open turns' requests, to abort when the engine stops waiting.
    turns: BTreeMap<(RunId, TurnId), web_sys::AbortController>,
    /// Each mounted participant's behaviour (`invoke`, `history`, …).
    behaviours: BTreeMap<ParticipantId, JsValue>,
    /// The promises of undos under way (how to resolve and reject each),
    /// resolved with their reports. (A list: there are few, and a map of
    /// its own cost the module 3 KB.)
    undos: Vec<(RunId, [js_sys::Function; 2])>,
    /// The app's tracing, asked for each turn's trace context
    /// (`engine.traceTurns`).
    tracer: Option<js_sys::Function>,
}

impl Reach {
    pub(super) fn new(transport: Option<JsValue>) -> Reach {
        Reach {
            transport,
            run_transports: Vec::new(),
            turns: BTreeMap::new(),
            behaviours: BTreeMap::new(),
            undos: Vec::new(),
            tracer: None,
        }
    }

    /// The app traces turns with `hook`, or no longer does (`None`).
    pub(super) fn trace_turns(&mut self, hook: Option<js_sys::Function>) {
        self.tracer = hook;
    }

    /// The app's tracing hook, called outside the engine's state.
    pub(super) fn tracer(&self) -> Option<js_sys::Function> {
        self.tracer.clone()
    }

    /// The transport that reaches a run's acting party: its own, or the
    /// engine's.
    pub(super) fn transport_of(&self, run: &RunId) -> Option<JsValue> {
        let own = self.run_transports.iter().find(|(id, _)| id == run);
        own.map(|(_, transport)| transport.clone())
            .or_else(|| self.transport.clone())
    }

    /// `run` reaches its acting party through `transport`; the transports
    /// of runs no longer `live` are let go.
    pub(super) fn own_transport(
        &mut self,
        run: RunId,
        transport: JsValue,
        live: impl Fn(&RunId) -> bool,
    ) {
        self.run_transports.retain(|(run, _)| live(run));
        self.run_transports.push((run, transport));
    }

    /// A turn's request went out; `controller` aborts it.
    pub(super) fn turn_opened(
        &mut self,
        run: RunId,
        turn: TurnId,
        controller: web_sys::AbortController,
    ) {
        self.turns.insert((run, turn), controller);
    }

    /// A turn ended: its controller, if the request was still open.
    pub(super) fn turn_ended(
        &mut self,
        run: RunId,
        turn: TurnId,
    ) -> Option<web_sys::AbortController> {
        self.turns.remove(&(run, turn))
    }

    /// A participant's behaviour.
    pub(super) fn behaviour(&self, participant: &ParticipantId) -> Option<JsValue> {
        self.behaviours.get(participant).cloned()
    }

    /// A participant mounted with `behaviour`.
    pub(super) fn mount(&mut self, participant: ParticipantId, behaviour: JsValue) {
        self.behaviours.insert(participant, behaviour);
    }

    /// A participant unmounted.
    pub(super) fn unmount(&mut self, participant: &ParticipantId) {
        self.behaviours.remove(participant);
    }

    /// An undo of `run` started; `settle` resolves and rejects its promise.
    pub(super) fn undo_started(&mut self, run: RunId, settle: [js_sys::Function; 2]) {
        self.undos.push((run, settle));
    }

    /// The undo of `run` is over: what resolves its promise.
    pub(super) fn undo_done(&mut self, run: &RunId) -> Option<js_sys::Function> {
        let at = self.undos.iter().position(|(id, _)| id == run)?;
        let (_, [resolve, _]) = self.undos.swap_remove(at);
        Some(resolve)
    }
}

impl Drop for Reach {
    /// The engine went away: every open turn's request is aborted, and
    /// every undo under way rejects `closed`.
    fn drop(&mut self) {
        for (_, controller) in std::mem::take(&mut self.turns) {
            controller.abort();
        }
        for (_, [_, reject]) in std::mem::take(&mut self.undos) {
            let closed = crate::errors::error(
                crate::errors::Code::Closed,
                "the engine closed before the undo finished",
            );
            let _ = reject.call1(&JsValue::NULL, &closed);
        }
    }
}
