//! The engine's live state for a store: the whole snapshot, or a header
//! plus rows of runs and questions, and an engine rebuilt from it.

use super::*;

/// The engine's live state, for persistence. History lives in the journal.
/// A store may keep it whole, or as a [`Engine::header`] plus rows of runs
/// and questions put back with [`EngineSnapshot::with_rows`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineSnapshot {
    /// Every run this engine knows, terminal ones included.
    pub runs: Vec<Run>,
    /// Start times of non-user runs inside the quota window.
    pub quota_starts: Vec<u64>,
    /// The next run number.
    pub next_run: u64,
    /// Whether delegation is disabled.
    pub disabled: bool,
    /// The person's standing grants (AG-30).
    #[serde(default)]
    pub grants: Grants,
    /// The questions, open and closed (AG-41).
    #[serde(default)]
    pub questions: Questions,
    /// Who changed each participant last (A.2).
    #[serde(default)]
    pub changes: Changes,
}

impl EngineSnapshot {
    /// A header ([`Engine::header`]) with rows of runs and questions put
    /// back — typically only the live ones, so restoring costs what is live,
    /// not what is history.
    pub fn with_rows(
        mut self,
        runs: impl IntoIterator<Item = Run>,
        questions: impl IntoIterator<Item = Question>,
    ) -> EngineSnapshot {
        self.runs.extend(runs);
        for question in questions {
            self.questions.by_id.insert(question.id.clone(), question);
        }
        self
    }
}

impl Engine {
    /// Rebuilds an engine from a snapshot without emitting anything: the
    /// escalation receipts and effects it already emitted are not repeated.
    /// Participants mount again and republish their reads.
    pub fn restore(config: EngineConfig, secret: ActorSecret, snapshot: EngineSnapshot) -> Self {
        let mut engine = Engine::new(config, secret);
        engine.runs = snapshot
            .runs
            .into_iter()
            .map(|run| (run.id().clone(), run))
            .collect();
        engine.quota_starts = snapshot.quota_starts.into();
        engine.next_run = snapshot.next_run;
        engine.disabled = snapshot.disabled;
        engine.shared.grants = snapshot.grants;
        engine.questions = snapshot.questions;
        engine.changes = snapshot.changes;
        // What was restored is what the store holds.
        engine.take_header_changed();
        engine
    }

    /// The snapshot without runs or questions (their counters kept): what
    /// a store keeps beside the rows of runs and questions it writes one by
    /// one, so a step writes only what it changed.
    pub fn header(&self) -> EngineSnapshot {
        let mut questions = self.questions.clone();
        questions.by_id.clear();
        EngineSnapshot {
            runs: Vec::new(),
            quota_starts: self.quota_starts.iter().copied().collect(),
            next_run: self.next_run,
            disabled: self.disabled,
            grants: self.shared.grants.clone(),
            questions,
            changes: self.changes.clone(),
        }
    }

    /// Whether the header ([`Engine::header`]) differs from the one this was
    /// last asked about: what a store must write again. Disabling, grants
    /// given, revoked or dropped change it without a journal record. A new
    /// engine's header, and a restored one, count as written; runs adopted
    /// from another session do not (their rows need this session's header
    /// beside them).
    pub fn take_header_changed(&mut self) -> bool {
        // A new engine's header (as `Engine::new` leaves it) is known
        // without writing it out: while it is still that one, nothing is
        // serialised.
        let new = self.quota_starts.is_empty()
            && self.next_run == 1
            && !self.disabled
            && self.shared.grants.is_new()
            && self.questions.next == 0
            && self.changes.is_empty();
        let header = if new {
            HeaderSeen::New
        } else {
            HeaderSeen::Text(serde_json::to_string(&self.header()).unwrap_or_default())
        };
        let changed = self.header_seen.as_ref() != Some(&header);
        self.header_seen = Some(header);
        changed
    }

    /// The live state, for persistence.
    pub fn snapshot(&self) -> EngineSnapshot {
        EngineSnapshot {
            runs: self.runs.values().cloned().collect(),
            quota_starts: self.quota_starts.iter().copied().collect(),
            next_run: self.next_run,
            disabled: self.disabled,
            grants: self.shared.grants.clone(),
            questions: self.questions.clone(),
            changes: self.changes.clone(),
        }
    }
}

/// An engine's header as last handed out by [`Engine::take_header_changed`].
#[derive(Debug, PartialEq)]
pub(super) enum HeaderSeen {
    /// A new engine's.
    New,
    /// Any other, as its JSON.
    Text(String),
}
