//! JSON Patch (RFC 6902) applied to a state, whole or not at all.
//!
//! The operations are read from the parsed value by hand, then applied by
//! `json-patch`: its derived deserializer for the tagged `op` enum buffers
//! every operation and costs the browser runtime more than the patching.

use json_patch::jsonptr::PointerBuf;
use json_patch::{
    AddOperation, CopyOperation, MoveOperation, Patch, PatchOperation, RemoveOperation,
    ReplaceOperation, TestOperation,
};
use serde_json::Value;
use thiserror::Error;

use crate::fields::{Fields, Refusal};

/// Why a patch was not applied.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PatchError {
    /// The value is not a JSON Patch.
    #[error("not a JSON Patch: {0}")]
    NotAPatch(String),
    /// An operation failed (a missing path, a failed `test`); nothing changed.
    #[error("the patch does not apply: {0}")]
    DoesNotApply(String),
    /// The state would grow past `max_bytes` of JSON; nothing changed.
    #[error("the patch would grow the state past {max_bytes} bytes")]
    TooLarge {
        /// The most the state may hold, as JSON.
        max_bytes: usize,
    },
}

fn pointer(fields: &Fields<'_>, key: &str) -> Result<PointerBuf, Refusal> {
    let text: String = fields.required(key)?;
    PointerBuf::parse(text).map_err(|error| Refusal {
        path: format!("{}.{key}", fields.path()),
        message: error.to_string(),
    })
}

fn operation(value: &Value, path: String) -> Result<PatchOperation, Refusal> {
    let op = value.get("op").and_then(Value::as_str).unwrap_or_default();
    let known: &[&str] = match op {
        "add" | "replace" | "test" => &["op", "path", "value"],
        "remove" => &["op", "path"],
        "move" | "copy" => &["op", "from", "path"],
        other => {
            return Err(Refusal {
                path: format!("{path}.op"),
                message: format!("`{other}` is not an operation of RFC 6902"),
            })
        }
    };
    let fields = Fields::of(value, path, known)?;
    let target = pointer(&fields, "path")?;
    Ok(match op {
        "add" => PatchOperation::Add(AddOperation {
            path: target,
            value: fields.required("value")?,
        }),
        "replace" => PatchOperation::Replace(ReplaceOperation {
            path: target,
            value: fields.required("value")?,
        }),
        "test" => PatchOperation::Test(TestOperation {
            path: target,
            value: fields.required("value")?,
        }),
        "remove" => PatchOperation::Remove(RemoveOperation { path: target }),
        "move" => PatchOperation::Move(MoveOperation {
            from: pointer(&fields, "from")?,
            path: target,
        }),
        _ => PatchOperation::Copy(CopyOperation {
            from: pointer(&fields, "from")?,
            path: target,
        }),
    })
}

fn operations(patch: &Value) -> Result<Vec<PatchOperation>, PatchError> {
    let Value::Array(items) = patch else {
        return Err(PatchError::NotAPatch(
            "expected an array of operations".into(),
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| operation(item, format!("$[{i}]")))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|refusal| {
            PatchError::NotAPatch(format!("at `{}`: {}", refusal.path, refusal.message))
        })
}

fn does_not_apply(error: json_patch::PatchError) -> PatchError {
    PatchError::DoesNotApply(error.to_string())
}

/// `state` with `patch` applied; `state` itself is never half-changed.
pub fn apply_patch(state: &Value, patch: &Value) -> Result<Value, PatchError> {
    let operations = operations(patch)?;
    let mut next = state.clone();
    json_patch::patch(&mut next, &Patch(operations)).map_err(does_not_apply)?;
    Ok(next)
}

/// The length of `value` as compact JSON. (Written out and counted: a
/// counting writer of its own would instantiate the serializer again.)
pub fn json_len(value: &Value) -> usize {
    serde_json::to_string(value).map_or(usize::MAX, |text| text.len())
}

/// `state` (`state_bytes` of JSON at most) with `patch` applied, as long
/// as it stays within `max_bytes` of JSON; with the most it may now hold.
///
/// A patch is small and its operations may still grow a state
/// exponentially (`copy` a document into itself, or two members into each
/// other by turns), so each operation is weighed before it is applied:
/// what it adds, on top of a bound kept from the state's size. The bound
/// is measured again only when it would pass `max_bytes`, so a stream of
/// patches that add and remove stays cheap; memory never exceeds twice
/// `max_bytes`. `state` is never half-changed.
pub fn apply_patch_within(
    state: &Value,
    state_bytes: usize,
    patch: &Value,
    max_bytes: usize,
) -> Result<(Value, usize), PatchError> {
    let operations = operations(patch)?;
    let mut next = state.clone();
    let mut bound = state_bytes;
    for operation in operations {
        let at = |path: &PointerBuf| next.pointer(path.as_str()).map_or(0, json_len);
        let growth = match &operation {
            PatchOperation::Add(AddOperation { path, value })
            | PatchOperation::Replace(ReplaceOperation { path, value }) => {
                (json_len(value) + path.as_str().len()).saturating_sub(at(path))
            }
            PatchOperation::Copy(CopyOperation { from, path }) => {
                (at(from) + path.as_str().len()).saturating_sub(at(path))
            }
            PatchOperation::Move(MoveOperation { path, .. }) => path.as_str().len(),
            PatchOperation::Remove(_) | PatchOperation::Test(_) => 0,
        };
        bound = bound.saturating_add(growth);
        if bound > max_bytes {
            bound = json_len(&next).saturating_add(growth);
            if bound > max_bytes {
                return Err(PatchError::TooLarge { max_bytes });
            }
        }
        json_patch::patch(&mut next, std::slice::from_ref(&operation)).map_err(does_not_apply)?;
    }
    Ok((next, bound))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_operation_of_rfc_6902_applies() {
        let state = json!({"a": 1, "b": [1, 2], "c": {"d": true}});
        let patch = json!([
            {"op": "test", "path": "/a", "value": 1},
            {"op": "add", "path": "/b/-", "value": 3},
            {"op": "replace", "path": "/a", "value": 2},
            {"op": "remove", "path": "/c/d"},
            {"op": "copy", "from": "/b", "path": "/e"},
            {"op": "move", "from": "/a", "path": "/f"}
        ]);
        assert_eq!(
            apply_patch(&state, &patch),
            Ok(json!({"b": [1, 2, 3], "c": {}, "e": [1, 2, 3], "f": 2}))
        );
    }

    #[test]
    fn a_bad_patch_is_refused_and_changes_nothing() {
        let state = json!({"a": 1});
        assert!(matches!(
            apply_patch(&state, &json!({})),
            Err(PatchError::NotAPatch(_))
        ));
        assert!(matches!(
            apply_patch(&state, &json!([{"op": "jump", "path": "/a"}])),
            Err(PatchError::NotAPatch(m)) if m.contains("$[0].op")
        ));
        assert!(matches!(
            apply_patch(&state, &json!([{"op": "add", "path": "a", "value": 1}])),
            Err(PatchError::NotAPatch(m)) if m.contains("$[0].path")
        ));
        assert!(matches!(
            apply_patch(&state, &json!([{"op": "remove", "path": "/a", "value": 1}])),
            Err(PatchError::NotAPatch(_))
        ));
        assert!(matches!(
            apply_patch(
                &state,
                &json!([{"op": "add", "path": "/b", "value": 1}, {"op": "test", "path": "/a", "value": 9}])
            ),
            Err(PatchError::DoesNotApply(_))
        ));
    }
}
