//! Every JS ⇄ Rust conversion: what JS hands over is validated — numbers
//! that must be whole, JSON values that must be JSON, "JSON text or an
//! object" as JSON text — and what goes back is plain JSON-shaped JS.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::errors::{error, wrapped, Code};

/// Why a JS value did not convert.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ConvertError {
    /// `JSON.stringify` threw: a cycle, a `BigInt`, a throwing `toJSON`.
    #[error("writing it as JSON failed: {0}")]
    Threw(String),
    /// `JSON.stringify` wrote nothing: `undefined`, a function.
    #[error("it cannot be written as JSON")]
    NotJson,
    /// The JSON is not what was asked for, or nests deeper than 128 levels.
    #[error("{0}")]
    Shape(String),
}

impl ConvertError {
    /// The JS `BatonError` with `code` that says why.
    pub(crate) fn thrown_as(&self, code: Code) -> JsValue {
        error(code, &self.to_string())
    }
}

/// The largest integer a JS number holds exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A whole, non-negative number from JS — a revision, a time, an id — or a
/// typed error naming what it is (never a silent `as u64` of `NaN`, `-1` or
/// `2.5`).
pub(crate) fn whole(value: f64, what: &str) -> Result<u64, JsValue> {
    if value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= MAX_SAFE_INTEGER {
        // Exact: a whole number within 2^53 converts without loss.
        Ok(value as u64)
    } else {
        // Written through JSON's number form (already in the module), not
        // `f64`'s `Display`, which would add its own float printer.
        let shown = serde_json::Number::from_f64(value)
            .map_or_else(|| "a number JSON cannot hold".to_owned(), |n| n.to_string());
        Err(error(
            Code::InvalidNumber,
            &format!("{what} must be a whole number from 0 to 2^53 − 1, not {shown}"),
        ))
    }
}

/// What a JS value is, as a message names it: `a number`, `undefined`, …
fn kind(value: &JsValue) -> &'static str {
    if value.is_undefined() {
        "undefined"
    } else if value.is_null() {
        "null"
    } else if value.is_string() {
        "a string"
    } else if value.as_f64().is_some() {
        "a number"
    } else if value.as_bool().is_some() {
        "a boolean"
    } else if value.is_function() {
        "a function"
    } else if js_sys::Array::is_array(value) {
        "an array"
    } else if value.is_object() {
        "an object"
    } else {
        "a value of another kind"
    }
}

/// `invalid-value`: `what` must be `expected`, and was given something else.
fn wrong(what: &str, expected: &str, value: &JsValue) -> JsValue {
    error(
        Code::InvalidValue,
        &format!("{what} must be {expected}, not {}", kind(value)),
    )
}

/// The longest id an entry point takes: ids are minted short
/// (`<session>/r<n>`), so a longer one is not an id.
const MAX_ID: usize = 512;

/// An argument that must be a string (JSON text, a read's name).
pub(crate) fn text(value: &JsValue, what: &str) -> Result<String, JsValue> {
    value
        .as_string()
        .ok_or_else(|| wrong(what, "a string", value))
}

/// An argument that must be an id: a string of 1 to 512 characters with
/// no control character. Whether it names anything is the core's to say
/// (`unknown-run`, `unknown-question`).
pub(crate) fn id(value: &JsValue, what: &str) -> Result<String, JsValue> {
    let expected = "an id (a string of 1 to 512 characters, no control characters)";
    match value.as_string() {
        Some(id)
            if !id.is_empty()
                && id.chars().count() <= MAX_ID
                && !id.chars().any(char::is_control) =>
        {
            Ok(id)
        }
        _ => Err(wrong(what, expected, value)),
    }
}

/// An optional string argument: `undefined` and `null` are none.
pub(crate) fn optional_text(value: &JsValue, what: &str) -> Result<Option<String>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    text(value, &format!("{what}, when given,")).map(Some)
}

/// An argument that must be a whole number from 0 to 2^53 − 1 (a revision,
/// a time, a grant's id): a number of another kind is `invalid-number`.
pub(crate) fn whole_arg(value: &JsValue, what: &str) -> Result<u64, JsValue> {
    match value.as_f64() {
        Some(number) => whole(number, what),
        None => Err(wrong(what, "a number", value)),
    }
}

/// An argument that must be a function (a listener, a hook).
pub(crate) fn function(value: JsValue, what: &str) -> Result<js_sys::Function, JsValue> {
    match value.dyn_into::<js_sys::Function>() {
        Ok(function) => Ok(function),
        Err(value) => Err(wrong(what, "a function", &value)),
    }
}

/// A JS value as `T`, through its JSON text. Every value that crosses
/// from JS comes this way: `serde_json` refuses nesting deeper than 128
/// levels, so a hostile value (an argument, an answer, a result nested
/// 10,000 deep) is a typed refusal instead of a recursion that overflows
/// the WebAssembly stack into the engine's memory.
pub(crate) fn from_js<T: serde::de::DeserializeOwned>(value: &JsValue) -> Result<T, ConvertError> {
    // Text to a value, then the value as `T`: one text parser for every
    // type that crosses, not one per type (the manual, "Size").
    serde_json::from_value(parse(value)?).map_err(|e| ConvertError::Shape(e.to_string()))
}

/// A JS value's JSON text, parsed.
fn parse(value: &JsValue) -> Result<serde_json::Value, ConvertError> {
    serde_json::from_str(&stringify(value)?).map_err(|e| ConvertError::Shape(e.to_string()))
}

/// A JS value as JSON (`undefined` as `null`), or why not.
pub(crate) fn value(value: &JsValue) -> Result<serde_json::Value, ConvertError> {
    if value.is_undefined() {
        return Ok(serde_json::Value::Null);
    }
    parse(value)
}

/// [`value`], or `invalid-value` naming `what` it is.
pub(crate) fn json(value: JsValue, what: &str) -> Result<serde_json::Value, JsValue> {
    self::value(&value).map_err(|e| error(Code::InvalidValue, &format!("{what} is not JSON: {e}")))
}

/// `JSON.stringify(value)`, or why it cannot be written: it threw (a cycle,
/// a `BigInt`, a throwing `toJSON`) or wrote nothing (`undefined`, a
/// function).
pub(crate) fn stringify(value: &JsValue) -> Result<String, ConvertError> {
    match js_sys::JSON::stringify(value) {
        Ok(text) => text.as_string().ok_or(ConvertError::NotJson),
        Err(thrown) => Err(ConvertError::Threw(crate::calls::message_of(&thrown))),
    }
}

/// What an entry point that takes JSON text or an object was given, as JSON
/// text: a string is the text itself, anything else is stringified.
pub(crate) fn text_or_stringify(value: &JsValue) -> Result<String, ConvertError> {
    match value.as_string() {
        Some(text) => Ok(text),
        None => stringify(value),
    }
}

/// [`text_or_stringify`], or a typed error with `code` naming `what` was given.
pub(crate) fn json_text(value: &JsValue, code: Code, what: &str) -> Result<String, JsValue> {
    text_or_stringify(value).map_err(|why| {
        error(
            code,
            &format!("the {what} is neither JSON text nor an object: {why}"),
        )
    })
}

/// A Rust value as a plain JS value, as JSON would give it (maps as
/// objects, 64-bit integers as numbers).
pub(crate) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    // As JSON text, parsed by the page: every type is written by the one
    // JSON serializer the store already uses (no second serializer per type
    // in the module), and `JSON.parse` builds the object faster than one
    // call into JS per field.
    let text = serde_json::to_string(value).map_err(|e| error(Code::Internal, &e.to_string()))?;
    js_sys::JSON::parse(&text).map_err(|thrown| wrapped(Code::Internal, "a result", &thrown))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen_test]
    fn only_whole_safe_numbers_pass() {
        assert_eq!(whole(0.0, "a revision").unwrap(), 0);
        assert_eq!(whole(42.0, "a revision").unwrap(), 42);
        assert_eq!(
            whole(MAX_SAFE_INTEGER, "a revision").unwrap(),
            9_007_199_254_740_991
        );
        for bad in [f64::NAN, -1.0, 2.5, f64::INFINITY, MAX_SAFE_INTEGER + 2.0] {
            let thrown = whole(bad, "a revision").unwrap_err();
            let code = js_sys::Reflect::get(&thrown, &"code".into()).unwrap();
            assert_eq!(code.as_string().as_deref(), Some("invalid-number"), "{bad}");
        }
    }

    #[wasm_bindgen_test]
    fn a_value_nested_ten_thousand_deep_is_refused_and_the_engine_goes_on() {
        let mut deep: JsValue = JsValue::from(1);
        for _ in 0..10_000 {
            deep = js_sys::Array::of1(&deep).into();
        }
        let refused = value(&deep).unwrap_err().to_string();
        assert!(
            refused.contains("recursion limit") || refused.contains("writing it as JSON failed"),
            "{refused}"
        );
        assert!(from_js::<serde_json::Value>(&deep).is_err());
        // Memory is intact: the next value converts as ever.
        let fine = js_sys::JSON::parse(r#"{"a": [1, {"b": null}]}"#).unwrap();
        assert_eq!(
            value(&fine).unwrap(),
            serde_json::json!({"a": [1, {"b": null}]})
        );
        assert_eq!(value(&JsValue::UNDEFINED).unwrap(), serde_json::Value::Null);
    }

    #[wasm_bindgen_test]
    fn text_is_taken_as_it_is_and_what_json_cannot_hold_says_why() {
        assert_eq!(text_or_stringify(&"{\"a\":1}".into()).unwrap(), "{\"a\":1}");
        let object = js_sys::JSON::parse("{\"a\": [1, 2]}").unwrap();
        assert_eq!(text_or_stringify(&object).unwrap(), "{\"a\":[1,2]}");
        assert_eq!(stringify(&"x".into()).unwrap(), "\"x\"");
        let cyclic = js_sys::Object::new();
        js_sys::Reflect::set(&cyclic, &"self".into(), &cyclic).unwrap();
        assert!(matches!(stringify(&cyclic), Err(ConvertError::Threw(_))));
        assert!(stringify(&cyclic)
            .unwrap_err()
            .to_string()
            .starts_with("writing it as JSON failed"));
        assert_eq!(stringify(&JsValue::UNDEFINED), Err(ConvertError::NotJson));
        assert_eq!(
            ConvertError::NotJson.to_string(),
            "it cannot be written as JSON"
        );
        let thrown = json_text(&JsValue::UNDEFINED, Code::InvalidSchema, "schema").unwrap_err();
        let code = js_sys::Reflect::get(&thrown, &"code".into()).unwrap();
        assert_eq!(code.as_string().as_deref(), Some("invalid-schema"));
    }
}
