//! The manifest's shapes that runs store (why arguments were refused), read
//! back by hand from a parsed value rather than by serde's buffering derive
//! for tagged enums.

use serde_json::Value;

use super::ArgumentError;
use crate::fields::{read_by_hand, unknown_variant, Fields, Refusal};
use baton_schema::ValidationIssue;

impl ArgumentError {
    fn read(value: &Value) -> Result<ArgumentError, Refusal> {
        let (kind, fields) = Fields::tagged(value, "kind")?;
        Ok(match kind {
            "not-an-object" => ArgumentError::NotAnObject,
            "too-large" => ArgumentError::TooLarge {
                argument: fields.required("argument")?,
                limit: fields.required("limit")?,
                size: fields.required("size")?,
            },
            // The issue's own fields sit beside the tag.
            "schema" => ArgumentError::Schema(ValidationIssue {
                instance_path: fields.required("instancePath")?,
                keyword: fields.required("keyword")?,
                message: fields.required("message")?,
            }),
            other => {
                return Err(unknown_variant(
                    other,
                    &["not-an-object", "too-large", "schema"],
                ))
            }
        })
    }
}

read_by_hand!(ArgumentError);
