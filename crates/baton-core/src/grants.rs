//! Persistent grants: "always allow X" and "never allow X" (AG-30).
//!
//! A grant carries an explicit scope (a participant, optionally one of its
//! capabilities) and a time to live, and is bound to the digest of the
//! participant's capability set when it was given: if the participant
//! re-registers with a different set, the grant stops applying until the
//! person confirms it again.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::ids::{CapabilityRef, ParticipantId};
use crate::registry::Registry;
use baton_schema::digest::Digest;

/// What a grant decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// Calls in scope may run without review, within every other rule.
    Allow,
    /// Calls in scope are refused (deny overrides, AG-24).
    Deny,
}

/// What a grant covers.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GrantScope {
    /// The participant, as the acting party addresses it (its manifest id).
    pub participant: ParticipantId,
    /// One capability, or every capability of the participant.
    #[serde(default)]
    pub capability: Option<String>,
}

impl GrantScope {
    fn covers(&self, address: &CapabilityRef) -> bool {
        let participant = address
            .participant
            .as_str()
            .split('#')
            .next()
            .unwrap_or_default();
        participant == self.participant.as_str()
            && self
                .capability
                .as_ref()
                .is_none_or(|capability| *capability == address.capability)
    }
}

/// A grant as listed: the grant, and whether it applies now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedGrant {
    /// The grant.
    #[serde(flatten)]
    pub grant: Grant,
    /// Whether it applies now: not lapsed, and its scope as it was granted.
    pub live: bool,
}

/// A standing decision of the person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    /// The grant's id.
    pub id: u64,
    /// What it covers.
    pub scope: GrantScope,
    /// What it decides.
    pub decision: Decision,
    /// When it was given.
    pub granted_at: u64,
    /// When it lapses.
    pub expires_at: u64,
    /// The participant's capability set it was given against.
    pub capability_set: Digest,
}

/// Why a grant could not be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GrantError {
    /// A grant needs a positive time to live.
    #[error("AG-30: a persistent grant needs a time to live")]
    NoTimeToLive,
    /// The scope names a participant that is not mounted.
    #[error("AG-30: no mounted participant `{0}` to scope the grant to")]
    UnknownParticipant(ParticipantId),
    /// The scope names a capability the participant does not declare.
    #[error("AG-30: participant `{participant}` declares no capability `{capability}`")]
    UnknownCapability {
        /// The participant.
        participant: ParticipantId,
        /// The capability.
        capability: String,
    },
}

/// The grants of a session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Grants {
    grants: BTreeMap<u64, Grant>,
    next: u64,
}

impl Grants {
    /// Whether no grant stands.
    pub fn is_empty(&self) -> bool {
        self.grants.is_empty()
    }

    /// Whether no grant was ever given: as a new engine's are.
    pub(crate) fn is_new(&self) -> bool {
        self.grants.is_empty() && self.next == 0
    }

    /// Gives a grant, bound to the participant's current capability set.
    pub fn give(
        &mut self,
        now: u64,
        registry: &Registry,
        scope: GrantScope,
        decision: Decision,
        ttl_ms: u64,
    ) -> Result<Grant, GrantError> {
        if ttl_ms == 0 {
            return Err(GrantError::NoTimeToLive);
        }
        let manifest = registry
            .mounted()
            .map(|(_, mounted)| &mounted.manifest)
            .find(|manifest| *manifest.id() == scope.participant)
            .ok_or_else(|| GrantError::UnknownParticipant(scope.participant.clone()))?;
        if let Some(capability) = &scope.capability {
            if manifest.capability(capability).is_none() {
                return Err(GrantError::UnknownCapability {
                    participant: scope.participant.clone(),
                    capability: capability.clone(),
                });
            }
        }
        self.next += 1;
        let grant = Grant {
            id: self.next,
            capability_set: manifest.capability_set(),
            scope,
            decision,
            granted_at: now,
            expires_at: now.saturating_add(ttl_ms),
        };
        self.grants.insert(grant.id, grant.clone());
        Ok(grant)
    }

    /// Revokes a grant. Returns whether it existed.
    pub fn revoke(&mut self, id: u64) -> bool {
        self.grants.remove(&id).is_some()
    }

    /// Drops lapsed grants. Returns how many.
    pub fn expire(&mut self, now: u64) -> usize {
        let before = self.grants.len();
        self.grants.retain(|_, grant| now < grant.expires_at);
        before - self.grants.len()
    }

    /// Every grant, live or not.
    pub fn all(&self) -> impl Iterator<Item = &Grant> {
        self.grants.values()
    }

    /// Whether a grant applies now: unexpired, and the participant's
    /// capability set is the one it was given against.
    pub fn is_live(&self, grant: &Grant, now: u64, registry: &Registry) -> bool {
        now < grant.expires_at
            && registry.mounted().any(|(_, mounted)| {
                *mounted.manifest.id() == grant.scope.participant
                    && mounted.manifest.capability_set() == grant.capability_set
            })
    }

    /// The live decision covering an address, deny first.
    pub fn decision(
        &self,
        now: u64,
        registry: &Registry,
        address: &CapabilityRef,
    ) -> Option<Decision> {
        let live = self
            .grants
            .values()
            .filter(|grant| grant.scope.covers(address) && self.is_live(grant, now, registry));
        let mut decision = None;
        for grant in live {
            match grant.decision {
                Decision::Deny => return Some(Decision::Deny),
                Decision::Allow => decision = Some(Decision::Allow),
            }
        }
        decision
    }
}
