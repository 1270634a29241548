//! `Schema.compile(jsonSchema).validate(value)`: the engine's own validator
//! (JSON Schema 2020-12, formats asserted, nothing fetched) for applications.

use wasm_bindgen::prelude::*;

use crate::errors::{error, refused, wrapped, Code};

/// A compiled JSON Schema 2020-12.
#[wasm_bindgen]
pub struct Schema {
    inner: baton_core::Schema,
}

#[wasm_bindgen]
impl Schema {
    /// Compiles a schema (an object or JSON text). A schema that is invalid,
    /// not self-contained, too deep or over 64 KiB throws a `BatonError`
    /// with code `invalid-schema`.
    pub fn compile(schema: JsValue) -> Result<Schema, JsValue> {
        let text = match schema.as_string() {
            Some(text) => text,
            None => js_sys::JSON::stringify(&schema)
                .map_err(|thrown| {
                    wrapped(Code::InvalidSchema, "writing the schema as JSON", &thrown)
                })?
                .as_string()
                .ok_or_else(|| {
                    error(
                        Code::InvalidSchema,
                        "the schema is neither JSON text nor an object",
                    )
                })?,
        };
        baton_core::Schema::compile_str(&text)
            .map(|inner| Schema { inner })
            .map_err(|refusal| refused(&refusal))
    }

    /// Validates a value: `{ valid, errors: [{ instancePath, keyword, message }] }`.
    /// The value crosses as JSON text and is checked inside wasm.
    pub fn validate(&self, value: JsValue) -> Result<JsValue, JsValue> {
        let text = js_sys::JSON::stringify(&value)
            .map_err(|thrown| wrapped(Code::InvalidValue, "writing the value as JSON", &thrown))?
            .as_string()
            .ok_or_else(|| error(Code::InvalidValue, "the value cannot be written as JSON"))?;
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| error(Code::InvalidValue, &e.to_string()))?;
        let result = self.inner.validate(&value);
        serde::Serialize::serialize(&result, &serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| error(Code::Internal, &e.to_string()))
    }

    /// The digest of the schema's canonical JSON (equal schemas share it).
    #[wasm_bindgen(getter)]
    pub fn digest(&self) -> String {
        self.inner.digest().to_hex()
    }
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
}
