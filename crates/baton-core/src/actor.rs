//! Actor references: who caused a capability call (AG-32 … AG-34).
//!
//! A reference is minted by the engine for the call in flight and keyed with
//! the engine's secret (HMAC-SHA-256), so nothing else can produce one that
//! resolves: a forged, altered or foreign reference resolves to nothing
//! (AG-33). Participants receive it with the invocation and pass it on
//! verbatim (AG-34). No reference at all means the person (AG-32).

use std::fmt;

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::ids::{CallId, RunId, SessionId};
use baton_schema::digest::{hex, unhex};

const PREFIX: &str = "baton1";

/// The per-engine key that actor references are minted with. It is an input
/// (the browser adapter draws it from `crypto.getRandomValues`), never derived.
#[derive(Clone, PartialEq, Eq)]
pub struct ActorSecret([u8; 32]);

impl ActorSecret {
    /// Wraps 32 random bytes.
    pub fn new(bytes: [u8; 32]) -> Self {
        ActorSecret(bytes)
    }

    /// Key bytes as a store keeps them: 64 lowercase hex digits.
    pub fn encode_key(bytes: &[u8; 32]) -> String {
        baton_schema::digest::hex(bytes)
    }

    /// Key bytes a store kept ([`ActorSecret::encode_key`]); `None` unless
    /// the text is exactly 64 hex digits.
    pub fn decode_key(text: &str) -> Option<[u8; 32]> {
        <[u8; 32]>::try_from(baton_schema::digest::unhex(text)?).ok()
    }
}

impl fmt::Debug for ActorSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ActorSecret(..)")
    }
}

/// An opaque actor reference, as handed to participants.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(transparent)]
pub struct ActorRef(String);

impl ActorRef {
    /// Wraps a reference received from outside (it resolves only if genuine).
    pub fn new(token: impl Into<String>) -> Self {
        ActorRef(token.into())
    }

    /// The reference as text, to pass on verbatim.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ActorRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a genuine reference names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ActorIdentity {
    /// The session of the engine that minted it.
    pub session: SessionId,
    /// The run.
    pub run: RunId,
    /// The capability call.
    pub call: CallId,
    /// The subagents the acting party made the call through, outermost
    /// first (empty: the acting party itself). Part of what the reference
    /// is keyed over: altering the chain is forging the reference.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<String>,
}

/// Who a mutation is attributed to after [`crate::ActorsView::admit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attribution {
    /// No reference: the person acted.
    Person,
    /// The acting party of a run, through the call in flight.
    Delegated(ActorIdentity),
}

fn mac(secret: &ActorSecret, payload: &[u8]) -> Hmac<Sha256> {
    // HMAC accepts keys of any length; 32 bytes cannot fail.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&secret.0)
        .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
    mac.update(PREFIX.as_bytes());
    mac.update(payload);
    mac
}

pub(crate) fn mint(secret: &ActorSecret, identity: &ActorIdentity) -> ActorRef {
    let (session, run, call) = (
        identity.session.as_str(),
        identity.run.as_str(),
        identity.call.as_str(),
    );
    // Without subagents, the payload references had before there were any.
    let payload = if identity.via.is_empty() {
        serde_json::to_vec(&(session, run, call))
    } else {
        serde_json::to_vec(&(session, run, call, &identity.via))
    }
    .unwrap_or_default();
    let tag = mac(secret, &payload).finalize().into_bytes();
    ActorRef(format!("{PREFIX}.{}.{}", hex(&payload), hex(&tag)))
}

pub(crate) fn verify(secret: &ActorSecret, reference: &ActorRef) -> Option<ActorIdentity> {
    let mut parts = reference.0.split('.');
    let (prefix, payload, tag) = (parts.next()?, parts.next()?, parts.next()?);
    if prefix != PREFIX || parts.next().is_some() {
        return None;
    }
    let payload = unhex(payload)?;
    let tag = unhex(tag)?;
    mac(secret, &payload).verify_slice(&tag).ok()?;
    // `[session, run, call]`, then the subagent chain when there is one.
    let parts: serde_json::Value =
        serde_json::from_str(std::str::from_utf8(&payload).ok()?).ok()?;
    let parts = parts.as_array()?;
    let text = |index: usize| parts.get(index)?.as_str();
    let via = match parts.get(3) {
        None if parts.len() == 3 => Vec::new(),
        Some(chain) if parts.len() == 4 => chain
            .as_array()?
            .iter()
            .map(|name| name.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()?,
        _ => return None,
    };
    Some(ActorIdentity {
        session: SessionId::new(text(0)?),
        run: RunId::new(text(1)?),
        call: CallId::new(text(2)?),
        via,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn key_bytes_round_trip_through_hex_and_nothing_else_decodes() {
        let key = [7u8; 32];
        let text = ActorSecret::encode_key(&key);
        assert_eq!(text.len(), 64);
        assert_eq!(ActorSecret::decode_key(&text), Some(key));
        assert_eq!(ActorSecret::decode_key("zz"), None);
        assert_eq!(ActorSecret::decode_key(&text[..62]), None);
        assert_eq!(ActorSecret::decode_key(&format!("{text}00")), None);
    }

    use super::*;

    fn identity() -> ActorIdentity {
        ActorIdentity {
            session: SessionId::new("s"),
            run: RunId::new("s/r1"),
            call: CallId::new("c1"),
            via: Vec::new(),
        }
    }

    #[test]
    fn ag_33_a_subagent_chain_is_keyed_into_the_reference() {
        let ours = ActorSecret::new([7; 32]);
        let through = ActorIdentity {
            via: vec!["researcher".into()],
            ..identity()
        };
        let reference = mint(&ours, &through);
        assert_eq!(verify(&ours, &reference), Some(through.clone()));
        assert_ne!(reference, mint(&ours, &identity()));
        // The chain changed by hand, the tag kept: nothing.
        let payload = serde_json::to_vec(&("s", "s/r1", "c1", ["someone-else"])).unwrap();
        let tag = reference.as_str().rsplit('.').next().unwrap();
        let swapped = ActorRef::new(format!("{PREFIX}.{}.{tag}", hex(&payload)));
        assert_eq!(verify(&ours, &swapped), None);
    }

    #[test]
    fn ag_33_only_the_minting_engine_resolves_a_reference() {
        let ours = ActorSecret::new([7; 32]);
        let theirs = ActorSecret::new([8; 32]);
        let reference = mint(&ours, &identity());
        assert_eq!(verify(&ours, &reference), Some(identity()));
        // Foreign: minted by another engine.
        assert_eq!(verify(&ours, &mint(&theirs, &identity())), None);
        // Altered: one character of the payload or the tag changed.
        let text = reference.as_str();
        for position in [8, text.len() - 1] {
            let mut bytes = text.as_bytes().to_vec();
            bytes[position] = if bytes[position] == b'0' { b'1' } else { b'0' };
            let altered = ActorRef::new(String::from_utf8(bytes).unwrap());
            assert_eq!(verify(&ours, &altered), None, "altered at {position}");
        }
        // Structurally forged.
        for forged in [
            "",
            "baton1",
            "baton1..",
            "baton1.zz.zz",
            "x.y.z",
            "baton1.00.00.00",
        ] {
            assert_eq!(verify(&ours, &ActorRef::new(forged)), None, "{forged}");
        }
        // A reference built by hand from a plausible identity is still nothing.
        let handmade = format!(
            "baton1.{}.{}",
            hex(br#"["s","s/r1","c1"]"#),
            "00".repeat(32)
        );
        assert_eq!(verify(&ours, &ActorRef::new(handmade)), None);
    }
}
