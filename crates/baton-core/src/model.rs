//! The vocabulary of a delegation: initiative, autonomy and budget.

use serde::{Deserialize, Serialize};

/// Why a run exists (AG-2). Every run carries one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Initiative {
    /// The person asked for it.
    User,
    /// The application started it in reaction to something.
    System,
    /// A schedule started it.
    Scheduled,
}

impl Initiative {
    /// `system` and `scheduled` runs are subject to the hourly start quota.
    pub fn is_user(self) -> bool {
        matches!(self, Initiative::User)
    }
}

/// How far a run may go without the person, from least to most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum Autonomy {
    /// The acting party proposes; the person reviews every plan.
    Suggest,
    /// The plan is reviewed once; later calls inside its scope proceed.
    Review,
    /// The plan is authorized without review.
    Auto,
}

/// The limits of one run, fixed when it is authorized.
///
/// A turn is charged when it is reserved, before anything is sent; a call is
/// charged when it is dispatched. Charges are never refunded: a failed or
/// timed-out turn has consumed its share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Budget {
    /// Exchanges with the acting party, the planning turn included.
    pub max_turns: u32,
    /// Capability calls dispatched, correctable refusals included.
    pub max_calls: u32,
    /// Milliseconds from the run's creation until it must have returned.
    pub run_deadline_ms: u64,
    /// Milliseconds a single turn may stay open (the deadman timer).
    pub turn_deadline_ms: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            max_turns: 8,
            max_calls: 32,
            run_deadline_ms: 5 * 60 * 1000,
            turn_deadline_ms: 60 * 1000,
        }
    }
}

impl Budget {
    /// Whether every limit of `self` is at most the matching limit of `other`.
    pub fn within(&self, other: &Budget) -> bool {
        self.max_turns <= other.max_turns
            && self.max_calls <= other.max_calls
            && self.run_deadline_ms <= other.run_deadline_ms
            && self.turn_deadline_ms <= other.turn_deadline_ms
    }

    /// Whether a run may be given this budget under the engine's `ceiling`:
    /// within it, with deadlines that leave time to act.
    pub(crate) fn check(&self, ceiling: &Budget) -> Result<(), String> {
        if !self.within(ceiling) {
            return Err(format!("{self:?} exceeds the engine's maximum {ceiling:?}"));
        }
        if self.run_deadline_ms == 0 || self.turn_deadline_ms == 0 {
            return Err("deadlines must be positive".into());
        }
        Ok(())
    }
}

/// What a run has consumed of its budget.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Turns reserved so far.
    pub turns: u32,
    /// Calls dispatched so far.
    pub calls: u32,
}
