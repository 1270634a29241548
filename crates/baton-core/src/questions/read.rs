//! Questions read back from their stored JSON, by hand: the shapes serde
//! writes (`kind`- and `state`-tagged), read from a parsed value without
//! serde's buffering derive for tagged enums.

use serde_json::Value;

use super::{AgentCall, AnswerOutcome, Asker, Question, QuestionState};
use crate::fields::{read_by_hand, unknown_variant, Fields, Refusal};

impl Asker {
    fn read(value: &Value) -> Result<Asker, Refusal> {
        let (kind, fields) = Fields::tagged(value, "kind")?;
        Ok(match kind {
            "acting-party" => Asker::ActingParty {
                request: fields.required("request")?,
                approval: fields.optional("approval")?,
            },
            "engine" => Asker::Engine {
                call: fields.required("call")?,
                candidates: fields.required("candidates")?,
            },
            other => return Err(unknown_variant(other, &["acting-party", "engine"])),
        })
    }
}

impl AgentCall {
    fn read(value: &Value) -> Result<AgentCall, Refusal> {
        let fields = Fields::of(value, String::from("$"), &["call", "tool", "arguments"])?;
        Ok(AgentCall {
            call: fields.required("call")?,
            tool: fields.required("tool")?,
            arguments: fields.required("arguments")?,
        })
    }
}

impl QuestionState {
    fn read(value: &Value) -> Result<QuestionState, Refusal> {
        let (state, fields) = Fields::tagged(value, "state")?;
        let at = || fields.required("at");
        Ok(match state {
            "open" => QuestionState::Open,
            "postponed" => QuestionState::Postponed {
                until: fields.required("until")?,
            },
            "answered" => QuestionState::Answered {
                answer: fields.required("answer")?,
                answer_digest: fields.required("answerDigest")?,
                at: at()?,
                revision: fields.required("revision")?,
            },
            "declined" => QuestionState::Declined { at: at()? },
            "dismissed" => QuestionState::Dismissed { at: at()? },
            "expired" => QuestionState::Expired { at: at()? },
            "withdrawn" => QuestionState::Withdrawn { at: at()? },
            other => {
                return Err(unknown_variant(
                    other,
                    &[
                        "open",
                        "postponed",
                        "answered",
                        "declined",
                        "dismissed",
                        "expired",
                        "withdrawn",
                    ],
                ))
            }
        })
    }
}

impl AnswerOutcome {
    fn read(value: &Value) -> Result<AnswerOutcome, Refusal> {
        let (kind, fields) = Fields::tagged(value, "kind")?;
        Ok(match kind {
            "answered" => AnswerOutcome::Answered {
                answer: fields.required("answer")?,
            },
            "declined" => AnswerOutcome::Declined,
            "dismissed" => AnswerOutcome::Dismissed,
            "refused" => AnswerOutcome::Refused {
                reason: fields.required("reason")?,
            },
            "expired" => AnswerOutcome::Expired,
            other => {
                return Err(unknown_variant(
                    other,
                    &["answered", "declined", "dismissed", "refused", "expired"],
                ))
            }
        })
    }
}

impl Question {
    fn read(value: &Value) -> Result<Question, Refusal> {
        let fields = Fields::lenient(value, "$".into())?;
        Ok(Question {
            id: fields.required("id")?,
            run: fields.required("run")?,
            asker: fields.required("asker")?,
            prompt: fields.required("prompt")?,
            schema: fields.optional("schema")?,
            asked_at: fields.required("askedAt")?,
            deadline_at: fields.required("deadlineAt")?,
            digest: fields.required("digest")?,
            state: fields.required("state")?,
            revision: fields.required("revision")?,
            compiled: None,
        })
    }
}

read_by_hand!(AgentCall, Asker, QuestionState, AnswerOutcome, Question);

#[cfg(test)]
mod tests {
    use super::super::{AnswerOutcome, Asker, Question, QuestionState};
    use crate::fields::reads_back;
    use crate::ids::{CallId, ParticipantId, QuestionId, RunId};
    use baton_schema::digest::Digest;
    use serde_json::json;

    fn back<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T) -> T {
        serde_json::from_value(serde_json::to_value(value).unwrap()).unwrap()
    }

    #[test]
    fn every_stored_shape_reads_back_as_written() {
        let digest = Digest::of_json(&json!("x"));
        for state in [
            QuestionState::Open,
            QuestionState::Postponed { until: 5 },
            QuestionState::Answered {
                answer: json!({"a": 1}),
                answer_digest: digest,
                at: 3,
                revision: 4,
            },
            QuestionState::Declined { at: 1 },
            QuestionState::Dismissed { at: 1 },
            QuestionState::Expired { at: 1 },
            QuestionState::Withdrawn { at: 1 },
        ] {
            reads_back(state);
        }
        for outcome in [
            AnswerOutcome::Answered { answer: json!([1]) },
            AnswerOutcome::Declined,
            AnswerOutcome::Dismissed,
            AnswerOutcome::Refused { reason: "r".into() },
            AnswerOutcome::Expired,
        ] {
            reads_back(outcome);
        }
        for asker in [
            Asker::ActingParty {
                request: "q".into(),
                approval: None,
            },
            Asker::ActingParty {
                request: "q".into(),
                approval: Some(crate::AgentCall {
                    call: CallId::new("c"),
                    tool: "send_email".into(),
                    arguments: json!({"to": "ops@example.com"}),
                }),
            },
            Asker::Engine {
                call: CallId::new("c"),
                candidates: vec![ParticipantId::new("p#1")],
            },
        ] {
            let mut question = Question::new(
                QuestionId::new("s/q1"),
                RunId::new("s/r1"),
                asker,
                "Which one?".into(),
                Some(json!({"type": "string"})),
                1,
                2,
            )
            .unwrap();
            question.state = QuestionState::Answered {
                answer: json!("a"),
                answer_digest: digest,
                at: 3,
                revision: 2,
            };
            // Equal as stored; the compiled schema is rebuilt on first use.
            let read = back(&question);
            assert_eq!(
                serde_json::to_value(&read).unwrap(),
                serde_json::to_value(&question).unwrap()
            );
            assert_eq!(read.state, question.state);
        }
    }

    #[test]
    fn a_shape_that_is_not_stored_is_refused_with_where() {
        let refused =
            serde_json::from_value::<QuestionState>(json!({"state": "lost"})).unwrap_err();
        assert!(
            refused.to_string().contains("unknown variant `lost`"),
            "{refused}"
        );
        let refused =
            serde_json::from_value::<QuestionState>(json!({"state": "declined"})).unwrap_err();
        assert!(
            refused.to_string().contains("missing field `at`"),
            "{refused}"
        );
        assert!(serde_json::from_value::<Asker>(json!("engine")).is_err());
    }
}
