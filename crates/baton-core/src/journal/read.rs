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
            "not-carried-out" => Refusal::NotCarriedOut {
                reason: fields.required("reason")?,
                note: fields.optional("note")?,
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
                        "not-carried-out",
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
    use super::super::Refusal;
    use crate::fields::reads_back;
    use crate::ids::MarkToken;
    use serde_json::json;

    /// Actors, call results and refusals read back as written:
    /// `tests/shapes.rs`, over its exhaustive samples. Mark tokens and what
    /// is not stored are checked here.
    #[test]
    fn mark_tokens_read_back_and_what_is_not_stored_is_refused() {
        reads_back(MarkToken::new("h1"));
        reads_back(MarkToken::Number(serde_json::Number::from(3)));
        assert!(serde_json::from_value::<MarkToken>(json!(null)).is_err());
        assert!(serde_json::from_value::<Refusal>(json!({"code": "nope"})).is_err());
    }
}
