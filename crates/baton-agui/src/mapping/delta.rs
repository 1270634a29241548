//! The events a long stream is made of, read without building a `Value`:
//! a text or tool-call delta whose JSON object holds exactly `type`, its id
//! and `delta`, each a string. Anything else — another field, a repeated
//! one, another type of value, text after the object — is not read here
//! (`None`), and the mapper reads it the general way; so this only ever
//! takes what the general reading would take, the same (a property test
//! holds the two to it).

use std::borrow::Cow;

/// `text` after JSON's whitespace (not Unicode's: a no-break space is not
/// JSON).
fn skip_space(text: &str) -> &str {
    let space = text
        .bytes()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .count();
    &text[space..]
}

/// `text` after its first byte, if that is `byte` (ASCII). A byte compare
/// where a `char` pattern would encode the character and compare slices,
/// on every field of every delta.
fn past(text: &str, byte: u8) -> Option<&str> {
    (text.as_bytes().first() == Some(&byte)).then(|| &text[1..])
}

/// The string fields of a flat JSON object of only strings, by name.
pub(super) struct Fields<'a> {
    pub(super) kind: Option<Cow<'a, str>>,
    pub(super) message: Option<Cow<'a, str>>,
    pub(super) call: Option<Cow<'a, str>>,
    pub(super) delta: Option<Cow<'a, str>>,
}

/// `text`'s fields, if it is one flat object of these string fields, each
/// at most once, and nothing else.
pub(super) fn fields(text: &str) -> Option<Fields<'_>> {
    let mut fields = Fields {
        kind: None,
        message: None,
        call: None,
        delta: None,
    };
    let mut rest = past(skip_space(text), b'{')?;
    loop {
        let (key, after) = string(skip_space(rest))?;
        let after = past(skip_space(after), b':')?;
        let (value, after) = string(skip_space(after))?;
        let slot = match &*key {
            "type" => &mut fields.kind,
            "messageId" => &mut fields.message,
            "toolCallId" => &mut fields.call,
            "delta" => &mut fields.delta,
            _ => return None,
        };
        if slot.replace(value).is_some() {
            return None;
        }
        let after = skip_space(after);
        if let Some(next) = past(after, b',') {
            rest = next;
        } else {
            let after = past(after, b'}')?;
            return skip_space(after).is_empty().then_some(fields);
        }
    }
}

/// A JSON string at the start of `text`, and what follows it. Without an
/// escape it is borrowed; with one, `serde_json` decodes it.
fn string(text: &str) -> Option<(Cow<'_, str>, &str)> {
    let body = past(text, b'"')?;
    let bytes = body.as_bytes();
    let mut escaped = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let (inside, after) = (&body[..i], &body[i + 1..]);
                let value = if escaped {
                    // Through `Value`'s reader, which the module has anyway
                    // (a reader of its own for a `String` was 1 KiB more).
                    match serde_json::from_str(&text[..i + 2]).ok()? {
                        serde_json::Value::String(decoded) => Cow::Owned(decoded),
                        _ => return None,
                    }
                } else {
                    Cow::Borrowed(inside)
                };
                return Some((value, after));
            }
            b'\\' => {
                escaped = true;
                i += 2;
            }
            // A control character is not allowed in a JSON string.
            0..=0x1f => return None,
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_only_flat_objects_of_known_string_fields() {
        let read = fields(r#" { "type" : "T", "delta":"a\"b\u00e9" } "#).unwrap();
        assert_eq!(read.kind.as_deref(), Some("T"));
        assert_eq!(read.delta.as_deref(), Some("a\"bé"));
        for refused in [
            r#"{"type":"T","other":"x"}"#,
            r#"{"type":"T","type":"U"}"#,
            r#"{"type":"T","delta":3}"#,
            r#"{"type":"T"} x"#,
            r#"{"type":"T",}"#,
            "{\"type\":\"a\u{1}\"}",
            r#"{"type":"\x"}"#,
            r#"{"type":"T""#,
            "\u{a0}{\"type\":\"T\"}",
            "{\"type\":\"T\"}\u{2028}",
        ] {
            assert!(fields(refused).is_none(), "{refused}");
        }
    }
}
