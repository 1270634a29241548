//! Digests over a canonical JSON encoding: object keys sorted at every level,
//! no insignificant whitespace. Equal values always give equal digests.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// A SHA-256 digest, shown and serialized as lowercase hex.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(type = "string"))]
pub struct Digest(pub [u8; 32]);

impl Digest {
    /// The digest of the canonical encoding of `value`.
    pub fn of_json(value: &Value) -> Self {
        let mut bytes = Vec::new();
        write_canonical(value, &mut bytes);
        Self::of_bytes(&bytes)
    }

    /// The digest of raw bytes.
    pub fn of_bytes(bytes: &[u8]) -> Self {
        Digest(Sha256::digest(bytes).into())
    }

    /// Lowercase hex.
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }

    /// Parses lowercase or uppercase hex of exactly 32 bytes.
    pub fn from_hex(text: &str) -> Option<Self> {
        let bytes = unhex(text)?;
        Some(Digest(bytes.try_into().ok()?))
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.to_hex())
    }
}

impl Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Digest::from_hex(&text).ok_or_else(|| serde::de::Error::custom("expected 64 hex digits"))
    }
}

/// Appends the canonical encoding of `value` to `out`.
pub fn write_canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            // In key order, placed by binary search: a sort here would cost
            // the browser runtime a copy of the sort for this one type.
            let mut entries: Vec<(&String, &Value)> = Vec::with_capacity(map.len());
            for entry in map {
                let at = entries.partition_point(|(key, _)| *key < entry.0);
                entries.insert(at, entry);
            }
            out.push(b'{');
            for (index, (key, item)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_scalar(&Value::String(key.clone()), out);
                out.push(b':');
                write_canonical(item, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        scalar => write_scalar(scalar, out),
    }
}

fn write_scalar(value: &Value, out: &mut Vec<u8>) {
    // Serializing a scalar cannot fail; an empty write would only weaken the digest.
    let _ = serde_json::to_writer(&mut *out, value);
}

pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(DIGITS[(byte >> 4) as usize] as char);
        text.push(DIGITS[(byte & 0x0f) as usize] as char);
    }
    text
}

pub fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    text.as_bytes()
        .chunks(2)
        .map(|pair| {
            let high = (pair[0] as char).to_digit(16)?;
            let low = (pair[1] as char).to_digit(16)?;
            Some((high * 16 + low) as u8)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_does_not_change_the_digest() {
        let a: Value = serde_json::from_str(r#"{"b":1,"a":{"y":[1,2],"x":"é"}}"#).unwrap();
        let b = json!({"a": {"x": "é", "y": [1, 2]}, "b": 1});
        assert_eq!(Digest::of_json(&a), Digest::of_json(&b));
        assert_ne!(Digest::of_json(&a), Digest::of_json(&json!({"b": 2})));
        let mut bytes = Vec::new();
        write_canonical(&a, &mut bytes);
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            r#"{"a":{"x":"é","y":[1,2]},"b":1}"#
        );
    }

    #[test]
    fn hex_round_trips() {
        let digest = Digest::of_bytes(b"baton");
        assert_eq!(Digest::from_hex(&digest.to_hex()), Some(digest));
        assert_eq!(Digest::from_hex("zz"), None);
        assert_eq!(unhex("0aFf"), Some(vec![10, 255]));
    }
}
