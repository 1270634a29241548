//! The stored shape of a run: one flat record, as the store has always
//! kept it. In memory a run's fields are grouped by concern (see
//! [`Run`]); this module is the one place that maps the groups to the
//! record and back, without serde's `flatten` (which costs the wasm
//! module kilobytes and buffers every value on the way in).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use serde_json::Value;

use crate::context::{ReadRef, ReadStamp};
use crate::fields::{read_by_hand, unknown_variant, Fields, Refusal};
use crate::ids::{CallId, CapabilityRef, ParticipantId, RunId};
use crate::journal::CallReport;
use crate::model::{Autonomy, Budget, Initiative, Usage};
use crate::questions::AnswerReport;
use crate::state::RunState;

use super::approval::{Approval, ApprovalRow};
use super::asking::{Asking, AskingRow};
use super::custody::{Custody, CustodyRow};
use super::cut_off::Offered;
use super::drift::Recheck;
use super::mutation::{Mutation, MutationRow};
use super::review::{ProposedChange, ReviewAgain};
use super::turn_log::{TurnLog, TurnLogRow};
use super::undo::Undoing;
use super::{
    AskedQuestion, AuthorizationRecord, Escalation, MarkState, OpenQuestion, OpenTurn, PlanSource,
    ProposedCall, Rollback, Run,
};

/// A run as it is written: its row.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RowRef<'a> {
    id: &'a RunId,
    intent: &'a String,
    initiative: &'a Initiative,
    requested: &'a Autonomy,
    autonomy: &'a Autonomy,
    source: &'a PlanSource,
    resumes: &'a Option<RunId>,
    state: &'a RunState,
    revision: &'a u64,
    budget: &'a Budget,
    usage: &'a Usage,
    created_at: &'a u64,
    deadline_at: &'a u64,
    plan: &'a Vec<ProposedCall>,
    allowlist: &'a BTreeSet<CapabilityRef>,
    queue: &'a VecDeque<ProposedCall>,
    seen_calls: &'a BTreeSet<CallId>,
    turn: &'a Option<OpenTurn>,
    in_flight: &'a Option<ProposedCall>,
    marks: &'a BTreeMap<ParticipantId, MarkState>,
    mutated: &'a Vec<CapabilityRef>,
    reports: &'a Vec<CallReport>,
    escalation: &'a Option<Escalation>,
    rollback: &'a Option<Rollback>,
    resumable: &'a bool,
    #[serde(serialize_with = "stamps")]
    seen: &'a BTreeMap<ReadRef, ReadStamp>,
    authorization: &'a Option<AuthorizationRecord>,
    person_authorized: &'a bool,
    approved: &'a BTreeSet<CallId>,
    previews: &'a BTreeMap<CallId, ProposedChange>,
    question: &'a Option<OpenQuestion>,
    pending_questions: &'a VecDeque<AskedQuestion>,
    answers: &'a Vec<AnswerReport>,
    choices: &'a BTreeMap<CallId, ParticipantId>,
    asked: &'a Vec<String>,
    undone: &'a bool,
    undoing: &'a Option<Undoing>,
    plan_announced: &'a bool,
    approved_previews: &'a BTreeMap<CallId, ProposedChange>,
    recheck: &'a Option<Recheck>,
    review_again: &'a Option<ReviewAgain>,
    previews_due: &'a Option<u64>,
    offered: &'a Option<Offered>,
    edited: &'a BTreeSet<CallId>,
    ended_at: &'a Option<u64>,
}

/// A run as it is read back.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Row {
    id: RunId,
    intent: String,
    initiative: Initiative,
    requested: Autonomy,
    autonomy: Autonomy,
    source: PlanSource,
    resumes: Option<RunId>,
    state: RunState,
    revision: u64,
    budget: Budget,
    usage: Usage,
    created_at: u64,
    deadline_at: u64,
    plan: Vec<ProposedCall>,
    allowlist: BTreeSet<CapabilityRef>,
    queue: VecDeque<ProposedCall>,
    seen_calls: BTreeSet<CallId>,
    turn: Option<OpenTurn>,
    in_flight: Option<ProposedCall>,
    marks: BTreeMap<ParticipantId, MarkState>,
    mutated: Vec<CapabilityRef>,
    reports: Vec<CallReport>,
    escalation: Option<Escalation>,
    rollback: Option<Rollback>,
    resumable: bool,
    #[serde(with = "crate::context::stamps")]
    seen: BTreeMap<ReadRef, ReadStamp>,
    authorization: Option<AuthorizationRecord>,
    person_authorized: bool,
    approved: BTreeSet<CallId>,
    previews: BTreeMap<CallId, ProposedChange>,
    question: Option<OpenQuestion>,
    #[serde(default)]
    pending_questions: VecDeque<AskedQuestion>,
    answers: Vec<AnswerReport>,
    choices: BTreeMap<CallId, ParticipantId>,
    asked: Vec<String>,
    #[serde(default)]
    undone: bool,
    #[serde(default)]
    undoing: Option<Undoing>,
    #[serde(default)]
    plan_announced: bool,
    #[serde(default)]
    approved_previews: BTreeMap<CallId, ProposedChange>,
    #[serde(default)]
    recheck: Option<Recheck>,
    #[serde(default)]
    review_again: Option<ReviewAgain>,
    #[serde(default)]
    previews_due: Option<u64>,
    #[serde(default)]
    offered: Option<Offered>,
    #[serde(default)]
    edited: BTreeSet<CallId>,
    #[serde(default)]
    ended_at: Option<u64>,
}

fn stamps<S: Serializer>(
    map: &&BTreeMap<ReadRef, ReadStamp>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    crate::context::stamps::serialize(map, serializer)
}

impl Serialize for Run {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let run = self;
        let asking = run.asking.row();
        let custody = run.custody.row();
        let mutation = run.mutation.row();
        let approval = run.approval.row();
        let turns = run.turns.row();
        RowRef {
            id: &run.id,
            intent: &run.intent,
            initiative: &run.initiative,
            requested: &run.requested,
            autonomy: &run.autonomy,
            source: &run.source,
            resumes: &run.resumes,
            state: custody.state,
            revision: custody.revision,
            budget: custody.budget,
            usage: custody.usage,
            created_at: &run.created_at,
            deadline_at: custody.deadline_at,
            plan: turns.plan,
            allowlist: approval.allowlist,
            queue: turns.queue,
            seen_calls: turns.seen_calls,
            turn: turns.turn,
            in_flight: mutation.in_flight,
            marks: mutation.marks,
            mutated: mutation.mutated,
            reports: turns.reports,
            escalation: custody.escalation,
            rollback: mutation.rollback,
            resumable: custody.resumable,
            seen: turns.seen,
            authorization: approval.authorization,
            person_authorized: approval.person_authorized,
            approved: approval.approved,
            previews: approval.previews,
            question: asking.0,
            pending_questions: asking.1,
            answers: asking.2,
            choices: approval.choices,
            asked: asking.3,
            undone: mutation.undone,
            undoing: mutation.undoing,
            plan_announced: turns.plan_announced,
            approved_previews: approval.approved_previews,
            recheck: approval.recheck,
            review_again: approval.review_again,
            previews_due: approval.previews_due,
            offered: custody.offered,
            edited: approval.edited,
            ended_at: custody.ended_at,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Run {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let row = Row::deserialize(deserializer)?;
        Ok(Run {
            id: row.id,
            intent: row.intent,
            initiative: row.initiative,
            requested: row.requested,
            autonomy: row.autonomy,
            source: row.source,
            resumes: row.resumes,
            created_at: row.created_at,
            custody: Custody::from_row(CustodyRow {
                state: row.state,
                revision: row.revision,
                budget: row.budget,
                usage: row.usage,
                deadline_at: row.deadline_at,
                escalation: row.escalation,
                resumable: row.resumable,
                offered: row.offered,
                ended_at: row.ended_at,
            }),
            turns: TurnLog::from_row(TurnLogRow {
                plan: row.plan,
                queue: row.queue,
                seen_calls: row.seen_calls,
                turn: row.turn,
                reports: row.reports,
                seen: row.seen,
                plan_announced: row.plan_announced,
            }),
            mutation: Mutation::from_row(MutationRow {
                in_flight: row.in_flight,
                marks: row.marks,
                mutated: row.mutated,
                rollback: row.rollback,
                undone: row.undone,
                undoing: row.undoing,
            }),
            approval: Approval::from_row(ApprovalRow {
                allowlist: row.allowlist,
                authorization: row.authorization,
                person_authorized: row.person_authorized,
                approved: row.approved,
                previews: row.previews,
                choices: row.choices,
                approved_previews: row.approved_previews,
                recheck: row.recheck,
                review_again: row.review_again,
                previews_due: row.previews_due,
                edited: row.edited,
            }),
            asking: Asking::from_row(AskingRow {
                question: row.question,
                pending: row.pending_questions,
                answers: row.answers,
                asked: row.asked,
            }),
            journal: Vec::new(),
        })
    }
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

#[cfg(test)]
mod tests {
    use super::super::Charter;
    use super::*;

    #[test]
    fn a_run_is_stored_as_one_flat_row_and_reads_back_equal() {
        let run = Run::new(
            Charter {
                id: RunId::new("s/r1"),
                intent: "tidy".into(),
                initiative: Initiative::User,
                requested: Autonomy::Review,
                autonomy: Autonomy::Review,
                source: PlanSource::ActingParty,
                budget: Budget::default(),
                resumes: None,
            },
            5,
        );
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
