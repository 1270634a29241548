//! Who holds control of a run, and within what bounds: its state in the
//! custody machine, its revision, its budget and what it used of it, its
//! deadline, an escalation to the person, and what it leaves behind when
//! it ends (resumable, offered again after a reload). The fields are this
//! module's; every change goes through a method that keeps the rules below.
//!
//! - The state changes only as the machine's table allows; a terminal state
//!   never reopens, and the moment it was reached is kept.
//! - The revision counts the journal's records: it only goes up, by one.
//! - The deadline follows the budget: it is the run's creation plus the
//!   budget's run deadline, whenever the budget is fixed.
//! - Usage only goes up: a turn reserved, a call dispatched.

use crate::model::{Budget, Usage};
use crate::state::{RunState, StateName};

use super::closing::Offered;
use super::row::columns;
use super::Escalation;

columns! {
    /// Who holds control of one run, and within what bounds.
    #[derive(Debug, Clone, PartialEq)]
    pub(super) struct Custody {
        state: RunState => "state",
        /// The revision of the last journal record; commands are fenced on it.
        revision: u64 => "revision",
        budget: Budget => "budget",
        usage: Usage => "usage",
        deadline_at: u64 => "deadlineAt",
        escalation: Option<Escalation> => "escalation",
        /// A chained run may resume this one (it was paused).
        resumable: bool => "resumable",
        /// What a reload cut off while the person was looking at it, offered
        /// again until they take it up or discard it.
        offered: Option<Offered> => "offered" (default),
        /// When it reached a terminal state.
        ended_at: Option<u64> => "endedAt" (default),
    }
}

impl Custody {
    /// A run created at `now`, offered and not yet started, within `budget`.
    pub(super) fn new(budget: Budget, now: u64) -> Self {
        Custody {
            state: RunState::Offered,
            revision: 0,
            budget,
            usage: Usage::default(),
            deadline_at: now.saturating_add(budget.run_deadline_ms),
            escalation: None,
            resumable: false,
            offered: None,
            ended_at: None,
        }
    }

    // ----- state and revision --------------------------------------------------

    /// The state in the custody machine.
    pub(super) fn state(&self) -> &RunState {
        &self.state
    }

    /// Whether the run has ended.
    pub(super) fn is_terminal(&self) -> bool {
        self.state.is_terminal()
    }

    /// Moves to `to` at `now`, if the machine's table allows it: `Ok` with
    /// the state it left, `Err` with the state it stays in.
    pub(super) fn enter(&mut self, to: RunState, now: u64) -> Result<StateName, StateName> {
        let from = self.state.name();
        if !from.can_become(to.name()) {
            return Err(from);
        }
        if to.is_terminal() {
            self.ended_at = Some(now);
        }
        self.state = to;
        Ok(from)
    }

    /// When the run reached a terminal state.
    pub(super) fn ended_at(&self) -> Option<u64> {
        self.ended_at
    }

    /// The revision of the last journal record.
    pub(super) fn revision(&self) -> u64 {
        self.revision
    }

    /// A record is journalled: the next revision.
    pub(super) fn next_revision(&mut self) -> u64 {
        self.revision += 1;
        self.revision
    }

    // ----- bounds ----------------------------------------------------------------

    /// The budget in force.
    pub(super) fn budget(&self) -> Budget {
        self.budget
    }

    /// The budget is fixed at `budget`; the run's deadline follows it from
    /// its creation at `created_at`.
    pub(super) fn set_budget(&mut self, budget: Budget, created_at: u64) {
        self.budget = budget;
        self.deadline_at = created_at.saturating_add(budget.run_deadline_ms);
    }

    /// What the run used of its budget.
    pub(super) fn usage(&self) -> Usage {
        self.usage
    }

    /// A call is dispatched (charged at reservation).
    pub(super) fn charge_call(&mut self) {
        self.usage.calls += 1;
    }

    /// A turn is reserved (charged at reservation); returns its number.
    pub(super) fn charge_turn(&mut self) -> u32 {
        self.usage.turns += 1;
        self.usage.turns
    }

    /// When the run must have returned.
    pub(super) fn deadline_at(&self) -> u64 {
        self.deadline_at
    }

    // ----- the person, the end ---------------------------------------------------

    /// The escalation the run waits on, if any.
    pub(super) fn escalation(&self) -> Option<&Escalation> {
        self.escalation.as_ref()
    }

    /// The escalation the run waits on lasts until `deadline_at` (a
    /// question's own deadline).
    pub(super) fn escalation_until(&mut self, deadline_at: u64) {
        if let Some(escalation) = self.escalation.as_mut() {
            escalation.deadline_at = deadline_at;
        }
    }

    /// Control goes to the person, for `escalation`.
    pub(super) fn escalate(&mut self, escalation: Escalation) {
        self.escalation = Some(escalation);
    }

    /// Nothing is escalated any more.
    pub(super) fn clear_escalation(&mut self) {
        self.escalation = None;
    }

    /// Whether a chained run may resume this one.
    pub(super) fn is_resumable(&self) -> bool {
        self.resumable
    }

    /// Whether a chained run may resume this one, from now on.
    pub(super) fn set_resumable(&mut self, resumable: bool) {
        self.resumable = resumable;
    }

    /// What a reload cut off, offered again, if it is.
    pub(super) fn offered(&self) -> Option<&Offered> {
        self.offered.as_ref()
    }

    /// What the person was shown is offered again.
    pub(super) fn offer(&mut self, offered: Offered) {
        self.offered = Some(offered);
    }

    /// The offer is taken up or discarded: it is returned, offered no more.
    pub(super) fn take_offered(&mut self) -> Option<Offered> {
        self.offered.take()
    }
}
