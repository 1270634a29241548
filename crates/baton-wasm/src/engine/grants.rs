//! Standing grants from JS (AG-30): "always allow X here for an hour" and
//! "never allow X", each with a scope and a time to live, listed with
//! whether it applies now, and revocable. The core keeps and applies them,
//! re-gating each when its participant's capability set changes.

use baton_core::{AddGrant, RevokeGrant};
use baton_core::{Decision, GrantScope};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use super::{now, to_js, Engine};
use crate::convert;
use crate::errors::{error, refused, Code};

/// A grant as JS asks for it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct GrantRequest {
    /// The participant's manifest id.
    participant: String,
    /// One capability, or all of the participant's.
    #[serde(default)]
    capability: Option<String>,
    /// `allow` or `deny`.
    decision: Decision,
    /// How long it stands, in milliseconds (required, AG-30).
    ttl_ms: u64,
}

#[wasm_bindgen]
impl Engine {
    /// Gives a standing grant (AG-30): `{ participant, capability?,
    /// decision: "allow" | "deny", ttlMs }`. Returns the grant. An `allow`
    /// raises the person's choice for calls in scope, never above the
    /// application's ceiling nor past any other rule; a `deny` refuses them
    /// (deny overrides). It stops applying when it lapses or when the
    /// participant's capability set changes.
    pub fn grant(&self, request: JsValue) -> Result<JsValue, JsValue> {
        let request: GrantRequest = convert::from_js(&request)
            .map_err(|e| error(Code::InvalidGrant, &format!("AG-30: {e}")))?;
        let scope = GrantScope {
            participant: baton_core::ParticipantId::new(request.participant),
            capability: request.capability,
        };
        let grant = self
            .live()?
            .tell(AddGrant {
                scope,
                decision: request.decision,
                ttl_ms: request.ttl_ms,
            })
            .map_err(|refusal| refused(&refusal))?;
        to_js(&grant)
    }

    /// Every grant, each with `live`: whether it applies now.
    pub fn grants(&self) -> Result<JsValue, JsValue> {
        self.live()?.core(|core| to_js(&core.grants(now())))
    }

    /// Revokes a grant; returns whether there was one with this id.
    #[wasm_bindgen(js_name = revokeGrant)]
    pub fn revoke_grant(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] id: JsValue,
    ) -> Result<bool, JsValue> {
        let id = convert::whole_arg(&id, "a grant id")?;
        Ok(self.live()?.tell(RevokeGrant(id)))
    }
}
