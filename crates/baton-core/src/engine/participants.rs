//! Participants and their reads: manifests parsed and registered (inert,
//! AG-12), the tools they offer, and the versioned, origin-tagged reads
//! they publish (AG-20, AG-27).

use super::*;

impl Engine {
    /// Parses a manifest, compiling its schemas once through the engine's cache.
    pub(crate) fn parse_manifest(&mut self, text: &str) -> Result<Manifest, ManifestError> {
        self.shared.registry.parse(text)
    }

    /// Mounts a participant (AG-12: inert — nothing happens until a
    /// delegation reads it). Returns its mounted id: the manifest id, or
    /// `id#instance` when several instances may be mounted.
    pub(crate) fn register(
        &mut self,
        manifest: Manifest,
        instance: Option<&str>,
    ) -> Result<ParticipantId, RegisterError> {
        self.shared.registry.register(manifest, instance)
    }

    /// Registers a participant from its manifest's JSON text, the way a
    /// component does when it mounts: it never breaks the component
    /// (AG-13, AG-50). A manifest with problems is refused as a whole — the
    /// participant offers no tools, and a call addressed to it is refused
    /// with the problems — and the problems come back, each with its
    /// requirement and JSON path, for the host to report once.
    pub(crate) fn register_text(
        &mut self,
        text: &str,
        instance: Option<&str>,
    ) -> Result<ParticipantId, RegistrationRefused> {
        let refused = |problems: Vec<crate::manifest::ManifestProblem>| {
            let participant = serde_json::from_str::<Value>(text)
                .ok()
                .and_then(|manifest| manifest.get("id")?.as_str().map(str::to_owned))
                .map(|id| match instance {
                    Some(name) => ParticipantId::new(format!("{id}#{name}")),
                    None => ParticipantId::new(id),
                });
            RegistrationRefused {
                participant,
                problems,
            }
        };
        let manifest = match self.shared.registry.parse(text) {
            Ok(manifest) => manifest,
            Err(error) => {
                let refusal = refused(error.problems);
                if let Some(id) = &refusal.participant {
                    self.shared
                        .registry
                        .refuse(id.clone(), refusal.problems.clone());
                }
                return Err(refusal);
            }
        };
        match self.shared.registry.register(manifest, instance) {
            Ok(id) => Ok(id),
            Err(error) => {
                let refusal = refused(error.problems());
                // A second registration under a mounted id leaves that one be.
                if let (Some(id), false) = (
                    &refusal.participant,
                    matches!(error, RegisterError::AlreadyMounted(_)),
                ) {
                    self.shared
                        .registry
                        .refuse(id.clone(), refusal.problems.clone());
                }
                Err(refusal)
            }
        }
    }

    /// Unmounts a participant and withdraws its reads.
    pub(crate) fn unregister(&mut self, participant: &ParticipantId) -> bool {
        self.shared
            .reads
            .retain(|read, _| read.participant != *participant);
        self.shared.registry.unregister(participant)
    }

    /// The mounted participants.
    pub fn registry(&self) -> &Registry {
        &self.shared.registry
    }

    /// Publishes a read's current version and origin; the next turn's context
    /// snapshot carries it.
    ///
    /// `actor` says who made the change. A participant that publishes a
    /// change a call made passes that call's actor reference (the one
    /// `invoke` was given): the change is then the run's own, and is neither
    /// stale (AG-20) nor drift (AG-29) for it — for the call's first change,
    /// published while it runs or within [`CALL_SETTLES_MS`] after; a
    /// reference kept longer, or passed again, publishes the person's
    /// change (see [`Engine::vouches`]). Without a reference the
    /// change is the person's — even while a run's call is mutating the same
    /// participant — so the run's stale and drift checks see it, and so does
    /// an undo of a run that changed the participant before (A.2). A
    /// reference this engine did not mint for this session is refused
    /// (AG-33), and nothing is published.
    ///
    /// The read must be declared by the mounted participant. Its effective
    /// origin is the *least* trusted of the declared and the published one:
    /// a participant can say that today's content is less trustworthy than
    /// usual, never launder a read declared third-party into `author`
    /// (AG-27, AG-28). Returns the stamp as the context will carry it.
    ///
    /// A plan under review that was planned on another version of the read
    /// is superseded (A.2): a `review-superseded` record moves its revision
    /// and its sheet marks the stale acts ([`crate::ReviewItem::stale`]).
    pub(crate) fn publish_read(
        &mut self,
        now: u64,
        stamp: ReadStamp,
        actor: Option<&ActorRef>,
    ) -> Result<ReadStamp, PublishError> {
        let participant = &stamp.read.participant;
        let writer = match actor {
            None => None,
            Some(actor) => {
                let unknown = || PublishError::UnknownActor {
                    actor: actor.to_string(),
                };
                let identity = self.resolve_actor(actor).ok_or_else(unknown)?;
                // A reference is for changes its run's calls made to this
                // participant, not for another participant's publish…
                let changed = self
                    .runs
                    .get(&identity.run)
                    .is_none_or(|run| run.has_changed(participant));
                if !changed {
                    return Err(unknown());
                }
                // …and for its call's first change alone, while the call
                // runs or just after: a reference kept longer, or passed
                // again, publishes the person's change (A.2).
                self.vouches(now, participant, &identity)
                    .then_some(identity.run)
            }
        };
        let declared = self
            .shared
            .registry
            .get(participant)
            .ok_or_else(|| PublishError::UnknownParticipant(participant.clone()))?
            .manifest
            .reads()
            .iter()
            .find(|read| read.name == stamp.read.read)
            .ok_or_else(|| PublishError::UndeclaredRead {
                participant: participant.clone(),
                read: stamp.read.read.clone(),
            })?
            .origin;
        let stamp = ReadStamp {
            origin: stamp.origin.max(declared),
            ..stamp
        };
        // The change a call made is published: its window closes.
        if let Some(run) = &writer {
            let participant = stamp.read.participant.clone();
            let under_way = self
                .calls_under_way(&participant)
                .find(|(r, _)| *r == run)
                .map(|(_, call)| call.call.clone());
            self.settling
                .published(&participant, run, under_way.as_ref());
        }
        // The run that made the change takes it as its own; nobody else does.
        if let Some(run) = writer.as_ref().and_then(|id| self.runs.get_mut(id)) {
            if !run.state().is_terminal() {
                run.attribute_write(&stamp);
            }
        }
        // A new version of a read already known is a change; the first
        // publish (a mount) or the same version again is not.
        let moved = self
            .shared
            .reads
            .get(&stamp.read)
            .is_some_and(|known| known.version != stamp.version);
        if moved {
            let by = match writer {
                Some(run) => ChangedBy::Run { run },
                None => ChangedBy::Person,
            };
            self.changes.record(&stamp.read.participant, by);
        }
        // A plan under review that was planned on another version of this
        // read is superseded (A.2): the sheet marks its stale acts.
        let superseded: Vec<RunId> = self
            .runs
            .values()
            .filter(|run| run.superseded_by(&self.shared.registry, &stamp))
            .map(|run| run.id().clone())
            .collect();
        self.shared.reads.insert(stamp.read.clone(), stamp.clone());
        for id in superseded {
            self.with_run(now, &id, |run, step| {
                run.supersede_review(step, stamp.read.clone())
            });
        }
        Ok(stamp)
    }

    /// Withdraws a read.
    pub(crate) fn withdraw_read(&mut self, read: &ReadRef) {
        self.shared.reads.remove(read);
    }
}
