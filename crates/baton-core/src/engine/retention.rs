//! How long a finished run stays in memory.
//!
//! A run's journal grows by a few records a step and is written, step by
//! step, to the adapter's store. Kept in memory for ever, ten thousand runs
//! in one page load would hold ten thousand journals. Once the store holds
//! everything a finished run recorded, the run may leave memory: it is then
//! history, read back from the store, exactly as the runs of an earlier page
//! load are. The most recently finished runs stay, so that the person can
//! still undo them in one step (AG-19) and a surface can still show them.

use std::collections::BTreeSet;

use super::Engine;
use crate::RunId;

/// Finished runs an engine with a store keeps in memory, most recently
/// finished first: enough for every undo a person plausibly asks for in one
/// sitting, and the memory of a few hundred kilobytes at most.
pub const FINISHED_RUNS_KEPT: usize = 64;

impl Engine {
    /// The caller's store holds `run`'s journal up to `revision` (its
    /// write committed). Only what a store holds may leave memory.
    pub(crate) fn written(&mut self, run: &RunId, revision: u64) {
        if self.runs.contains_key(run) {
            let held = self.written.entry(run.clone()).or_default();
            *held = (*held).max(revision);
        }
    }

    /// Lets finished runs leave memory: all but the `keep` that finished
    /// last, among those whose every record the caller's store holds
    /// ([`Written`]). A run leaves only when nothing can change it
    /// any more — terminal, not resumable, no undo under way, no question
    /// of it still open — and its closed questions leave with it. Returns the runs that left,
    /// oldest first: from then on they are unknown to this engine, their
    /// journals the store's to answer for.
    ///
    /// An engine without a store never calls this; its runs stay.
    pub(crate) fn release_finished(&mut self, keep: usize) -> Vec<RunId> {
        let mut settled: Vec<(u64, &RunId)> = self
            .runs
            .values()
            .filter(|run| {
                // A paused run is a return that can still be resumed (AG-11).
                run.state().is_terminal()
                    && run.next_timeout().is_none()
                    && !run.is_offered()
                    && !run.is_resumable()
            })
            .filter(|run| self.written.get(run.id()).copied().unwrap_or(0) >= run.revision())
            .filter(|run| {
                !self
                    .questions
                    .all()
                    .any(|question| question.run == *run.id() && question.state.is_open())
            })
            .map(|run| {
                let at = run.journal().last().map_or(0, |record| record.at);
                // Ties in the order runs were made: a session's `rN` with
                // more digits came later (`r10` after `r9`). One key, so
                // the sort is the one the module has already.
                let digits = run.id().as_str().len().min(255) as u64;
                (at.saturating_mul(256).saturating_add(digits), run.id())
            })
            .collect();
        if settled.len() <= keep {
            return Vec::new();
        }
        // Finished last, kept; ties by when the run was made, then by id.
        settled.sort();
        let leaving: Vec<RunId> = settled[..settled.len() - keep]
            .iter()
            .map(|(_, id)| (*id).clone())
            .collect();
        let mut gone: BTreeSet<&RunId> = BTreeSet::new();
        gone.extend(leaving.iter());
        self.runs.retain(|id, _| !gone.contains(id));
        self.written.retain(|id, _| !gone.contains(id));
        self.questions
            .by_id
            .retain(|_, question| !gone.contains(&question.run));
        leaving
    }
}
