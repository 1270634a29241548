//! Errors thrown to JS: always an `Error` subclass (`BatonError`) with a
//! stable `code` and, where a requirement is enforced, its `requirement`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = "
export class BatonError extends Error {
  constructor(code, message, requirement) {
    super(message);
    this.name = 'BatonError';
    this.code = code;
    if (requirement) this.requirement = requirement;
  }
}
export function makeError(code, message, requirement) {
  return new BatonError(code, message, requirement);
}
export function batonErrorClass() {
  return BatonError;
}
")]
extern "C" {
    #[wasm_bindgen(js_name = makeError)]
    fn make_error(code: &str, message: &str, requirement: Option<String>) -> JsValue;
    #[wasm_bindgen(js_name = batonErrorClass)]
    fn baton_error_class() -> JsValue;
}

/// The `BatonError` class every error thrown to JS is an instance of, for
/// `instanceof` checks (the package exports it as `BatonError`).
#[wasm_bindgen(js_name = errorClass)]
pub fn error_class() -> JsValue {
    baton_error_class()
}

/// A JS `BatonError` with a stable code. The requirement is taken from the
/// message when it leads with one (`AG-16: …`), as every core error that
/// enforces a requirement does.
pub(crate) fn error(code: &str, message: &str) -> JsValue {
    make_error(code, message, requirement_of(message))
}

/// The `AG-n` a message leads with, if any.
pub(crate) fn requirement_of(message: &str) -> Option<String> {
    let head = message.split(':').next()?;
    let number = head.strip_prefix("AG-")?;
    (!number.is_empty() && number.chars().all(|c| c.is_ascii_digit())).then(|| head.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen_test]
    fn errors_are_error_subclasses_with_a_code_and_a_requirement() {
        let thrown = error(
            "invalid-arguments",
            "AG-16: argument `title` is 5002 bytes, over its limit of 200",
        );
        assert!(thrown.is_instance_of::<js_sys::Error>());
        let code = js_sys::Reflect::get(&thrown, &"code".into()).unwrap();
        let requirement = js_sys::Reflect::get(&thrown, &"requirement".into()).unwrap();
        assert_eq!(code.as_string().as_deref(), Some("invalid-arguments"));
        assert_eq!(requirement.as_string().as_deref(), Some("AG-16"));
        let plain = error("unknown-run", "unknown run s/r9");
        assert!(js_sys::Reflect::get(&plain, &"requirement".into())
            .unwrap()
            .is_undefined());
    }

    #[wasm_bindgen_test]
    fn requirements_are_read_only_from_a_leading_tag() {
        assert_eq!(
            requirement_of("AG-45: the transport speaks x"),
            Some("AG-45".into())
        );
        assert_eq!(requirement_of("AG-: x"), None);
        assert_eq!(requirement_of("see AG-16: x"), None);
    }
}
