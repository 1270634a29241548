//! The instance parser against `serde_json`, the reference it must agree
//! with on every text: the same values, the same texts refused.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::{equal, parse, Instance};

/// Whether an instance is exactly the value (numbers by variant too).
fn same(instance: &Instance<'_>, value: &Value) -> bool {
    match (instance, value) {
        (Instance::Null, Value::Null) => true,
        (Instance::Bool(a), Value::Bool(b)) => a == b,
        (Instance::Number(a), Value::Number(b)) => a == b,
        (Instance::String(a), Value::String(b)) => a == b,
        (Instance::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b))
        }
        (Instance::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, v)| b.get(k.as_ref()).is_some_and(|w| same(v, w)))
        }
        _ => false,
    }
}

fn agrees(text: &str) {
    match (parse(text), serde_json::from_str::<Value>(text)) {
        (Ok(ours), Ok(theirs)) => assert!(same(&ours, &theirs), "{text:?}: {ours:?} vs {theirs:?}"),
        (Err(_), Err(_)) => {}
        (ours, theirs) => panic!("{text:?}: ours {ours:?}, serde_json {theirs:?}"),
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "\\PC{0,12}".prop_map(Value::String),
        "[\"\\\\/\u{0}-\u{1f}\u{7f}\u{e9}\u{1F600}a]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(("[a-c\"\\\\]{0,3}", inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn every_value_serde_json_writes_parses_to_the_same_value(value in json_value()) {
        for text in [value.to_string(), serde_json::to_string_pretty(&value).unwrap()] {
            let ours = parse(&text).unwrap();
            prop_assert!(same(&ours, &value), "{text}");
            prop_assert!(equal(&ours, &Instance::from(&value)));
            // Written back as serde_json writes it (its keys are sorted,
            // so the text's order is theirs).
            prop_assert_eq!(ours.to_string(), value.to_string());
        }
    }

    #[test]
    fn any_text_is_accepted_or_refused_as_serde_json_does(
        text in "[ \t\n\r{}\\[\\]:,\"\\\\/a-fnrtu0-9.eE+\\-\u{0}-\u{1f}\u{e9}]{0,24}"
    ) {
        agrees(&text);
    }
}

#[test]
fn numbers_are_read_as_serde_json_reads_them() {
    for text in [
        "0",
        "-0",
        "7",
        "-7",
        "01",
        "-01",
        "1.",
        ".5",
        "1.5",
        "-1.5e3",
        "1e400",
        "1E+2",
        "2e-2",
        "123456789012345678",
        "-123456789012345678",
        "1234567890123456789",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "-",
        "--1",
        "1-",
        "+1",
        "0x10",
        "1e",
        "1e+",
        "NaN",
        "Infinity",
    ] {
        agrees(text);
        agrees(&format!("[{text}]"));
        agrees(&format!("{{\"n\": {text}}}"));
    }
}

#[test]
fn strings_and_structure_are_read_as_serde_json_reads_them() {
    for text in [
        r#""""#,
        r#""a\"b""#,
        r#""\u00e9\n\t\\\/""#,
        r#""\ud83d\ude00""#,
        r#""\ud800""#,
        r#""\x""#,
        r#""\u12"#,
        "\"a\u{1}\"",
        "\"\\\u{e9}\"",
        r#""open"#,
        r#""\"#,
        "\"é😀\"",
        "",
        " ",
        "[",
        "]",
        "[1,]",
        "[,1]",
        "{}",
        "{\"a\"}",
        "{\"a\":}",
        "{\"a\":1,}",
        "{a:1}",
        "{\"a\":1 \"b\":2}",
        "[1 2]",
        "true",
        "tru",
        "nulls",
        "null x",
        " [ ] ",
        "\u{feff}1",
        "{\"a\":1,\"a\":2}",
        "[{\"x\":[{}]},[[]]]",
    ] {
        agrees(text);
    }
}

#[test]
fn a_name_written_twice_keeps_its_last_value_as_json_parse_does() {
    let many: String = (0..40).map(|i| format!("\"k{}\":{i},", i % 20)).collect();
    for text in [
        r#"{"a": 1, "b": 2, "a": 3}"#.to_owned(),
        format!("{{{many}\"end\":0}}"),
    ] {
        let ours = parse(&text).unwrap();
        let theirs: Value = serde_json::from_str(&text).unwrap();
        assert!(same(&ours, &theirs), "{text}");
    }
}

#[test]
fn a_large_object_with_every_name_repeated_is_read_in_linear_time() {
    // 20,000 entries, each name twice: pairwise checking would compare
    // 2·10^8 pairs; the table does 20,000 lookups.
    let entries: Vec<String> = (0..20_000)
        .map(|i| format!("\"n{}\":{i}", i % 10_000))
        .collect();
    let text = format!("{{{}}}", entries.join(","));
    let ours = parse(&text).unwrap();
    let theirs: Value = serde_json::from_str(&text).unwrap();
    assert!(same(&ours, &theirs));
    assert_eq!(
        ours.get("n42").map(ToString::to_string).as_deref(),
        Some("10042")
    );
}

#[test]
fn nesting_is_refused_where_serde_json_refuses_it() {
    for depth in [126, 127, 128, 129, 10_000] {
        agrees(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
        agrees(&format!(
            "{}1{}",
            "{\"a\":".repeat(depth),
            "}".repeat(depth)
        ));
    }
}

#[test]
fn a_refusal_says_where_as_line_and_column() {
    let refused = parse("{\n  \"a\": 1,\n  \"b\": tru\n}").unwrap_err();
    assert_eq!(refused.to_string(), "expected value at line 3 column 8");
    let escape = parse("[\"ok\", \"\\x\"]").unwrap_err().to_string();
    assert!(
        escape.starts_with("invalid escape at line 1 column"),
        "{escape}"
    );
}
