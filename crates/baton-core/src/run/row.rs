//! The stored shape of a run: one flat record, as the store has always
//! kept it. In memory a run's fields are grouped by concern (see
//! [`Run`]); each group declares its fields and the columns that hold them
//! once, with [`columns!`], and this module writes a run as its own columns
//! followed by each group's, and reads it back the same way — without
//! serde's `flatten` (which costs the wasm module kilobytes and buffers
//! every value on the way in). A column added later is marked `(default)`:
//! rows written before it read back with its default.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use serde_json::Value;

use crate::fields::{read_by_hand, unknown_variant, Fields, Refusal};

use super::approval::Approval;
use super::asking::Asking;
use super::custody::Custody;
use super::mutation::Mutation;
use super::review::{ProposedChange, ReviewAgain};
use super::turn_log::TurnLog;
use super::Run;

/// Declares a group of a run's state together with the stored row's
/// columns that hold it, each field once: `name: Type => "column"`, then
/// `(default)` for a column older rows may lack, or `(stamps)` for a map of
/// read stamps stored as their list. Defines the struct (its fields private
/// to the group's module, which keeps their rules) and its `write` into a
/// run's row and `read` from one.
macro_rules! columns {
    (
        $(#[$meta:meta])*
        $vis:vis struct $group:ident {
            $(
                $(#[$field_meta:meta])*
                $field:ident: $ty:ty => $column:literal $(($how:ident))?,
            )*
        }
    ) => {
        $(#[$meta])*
        $vis struct $group {
            $($(#[$field_meta])* $field: $ty,)*
        }

        impl $group {
            /// Writes the group's columns into a run's row.
            pub(super) fn write<M: serde::ser::SerializeMap>(&self, row: &mut M) -> Result<(), M::Error> {
                $($crate::run::row::write_column!(row, $column, &self.$field $(, $how)?);)*
                Ok(())
            }

            /// Reads the group back from a stored row.
            pub(super) fn read(row: &$crate::fields::Fields<'_>) -> Result<Self, $crate::fields::Refusal> {
                Ok($group {
                    $($field: $crate::run::row::read_column!(row, $column $(, $how)?),)*
                })
            }
        }
    };
}
pub(super) use columns;

/// One column written (see [`columns!`]).
macro_rules! write_column {
    ($row:ident, $column:literal, $value:expr $(, default)?) => {
        $row.serialize_entry($column, $value)?
    };
    ($row:ident, $column:literal, $value:expr, stamps) => {
        $row.serialize_entry($column, &$crate::context::stamps::List($value))?
    };
}
pub(super) use write_column;

/// One column read (see [`columns!`]).
macro_rules! read_column {
    ($row:ident, $column:literal) => {
        $row.required($column)?
    };
    ($row:ident, $column:literal, default) => {
        $row.optional($column)?.unwrap_or_default()
    };
    ($row:ident, $column:literal, stamps) => {
        $crate::context::stamps::keyed($row.required($column)?)
    };
}
pub(super) use read_column;

impl Serialize for Run {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut row = serializer.serialize_map(None)?;
        row.serialize_entry("id", &self.id)?;
        row.serialize_entry("intent", &self.intent)?;
        row.serialize_entry("initiative", &self.initiative)?;
        row.serialize_entry("requested", &self.requested)?;
        row.serialize_entry("autonomy", &self.autonomy)?;
        row.serialize_entry("source", &self.source)?;
        row.serialize_entry("resumes", &self.resumes)?;
        if let Some(thread) = &self.thread {
            row.serialize_entry("thread", thread)?;
        }
        row.serialize_entry("createdAt", &self.created_at)?;
        self.custody.write(&mut row)?;
        self.turns.write(&mut row)?;
        self.mutation.write(&mut row)?;
        self.approval.write(&mut row)?;
        self.asking.write(&mut row)?;
        row.end()
    }
}

/// A run read back from its row (its journal is stored apart).
fn read_run(value: &Value) -> Result<Run, Refusal> {
    let row = Fields::lenient(value, "$".into())?;
    Ok(Run {
        id: row.required("id")?,
        intent: row.required("intent")?,
        initiative: row.required("initiative")?,
        requested: row.required("requested")?,
        autonomy: row.required("autonomy")?,
        source: row.required("source")?,
        resumes: row.optional("resumes")?,
        thread: row.optional("thread")?,
        created_at: row.required("createdAt")?,
        custody: Custody::read(&row)?,
        turns: TurnLog::read(&row)?,
        mutation: Mutation::read(&row)?,
        approval: Approval::read(&row)?,
        asking: Asking::read(&row)?,
        journal: Vec::new(),
    })
}

impl ProposedChange {
    fn read(value: &Value) -> Result<ProposedChange, Refusal> {
        let (kind, fields) = Fields::tagged(value, "kind")?;
        Ok(match kind {
            "pending" => ProposedChange::Pending,
            "preview" => ProposedChange::Preview {
                value: fields.required("value")?,
            },
            "arguments" => ProposedChange::Arguments {
                arguments: fields.required("arguments")?,
                note: fields.optional("note")?,
            },
            other => return Err(unknown_variant(other, &["pending", "preview", "arguments"])),
        })
    }
}

impl ReviewAgain {
    fn read(value: &Value) -> Result<ReviewAgain, Refusal> {
        let (kind, fields) = Fields::tagged(value, "kind")?;
        Ok(match kind {
            "drift" => ReviewAgain::Drift {
                reads: fields.required("reads")?,
            },
            "authorization-expired" => ReviewAgain::AuthorizationExpired,
            "cut-off" => ReviewAgain::CutOff {
                run: fields.required("run")?,
            },
            other => {
                return Err(unknown_variant(
                    other,
                    &["drift", "authorization-expired", "cut-off"],
                ))
            }
        })
    }
}

read_by_hand!(ProposedChange, ReviewAgain);

impl<'de> serde::Deserialize<'de> for Run {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::fields::deserialize_with(deserializer, read_run)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Charter, PlanSource};
    use super::*;
    use crate::context::ReadRef;
    use crate::ids::RunId;
    use crate::model::{Autonomy, Budget, Initiative};

    fn a_run() -> Run {
        Run::new(
            Charter {
                id: RunId::new("s/r1"),
                intent: "tidy".into(),
                initiative: Initiative::User,
                requested: Autonomy::Review,
                autonomy: Autonomy::Review,
                source: PlanSource::ActingParty,
                budget: Budget::default(),
                resumes: None,
                thread: None,
            },
            5,
        )
    }

    /// The columns rows already stored in browsers have: renaming one
    /// would leave those runs unreadable.
    #[test]
    fn the_row_keeps_the_columns_stored_rows_have() {
        let row = serde_json::to_value(a_run()).unwrap();
        let mut keys: Vec<&str> = row
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        let mut expected = vec![
            "id",
            "intent",
            "initiative",
            "requested",
            "autonomy",
            "source",
            "resumes",
            "state",
            "revision",
            "budget",
            "usage",
            "createdAt",
            "deadlineAt",
            "plan",
            "allowlist",
            "queue",
            "seenCalls",
            "turn",
            "inFlight",
            "marks",
            "mutated",
            "reports",
            "escalation",
            "rollback",
            "resumable",
            "seen",
            "authorization",
            "personAuthorized",
            "approved",
            "previews",
            "question",
            "pendingQuestions",
            "answers",
            "choices",
            "asked",
            "undone",
            "undoing",
            "planAnnounced",
            "approvedPreviews",
            "recheck",
            "reviewAgain",
            "previewsDue",
            "offered",
            "edited",
            "endedAt",
            "refused",
        ];
        expected.sort_unstable();
        assert_eq!(keys, expected);
    }

    #[test]
    fn a_row_from_before_a_later_column_reads_back_with_its_default() {
        let run = a_run();
        let mut row = serde_json::to_value(&run).unwrap();
        for later in [
            "pendingQuestions",
            "undone",
            "undoing",
            "planAnnounced",
            "endedAt",
            "edited",
            "refused",
        ] {
            row.as_object_mut().unwrap().remove(later);
        }
        assert_eq!(serde_json::from_value::<Run>(row).unwrap(), run);
    }

    #[test]
    fn a_row_missing_a_column_it_always_had_is_refused_with_the_column() {
        let mut row = serde_json::to_value(a_run()).unwrap();
        row.as_object_mut().unwrap().remove("deadlineAt");
        let refused = serde_json::from_value::<Run>(row).unwrap_err().to_string();
        assert!(refused.contains("deadlineAt"), "{refused}");
    }

    #[test]
    fn a_run_is_stored_as_one_flat_row_and_reads_back_equal() {
        let run = a_run();
        let row = serde_json::to_value(&run).unwrap();
        let keys: Vec<&str> = row
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        for key in [
            "state",
            "revision",
            "queue",
            "seen",
            "marks",
            "allowlist",
            "question",
        ] {
            assert!(
                keys.contains(&key),
                "{key} is a column of the row: {keys:?}"
            );
        }
        for group in ["custody", "turns", "mutation", "approval", "asking"] {
            assert!(
                !keys.contains(&group),
                "{group} is not stored as a nested object"
            );
        }
        let back: Run = serde_json::from_value(row).unwrap();
        assert_eq!(back, run);
    }

    #[test]
    fn the_review_shapes_read_back_as_written() {
        for change in [
            ProposedChange::Pending,
            ProposedChange::Preview {
                value: serde_json::json!({"title": "Ship"}),
            },
            ProposedChange::Arguments {
                arguments: serde_json::json!({}),
                note: Some("n".into()),
            },
            ProposedChange::Arguments {
                arguments: serde_json::json!(1),
                note: None,
            },
        ] {
            let stored = serde_json::to_value(&change).unwrap();
            assert_eq!(
                serde_json::from_value::<ProposedChange>(stored).unwrap(),
                change
            );
        }
        for again in [
            ReviewAgain::Drift {
                reads: vec![ReadRef::new("tasks", "board")],
            },
            ReviewAgain::AuthorizationExpired,
        ] {
            let stored = serde_json::to_value(&again).unwrap();
            assert_eq!(
                serde_json::from_value::<ReviewAgain>(stored).unwrap(),
                again
            );
        }
    }
}
