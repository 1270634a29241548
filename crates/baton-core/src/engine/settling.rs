//! Which call a participant's change is (A.2). A component commits the
//! state a call changed while the call runs, or just after it returns: a
//! framework renders once the call's promise settles. The first change a
//! participant publishes while a state-changing call to it runs, or within
//! [`CALL_SETTLES_MS`] after that call returns, is the call's; any other
//! change is the person's. Bindings ask [`crate::ActorsView::calling`] and publish
//! with the reference it gives: the rule is kept here, once, and not in
//! each binding.

use super::*;

/// How long after a state-changing call returns the first change its
/// participant publishes is still taken as the call's.
pub const CALL_SETTLES_MS: u64 = 100;

/// The calls whose change a participant's next publish may be: a few at
/// a time, one per participant at most, so kept in lists (a map type of
/// their own would cost the module kilobytes).
#[derive(Debug, Default)]
pub(super) struct Settling {
    /// Calls under way whose change their participant published already.
    spent: Vec<(ParticipantId, RunId, CallId)>,
    /// Per participant and run, the last state-changing call that returned
    /// before its change was published, and when.
    returned: Vec<Returned>,
}

/// A call that returned with its change unpublished: what its reference is
/// minted from (not its arguments), and when it returned.
#[derive(Debug)]
struct Returned {
    participant: ParticipantId,
    run: RunId,
    call: CallId,
    via: Vec<String>,
    at: u64,
}

impl Returned {
    fn is(&self, participant: &ParticipantId, run: &RunId) -> bool {
        self.participant == *participant && self.run == *run
    }
}

impl Settling {
    /// A state-changing call of `run` to `participant` returned at `at`:
    /// unless it published its change while it ran, the participant's next
    /// change within the window is its own.
    pub(super) fn returned(
        &mut self,
        participant: &ParticipantId,
        run: &RunId,
        call: &ProposedCall,
        at: u64,
    ) {
        let spent = self.is_spent(participant, run, &call.call);
        self.spent.retain(|(p, r, _)| p != participant || r != run);
        self.forget_returned(participant, run);
        // A window that has closed is no one's any more: the list holds only
        // calls that returned within the last CALL_SETTLES_MS.
        self.returned
            .retain(|returned| returned.at.saturating_add(CALL_SETTLES_MS) >= at);
        if !spent {
            self.returned.push(Returned {
                participant: participant.clone(),
                run: run.clone(),
                call: call.call.clone(),
                via: call.via.clone(),
                at,
            });
        }
    }

    /// `run` published a change of `participant` as its own, from the call
    /// `under_way` if one is: that call's change is published.
    pub(super) fn published(
        &mut self,
        participant: &ParticipantId,
        run: &RunId,
        under_way: Option<&CallId>,
    ) {
        if let Some(call) = under_way {
            self.spent.retain(|(p, r, _)| p != participant || r != run);
            self.spent
                .push((participant.clone(), run.clone(), call.clone()));
        }
        self.forget_returned(participant, run);
    }

    fn forget_returned(&mut self, participant: &ParticipantId, run: &RunId) {
        self.returned
            .retain(|returned| !returned.is(participant, run));
    }

    /// Whether `call` of `run` returned to `participant` with its change
    /// unpublished, no longer than [`CALL_SETTLES_MS`] before `now`.
    fn settling(&self, now: u64, participant: &ParticipantId, run: &RunId, call: &CallId) -> bool {
        self.returned.iter().any(|returned| {
            returned.is(participant, run)
                && returned.call == *call
                && now <= returned.at.saturating_add(CALL_SETTLES_MS)
        })
    }

    fn is_spent(&self, participant: &ParticipantId, run: &RunId, call: &CallId) -> bool {
        self.spent
            .iter()
            .any(|(p, r, c)| p == participant && r == run && c == call)
    }
}

impl Engine {
    /// Forgets the published marks of calls no longer in flight (a run that
    /// ended mid-call leaves one): the list holds calls under way only.
    pub(super) fn forget_settled_calls(&mut self) {
        let runs = &self.runs;
        self.settling.spent.retain(|(_, run, call)| {
            runs.get(run)
                .and_then(Run::call_in_flight)
                .is_some_and(|in_flight| in_flight.call == *call)
        });
    }

    /// The reference a change `participant` publishes now is taken to
    /// carry (see the module): `Some` while a state-changing call to it runs
    /// and its change is unpublished, or within [`CALL_SETTLES_MS`] after
    /// such a call returned with its change unpublished; `None` otherwise —
    /// the change is then the person's. Publishing with it
    /// ([`PublishRead`]) spends it.
    pub(crate) fn call_actor(&self, now: u64, participant: &ParticipantId) -> Option<ActorRef> {
        // Several runs may call one participant at once: the first whose
        // change is unpublished, then the first that returned within the
        // window.
        let under_way = self
            .calls_under_way(participant)
            .find(|(run, call)| !self.settling.is_spent(participant, run, &call.call))
            .map(|(run, call)| (run, &call.call, &call.via));
        let returned = || {
            self.settling
                .returned
                .iter()
                .find(|r| {
                    r.participant == *participant && now <= r.at.saturating_add(CALL_SETTLES_MS)
                })
                .map(|r| (&r.run, &r.call, &r.via))
        };
        let (run, call, via) = under_way.or_else(returned)?;
        let identity = ActorIdentity {
            session: self.shared.config.session.clone(),
            run: run.clone(),
            call: call.clone(),
            via: via.clone(),
        };
        Some(crate::actor::mint(&self.shared.secret, &identity))
    }

    /// Whether a change `participant` publishes now with the reference of
    /// `identity`'s call is that call's: the call runs and its change is
    /// unpublished, or it returned within [`CALL_SETTLES_MS`] with its
    /// change unpublished — the same rule [`Engine::call_actor`] gives the
    /// reference by. A reference kept longer, or passed again, vouches for
    /// nothing: the change is the person's.
    pub(super) fn vouches(
        &self,
        now: u64,
        participant: &ParticipantId,
        identity: &ActorIdentity,
    ) -> bool {
        let (run, call) = (&identity.run, &identity.call);
        let under_way = self
            .calls_under_way(participant)
            .any(|(r, c)| r == run && c.call == *call);
        if under_way {
            return !self.settling.is_spent(participant, run, call);
        }
        self.settling.settling(now, participant, run, call)
    }

    /// The state-changing calls to `participant` under way, with their runs.
    pub(super) fn calls_under_way<'a>(
        &'a self,
        participant: &'a ParticipantId,
    ) -> impl Iterator<Item = (&'a RunId, &'a ProposedCall)> + 'a {
        self.runs.values().filter_map(move |run| {
            let call = run
                .call_in_flight()
                .filter(|call| &call.capability.participant == participant)?;
            (!self.queries(call)).then_some((run.id(), call))
        })
    }

    /// Whether `call` is a query, which changes nothing.
    pub(super) fn queries(&self, call: &ProposedCall) -> bool {
        matches!(
            self.shared.registry.resolve(&call.capability),
            crate::registry::Address::Unique(_, decl) if decl.is_read_only()
        )
    }
}
