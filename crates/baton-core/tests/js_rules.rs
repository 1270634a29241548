//! The core's rules the package's JavaScript needs before an engine is
//! loaded, written into `pkg/rules.js` from the core's own constants, so the
//! two cannot drift: which effect names are external acts whatever is
//! declared (AG-18), for `baton-engine/mcp`.
//!
//! The test fails when the committed file differs from what the core says;
//! `BATON_WRITE_RULES=1` writes it instead.

use std::path::PathBuf;

use baton_core::{is_external_verb, EXTERNAL_VERBS, EXTERNAL_VERB_ENDS};

fn rules() -> String {
    let list = |items: Vec<String>| {
        items
            .iter()
            .map(|item| serde_json::to_string(item).unwrap())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let verbs = list(EXTERNAL_VERBS.iter().map(|v| v.to_string()).collect());
    let ends = list(EXTERNAL_VERB_ENDS.iter().map(|c| c.to_string()).collect());
    format!(
        "// Generated from baton-core's rules by `crates/baton-core/tests/js_rules.rs`;\n\
         // do not edit. Change the core's constants and run\n\
         // `BATON_WRITE_RULES=1 cargo test -p baton-core --test js_rules`.\n\
         \n\
         /** Verbs that make an effect external whatever is declared (AG-18): an\n\
         effect named for one (in any ASCII case), alone or followed by one of\n\
         `EXTERNAL_VERB_ENDS`, sends, publishes or notifies. */\n\
         export const EXTERNAL_VERBS = [{verbs}];\n\
         \n\
         /** What may follow an external verb in an effect's name. */\n\
         export const EXTERNAL_VERB_ENDS = [{ends}];\n\
         \n\
         /** Whether an effect's name makes it external, as the engine judges it. */\n\
         export function isExternalVerb(name) {{\n  \
           const lower = String(name).replace(/[A-Z]/g, (c) => c.toLowerCase());\n  \
           return EXTERNAL_VERBS.some((verb) => lower === verb || (lower.startsWith(verb) && EXTERNAL_VERB_ENDS.includes(lower[verb.length])));\n\
         }}\n"
    )
}

#[test]
fn the_packages_rules_are_the_cores() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../pkg/rules.js");
    let text = rules();
    if std::env::var_os("BATON_WRITE_RULES").is_some() {
        std::fs::write(&path, &text).expect("pkg/rules.js is writable");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "pkg/rules.js differs from the core's rules; run \
         `BATON_WRITE_RULES=1 cargo test -p baton-core --test js_rules`"
    );
}

/// The names the package's tests judge with `isExternalVerb`, with the
/// core's verdicts (`tests/pkg/engine.test.mjs` asserts the same).
#[test]
fn ag_18_external_verbs_as_the_core_judges_them() {
    for (name, external) in [
        ("send", true),
        ("Send_mail", true),
        ("publish.post", true),
        ("NOTIFY team", true),
        ("notify-all", true),
        ("sender", false),
        ("resend", false),
        ("publishing", false),
        ("rename", false),
        // Not an ASCII `s`: JavaScript's case-insensitive `RegExp` would
        // fold it to one; the rule does not.
        ("\u{17f}end", false),
    ] {
        assert_eq!(is_external_verb(name), external, "{name}");
    }
}
