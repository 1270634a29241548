//! The engine's fixed settings: the session, budgets, timeouts, the
//! application's autonomy ceiling, the presence policy and whether an acting
//! party can be reached.

use serde::{Deserialize, Serialize};

use crate::ids::SessionId;
use crate::model::{Autonomy, Budget};

#[cfg(doc)]
use crate::event::Event;

/// The engine's fixed settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EngineConfig {
    /// The session this engine drives; run ids are minted under it.
    pub session: SessionId,
    /// The most any run may be given; larger budgets are refused.
    pub max_budget: Budget,
    /// The budget of a delegation that does not ask for one.
    pub default_budget: Budget,
    /// How long an escalation waits for the person before the run returns (AG-6).
    pub escalation_timeout_ms: u64,
    /// How long a rollback waits for participants to confirm their reverts.
    pub revert_timeout_ms: u64,
    /// Run starts per rolling hour allowed to `system` and `scheduled` initiative.
    pub hourly_quota: u32,
    /// The application's autonomy ceiling; the person may only lower it (AG-24).
    pub ceiling: Autonomy,
    /// How long an authorization holds before the person must confirm it again (AG-29).
    pub authorization_ttl_ms: u64,
    /// What happens when a run above `suggest` starts acting while no
    /// presence surface is attached (AG-35).
    #[serde(default)]
    pub presence: PresencePolicy,
    /// Whether an acting party can be reached: a transport is configured.
    /// Without one, participants work as ever and fixed plans run; only a
    /// delegation that needs an acting party is refused (AG-50).
    #[serde(default = "reachable")]
    pub transport: bool,
    /// How much one turn's stream may hold, lane by lane (bounded turns):
    /// the host's stream verifiers check it.
    #[serde(default)]
    pub turn_limits: crate::protocol::StreamLimits,
    /// How long a participant's preview may take before the review shows
    /// the call's arguments instead, and says the preview did not arrive.
    #[serde(default = "preview_timeout")]
    pub preview_timeout_ms: u64,
}

fn preview_timeout() -> u64 {
    PREVIEW_TIMEOUT_MS
}

/// How long a preview may take by default.
pub const PREVIEW_TIMEOUT_MS: u64 = 10 * 1000;

fn reachable() -> bool {
    true
}

/// The answer to the contract's open decision D.1 (AG-35): observable by
/// default, a hard refusal for applications that want one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum PresencePolicy {
    /// Emit [`Event::PresenceMissing`] and act.
    #[default]
    Warn,
    /// Refuse to act: the run returns `error` with reason `presence-missing`.
    Require,
}

impl EngineConfig {
    /// Defaults for a session: five-minute runs, one-minute turns, two-minute
    /// escalations, ten-second rollbacks, twenty non-user starts an hour, a
    /// `review` ceiling, and ten-minute authorizations.
    pub fn new(session: impl Into<String>) -> Self {
        EngineConfig {
            session: SessionId::new(session),
            max_budget: Budget {
                max_turns: 64,
                max_calls: 512,
                run_deadline_ms: 60 * 60 * 1000,
                turn_deadline_ms: 10 * 60 * 1000,
            },
            default_budget: Budget::default(),
            escalation_timeout_ms: 2 * 60 * 1000,
            revert_timeout_ms: 10 * 1000,
            hourly_quota: 20,
            ceiling: Autonomy::Review,
            authorization_ttl_ms: 10 * 60 * 1000,
            presence: PresencePolicy::Warn,
            transport: true,
            turn_limits: crate::protocol::StreamLimits::default(),
            preview_timeout_ms: PREVIEW_TIMEOUT_MS,
        }
    }
}
