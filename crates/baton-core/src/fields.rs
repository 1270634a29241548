//! Reading a JSON object strictly, field by field, with the path of whatever
//! is wrong: an unknown field, a missing one, or one of the wrong shape.
//!
//! The shapes hosts hand over as JSON (a manifest, a delegation request, an
//! authorization) are read with it rather than with a derived deserializer
//! wrapped in a path tracker: each leaf still goes through serde from the
//! parsed value, but the nesting is walked here once, which is what keeps
//! the browser runtime small.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// What is wrong, and where: `path` is `$` for the root, then `.field` and
/// `[index]` (`$.capabilities[1].name`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) path: String,
    pub(crate) message: String,
}

/// An object being read, with its path.
pub(crate) struct Fields<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl<'a> Fields<'a> {
    /// Reads `value` as an object whose fields are all in `known`.
    pub(crate) fn of(value: &'a Value, path: String, known: &[&str]) -> Result<Self, Refusal> {
        let fields = Self::lenient(value, path)?;
        if let Some(unknown) = fields.map.keys().find(|key| !known.contains(&key.as_str())) {
            let expected = known
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(Refusal {
                path: format!("{}.{unknown}", fields.path),
                message: format!("unknown field `{unknown}`, expected one of {expected}"),
            });
        }
        Ok(fields)
    }

    /// Where this object is.
    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// Reads `value` as an object, ignoring fields it does not ask for (as
    /// serde's derive does for the stored shapes read this way).
    pub(crate) fn lenient(value: &'a Value, path: String) -> Result<Self, Refusal> {
        match value {
            Value::Object(map) => Ok(Fields { map, path }),
            other => Err(Refusal {
                message: format!("expected an object, found {}", type_name(other)),
                path,
            }),
        }
    }

    /// An internally tagged object: the value of its `tag` field, and its
    /// fields (unknown ones ignored).
    pub(crate) fn tagged(value: &'a Value, tag: &str) -> Result<(&'a str, Self), Refusal> {
        let fields = Self::lenient(value, "$".into())?;
        let name = fields
            .map
            .get(tag)
            .and_then(Value::as_str)
            .ok_or_else(|| Refusal {
                path: "$".into(),
                message: format!("missing tag `{tag}`"),
            })?;
        Ok((name, fields))
    }

    fn at(&self, key: &str) -> String {
        format!("{}.{key}", self.path)
    }

    fn read<T: DeserializeOwned>(&self, key: &str, value: &Value) -> Result<T, Refusal> {
        T::deserialize(value).map_err(|error| Refusal {
            path: self.at(key),
            message: error.to_string(),
        })
    }

    /// A field that must be present.
    pub(crate) fn required<T: DeserializeOwned>(&self, key: &str) -> Result<T, Refusal> {
        self.present(key)?;
        self.read(key, &self.map[key])
    }

    /// A field that may be absent (or `null`).
    pub(crate) fn optional<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, Refusal> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => self.read(key, value).map(Some),
        }
    }

    /// Refuses the object when `key` is missing.
    pub(crate) fn present(&self, key: &str) -> Result<(), Refusal> {
        if self.map.contains_key(key) {
            Ok(())
        } else {
            Err(Refusal {
                path: self.path.clone(),
                message: format!("missing field `{key}`"),
            })
        }
    }

    /// An object-valued field with its path, if present and not `null`.
    pub(crate) fn nested(&self, key: &str) -> Option<(String, &'a Value)> {
        self.map
            .get(key)
            .filter(|value| !value.is_null())
            .map(|value| (self.at(key), value))
    }

    /// Whether the field is present and not `null`.
    pub(crate) fn is_set(&self, key: &str) -> bool {
        !matches!(self.map.get(key), None | Some(Value::Null))
    }

    /// An array field (absent is empty), each element with its path.
    pub(crate) fn each(&self, key: &str) -> Result<Vec<(String, &'a Value)>, Refusal> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => Ok(items
                .iter()
                .enumerate()
                .map(|(i, item)| (format!("{}.{key}[{i}]", self.path), item))
                .collect()),
            Some(other) => Err(Refusal {
                path: self.at(key),
                message: format!("expected an array, found {}", type_name(other)),
            }),
        }
    }
}

/// A refusal for a tag that names no variant.
pub(crate) fn unknown_variant(name: &str, expected: &[&str]) -> Refusal {
    Refusal {
        path: "$".into(),
        message: format!(
            "unknown variant `{name}`, expected one of {}",
            expected.join(", ")
        ),
    }
}

/// `T` read by `read` from whatever `deserializer` holds, parsed to a value
/// first: how the hand-read shapes implement `Deserialize`.
pub(crate) fn deserialize_with<'de, D, T>(
    deserializer: D,
    read: impl FnOnce(&Value) -> Result<T, Refusal>,
) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::Deserialize;
    let value = Value::deserialize(deserializer)?;
    read(&value).map_err(|refusal| {
        serde::de::Error::custom(format!("at `{}`: {}", refusal.path, refusal.message))
    })
}

/// Implements `Deserialize` for shapes read by hand: each has a
/// `fn read(&Value) -> Result<Self, Refusal>`.
macro_rules! read_by_hand {
    ($($shape:ty),* $(,)?) => {$(
        impl<'de> serde::Deserialize<'de> for $shape {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::fields::deserialize_with(deserializer, <$shape>::read)
            }
        }
    )*};
}
pub(crate) use read_by_hand;

/// Asserts that `value` reads back as itself from the JSON it writes: the
/// test every shape read by hand has.
#[cfg(test)]
pub(crate) fn reads_back<T>(value: T)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let stored = serde_json::to_value(&value).unwrap();
    assert_eq!(
        serde_json::from_value::<T>(stored.clone()).unwrap(),
        value,
        "{stored}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_refusal_has_its_path() {
        let value = json!({"a": 1, "list": [{"x": true}, {"y": 2}]});
        let fields = Fields::of(&value, "$".into(), &["a", "list"]).unwrap();
        assert_eq!(fields.required::<u32>("a"), Ok(1));
        assert_eq!(fields.required::<String>("a").unwrap_err().path, "$.a");
        assert_eq!(
            fields.required::<u32>("b").unwrap_err().message,
            "missing field `b`"
        );
        assert_eq!(fields.optional::<u32>("b"), Ok(None));
        let items = fields.each("list").unwrap();
        assert_eq!(items[1].0, "$.list[1]");
        let refused = Fields::of(items[1].1, items[1].0.clone(), &["x"])
            .err()
            .unwrap();
        assert_eq!(refused.path, "$.list[1].y");
        assert!(Fields::of(&json!([]), "$".into(), &[]).is_err());
    }
}
