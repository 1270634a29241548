//! The value being validated, as the validator reads it.
//!
//! JSON text becomes an [`Instance`] in one pass, with no
//! `serde_json::Value` in between: strings are borrowed from the text
//! (copied only when they hold an escape), an object is its entries in
//! the text's order, and each array or object is one allocation. A
//! `Value` becomes one by borrowing its strings. This is where validation
//! spends most of its time on small values, so it is the part kept lean.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;

use serde_json::{Number, Value};

mod parse;

pub(crate) use parse::parse;
pub use parse::NotJson;

/// One JSON value, its strings borrowed where it could.
#[derive(Debug, Clone)]
pub(crate) enum Instance<'t> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'t, str>),
    Array(Vec<Instance<'t>>),
    /// Entries in the text's order, each name once (the last one written
    /// wins, as `JSON.parse` and `serde_json` have it).
    Object(Vec<(Cow<'t, str>, Instance<'t>)>),
}

impl<'v> From<&'v Value> for Instance<'v> {
    fn from(value: &'v Value) -> Self {
        match value {
            Value::Null => Instance::Null,
            Value::Bool(b) => Instance::Bool(*b),
            Value::Number(n) => Instance::Number(n.clone()),
            Value::String(s) => Instance::String(Cow::Borrowed(s)),
            Value::Array(items) => Instance::Array(items.iter().map(Instance::from).collect()),
            Value::Object(map) => Instance::Object(
                map.iter()
                    .map(|(key, item)| (Cow::Borrowed(key.as_str()), Instance::from(item)))
                    .collect(),
            ),
        }
    }
}

impl Instance<'_> {
    /// A copy that owns its strings, to keep in a compiled schema.
    pub(crate) fn owned(value: &Value) -> Instance<'static> {
        match value {
            Value::String(s) => Instance::String(Cow::Owned(s.clone())),
            Value::Array(items) => Instance::Array(items.iter().map(Instance::owned).collect()),
            Value::Object(map) => Instance::Object(
                map.iter()
                    .map(|(key, item)| (Cow::Owned(key.clone()), Instance::owned(item)))
                    .collect(),
            ),
            Value::Null => Instance::Null,
            Value::Bool(b) => Instance::Bool(*b),
            Value::Number(n) => Instance::Number(n.clone()),
        }
    }

    /// The value of property `name`, when this is an object that has it.
    pub(crate) fn get(&self, name: &str) -> Option<&Self> {
        match self {
            Instance::Object(entries) => entries
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, item)| item),
            _ => None,
        }
    }

    /// Whether this is an object with property `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
}

/// JSON equality: numbers by value (`1 == 1.0`), objects whatever their
/// order.
pub(crate) fn equal(a: &Instance<'_>, b: &Instance<'_>) -> bool {
    match (a, b) {
        (Instance::Null, Instance::Null) => true,
        (Instance::Bool(a), Instance::Bool(b)) => a == b,
        (Instance::String(a), Instance::String(b)) => a == b,
        (Instance::Number(a), Instance::Number(b)) => compare(a, b) == Some(Ordering::Equal),
        (Instance::Array(a), Instance::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| equal(a, b))
        }
        (Instance::Object(a), Instance::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, v)| b.iter().any(|(k, w)| k == key && equal(v, w)))
        }
        _ => false,
    }
}

/// A number as an integer, when it is one that `i128` holds.
pub(crate) fn integer(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Numbers by value: integers exactly, others as `f64`.
pub(crate) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (integer(a), integer(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// As JSON text, written as `serde_json` writes a value (for messages).
impl fmt::Display for Instance<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Instance::Null => f.write_str("null"),
            Instance::Bool(b) => write!(f, "{b}"),
            Instance::Number(n) => write!(f, "{n}"),
            Instance::String(s) => write_string(f, s),
            Instance::Array(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            Instance::Object(entries) => {
                f.write_str("{")?;
                for (i, (key, item)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write_string(f, key)?;
                    write!(f, ":{item}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// A string as JSON, escaped by the module's one JSON writer.
fn write_string(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str(&serde_json::to_string(s).map_err(|_| fmt::Error)?)
}

#[cfg(test)]
mod tests;
