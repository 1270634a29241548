//! The commands: the person's decisions about runs (delegate, authorize,
//! reject, resolve, undo, stop, pause, kill) and the engine-wide switches.

use super::*;

impl Engine {
    // ----- commands --------------------------------------------------------

    /// Starts a run. With an acting party, its planning turn is reserved and
    /// sent at once; with a fixed plan, the plan is proposed directly.
    pub(crate) fn delegate(
        &mut self,
        now: u64,
        delegation: Delegation,
    ) -> Result<RunId, DelegateError> {
        if self.disabled {
            return Err(DelegateError::Disabled);
        }
        let budget = delegation
            .budget
            .unwrap_or(self.shared.config.default_budget);
        let source = match &delegation.plan {
            Some(plan) if plan.is_empty() => return Err(DelegateError::EmptyPlan),
            Some(_) => PlanSource::Fixed,
            None if !self.shared.config.transport && !delegation.own_transport => {
                return Err(DelegateError::NoTransport)
            }
            None => PlanSource::ActingParty,
        };
        self.check_budget(&budget, source)
            .map_err(DelegateError::InvalidBudget)?;
        if !delegation.initiative.is_user() {
            self.charge_quota(now)?;
        }
        let autonomy = self.run_autonomy(delegation.autonomy, delegation.initiative);
        let id = self.mint_run_id();
        let mut run = Run::new(
            Charter {
                id: id.clone(),
                intent: delegation.intent,
                initiative: delegation.initiative,
                requested: delegation.autonomy,
                autonomy,
                source,
                budget,
                resumes: None,
                thread: delegation.thread,
            },
            now,
        );
        let actor = if delegation.initiative.is_user() {
            Actor::Person
        } else {
            Actor::Engine
        };
        let mut step = Step::new(now, &mut self.out, &self.shared, &mut self.questions);
        run.start(&mut step, actor, delegation.plan);
        self.runs.insert(id.clone(), run);
        Ok(id)
    }

    /// Resumes a paused run as a fresh run chained in the same session
    /// (AG-11). Undelivered call results travel to the new run's first turn.
    pub(crate) fn resume(
        &mut self,
        now: u64,
        paused: &RunId,
        budget: Option<Budget>,
    ) -> Result<RunId, DelegateError> {
        if self.disabled {
            return Err(DelegateError::Disabled);
        }
        let budget = self
            .runs
            .get(paused)
            .ok_or_else(|| DelegateError::UnknownRun(paused.clone()))?
            .resume_budget(budget)?;
        // A resumed run plans with an acting party, as a delegation without
        // a plan does (AG-50).
        if !self.shared.config.transport {
            return Err(DelegateError::NoTransport);
        }
        self.check_budget(&budget, PlanSource::ActingParty)
            .map_err(DelegateError::InvalidBudget)?;
        let id = self.mint_run_id();
        let Some(previous) = self.runs.get_mut(paused) else {
            return Err(DelegateError::UnknownRun(paused.clone()));
        };
        let mut run = previous.resumed_by(id.clone(), budget, now);
        let mut step = Step::new(now, &mut self.out, &self.shared, &mut self.questions);
        run.start(&mut step, Actor::Person, None);
        self.runs.insert(id.clone(), run);
        Ok(id)
    }

    /// Authorizes a reviewed plan: reviewing → authorized → acting. The
    /// revision fence makes sure the person authorizes what they saw.
    pub(crate) fn authorize(
        &mut self,
        now: u64,
        id: &RunId,
        expected_revision: u64,
        authorization: Authorization,
    ) -> Result<(), CommandError> {
        if authorization.grant_ms == Some(0) {
            return Err(CommandError::Grant(GrantError::NoTimeToLive));
        }
        let grant_ms = authorization.grant_ms;
        self.command(
            now,
            id,
            Some(expected_revision),
            "authorize",
            |run, step| run.authorize(step, authorization),
        )?;
        if let Some(ttl_ms) = grant_ms {
            self.grant_allowlist(now, id, ttl_ms);
        }
        Ok(())
    }

    /// Approve with edits: replaces the arguments of a planned call the
    /// person is reviewing, at the revision they saw. Refused as a proposed
    /// call's arguments would be (AG-15, AG-16); journalled as the person's
    /// act and previewed again (AG-31); authorizing then binds the edited
    /// arguments, and the acting party hears them with the call's result.
    pub(crate) fn edit_call(
        &mut self,
        now: u64,
        id: &RunId,
        expected_revision: u64,
        call: &CallId,
        arguments: Value,
    ) -> Result<(), CommandError> {
        self.command(
            now,
            id,
            Some(expected_revision),
            "edit a call",
            |run, step| run.edit_call(step, call, arguments),
        )
    }

    /// Standing `allow` grants on every declared capability a run allows.
    pub(super) fn grant_allowlist(&mut self, now: u64, id: &RunId, ttl_ms: u64) {
        // Inserted one by one (`extend`), not collected: collecting into a
        // tree sorts first, and every sorted type costs the browser runtime
        // its own copy of the sort (the manual, "Size").
        let mut scopes: BTreeSet<GrantScope> = BTreeSet::new();
        scopes.extend(
            self.runs
                .get(id)
                .into_iter()
                .flat_map(|run| run.allowlist())
                .map(|address| GrantScope {
                    participant: ParticipantId::new(
                        address
                            .participant
                            .as_str()
                            .split('#')
                            .next()
                            .unwrap_or_default(),
                    ),
                    capability: Some(address.capability.clone()),
                }),
        );
        for scope in scopes {
            // Undeclared capabilities (refused anyway) get no grant.
            let _ =
                self.shared
                    .grants
                    .give(now, &self.shared.registry, scope, Decision::Allow, ttl_ms);
        }
    }

    /// Rejects a plan under review. Before anything was authorized the run
    /// is `cancelled`; on re-review after acting it returns `aborted`.
    pub(crate) fn reject(
        &mut self,
        now: u64,
        id: &RunId,
        expected_revision: u64,
        note: &str,
    ) -> Result<(), CommandError> {
        self.command(now, id, Some(expected_revision), "reject", |run, step| {
            run.reject(step, note)
        })
    }

    /// Resolves an escalation (AG-6, AG-7).
    ///
    /// * `Allow` lets the run go on: an out-of-scope capability joins the
    ///   allowlist, a call that needed review is approved, drift or a lapsed
    ///   authorization is re-approved against the reads as they are now, and
    ///   exhaustion needs a budget that raises the exhausted limit.
    /// * `Deny` refuses the pending call (the acting party hears so); for
    ///   exhaustion, drift or expiry it ends the run as `Return` does.
    /// * `Review` sends the run back to review; `Return` ends it, `aborted`.
    pub(crate) fn resolve_escalation(
        &mut self,
        now: u64,
        id: &RunId,
        expected_revision: u64,
        resolution: Resolution,
    ) -> Result<(), CommandError> {
        self.command(
            now,
            id,
            Some(expected_revision),
            "resolve-escalation",
            |run, step| run.resolve_escalation(step, resolution),
        )
    }

    /// The person undoes a run that has returned, in one step (A.2): the
    /// undo is journalled as the person's, and every participant the run
    /// changed is asked, last touched first, to revert to the mark taken
    /// before the run ([`crate::Effect::Revert`]; report with
    /// [`Engine::handle`] with [`crate::Report::Revert`]). Each result is journalled; when all
    /// have answered (or the revert timeout passed) the engine announces the
    /// undo and emits [`Event::Undone`]. Returns the group being reverted.
    /// Refused while the run is active, after a rollback (nothing is left to
    /// undo), and a second time.
    ///
    /// Undo is a write with optimistic concurrency: a participant the person
    /// or a later run changed after this run did is not reverted blindly.
    /// With [`UndoScope::Checked`] such a participant holds the whole undo
    /// back — journalled (`undo-held`), said, and refused with
    /// [`CommandError::UndoConflict`] naming each and who changed it — and
    /// the person chooses [`UndoScope::Untouched`] (revert only the others)
    /// or [`UndoScope::Force`] (revert them all).
    pub(crate) fn undo(
        &mut self,
        now: u64,
        id: &RunId,
        scope: UndoScope,
    ) -> Result<Vec<(ParticipantId, MarkToken)>, CommandError> {
        let group = self.runs.get(id).map(Run::undo_group).unwrap_or_default();
        let conflicts = self
            .changes
            .conflicts(id, group.iter().map(|(participant, _)| participant));
        self.with_run(now, id, |run, step| run.undo(step, scope, conflicts))
            .unwrap_or_else(|| Err(CommandError::UnknownRun(id.clone())))
    }

    /// Who changed each participant last (A.2), as an undo checks it.
    pub fn changes(&self) -> &Changes {
        &self.changes
    }

    /// The person stops a run: `returned{aborted, user-interrupt}`, never an
    /// error (AG-9). Works from every non-terminal state, without a fence.
    pub(crate) fn stop(&mut self, now: u64, id: &RunId) -> Result<(), CommandError> {
        self.terminal_command(now, id, "stop", ReturnReason::UserInterrupt)
    }

    /// Pauses a run: a return with resumable context (AG-11).
    pub(crate) fn pause(&mut self, now: u64, id: &RunId) -> Result<(), CommandError> {
        self.terminal_command(now, id, "pause", ReturnReason::Paused)
    }

    /// The person's keyboard exit (AG-42): every active run is stopped —
    /// `returned{aborted, user-interrupt}`, each announced as the person's
    /// act. Returns how many runs it stopped; with none active it does
    /// nothing, and the host leaves the key to the page.
    pub(crate) fn interrupt_all(&mut self, now: u64) -> usize {
        let ids: Vec<RunId> = self.active_runs().map(|run| run.id().clone()).collect();
        // A run a due timer ends first is not stopped again.
        ids.iter().filter(|id| self.stop(now, id).is_ok()).count()
    }

    /// The global kill as part of one that spans several engines (every
    /// engine of a page, every tab of an origin): every active run of this
    /// engine returns `aborted`, journalled as the person's act, and the
    /// announcement is made once for the whole kill by the engine `scope`
    /// names (AG-10, AG-37). Returns how many runs of this engine it ended.
    pub(crate) fn kill_all_in(&mut self, now: u64, scope: KillScope) -> usize {
        let ids: Vec<RunId> = self.active_runs().map(|run| run.id().clone()).collect();
        self.out.hush_closings = true;
        for id in &ids {
            self.with_run(now, id, |run, step| {
                run.end(step, Actor::Person, ReturnReason::Kill)
            });
        }
        self.out.hush_closings = false;
        if let KillScope::Announcing { elsewhere } = scope {
            // One announcement for every run the kill ended (AG-37).
            if !ids.is_empty() || elsewhere > 0 {
                self.out
                    .events
                    .push_back(Event::Announcement(crate::announce::killed(
                        ids.clone(),
                        elsewhere,
                    )));
            }
        }
        ids.len()
    }

    /// Refuses new runs until [`Enable`] (AG-10). Active runs go on;
    /// use [`Kill`] to end them.
    pub(crate) fn disable(&mut self) {
        self.disabled = true;
    }

    /// Accepts new runs again.
    pub(crate) fn enable(&mut self) {
        self.disabled = false;
    }

    /// Reconciles a restored engine (startup, reconnect, wake): expires
    /// questions past their deadline (their runs return `question-expired`),
    /// then ends every run a previous engine instance left active —
    /// `returned{aborted, interrupted}`. Idempotent: a second call right
    /// after changes nothing.
    pub(crate) fn reconcile(&mut self, now: u64) -> Reconciliation {
        let overdue: Vec<RunId> = self
            .questions
            .all()
            .filter(|question| question.state.is_open() && now >= question.deadline_at)
            .map(|question| question.run.clone())
            .collect();
        let mut result = Reconciliation::default();
        for id in &overdue {
            let expired = self.with_run(now, id, |run, step| {
                run.abandon(step, Outcome::Error, ReturnReason::QuestionExpired);
            });
            result.expired += u32::from(expired.is_some());
        }
        // Questions whose run is unknown here close too, so none stays open forever.
        for question in self.questions.by_id.values_mut() {
            if question.state.is_open() && now >= question.deadline_at {
                question.set_state(QuestionState::Expired { at: now });
            }
        }
        let active: Vec<RunId> = self.active_runs().map(|run| run.id().clone()).collect();
        for id in &active {
            self.with_run(now, id, |run, step| run.cut_off_by_reload(step));
        }
        result.interrupted = u32::try_from(active.len()).unwrap_or(u32::MAX);
        let dropped = self.shared.grants.expire(now);
        result.grants_dropped = u32::try_from(dropped).unwrap_or(u32::MAX);
        result
    }

    /// Whether [`Reconcile`] has anything to look at — a run, a
    /// question or a grant. A new engine has none: a host may skip
    /// reconciling it, and the step that would carry out nothing.
    pub fn has_anything_to_reconcile(&self) -> bool {
        !self.runs.is_empty()
            || self.questions.all().next().is_some()
            || !self.shared.grants.is_empty()
    }
}
