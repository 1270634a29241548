//! The elicitation channel (contract AG-41, AG-48, §D.2; DESIGN.md §4).
//!
//! The acting party — or the engine itself, when an address is ambiguous
//! (AG-23) — asks the person a question: a prompt and, optionally, a
//! self-contained JSON Schema 2020-12 the answer must satisfy. The run waits
//! (`escalated{awaiting-answer}` while acting; still `offered` while
//! planning). The question is never modal: it can be answered, declined,
//! dismissed or postponed, and it expires at its deadline, when the run
//! returns on its own.
//!
//! An answer names the question and the digest of the exact request, is
//! validated against the stored schema, and fails closed on any mismatch.
//! The answer and the run's state change are recorded in the same engine
//! step. An identical retry returns the original acceptance; a different
//! second answer is a conflict.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use thiserror::Error;

mod read;

use crate::ids::{CallId, ParticipantId, QuestionId, RunId};
use baton_schema::digest::Digest;
use baton_schema::{Schema, SchemaError, ValidationIssue};

/// Who asked. Read back by hand (`read.rs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum Asker {
    /// The acting party, under its own request id (AG-48).
    ActingParty {
        /// The acting party's id for the request.
        request: String,
        /// When it asks the person to approve one of its own calls (an
        /// AG-UI interrupt about a tool call): that call, as it streamed it
        /// — what the person reviews, and (being part of the asker) bound
        /// into the question's digest, so an answer names what was shown.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        approval: Option<AgentCall>,
    },
    /// The engine, because the acting party addressed a participant that is
    /// mounted more than once (AG-23).
    Engine {
        /// The call whose address is ambiguous.
        call: CallId,
        /// The instances it could mean.
        candidates: Vec<ParticipantId>,
    },
}

/// One of the acting party's own calls, put to the person for approval.
/// Read back by hand (`read.rs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AgentCall {
    /// The acting party's id for the call.
    pub call: CallId,
    /// The tool, as the acting party named it.
    pub tool: String,
    /// Its arguments, as streamed.
    pub arguments: Value,
}

/// The answer an approval takes when the acting party gives no schema of
/// its own: approve or not, the arguments edited (a full replacement), and
/// why — AG-UI's `{approved, editedArgs}`.
pub(crate) fn approval_schema() -> Value {
    // Parsed from text: the `json!` tree costs the runtime more than the
    // reader it already has.
    const SCHEMA: &str = r#"{"type":"object","required":["approved"],"properties":{"approved":{"type":"boolean"},"editedArgs":{"type":"object"},"reason":{"type":"string"}}}"#;
    serde_json::from_str(SCHEMA).unwrap_or_default()
}

/// Where a question stands. Read back by hand (`read.rs`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "state",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum QuestionState {
    /// Waiting for the person.
    Open,
    /// The person asked to be reminded later; still open, hidden until `until`.
    Postponed {
        /// When it comes back.
        until: u64,
    },
    /// Answered.
    Answered {
        /// The answer.
        answer: Value,
        /// Its digest, to recognise an identical retry.
        answer_digest: Digest,
        /// When.
        at: u64,
        /// The run's revision after the answer was recorded.
        revision: u64,
    },
    /// The person chose not to answer; the acting party hears so.
    Declined {
        /// When.
        at: u64,
    },
    /// The person dismissed it; the acting party hears so.
    Dismissed {
        /// When.
        at: u64,
    },
    /// Its deadline passed unanswered; the run returned.
    Expired {
        /// When.
        at: u64,
    },
    /// Its run ended first.
    Withdrawn {
        /// When.
        at: u64,
    },
}

impl QuestionState {
    /// Whether the question still waits for the person.
    pub fn is_open(&self) -> bool {
        matches!(self, QuestionState::Open | QuestionState::Postponed { .. })
    }

    fn name(&self) -> &'static str {
        match self {
            QuestionState::Open => "open",
            QuestionState::Postponed { .. } => "postponed",
            QuestionState::Answered { .. } => "answered",
            QuestionState::Declined { .. } => "declined",
            QuestionState::Dismissed { .. } => "dismissed",
            QuestionState::Expired { .. } => "expired",
            QuestionState::Withdrawn { .. } => "withdrawn",
        }
    }
}

/// A question to the person. Stored as JSON and read back by hand
/// (`read.rs`): serde's derived reader for its tagged parts buffers every
/// value and costs the browser runtime kilobytes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Question {
    /// Its id.
    pub id: QuestionId,
    /// The run that waits for it.
    pub run: RunId,
    /// Who asked.
    pub asker: Asker,
    /// What is asked, in words.
    pub prompt: String,
    /// The schema the answer must satisfy; without one the answer is text.
    pub schema: Option<Value>,
    /// When it was asked.
    pub asked_at: u64,
    /// When it expires.
    pub deadline_at: u64,
    /// The digest of the exact request; an answer must repeat it.
    pub digest: Digest,
    /// Where it stands.
    pub state: QuestionState,
    /// Bumped by every change of state.
    pub revision: u64,
    #[serde(skip)]
    compiled: Option<Schema>,
}

impl Question {
    pub(crate) fn new(
        id: QuestionId,
        run: RunId,
        asker: Asker,
        prompt: String,
        schema: Option<Value>,
        asked_at: u64,
        deadline_at: u64,
    ) -> Result<Question, SchemaError> {
        let compiled = schema.as_ref().map(Schema::compile).transpose()?;
        let digest = Digest::of_json(&json!({
            "id": id, "run": run, "asker": asker, "prompt": prompt,
            "schema": schema, "deadlineAt": deadline_at,
        }));
        Ok(Question {
            id,
            run,
            asker,
            prompt,
            schema,
            asked_at,
            deadline_at,
            digest,
            state: QuestionState::Open,
            revision: 1,
            compiled,
        })
    }

    /// Whether the person should see it now: open, not postponed past `now`.
    pub fn needs_attention(&self, now: u64) -> bool {
        match self.state {
            QuestionState::Open => true,
            QuestionState::Postponed { until } => now >= until,
            _ => false,
        }
    }

    fn validate(&mut self, answer: &Value) -> Result<(), AnswerError> {
        if let (None, Some(schema)) = (&self.compiled, &self.schema) {
            // After a restore the compiled schema is rebuilt once, then kept.
            self.compiled = Some(
                Schema::compile(schema).map_err(|error| AnswerError::Schema {
                    errors: vec![ValidationIssue {
                        instance_path: String::new(),
                        keyword: "$schema".into(),
                        message: error.to_string(),
                    }],
                })?,
            );
        }
        match &self.compiled {
            Some(schema) => {
                let validation = schema.validate(answer);
                if validation.valid {
                    Ok(())
                } else {
                    Err(AnswerError::Schema {
                        errors: validation.errors,
                    })
                }
            }
            None if answer.is_string() => Ok(()),
            None => Err(AnswerError::NotText),
        }
    }

    /// The decision record of the person's `decision` at `at`, when the
    /// question is an approval of one of the acting party's own calls.
    pub(crate) fn decision_record(&self, decision: &AnswerOutcome, at: u64) -> Option<String> {
        let Asker::ActingParty {
            request,
            approval: Some(call),
        } = &self.asker
        else {
            return None;
        };
        // Through a value: its keys come out sorted, and the runtime
        // already has that serializer for every part.
        serde_json::to_value(DecisionRecord {
            record: "baton.approval/1",
            question: &self.id,
            interrupt_id: request,
            shown: &self.digest,
            call,
            prompt: &self.prompt,
            decision,
            decided_at: at,
        })
        .ok()
        .map(|record| record.to_string())
    }

    pub(crate) fn set_state(&mut self, state: QuestionState) {
        self.state = state;
        self.revision += 1;
    }
}

/// The engine's confirmation that an answer was accepted. An identical
/// retry returns the same acceptance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Acceptance {
    /// The question.
    pub question: QuestionId,
    /// The run.
    pub run: RunId,
    /// The digest of the accepted answer.
    pub answer_digest: Digest,
    /// When it was accepted.
    pub at: u64,
    /// The run's revision after the answer was recorded.
    pub revision: u64,
}

/// Why an answer (or a decline, dismiss, postpone) was refused. Fails closed:
/// nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum AnswerError {
    /// No such question.
    #[error("AG-41: there is no question {0}")]
    UnknownQuestion(QuestionId),
    /// The digest does not match the request the question was asked with.
    #[error("AG-41: the answer names request digest {given}, but question {question} was asked with {expected}")]
    DigestMismatch {
        /// The question.
        question: QuestionId,
        /// The digest it was asked with.
        expected: Digest,
        /// The digest the answer named.
        given: Digest,
    },
    /// The answer fails the question's schema.
    #[error("AG-41: the answer does not satisfy the question's schema: {}", errors.iter().map(|e| format!("{} at `{}`", e.message, e.instance_path)).collect::<Vec<_>>().join("; "))]
    Schema {
        /// Every issue.
        errors: Vec<ValidationIssue>,
    },
    /// A question without a schema is answered with text.
    #[error("AG-41: this question has no schema; answer it with a string")]
    NotText,
    /// The question's deadline passed.
    #[error("AG-41: question {0} expired")]
    Expired(QuestionId),
    /// The question was already closed another way.
    #[error("AG-41: question {question} is already {state}")]
    Closed {
        /// The question.
        question: QuestionId,
        /// How it was closed.
        state: &'static str,
    },
    /// A different answer was already accepted.
    #[error("AG-41: question {0} was already answered differently")]
    Conflict(QuestionId),
}

/// What the acting party hears about its question in the next turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AnswerReport {
    /// The acting party's request id.
    pub request: String,
    /// What happened.
    pub outcome: AnswerOutcome,
    /// When the person decided about one of the acting party's own calls:
    /// the decision record, as the exact text a transport signs: the
    /// question's digest, the call and the words shown, the decision and
    /// its time, keys sorted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub record: Option<String>,
}

/// What the person decided about one of the acting party's own calls, bound
/// to exactly what they were shown: the record a transport signs and an
/// agent's server can verify (`metadata.approval` of an AG-UI resume).
/// Its text — keys sorted, no spaces — is what is signed.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DecisionRecord<'a> {
    /// What this is, and its version.
    record: &'static str,
    /// The question the person answered.
    question: &'a QuestionId,
    /// The acting party's id for its request (the interrupt's id).
    interrupt_id: &'a str,
    /// The digest of exactly what the person was shown: the call, the
    /// acting party's words, the form and its deadline.
    shown: &'a Digest,
    /// The call, as the acting party streamed it and the person saw it.
    call: &'a AgentCall,
    /// The acting party's words, as shown.
    prompt: &'a str,
    /// What the person decided.
    decision: &'a AnswerOutcome,
    /// When, in epoch milliseconds.
    decided_at: u64,
}

/// What happened to a question, for the acting party. Read back by hand
/// (`read.rs`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum AnswerOutcome {
    /// The person answered.
    Answered {
        /// The answer.
        answer: Value,
    },
    /// The person declined to answer.
    Declined,
    /// The person dismissed the question.
    Dismissed,
    /// The question could not be asked (its schema was refused).
    Refused {
        /// Why.
        reason: String,
    },
    /// The question had expired before it could be put to the person (its
    /// `expiresAt` had passed): abandoned, never answered.
    Expired,
}

/// Content-free counts for a badge: what is pending, never what it says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Counters {
    /// Questions and escalations waiting for the person now.
    pub action_required: u32,
    /// Runs waiting for review.
    pub awaiting_review: u32,
    /// Runs waiting for the acting party (a turn is open).
    pub awaiting_agent: u32,
    /// Open questions past their deadline (overlaps `action_required`).
    pub overdue: u32,
    /// Runs that returned with outcome `error`.
    pub failed: u32,
}

/// What one reconciliation did. A second run right after does nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reconciliation {
    /// Overdue questions expired (their runs returned).
    pub expired: u32,
    /// Runs a previous engine instance left active, returned `interrupted`.
    pub interrupted: u32,
    /// Grants that had lapsed, dropped.
    pub grants_dropped: u32,
}

/// The questions of a session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Questions {
    pub(crate) by_id: BTreeMap<QuestionId, Question>,
    pub(crate) next: u64,
}

impl Questions {
    pub(crate) fn mint_id(&mut self, session: &str) -> QuestionId {
        self.next += 1;
        QuestionId::new(format!("{session}/q{}", self.next))
    }

    /// A question by id.
    pub fn get(&self, id: &QuestionId) -> Option<&Question> {
        self.by_id.get(id)
    }

    /// Every question, oldest first.
    pub fn all(&self) -> impl Iterator<Item = &Question> {
        self.by_id.values()
    }

    /// Checks an answer against the question, without changing anything.
    /// `Ok(Some(acceptance))` is an identical retry of an accepted answer.
    pub(crate) fn check_answer(
        &mut self,
        now: u64,
        id: &QuestionId,
        digest: &Digest,
        answer: &Value,
    ) -> Result<Option<Acceptance>, AnswerError> {
        let question = self.check_binding(id, digest)?;
        if let QuestionState::Answered {
            answer_digest,
            at,
            revision,
            ..
        } = &question.state
        {
            return if *answer_digest == Digest::of_json(answer) {
                Ok(Some(Acceptance {
                    question: id.clone(),
                    run: question.run.clone(),
                    answer_digest: *answer_digest,
                    at: *at,
                    revision: *revision,
                }))
            } else {
                Err(AnswerError::Conflict(id.clone()))
            };
        }
        Self::check_open(question, now)?;
        question.validate(answer)?;
        Ok(None)
    }

    /// Checks that a question can be declined, dismissed or postponed.
    pub(crate) fn check_closable(
        &mut self,
        now: u64,
        id: &QuestionId,
    ) -> Result<&mut Question, AnswerError> {
        let question = self
            .by_id
            .get_mut(id)
            .ok_or_else(|| AnswerError::UnknownQuestion(id.clone()))?;
        Self::check_open(question, now)?;
        Ok(question)
    }

    fn check_binding(
        &mut self,
        id: &QuestionId,
        digest: &Digest,
    ) -> Result<&mut Question, AnswerError> {
        let question = self
            .by_id
            .get_mut(id)
            .ok_or_else(|| AnswerError::UnknownQuestion(id.clone()))?;
        if question.digest != *digest {
            return Err(AnswerError::DigestMismatch {
                question: id.clone(),
                expected: question.digest,
                given: *digest,
            });
        }
        Ok(question)
    }

    fn check_open(question: &Question, now: u64) -> Result<(), AnswerError> {
        match &question.state {
            state if state.is_open() && now >= question.deadline_at => {
                Err(AnswerError::Expired(question.id.clone()))
            }
            state if state.is_open() => Ok(()),
            QuestionState::Expired { .. } => Err(AnswerError::Expired(question.id.clone())),
            state => Err(AnswerError::Closed {
                question: question.id.clone(),
                state: state.name(),
            }),
        }
    }
}
