//! How a command or a report reaches a run: due timers first, then the
//! revision fence, then the decision.

use super::*;

impl Engine {
    pub(super) fn step(&mut self, now: u64) -> Step<'_> {
        Step::new(now, &mut self.out, &self.shared, &mut self.questions)
    }

    pub(crate) fn with_run<T>(
        &mut self,
        now: u64,
        id: &RunId,
        body: impl FnOnce(&mut Run, &mut Step<'_>) -> T,
    ) -> Option<T> {
        let run = self.runs.get_mut(id)?;
        let mut step = Step::new(now, &mut self.out, &self.shared, &mut self.questions);
        Some(body(run, &mut step))
    }

    /// A decision of the person: due timers apply first (they outrank it),
    /// then the revision fence, then the decision.
    pub(super) fn command(
        &mut self,
        now: u64,
        id: &RunId,
        expected_revision: Option<u64>,
        command: &'static str,
        body: impl FnOnce(&mut Run, &mut Step<'_>) -> Result<(), CommandError>,
    ) -> Result<(), CommandError> {
        self.with_run(now, id, |run, step| {
            run.settle(step);
            if run.state().is_terminal() {
                return Err(run.illegal(command));
            }
            if let Some(expected) = expected_revision {
                if expected != run.revision() {
                    return Err(CommandError::StaleRevision {
                        run: run.id().clone(),
                        expected,
                        actual: run.revision(),
                    });
                }
            }
            body(run, step)
        })
        .unwrap_or_else(|| Err(CommandError::UnknownRun(id.clone())))
    }

    /// Stop and pause outrank every timer cause, so they apply before any.
    pub(super) fn terminal_command(
        &mut self,
        now: u64,
        id: &RunId,
        command: &'static str,
        reason: ReturnReason,
    ) -> Result<(), CommandError> {
        self.with_run(now, id, |run, step| {
            if run.state().is_terminal() {
                return Err(run.illegal(command));
            }
            run.end(step, Actor::Person, reason);
            Ok(())
        })
        .unwrap_or_else(|| Err(CommandError::UnknownRun(id.clone())))
    }

    /// A host report. A failure it carries is an explicit cause that outranks
    /// timers; otherwise timers that are due apply first.
    pub(super) fn host_report(
        &mut self,
        now: u64,
        id: &RunId,
        carries_failure: bool,
        body: impl FnOnce(&mut Run, &mut Step<'_>) -> Result<(), ReportError>,
    ) -> Result<(), ReportError> {
        self.with_run(now, id, |run, step| {
            if !carries_failure {
                run.settle(step);
            }
            if run.state().is_terminal() {
                return Err(ReportError::RunEnded(run.id().clone()));
            }
            body(run, step)
        })
        .unwrap_or_else(|| Err(ReportError::UnknownRun(id.clone())))
    }
}
