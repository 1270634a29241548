//! The dialogue with whoever plans, as one run keeps it: the plan the
//! person reviews, the open turn, the calls waiting to be dispatched, every
//! call id ever proposed, what the acting party last saw of each read, and
//! the results it has not heard yet. The fields are this module's; every
//! change goes through a method that keeps the rules below.
//!
//! - A plan is accepted whole: it is the plan the person reviews and, in
//!   order, the queue of calls to dispatch.
//! - The plan's start is announced once (AG-37).
//! - Call ids are never reused: a turn's proposals are seen when it ends.
//! - A call the person edits is edited in the plan and in the queue alike.
//! - What the acting party saw is the last turn's context, advanced only by
//!   the run's own writes to reads it saw (AG-20).
//! - Each result is reported to the acting party once.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::Value;

use crate::context::{ReadRef, ReadStamp};
use crate::ids::CallId;
use crate::journal::CallReport;

use super::row::columns;
use super::{AskedQuestion, OpenTurn, ProposedCall};

columns! {
    /// The dialogue of one run.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub(super) struct TurnLog {
        /// The plan the person reviews: the first turn's proposals.
        plan: Vec<ProposedCall> => "plan",
        /// Whether the plan's start was announced (once per plan, AG-37).
        plan_announced: bool => "planAnnounced" (default),
        turn: Option<OpenTurn> => "turn",
        /// Every call id proposed in the run (ids are never reused).
        seen_calls: BTreeSet<CallId> => "seenCalls",
        /// Calls waiting to be dispatched, in order.
        queue: VecDeque<ProposedCall> => "queue",
        /// What the acting party last saw of each read: the latest turn's
        /// context, advanced by the run's own writes (AG-20).
        seen: BTreeMap<ReadRef, ReadStamp> => "seen" (stamps),
        /// Call results for the next turn.
        reports: Vec<CallReport> => "reports",
        /// How many of the acting party's calls the engine refused.
        refused: u32 => "refused" (default),
    }
}

impl TurnLog {
    // ----- the plan and the queue ----------------------------------------------

    /// The plan the person reviews.
    pub(super) fn plan(&self) -> &[ProposedCall] {
        &self.plan
    }

    /// `plan` is accepted: reviewed as it is, and queued in order.
    pub(super) fn accept(&mut self, plan: Vec<ProposedCall>) {
        self.queue = plan.clone().into();
        self.plan = plan;
    }

    /// The plan, the first time its start is announced; `None` after.
    pub(super) fn announce_plan(&mut self) -> Option<Vec<ProposedCall>> {
        if self.plan_announced {
            return None;
        }
        self.plan_announced = true;
        Some(self.plan.clone())
    }

    /// The calls waiting to be dispatched, in order.
    pub(super) fn queue(&self) -> &VecDeque<ProposedCall> {
        &self.queue
    }

    /// The next call to dispatch, taken off the queue.
    pub(super) fn pop_call(&mut self) -> Option<ProposedCall> {
        self.queue.pop_front()
    }

    /// Calls to dispatch after those waiting.
    pub(super) fn enqueue(&mut self, calls: impl IntoIterator<Item = ProposedCall>) {
        self.queue.extend(calls);
    }

    /// Nothing more is dispatched.
    pub(super) fn clear_queue(&mut self) {
        self.queue.clear();
    }

    /// The person changed `call`'s arguments: in the queue and in the plan
    /// alike. Returns the call as it now stands, if it is queued.
    pub(super) fn edit(&mut self, call: &CallId, arguments: &Value) -> Option<ProposedCall> {
        let queued = self.queue.iter_mut().find(|c| &c.call == call)?;
        queued.arguments = arguments.clone();
        let edited = queued.clone();
        if let Some(planned) = self.plan.iter_mut().find(|c| &c.call == call) {
            planned.arguments = arguments.clone();
        }
        Some(edited)
    }

    // ----- turns ----------------------------------------------------------------

    /// The open turn, if the run waits on the acting party.
    pub(super) fn turn(&self) -> Option<&OpenTurn> {
        self.turn.as_ref()
    }

    /// The acting party proposes `call` in the open turn (none open: it is
    /// dropped, as traffic after a turn ended is).
    pub(super) fn propose(&mut self, call: ProposedCall) {
        if let Some(turn) = self.turn.as_mut() {
            turn.proposals.push(call);
        }
    }

    /// The acting party asks the person `asked` in the open turn.
    pub(super) fn ask(&mut self, asked: AskedQuestion) {
        if let Some(turn) = self.turn.as_mut() {
            turn.questions.push(asked);
        }
    }

    /// `turn` opens, on the reads as they are now: that is what the acting
    /// party sees.
    pub(super) fn open(&mut self, turn: OpenTurn, reads: BTreeMap<ReadRef, ReadStamp>) {
        self.seen = reads;
        self.turn = Some(turn);
    }

    /// The open turn ends: its proposals' ids are used from now on.
    pub(super) fn end_turn(&mut self) -> Option<OpenTurn> {
        let turn = self.turn.take()?;
        self.seen_calls
            .extend(turn.proposals.iter().map(|p| p.call.clone()));
        Some(turn)
    }

    /// The open turn is cut off (the run ends, or it is cancelled).
    pub(super) fn drop_turn(&mut self) -> Option<OpenTurn> {
        self.turn.take()
    }

    /// Whether a call id was used before, in an ended turn.
    pub(super) fn has_seen_call(&self, call: &CallId) -> bool {
        self.seen_calls.contains(call)
    }

    /// A call carried over from another run (reviewed again) is this run's
    /// proposal: its id is used, and it is queued.
    pub(super) fn carry_over(&mut self, call: ProposedCall) {
        self.seen_calls.insert(call.call.clone());
        self.queue.push_back(call);
    }

    /// A plan carried over is the plan the person reviews again.
    pub(super) fn carry_over_plan(&mut self, plan: Vec<ProposedCall>) {
        self.plan = plan;
    }

    // ----- what the acting party saw and hears ------------------------------------

    /// What the acting party last saw of each read.
    pub(super) fn seen(&self) -> &BTreeMap<ReadRef, ReadStamp> {
        &self.seen
    }

    /// What the acting party saw is the reads as they are now.
    pub(super) fn see_all(&mut self, reads: BTreeMap<ReadRef, ReadStamp>) {
        self.seen = reads;
    }

    /// The acting party saw `stamp` (a call carried over was planned on it).
    pub(super) fn see(&mut self, stamp: ReadStamp) {
        self.seen.insert(stamp.read.clone(), stamp);
    }

    /// The run's own write: a read the acting party saw moves with it.
    pub(super) fn advance_seen(&mut self, stamp: &ReadStamp) {
        if let Some(seen) = self.seen.get_mut(&stamp.read) {
            *seen = stamp.clone();
        }
    }

    /// One more of the acting party's calls was refused.
    pub(super) fn count_refusal(&mut self) {
        self.refused = self.refused.saturating_add(1);
    }

    /// How many of the acting party's calls were refused.
    pub(super) fn refused(&self) -> u32 {
        self.refused
    }

    /// A result for the next turn.
    pub(super) fn report(&mut self, report: CallReport) {
        self.reports.push(report);
    }

    /// The results not heard yet.
    pub(super) fn reports(&self) -> &Vec<CallReport> {
        &self.reports
    }

    /// Results carried over from another run.
    pub(super) fn carry_over_reports(&mut self, reports: Vec<CallReport>) {
        self.reports = reports;
    }

    /// The results for the turn being opened: each is heard once.
    pub(super) fn take_reports(&mut self) -> Vec<CallReport> {
        std::mem::take(&mut self.reports)
    }
}
