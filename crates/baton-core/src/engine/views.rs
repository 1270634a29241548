//! Borrowed views for reading: a run with what the engine derives from it,
//! the questions, and the actor references this engine minted. Reading
//! never changes anything; everything that does goes through
//! [`Engine::handle`].

use std::ops::Deref;

use super::*;

/// A run as the engine reads it: the run's own state (through `Deref`) and
/// what the engine derives from it with what spans runs — the review sheet,
/// the escalation sheet, the actor reference of its call in flight.
/// (Not `Clone`: `view.clone()` clones the run.)
#[derive(Debug)]
pub struct RunView<'a> {
    engine: &'a Engine,
    run: &'a Run,
}

impl<'a> RunView<'a> {
    /// The run itself, for as long as the engine is borrowed.
    pub fn run(&self) -> &'a Run {
        self.run
    }

    /// What the person reviews, while the run is under review (AG-31).
    pub fn review(&self) -> Option<ReviewSheet> {
        let shared = &self.engine.shared;
        self.run.review_sheet(&shared.registry, &shared.reads)
    }

    /// The escalation sheet while the run is escalated: why it waits, and
    /// the resolutions that would let it go on or end it.
    pub fn escalation(&self) -> Option<EscalationSheet> {
        self.run
            .escalation_sheet(&self.engine.shared.config.max_budget)
    }

    /// The actor reference of the run's call in flight, as handed to the
    /// participant with the invocation (AG-32).
    pub fn actor(&self) -> Option<ActorRef> {
        let shared = &self.engine.shared;
        self.run.minted_ref(&shared.secret, &shared.config.session)
    }
}

impl Deref for RunView<'_> {
    type Target = Run;

    fn deref(&self) -> &Run {
        self.run
    }
}

/// The questions to the person (AG-41), oldest first.
#[derive(Debug, Clone, Copy)]
pub struct QuestionsView<'a> {
    engine: &'a Engine,
}

impl<'a> QuestionsView<'a> {
    /// A question by id.
    pub fn get(&self, id: &QuestionId) -> Option<&'a Question> {
        self.engine.questions.get(id)
    }

    /// Every question, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &'a Question> {
        self.engine.questions.all()
    }
}

/// The actor references this engine mints (AG-32, AG-33): what one names,
/// whether a change may carry it, and which one a participant's change is.
#[derive(Debug, Clone, Copy)]
pub struct ActorsView<'a> {
    engine: &'a Engine,
}

impl ActorsView<'_> {
    /// What a reference names, if this engine minted it; a forged, altered
    /// or foreign reference resolves to nothing (AG-33).
    pub fn resolve(&self, actor: &ActorRef) -> Option<ActorIdentity> {
        self.engine.resolve_actor(actor)
    }

    /// Admits a mutation (AG-1). No actor reference means the person, who
    /// may always act (AG-32). A reference is admitted only if this engine
    /// minted it (AG-33) and it names the call in flight of an active run.
    pub fn admit(&self, actor: Option<&ActorRef>) -> Result<Attribution, MutationRefused> {
        self.engine.admit_mutation(actor)
    }

    /// The reference a change `participant` publishes now is taken to carry:
    /// its call's while a state-changing call to it runs, or within
    /// [`CALL_SETTLES_MS`] after it returned, once; `None` otherwise — the
    /// change is then the person's (see `engine/settling.rs`).
    pub fn calling(&self, now: u64, participant: &ParticipantId) -> Option<ActorRef> {
        self.engine.call_actor(now, participant)
    }
}

impl Engine {
    /// A run by id, with what the engine derives from it.
    pub fn run(&self, id: &RunId) -> Option<RunView<'_>> {
        let run = self.runs.get(id)?;
        Some(RunView { engine: self, run })
    }

    /// The questions to the person.
    pub fn questions(&self) -> QuestionsView<'_> {
        QuestionsView { engine: self }
    }

    /// The actor references this engine mints.
    pub fn actors(&self) -> ActorsView<'_> {
        ActorsView { engine: self }
    }
}
