//! A registered participant's handle: its id, its problems, and the
//! publication of its reads.

use super::*;
use baton_core::{PublishRead, Unregister, WithdrawRead};

/// A mounted participant's handle, returned by `Engine.register`.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Participant {
    pub(super) engine: WeakShared,
    pub(super) id: ParticipantId,
    /// Why the registration was refused; empty when it was mounted.
    pub(super) problems: Vec<baton_core::ManifestProblem>,
}

/// A read's stamp as a participant publishes it. The origin may only make
/// the declared one less trusted; left out, the declared one applies. The
/// actor is the reference `invoke` was given, when a call made the change.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PublishedStamp {
    version: u64,
    #[serde(default)]
    origin: Option<baton_core::Origin>,
    #[serde(default)]
    actor: Option<String>,
}

#[wasm_bindgen]
impl Participant {
    /// The mounted id (`tasks`, or `tasks#board-2` for an instance); for a
    /// refused registration, the id it would have had (empty if the manifest
    /// does not say).
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.id.to_string()
    }

    /// Why the registration was refused: `[{ path, requirement, message }]`,
    /// empty when the participant is mounted (AG-13).
    #[wasm_bindgen(getter)]
    pub fn problems(&self) -> JsValue {
        to_js(&self.problems).unwrap_or(JsValue::UNDEFINED)
    }

    /// Publishes a read's current version and origin (AG-20, AG-27):
    /// `{ version, origin, actor }`. The origin can only make the read less
    /// trusted than its declaration says (the least trusted of the two
    /// counts); left out, the declared one applies. `actor` is the reference
    /// `invoke` was given, when that call made the change: the change is
    /// then the run's own. Without it the change is the person's, even while
    /// a call is under way — the run's stale and drift checks see it, and
    /// so does an undo (A.2). A reference the engine did not mint for a call
    /// to this participant is refused with `invalid-actor` (AG-33). An undeclared read is refused
    /// with `invalid-read`. On a refused registration this does nothing
    /// (the component keeps working, AG-13). Acts planned
    /// against an older version are refused as stale; the next turn's
    /// context carries the new stamp, and its content is pulled through the
    /// behaviour's `read(name)` when the turn opens.
    pub fn publish(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] read: JsValue,
        stamp: JsValue,
    ) -> Result<(), JsValue> {
        let read = convert::id(&read, "`read`")?;
        let stamp: PublishedStamp =
            convert::from_js(&stamp).map_err(|e| e.thrown_as(Code::InvalidRead))?;
        if !self.problems.is_empty() {
            return Ok(());
        }
        let engine = self.engine()?;
        let stamp_read = baton_core::ReadStamp {
            read: ReadRef {
                participant: self.id.clone(),
                read: read.to_owned(),
            },
            version: stamp.version,
            // The core keeps the least trusted of this and the declared origin.
            origin: stamp.origin.unwrap_or(baton_core::Origin::Author),
        };
        let actor = stamp.actor.map(baton_core::ActorRef::new);
        engine
            .tell(PublishRead {
                stamp: stamp_read,
                actor,
            })
            .map(|_| ())
            .map_err(|refusal| refused(&refusal))
    }

    /// The actor reference a change this participant publishes now is
    /// the run's under, as the engine judges it (A.2, AG-32): the
    /// reference of a state-changing call to it that is running, or that
    /// returned within `CALL_SETTLES_MS` (100 ms), as long as no change of
    /// it was published with that reference yet; otherwise `null`, and the
    /// change is the person's. A binding that publishes a component's state
    /// after it renders passes it on as `publish`'s `actor`, verbatim
    /// (AG-34). `null` on a refused registration.
    #[wasm_bindgen(js_name = callActor)]
    pub fn call_actor(&self) -> Result<Option<String>, JsValue> {
        if !self.problems.is_empty() {
            return Ok(None);
        }
        let engine = self.engine()?;
        let actor = engine.core(|core| core.actors().calling(now(), &self.id));
        Ok(actor.map(|actor| actor.to_string()))
    }

    /// Withdraws a read: it leaves the context of the next turn.
    pub fn withdraw(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] read: JsValue,
    ) -> Result<(), JsValue> {
        let read = convert::id(&read, "`read`")?;
        let engine = self.engine()?;
        let read = ReadRef {
            participant: self.id.clone(),
            read: read.to_owned(),
        };
        engine.tell(WithdrawRead(read.clone()));
        Ok(())
    }

    /// Unmounts the participant; the acting party no longer sees it.
    pub fn unregister(&self) -> Result<(), JsValue> {
        let engine = self.engine()?;
        engine.reach(|reach| reach.unmount(&self.id));
        engine.tell(Unregister(self.id.clone()));
        super::effects::emit(&engine, &baton_core::HostEvent::ToolsChanged);
        Ok(())
    }
}

impl Participant {
    fn engine(&self) -> Result<Shared, JsValue> {
        self.engine.upgrade().ok_or_else(|| {
            error(
                Code::Closed,
                "the engine this participant was registered with is closed",
            )
        })
    }
}
