//! Who changed each participant last (A.2): undo is a write like any other,
//! with optimistic concurrency. A run that is undone reverts a participant
//! only if nothing changed it after the run's own last write — neither the
//! person (a read published without an actor reference) nor a later run (a
//! call of its own, or a read published with its actor reference).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::fields::{self, read_by_hand, unknown_variant, Fields};
use crate::ids::{ParticipantId, RunId};

/// Who made a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ChangedBy {
    /// The person: a read published without an actor reference (an edit of
    /// their own, even while a run's call was under way), or an undo.
    Person,
    /// A run: a call it made, or a read published with its actor reference.
    Run {
        /// The run.
        run: RunId,
    },
}

impl ChangedBy {
    /// Read by hand from a parsed value, not by serde's buffering derive
    /// for tagged enums (the manual, "Size").
    fn read(value: &serde_json::Value) -> Result<ChangedBy, fields::Refusal> {
        let (kind, fields) = Fields::tagged(value, "kind")?;
        Ok(match kind {
            "person" => ChangedBy::Person,
            "run" => ChangedBy::Run {
                run: fields.required("run")?,
            },
            other => return Err(unknown_variant(other, &["person", "run"])),
        })
    }
}

read_by_hand!(ChangedBy);

/// A participant a run changed that something else changed after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct UndoConflict {
    /// The participant.
    pub participant: ParticipantId,
    /// Who changed it since the run did.
    pub changed_by: ChangedBy,
}

/// How an undo treats participants changed after the run did (A.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UndoScope {
    /// Reverts only if nothing changed any of them since; otherwise the
    /// undo is held back with an [`UndoConflict`] for each.
    #[default]
    Checked,
    /// Reverts the participants nothing changed since, and leaves the
    /// others as they are.
    Untouched,
    /// Reverts every participant the run changed, whatever changed since.
    Force,
}

impl UndoScope {
    /// The scope an undo's options ask for: none or `{}` (checked),
    /// `{ "only": "untouched" }`, or `{ "force": true }` — never both, and
    /// no other field.
    pub fn from_options(
        options: &serde_json::Value,
    ) -> Result<UndoScope, crate::error::InvalidOptions> {
        let said = |refusal: fields::Refusal| crate::error::InvalidOptions {
            path: refusal.path,
            message: refusal.message,
        };
        let fields = Fields::of(options, "$".into(), &["only", "force"]).map_err(said)?;
        let only: Option<String> = fields.optional("only").map_err(said)?;
        let force: Option<bool> = fields.optional("force").map_err(said)?;
        match (only.as_deref(), force.unwrap_or(false)) {
            (None, false) => Ok(UndoScope::Checked),
            (Some("untouched"), false) => Ok(UndoScope::Untouched),
            (None, true) => Ok(UndoScope::Force),
            _ => Err(crate::error::InvalidOptions {
                path: "$".into(),
                message: "undo's options are { only: \"untouched\" } or { force: true }, not both"
                    .into(),
            }),
        }
    }
}

/// The last change of every participant that was ever changed. Kept in the
/// engine's header, so an undo after a reload still sees what happened.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Changes {
    last: BTreeMap<ParticipantId, ChangedBy>,
}

impl Changes {
    /// Whether no change is known.
    pub(crate) fn is_empty(&self) -> bool {
        self.last.is_empty()
    }

    /// `by` changed `participant`.
    pub(crate) fn record(&mut self, participant: &ParticipantId, by: ChangedBy) {
        self.last.insert(participant.clone(), by);
    }

    /// Who changed `participant` last, if anyone is known to have.
    pub fn last(&self, participant: &ParticipantId) -> Option<&ChangedBy> {
        self.last.get(participant)
    }

    /// The participants of `run`'s undo group changed by someone else after
    /// the run's last write. One the run changed with nothing recorded since
    /// (a run restored from before changes were kept) counts as untouched.
    pub(crate) fn conflicts<'a>(
        &self,
        run: &RunId,
        participants: impl IntoIterator<Item = &'a ParticipantId>,
    ) -> Vec<UndoConflict> {
        participants
            .into_iter()
            .filter_map(|participant| match self.last.get(participant) {
                Some(ChangedBy::Run { run: last }) if last == run => None,
                None => None,
                Some(other) => Some(UndoConflict {
                    participant: participant.clone(),
                    changed_by: other.clone(),
                }),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(id: &str) -> ParticipantId {
        ParticipantId::new(id)
    }

    #[test]
    fn a_participant_changed_after_the_run_by_anyone_else_conflicts() {
        let (mine, later) = (RunId::new("s/r1"), RunId::new("s/r2"));
        let mut changes = Changes::default();
        changes.record(&p("tasks"), ChangedBy::Run { run: mine.clone() });
        changes.record(&p("notes"), ChangedBy::Run { run: mine.clone() });
        changes.record(&p("mail"), ChangedBy::Run { run: mine.clone() });
        assert!(changes
            .conflicts(&mine, [&p("tasks"), &p("notes")])
            .is_empty());
        changes.record(&p("tasks"), ChangedBy::Person);
        changes.record(&p("notes"), ChangedBy::Run { run: later.clone() });
        assert_eq!(
            changes.conflicts(&mine, [&p("tasks"), &p("notes"), &p("mail"), &p("never")]),
            vec![
                UndoConflict {
                    participant: p("tasks"),
                    changed_by: ChangedBy::Person
                },
                UndoConflict {
                    participant: p("notes"),
                    changed_by: ChangedBy::Run { run: later }
                },
            ]
        );
    }

    #[test]
    fn who_changed_reads_back_and_refuses_what_it_does_not_know() {
        crate::fields::reads_back(ChangedBy::Person);
        crate::fields::reads_back(ChangedBy::Run {
            run: RunId::new("s/r1"),
        });
        assert!(serde_json::from_str::<ChangedBy>(r#"{"kind":"robot"}"#).is_err());
        assert!(serde_json::from_str::<ChangedBy>(r#"{"kind":"run"}"#).is_err());
    }

    #[test]
    fn undo_options_name_one_scope_or_are_refused() {
        let scope = |text: &str| UndoScope::from_options(&serde_json::from_str(text).unwrap());
        assert_eq!(scope("{}"), Ok(UndoScope::Checked));
        assert_eq!(scope(r#"{"only": "untouched"}"#), Ok(UndoScope::Untouched));
        assert_eq!(scope(r#"{"force": true}"#), Ok(UndoScope::Force));
        assert_eq!(scope(r#"{"force": false}"#), Ok(UndoScope::Checked));
        for refused in [
            r#"{"only": "untouched", "force": true}"#,
            r#"{"only": "everything"}"#,
            r#"{"force": "yes"}"#,
            r#"{"all": true}"#,
            "[]",
        ] {
            assert!(scope(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn changes_read_back_as_written() {
        let mut changes = Changes::default();
        changes.record(&p("tasks"), ChangedBy::Person);
        changes.record(
            &p("notes"),
            ChangedBy::Run {
                run: RunId::new("s/r1"),
            },
        );
        let text = serde_json::to_string(&changes).unwrap();
        assert_eq!(
            text,
            r#"{"notes":{"kind":"run","run":"s/r1"},"tasks":{"kind":"person"}}"#
        );
        assert_eq!(serde_json::from_str::<Changes>(&text).unwrap(), changes);
    }
}
