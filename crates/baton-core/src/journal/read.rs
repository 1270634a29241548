//! The journal's tagged shapes that runs store (who acted, what a call came
//! to, why it was refused), read back by hand from a parsed value rather
//! than by serde's buffering derive for tagged enums.

use serde_json::Value;

use super::{Actor, CallResult, Refusal};
use crate::fields::{self, read_by_hand, unknown_variant, Fields};

impl Actor {
    fn read(value: &Value) -> Result<Actor, fields::Refusal> {
        let (kind, fields) = Fields::tagged(value, "kind")?;
        Ok(match kind {
            "person" => Actor::Person,
            "acting-party" => Actor::ActingParty,
            "engine" => Actor::Engine,
            "participant" => Actor::Participant {
                participant: fields.required("participant")?,
            },
            other => {
                return Err(unknown_variant(
                    other,
                    &["person", "acting-party", "engine", "participant"],
                ))
            }
        })
    }
}

impl CallResult {
    fn read(value: &Value) -> Result<CallResult, fields::Refusal> {
        let (kind, fields) = Fields::tagged(value, "kind")?;
        Ok(match kind {
            "applied" => CallResult::Applied {
                value: fields.required("value")?,
            },
            "refused" => CallResult::Refused {
                refusal: fields.required("refusal")?,
            },
            "failed" => CallResult::Failed {
                message: fields.required("message")?,
            },
            other => return Err(unknown_variant(other, &["applied", "refused", "failed"])),
        })
    }
}

impl Refusal {
    fn read(value: &Value) -> Result<Refusal, fields::Refusal> {
        let (code, fields) = Fields::tagged(value, "code")?;
        Ok(match code {
            "undeclared-capability" => Refusal::UndeclaredCapability,
            "invalid-arguments" => Refusal::InvalidArguments {
                errors: fields.required("errors")?,
            },
            "stale" => Refusal::Stale {
                read: fields.required("read")?,
                planned: fields.optional("planned")?,
                current: fields.optional("current")?,
            },
            "denied" => Refusal::Denied,
            "declined" => Refusal::Declined {
                message: fields.required("message")?,
            },
            "registration-refused" => Refusal::RegistrationRefused {
                problems: fields.required("problems")?,
            },
            other => {
                return Err(unknown_variant(
                    other,
                    &[
                        "undeclared-capability",
                        "invalid-arguments",
                        "stale",
                        "denied",
                        "declined",
                        "registration-refused",
                    ],
                ))
            }
        })
    }
}

read_by_hand!(Actor, CallResult, Refusal);

#[cfg(test)]
mod tests {
    use super::super::{Actor, CallResult, Refusal};
    use crate::context::ReadRef;
    use crate::fields::reads_back;
    use crate::ids::{MarkToken, ParticipantId};
    use crate::manifest::{ArgumentError, ManifestProblem};
    use crate::schema::ValidationIssue;
    use serde_json::json;

    #[test]
    fn every_stored_shape_reads_back_as_written() {
        for actor in [
            Actor::Person,
            Actor::ActingParty,
            Actor::Engine,
            Actor::Participant {
                participant: ParticipantId::new("tasks"),
            },
        ] {
            reads_back(actor);
        }
        let refusals = [
            Refusal::UndeclaredCapability,
            Refusal::InvalidArguments {
                errors: vec![
                    ArgumentError::NotAnObject,
                    ArgumentError::TooLarge {
                        argument: "a".into(),
                        limit: 1,
                        size: 2,
                    },
                    ArgumentError::Schema(ValidationIssue {
                        instance_path: "/a".into(),
                        keyword: "type".into(),
                        message: "m".into(),
                    }),
                ],
            },
            Refusal::Stale {
                read: ReadRef::new("tasks", "board"),
                planned: Some(1),
                current: None,
            },
            Refusal::Denied,
            Refusal::Declined {
                message: "no".into(),
            },
            Refusal::RegistrationRefused {
                problems: vec![ManifestProblem {
                    path: "$.id".into(),
                    requirement: None,
                    message: "m".into(),
                }],
            },
        ];
        for refusal in refusals {
            reads_back(CallResult::Refused { refusal });
        }
        reads_back(CallResult::Applied {
            value: json!({"ok": true}),
        });
        reads_back(CallResult::Failed {
            message: "m".into(),
        });
        reads_back(MarkToken::new("h1"));
        reads_back(MarkToken::Number(serde_json::Number::from(3)));
        assert!(serde_json::from_value::<MarkToken>(json!(null)).is_err());
        assert!(serde_json::from_value::<Refusal>(json!({"code": "nope"})).is_err());
    }
}
