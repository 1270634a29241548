//! What an application calls on an engine: registration, delegation and the
//! person's decisions, questions, state, reads of runs — each a command to
//! the core, carried out in one step.

use super::*;
use baton_core::{
    Answer, AttachPresence, Authorize, Decline, Delegate, DetachPresence, Dismiss, EditCall,
    PatchAgentState, Pause, Postpone, RegisterText, Reject, ResolveEscalation, Resume,
    SetAgentState, Stop, Undo,
};

#[wasm_bindgen]
impl Engine {
    /// Mounts a participant: its manifest (JSON text or object) and its
    /// behaviour `{ invoke, history: { mark, revertTo }, preview, element,
    /// instance }`. `invoke` declines a call, without failing it, by
    /// throwing an error whose message starts `declined:`. Inert (AG-12);
    /// with no transport the participant keeps working as before (AG-50).
    ///
    /// Never throws for a manifest's problems (AG-13): the returned handle's
    /// `problems` lists each, with its requirement and JSON path; the engine
    /// emits one `registration-refused` event (replayed to later
    /// subscribers) and one console warning; the participant offers no
    /// tools, and only a call to one of its capabilities fails, with those
    /// problems.
    pub fn register(&self, manifest: JsValue, behaviour: JsValue) -> Result<Participant, JsValue> {
        let text = convert::text_or_stringify(&manifest)
            .map_err(|why| format!("the manifest is neither JSON text nor an object: {why}"));
        let instance = if behaviour.is_object() {
            get(&behaviour, "instance").as_string()
        } else {
            None
        };
        // Taken once: a listener told below may close the engine.
        let engine = self.live()?;
        let registered = match text {
            Ok(text) => engine.feed(RegisterText { text, instance }),
            Err(message) => Err(baton_core::RegistrationRefused {
                participant: None,
                problems: vec![baton_core::ManifestProblem {
                    path: "$".into(),
                    requirement: Some("AG-12".into()),
                    message,
                }],
            }),
        };
        if let Ok(id) = &registered {
            engine.reach(|reach| reach.mount(id.clone(), behaviour));
        }
        Ok(match registered {
            Ok(id) => {
                // What the acting party is offered changed (a bridge that
                // lists the tools follows).
                effects::emit(&engine, &HostEvent::ToolsChanged);
                Participant {
                    engine: engine.downgrade(),
                    id,
                    problems: Vec::new(),
                }
            }
            Err(refused) => {
                refuse_registration(&engine, &refused);
                Participant {
                    engine: engine.downgrade(),
                    id: refused
                        .participant
                        .unwrap_or_else(|| ParticipantId::new("")),
                    problems: refused.problems,
                }
            }
        })
    }

    /// Starts a delegation and returns its run id. With a fixed `plan` no
    /// acting party is involved (AG-3); without one, the acting party is
    /// reached through a transport, and with none configured this throws a
    /// `BatonError` with code `no-transport` (AG-50).
    pub fn delegate(&self, request: JsValue) -> Result<String, JsValue> {
        // A transport of the run's own (a browser agent's session): a live
        // object, taken out before the rest is read as JSON.
        let own = get(&request, "transport");
        let own = (own.is_object()).then_some(own);
        let request = match &own {
            Some(transport) => {
                check_transport(transport)?;
                let copy = js_sys::Object::assign(&js_sys::Object::new(), request.unchecked_ref());
                let _ = js_sys::Reflect::delete_property(&copy, &"transport".into());
                copy.into()
            }
            None => request,
        };
        let request: Value =
            convert::value(&request).map_err(|e| e.thrown_as(Code::InvalidDelegation))?;
        let mut delegation = Delegation::from_json(request).map_err(|refusal| refused(&refusal))?;
        if let Some(transport) = own {
            delegation.own_transport = true;
            self.live()?.reach_by_core(|reach, core| {
                // Runs that ended no longer need theirs.
                let live =
                    |run: &RunId| core.run(run).is_some_and(|run| !run.state().is_terminal());
                reach.own_transport(core.next_run_id(), transport, live);
            });
        }
        self.command(Delegate(delegation))
            .map(|run| run.to_string())
    }

    /// Authorizes a reviewed plan at the revision the person saw (AG-7,
    /// AG-31). `options` may narrow the allowlist (`["tasks.rename"]`), fix
    /// the budget, and make it a standing grant for a while
    /// (`grant: { ttlMs }`, AG-30).
    pub fn authorize(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] revision: JsValue,
        options: JsValue,
    ) -> Result<(), JsValue> {
        let run = convert::id(&run, "`run`")?;
        let revision = convert::whole_arg(&revision, "a revision")?;
        let options = convert::json(options, "the authorization")?;
        let authorization = if options.is_null() {
            baton_core::Authorization::default()
        } else {
            baton_core::Authorization::from_json(options).map_err(|refusal| refused(&refusal))?
        };
        // A grant given with it changes the header: the step writes it.
        self.command(Authorize {
            run: RunId::new(run),
            revision,
            authorization,
        })
    }

    /// The person takes control back: the run returns `aborted` (AG-9).
    pub fn stop(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
    ) -> Result<(), JsValue> {
        let run = convert::id(&run, "`run`")?;
        self.command(Stop(RunId::new(run)))
    }

    /// Pauses a run: it returns, and a chained run can resume it (AG-11).
    pub fn pause(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
    ) -> Result<(), JsValue> {
        let run = convert::id(&run, "`run`")?;
        self.command(Pause(RunId::new(run)))
    }

    /// Resumes a run that was paused, or whose transport was lost with
    /// nothing rolled back: a new run, chained to it, carrying its context
    /// (AG-11). Nothing reconnects on its own; this is the person's choice.
    /// `budget` replaces the old one if given. Returns the new run's id.
    pub fn resume(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
        budget: JsValue,
    ) -> Result<String, JsValue> {
        let run = convert::id(&run, "`run`")?;
        let budget = if budget.is_undefined() || budget.is_null() {
            None
        } else {
            Some(
                convert::from_js::<baton_core::Budget>(&budget)
                    .map_err(|e| e.thrown_as(Code::InvalidDelegation))?,
            )
        };
        self.command(Resume {
            run: RunId::new(run),
            budget,
        })
        .map(|id| id.to_string())
    }

    /// The global kill (AG-10): every active run of every engine in the
    /// page returns `aborted`, and so does every run of the origin's other
    /// tabs (told over a `BroadcastChannel`). Each run is journalled; the
    /// person hears it once, from this engine, for all of them. Returns how
    /// many runs of this page it ended.
    #[wasm_bindgen(js_name = killAll)]
    pub fn kill_all(&self) -> Result<u32, JsValue> {
        let ended = page::kill_page(Some(&self.live()?));
        page::tell_other_tabs();
        Ok(ended)
    }

    /// Distributed tracing of turns (W3C Trace Context): `hook(run, turn)`
    /// is called as each turn opens and returns `{ traceparent, tracestate? }`
    /// for the turn's span, or nothing. The engine checks it (a header that
    /// is not Trace Context is not sent) and sends it with the turn: AG-UI as
    /// `traceparent` / `tracestate` headers, any other transport in
    /// `request.trace`. `null` stops it; without a hook nothing is sent.
    /// `baton-engine/otel` sets it.
    #[wasm_bindgen(js_name = traceTurns)]
    pub fn trace_turns(&self, hook: JsValue) -> Result<(), JsValue> {
        let engine = self.live()?;
        let hook = match hook.dyn_into::<js_sys::Function>() {
            Ok(hook) => Some(hook),
            Err(other) if other.is_null() || other.is_undefined() => None,
            Err(_) => {
                let why = "traceTurns takes a function, or null to stop tracing";
                return Err(error(Code::InvalidValue, why));
            }
        };
        engine.reach(|reach| reach.trace_turns(hook));
        Ok(())
    }

    /// Calls `listener(event)` for every event the engine produces; returns
    /// a function that unsubscribes.
    pub fn subscribe(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Function")] listener: JsValue,
    ) -> Result<JsValue, JsValue> {
        let listener = convert::function(listener, "`listener`")?;
        // Taken once: the listener, told what stands, may close the engine.
        let engine = self.live()?;
        let id = engine.page(|page| page.subscribe(listener.clone()));
        // A subscriber always learns that storage fell back to memory, which
        // registrations were refused and which sessions were reconciled late,
        // whenever it subscribes.
        let degraded = engine.persistence(|persistence| persistence.degraded());
        let standing = engine.page(|page| page.standing());
        let standing = degraded
            .map(|cause| HostEvent::StorageDegraded { cause })
            .into_iter()
            .chain(standing);
        for event in standing {
            if let Ok(event) = to_js(&event) {
                let _ = listener.call1(&JsValue::NULL, &event);
            }
        }
        let weak = engine.downgrade();
        Ok(Closure::once_into_js(move || {
            if let Some(inner) = weak.upgrade() {
                inner.page(|page| page.unsubscribe(id));
            }
        }))
    }

    /// Presence surfaces (AG-35, AG-41): `engine.presence.attach(surface)`
    /// returns a function that detaches it. An attached surface receives
    /// every event at `surface.handleEvent(event)` — questions included, as
    /// non-modal events it can answer, decline, dismiss or postpone. While none is attached, a run above
    /// `suggest` that starts acting raises `presence-missing` (policy
    /// `warn`) or is refused (policy `require`).
    #[wasm_bindgen(getter)]
    pub fn presence(&self) -> Result<JsValue, JsValue> {
        let engine = self.live()?;
        if let Some(made) = engine.page(|page| page.presence()) {
            return Ok(made);
        }
        let weak = engine.downgrade();
        let attach = Closure::<dyn FnMut(JsValue) -> JsValue>::new(move |surface: JsValue| {
            let Some(inner) = weak.upgrade() else {
                return JsValue::UNDEFINED;
            };
            inner.feed(AttachPresence);
            let id = inner.page(|page| page.attach(surface));
            let weak = inner.downgrade();
            Closure::once_into_js(move || {
                if let Some(inner) = weak.upgrade() {
                    inner.feed(DetachPresence);
                    inner.page(|page| page.detach(id));
                }
            })
        });
        let object = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&object, &"attach".into(), attach.as_ref());
        // Made once per engine; the function lives as long as the page may
        // call it.
        attach.forget();
        let object: JsValue = object.into();
        engine.page(|page| page.made_presence(object.clone()));
        Ok(object)
    }

    /// Approve with edits: replaces the arguments of a planned call the
    /// person is reviewing, at the revision they saw. Refused as proposed
    /// arguments would be (`invalid-arguments`, AG-15, AG-16); journalled as
    /// the person's act and previewed again; authorizing binds them, and the
    /// acting party hears them with the call's result.
    #[wasm_bindgen(js_name = editCall)]
    pub fn edit_call(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] revision: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] call: JsValue,
        arguments: JsValue,
    ) -> Result<(), JsValue> {
        let run = convert::id(&run, "`run`")?;
        let revision = convert::whole_arg(&revision, "a revision")?;
        let call = convert::id(&call, "`call`")?;
        let arguments = convert::json(arguments, "the arguments")?;
        let call = baton_core::CallId::new(call);
        self.command(EditCall {
            run: RunId::new(run),
            revision,
            call: call.clone(),
            arguments,
        })
    }

    /// The person rejects a plan under review, at the revision they saw.
    pub fn reject(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] revision: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "string | null")] note: JsValue,
    ) -> Result<(), JsValue> {
        let run = convert::id(&run, "`run`")?;
        let revision = convert::whole_arg(&revision, "a revision")?;
        let note = convert::optional_text(&note, "`note`")?;
        let note = note.unwrap_or_default();
        self.command(Reject {
            run: RunId::new(run),
            revision,
            note,
        })
    }

    /// Answers a question (AG-41): bound to its id and request digest,
    /// validated against its schema, failing closed. Returns the acceptance.
    pub fn answer(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] question: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] digest: JsValue,
        answer: JsValue,
    ) -> Result<JsValue, JsValue> {
        let question = convert::id(&question, "`question`")?;
        let digest = convert::text(&digest, "`digest`")?;
        let digest = baton_core::Digest::from_hex(&digest).ok_or_else(|| {
            error_for(
                Code::DigestMismatch,
                "AG-41",
                "AG-41: the request digest is not 64 hex digits",
            )
        })?;
        let answer: Value = convert::value(&answer).map_err(|e| {
            error_for(
                Code::InvalidAnswer,
                "AG-41",
                &format!("AG-41: the answer is not JSON: {e}"),
            )
        })?;
        let acceptance = self.command(Answer {
            question: baton_core::QuestionId::new(question).clone(),
            digest,
            answer,
        })?;
        to_js(&acceptance)
    }

    /// Declines a question; the run goes on without the answer.
    pub fn decline(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] question: JsValue,
    ) -> Result<(), JsValue> {
        let question = convert::id(&question, "`question`")?;
        self.command(Decline(baton_core::QuestionId::new(question).clone()))
    }

    /// Dismisses a question: the person chose not to deal with it; the run
    /// goes on as if it had been declined, and the surface stops showing it.
    pub fn dismiss(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] question: JsValue,
    ) -> Result<(), JsValue> {
        let question = convert::id(&question, "`question`")?;
        self.command(Dismiss(baton_core::QuestionId::new(question).clone()))
    }

    /// Resolves an escalation at the revision the person saw: `"allow"`,
    /// `"deny"`, `"review"`, `"return"`, or `{ kind: "allow", budget }`.
    #[wasm_bindgen(js_name = resolveEscalation)]
    pub fn resolve_escalation(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] revision: JsValue,
        resolution: JsValue,
    ) -> Result<(), JsValue> {
        let run = convert::id(&run, "`run`")?;
        let revision = convert::whole_arg(&revision, "a revision")?;
        let invalid = |e: &dyn std::fmt::Display| error(Code::InvalidResolution, &e.to_string());
        let value = match resolution.as_string() {
            Some(kind) => serde_json::json!({ "kind": kind }),
            None => convert::value(&resolution).map_err(|e| invalid(&e))?,
        };
        let resolution: baton_core::Resolution =
            serde_json::from_value(value).map_err(|e| invalid(&e))?;
        self.command(ResolveEscalation {
            run: RunId::new(run),
            revision,
            resolution,
        })
    }

    /// Sets the `to-agent` state every later turn carries to the acting
    /// party (AG-47; AG-UI `state`): context the application wants it to
    /// have, kept apart from the agent's own state. `null` sends none.
    #[wasm_bindgen(js_name = setAgentState)]
    pub fn set_agent_state(&self, state: JsValue) -> Result<(), JsValue> {
        let state: Value = convert::value(&state).map_err(|e| {
            error(
                Code::InvalidState,
                &format!("AG-47: the state is not JSON: {e}"),
            )
        })?;
        self.live()?.feed(SetAgentState(state));
        Ok(())
    }

    /// Updates the `to-agent` state with a JSON Patch (RFC 6902) between
    /// turns; a patch that does not apply changes nothing and throws
    /// `invalid-state`.
    #[wasm_bindgen(js_name = patchAgentState)]
    pub fn patch_agent_state(&self, patch: JsValue) -> Result<(), JsValue> {
        let patch: Value = convert::value(&patch).map_err(|e| {
            error(
                Code::InvalidState,
                &format!("AG-47: the patch is not JSON: {e}"),
            )
        })?;
        self.live()?
            .feed(PatchAgentState(patch.clone()))
            .map_err(|refusal| refused(&refusal))
    }

    /// The `to-agent` state the next turn carries.
    #[wasm_bindgen(getter, js_name = agentState)]
    pub fn agent_state(&self) -> Result<JsValue, JsValue> {
        self.live()?.core(|core| to_js(core.agent_state()))
    }

    /// Disables delegation: no new run starts until `enable` (runs already
    /// active go on; `stop` or `killAll` ends them). Participants keep
    /// working.
    pub fn disable(&self) -> Result<(), JsValue> {
        self.set_disabled(true)
    }

    /// Enables delegation again.
    pub fn enable(&self) -> Result<(), JsValue> {
        self.set_disabled(false)
    }

    /// Undoes a whole delegation in one step (A.2): each participant it
    /// changed is reverted, through its own history, to the mark taken
    /// before the run first touched it — last touched first. Only a run that
    /// has returned can be undone, and only once; a run that was rolled back
    /// has nothing left to undo. Resolves to `{ run, reverted, failed }`.
    ///
    /// Undo is a write like any other: a participant the person or a later
    /// run changed after this run did is not reverted blindly. The promise
    /// then rejects with a `BatonError` of code `undo-conflict` carrying
    /// `conflicts` (`[{ participant, changedBy: { kind: "person" } |
    /// { kind: "run", run } }]`) and `untouched` (the participants nothing
    /// changed since); the conflict is journalled and said. Undo again with
    /// `{ only: "untouched" }` to revert only those, or `{ force: true }` to
    /// revert everything anyway. If the engine closes before the undo
    /// finishes, the promise rejects with `closed`.
    pub fn undo(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
        options: JsValue,
    ) -> Result<js_sys::Promise, JsValue> {
        let run = convert::id(&run, "`run`")?;
        let scope = undo_scope(&options)?;
        let id = RunId::new(run);
        let mut resolver = None;
        let promise =
            js_sys::Promise::new(&mut |resolve, reject| resolver = Some([resolve, reject]));
        // The core decides, journals and drives the undo through revert
        // effects; the promise settles with its report.
        let live = self.live()?;
        let started = live.feed(Undo {
            run: id.clone(),
            scope,
        });
        // Owed before the step is carried out: a participant that reverts
        // at once ends the undo within it.
        if let (Ok(_), Some(resolve)) = (&started, resolver) {
            live.reach(|reach| reach.undo_started(id, resolve));
        }
        drive::pump(&live);
        match started {
            Ok(_) => Ok(promise),
            Err(conflict @ baton_core::CommandError::UndoConflict { .. }) => {
                let thrown = refused(&conflict);
                if let baton_core::CommandError::UndoConflict {
                    conflicts,
                    untouched,
                    ..
                } = &conflict
                {
                    let _ = js_sys::Reflect::set(&thrown, &"conflicts".into(), &to_js(conflicts)?);
                    let _ = js_sys::Reflect::set(&thrown, &"untouched".into(), &to_js(untouched)?);
                }
                Ok(js_sys::Promise::reject(&thrown))
            }
            Err(refusal) => Err(refused(&refusal)),
        }
    }

    /// The revision of a run, for commands fenced by it.
    pub fn revision(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
    ) -> Result<f64, JsValue> {
        let run = convert::id(&run, "`run`")?;
        self.with_run(&run, |run| run.revision() as f64)
    }

    /// The review sheet (with participants' previews) of a plan under
    /// review, or of the one call an escalation asks the person to allow
    /// (AG-31); otherwise `null`.
    pub fn review(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
    ) -> Result<JsValue, JsValue> {
        let run = convert::id(&run, "`run`")?;
        // `None` is written as `null`.
        let sheet = self
            .live()?
            .core(|core| core.run(&RunId::new(run)).and_then(|run| run.review()));
        to_js(&sheet)
    }

    /// The escalation sheet of an escalated run — why it waits, and the
    /// resolutions that end the wait, the one that lets it go on first —
    /// otherwise `null`.
    pub fn escalation(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
    ) -> Result<JsValue, JsValue> {
        let run = convert::id(&run, "`run`")?;
        let sheet = self
            .live()?
            .core(|core| core.run(&RunId::new(run)).and_then(|run| run.escalation()));
        to_js(&sheet)
    }

    /// The tools the acting party is offered: every capability of every
    /// mounted participant, with its description and argument schema.
    pub fn tools(&self) -> Result<JsValue, JsValue> {
        self.live()?.core(|core| to_js(&core.registry().tools()))
    }

    /// Every question the engine holds, open or settled.
    pub fn questions(&self) -> Result<JsValue, JsValue> {
        self.live()?.core(|core| {
            let questions: Vec<_> = core.questions().iter().collect();
            to_js(&questions)
        })
    }

    /// Postpones a question until `until` (ms since the epoch).
    pub fn postpone(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] question: JsValue,
        #[wasm_bindgen(unchecked_param_type = "number")] until: JsValue,
    ) -> Result<(), JsValue> {
        let question = convert::id(&question, "`question`")?;
        let until = convert::whole_arg(&until, "a time")?;
        self.command(Postpone {
            question: baton_core::QuestionId::new(question).clone(),
            until,
        })
    }

    /// A run's journal records, oldest first.
    pub fn journal(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
    ) -> Result<JsValue, JsValue> {
        let run = convert::id(&run, "`run`")?;
        self.with_run(&run, |run| to_js(&run.journal()))?
    }

    /// What an actor reference names, or `null` for one this engine did not
    /// mint — forged, altered or foreign (AG-33).
    #[wasm_bindgen(js_name = resolveActor)]
    pub fn resolve_actor(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] reference: JsValue,
    ) -> Result<JsValue, JsValue> {
        let reference = convert::text(&reference, "`reference`")?;
        let reference = baton_core::ActorRef::new(reference);
        to_js(&self.live()?.core(|core| core.actors().resolve(&reference)))
    }

    /// The state of a run, as JSON (`{state, outcome?, reason?}`).
    pub fn state(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] run: JsValue,
    ) -> Result<JsValue, JsValue> {
        let run = convert::id(&run, "`run`")?;
        self.with_run(&run, |run| to_js(run.state()))?
    }

    /// Content-free counts for a badge.
    pub fn counters(&self) -> Result<JsValue, JsValue> {
        self.live()?.core(|core| to_js(&core.counters(now())))
    }
}

/// `undo`'s options: none (checked), `{ only: "untouched" }` or
/// `{ force: true }`.
fn undo_scope(options: &JsValue) -> Result<baton_core::UndoScope, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(baton_core::UndoScope::Checked);
    }
    let value = convert::json(options.clone(), "undo's options")?;
    baton_core::UndoScope::from_options(&value)
        .map_err(|why| error(Code::InvalidValue, &why.to_string()))
}
