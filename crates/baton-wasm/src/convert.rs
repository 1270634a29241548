//! JS ⇄ Rust conversions that validate what JS hands over: numbers that
//! must be whole, JSON values that must be JSON.

use wasm_bindgen::prelude::*;

use crate::errors::{error, Code};

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
        Err(error(
            Code::InvalidNumber,
            &format!("{what} must be a whole number from 0 to 2^53 − 1, not {value}"),
        ))
    }
}

/// A JS value as JSON (`undefined` as `null`), or `invalid-value`.
pub(crate) fn json(value: JsValue, what: &str) -> Result<serde_json::Value, JsValue> {
    if value.is_undefined() {
        return Ok(serde_json::Value::Null);
    }
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| error(Code::InvalidValue, &format!("{what} is not JSON: {e}")))
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
}
