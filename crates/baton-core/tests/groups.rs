//! A group of a run's state keeps its own rules: once a group has a module
//! of its own, no other file reads or writes its fields — they go through
//! the group's methods, where its invariants are kept. A newcomer looking
//! for "who may change the questions" finds one file.

mod common;

/// The groups that own their fields, each with the one file allowed to
/// touch them.
const OWNED: &[(&str, &str)] = &[
    ("asking", "run/asking.rs"),
    ("mutation", "run/mutation.rs"),
    ("approval", "run/approval.rs"),
    ("turns", "run/turn_log.rs"),
    ("custody", "run/custody.rs"),
];

/// Every place in `code` that names a field of `group` (`.group.field`, not
/// a method call `.group.method(`), as `(line, text)`.
fn field_uses(code: &str, group: &str) -> Vec<(usize, String)> {
    let needle = format!(".{group}.");
    let mut found = Vec::new();
    for (number, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find(&needle) {
            let after = &rest[at + needle.len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let called = after[name.len()..].trim_start().starts_with('(');
            if !name.is_empty() && !called {
                found.push((number + 1, line.trim().to_owned()));
            }
            rest = &after[name.len()..];
        }
    }
    found
}

#[test]
fn no_group_field_is_touched_outside_its_own_module() {
    let mut breaches = Vec::new();
    let mut owners_seen = 0;
    for (path, code) in common::source_files() {
        let relative = path.to_string_lossy().replace('\\', "/");
        for (group, owner) in OWNED {
            if relative == *owner {
                owners_seen += 1;
                continue;
            }
            for (line, text) in field_uses(&code, group) {
                breaches.push(format!("{relative}:{line}: {text}"));
            }
        }
    }
    assert_eq!(owners_seen, OWNED.len(), "every owning module exists");
    assert!(
        breaches.is_empty(),
        "fields used outside their group's module:\n{}",
        breaches.join("\n")
    );
}

#[test]
fn the_check_tells_a_field_from_a_method() {
    assert_eq!(
        field_uses(
            "self.asking.pending.pop_front(); self.asking.open()",
            "asking"
        ),
        vec![(
            1,
            "self.asking.pending.pop_front(); self.asking.open()".to_owned()
        )]
    );
    assert!(field_uses("run.asking.take_next()", "asking").is_empty());
}
