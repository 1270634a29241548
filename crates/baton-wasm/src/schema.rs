//! `Schema.compile(jsonSchema).validate(value)`: the engine's own validator
//! (JSON Schema 2020-12, formats asserted, nothing fetched) for applications.
//!
//! Validation answers a valid value without building any error value: the
//! validator's fast path runs first and a valid result is one shared, frozen
//! `{ valid: true, errors: [] }`. JSON text is taken as it is
//! (`validateJson`, `isValidJson`), with no parse and stringify in between.

use std::cell::OnceCell;

use wasm_bindgen::prelude::*;

use crate::convert::{json_text, stringify};
use crate::errors::{error, refused, Code};

/// A compiled JSON Schema 2020-12.
#[wasm_bindgen]
pub struct Schema {
    inner: baton_schema::Schema,
    /// The shared, frozen result for every valid value.
    valid: OnceCell<JsValue>,
}

#[wasm_bindgen]
impl Schema {
    /// Compiles a schema (an object or JSON text). A schema that is invalid,
    /// not self-contained, too deep or over 64 KiB throws a `BatonError`
    /// with code `invalid-schema`.
    pub fn compile(schema: JsValue) -> Result<Schema, JsValue> {
        crate::panic::install();
        crate::patterns::ensure();
        baton_schema::Schema::compile_str(&json_text(&schema, Code::InvalidSchema, "schema")?)
            .map(|inner| Schema {
                inner,
                valid: OnceCell::new(),
            })
            .map_err(|refusal| refused(&refusal))
    }

    /// Validates a value: `{ valid, errors: [{ instancePath, keyword, message }] }`.
    /// A valid value gets one shared, frozen `{ valid: true, errors: [] }`.
    pub fn validate(&self, value: JsValue) -> Result<JsValue, JsValue> {
        self.validate_text(&value_text(&value)?)
    }

    /// Validates a value given as JSON text, as it is; text that is not JSON
    /// throws `invalid-value`.
    #[wasm_bindgen(js_name = validateJson)]
    pub fn validate_json(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.validate_text(&crate::convert::text(&text, "the JSON text")?)
    }

    fn validate_text(&self, text: &str) -> Result<JsValue, JsValue> {
        let result = self.inner.validate_str(text).map_err(not_json)?;
        if result.valid {
            return Ok(self.valid_result());
        }
        crate::convert::to_js(&result)
    }

    /// Whether a value satisfies the schema, with no error built at all.
    #[wasm_bindgen(js_name = isValid)]
    pub fn is_valid(&self, value: JsValue) -> Result<bool, JsValue> {
        self.is_valid_text(&value_text(&value)?)
    }

    /// Whether JSON text satisfies the schema; text that is not JSON throws
    /// `invalid-value`.
    #[wasm_bindgen(js_name = isValidJson)]
    pub fn is_valid_json(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> Result<bool, JsValue> {
        self.is_valid_text(&crate::convert::text(&text, "the JSON text")?)
    }

    fn is_valid_text(&self, text: &str) -> Result<bool, JsValue> {
        self.inner.is_valid_str(text).map_err(not_json)
    }

    /// The digest of the schema's canonical JSON (equal schemas share it).
    #[wasm_bindgen(getter)]
    pub fn digest(&self) -> String {
        self.inner.digest().to_hex()
    }
}

impl Schema {
    fn valid_result(&self) -> JsValue {
        self.valid
            .get_or_init(|| {
                let result = js_sys::Object::new();
                let errors = js_sys::Array::new();
                js_sys::Object::freeze(&errors);
                let _ = js_sys::Reflect::set(&result, &"valid".into(), &JsValue::TRUE);
                let _ = js_sys::Reflect::set(&result, &"errors".into(), &errors);
                js_sys::Object::freeze(&result).into()
            })
            .clone()
    }
}

/// A value to validate as JSON text: always stringified (a JS string is a
/// JSON string here, not JSON text).
fn value_text(value: &JsValue) -> Result<String, JsValue> {
    stringify(value).map_err(|why| error(Code::InvalidValue, &format!("the value: {why}")))
}

fn not_json(why: baton_schema::NotJson) -> JsValue {
    error(Code::InvalidValue, &format!("not JSON: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    fn get(object: &JsValue, key: &str) -> JsValue {
        js_sys::Reflect::get(object, &key.into()).unwrap()
    }

    #[wasm_bindgen_test]
    fn schema_compiles_once_and_reports_every_error_with_its_path() {
        let schema = Schema::compile(
            js_sys::JSON::parse(r#"{"type": "object", "properties": {"email": {"type": "string", "format": "email"}, "n": {"type": "integer"}}, "required": ["email"]}"#)
                .unwrap(),
        )
        .unwrap();
        let result = schema
            .validate(js_sys::JSON::parse(r#"{"email": "not an email", "n": "x"}"#).unwrap())
            .unwrap();
        assert_eq!(get(&result, "valid").as_bool(), Some(false));
        let errors = js_sys::Array::from(&get(&result, "errors"));
        let mut found: Vec<(String, String)> = errors
            .iter()
            .map(|e| {
                (
                    get(&e, "instancePath").as_string().unwrap(),
                    get(&e, "keyword").as_string().unwrap(),
                )
            })
            .collect();
        found.sort();
        assert_eq!(
            found,
            [
                ("/email".to_owned(), "format".to_owned()),
                ("/n".to_owned(), "type".to_owned())
            ]
        );
        let ok = schema
            .validate(js_sys::JSON::parse(r#"{"email": "ada@example.org"}"#).unwrap())
            .unwrap();
        assert_eq!(get(&ok, "valid").as_bool(), Some(true));
        assert_eq!(schema.digest().len(), 64);
    }

    #[wasm_bindgen_test]
    fn a_remote_reference_is_a_typed_error() {
        let thrown = Schema::compile(JsValue::from_str(
            r#"{"$ref": "https://example.org/s.json"}"#,
        ))
        .err()
        .unwrap();
        assert_eq!(
            get(&thrown, "code").as_string().as_deref(),
            Some("invalid-schema")
        );
        assert!(thrown.is_instance_of::<js_sys::Error>());
    }

    #[wasm_bindgen_test]
    fn anchors_embedded_ids_and_the_standard_meta_schema_compile_in_the_browser() {
        let schema = Schema::compile(JsValue::from_str(
            r##"{"$id": "https://example.org/form.json", "type": "object",
                "properties": {"who": {"$ref": "#name"}, "field": {"$ref": "https://json-schema.org/draft/2020-12/schema"}},
                "$defs": {"name": {"$anchor": "name", "type": "string", "minLength": 1}}}"##,
        ))
        .unwrap();
        assert_eq!(
            schema.is_valid_json(JsValue::from(
                r#"{"who": "Ada", "field": {"type": "string"}}"#
            )),
            Ok(true)
        );
        assert_eq!(
            schema.is_valid_json(JsValue::from(r#"{"who": ""}"#)),
            Ok(false)
        );
        assert_eq!(
            schema.is_valid_json(JsValue::from(r#"{"field": {"type": 7}}"#)),
            Ok(false)
        );
    }

    #[wasm_bindgen_test]
    fn what_json_cannot_hold_is_a_typed_error_never_a_raw_throw() {
        let cyclic = js_sys::Object::new();
        js_sys::Reflect::set(&cyclic, &"self".into(), &cyclic).unwrap();
        let thrown = Schema::compile(cyclic.clone().into()).err().unwrap();
        assert!(thrown.is_instance_of::<js_sys::Error>());
        assert_eq!(
            get(&thrown, "code").as_string().as_deref(),
            Some("invalid-schema")
        );
        let schema = Schema::compile(JsValue::from_str(r#"{"type": "object"}"#)).unwrap();
        let thrown = schema.validate(cyclic.into()).unwrap_err();
        assert_eq!(
            get(&thrown, "code").as_string().as_deref(),
            Some("invalid-value")
        );
        assert_eq!(
            get(&thrown, "name").as_string().as_deref(),
            Some("BatonError")
        );
    }

    #[wasm_bindgen_test]
    fn a_valid_value_gets_the_one_frozen_result_and_text_is_taken_as_it_is() {
        let schema = Schema::compile(JsValue::from_str(
            r#"{"type": "object", "required": ["due"], "properties": {"due": {"type": "string", "format": "date"}}}"#,
        ))
        .unwrap();
        let first = schema
            .validate_json(JsValue::from(r#"{"due": "2026-12-01"}"#))
            .unwrap();
        let second = schema
            .validate(js_sys::JSON::parse(r#"{"due": "2026-12-02"}"#).unwrap())
            .unwrap();
        assert!(js_sys::Object::is(&first, &second));
        assert!(js_sys::Object::is_frozen(&first.clone().into()));
        assert_eq!(get(&first, "valid").as_bool(), Some(true));
        assert_eq!(js_sys::Array::from(&get(&first, "errors")).length(), 0);

        let invalid = schema
            .validate_json(JsValue::from(r#"{"due": "tomorrow"}"#))
            .unwrap();
        assert_eq!(get(&invalid, "valid").as_bool(), Some(false));
        assert!(!js_sys::Object::is(&invalid, &first));
        assert_eq!(js_sys::Array::from(&get(&invalid, "errors")).length(), 1);

        assert_eq!(
            schema.is_valid_json(JsValue::from(r#"{"due": "2026-12-01"}"#)),
            Ok(true)
        );
        assert_eq!(schema.is_valid_json(JsValue::from(r#"{}"#)), Ok(false));
        assert_eq!(
            schema.is_valid(js_sys::JSON::parse(r#"{"due": "2026-13-45"}"#).unwrap()),
            Ok(false)
        );
        for thrown in [
            schema
                .validate_json(JsValue::from("{not json"))
                .unwrap_err(),
            schema.is_valid_json(JsValue::from("")).unwrap_err(),
        ] {
            assert_eq!(
                get(&thrown, "code").as_string().as_deref(),
                Some("invalid-value")
            );
        }
    }
}
