//! The core's modules form a hierarchy: no top-level module reaches back
//! into one that depends on it. `engine` routes to `run`, `run` decides with
//! the protocol, the manifest and the rest, and nothing below reaches up.
//! (Inside `run/`, the files are one type, `Run`, and may use each other.)

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module and the top-level modules its code (tests aside)
/// names: as `crate::<module>`, in a `use crate::{…}` list, or through
/// `super::` from a file below it.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, text) in common::source_files() {
        let module = module_path(&path);
        let Some(top) = module.first().cloned() else {
            continue; // lib.rs
        };
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        let deps = graph.entry(top.clone()).or_default();
        deps.extend(named(code, &module).into_iter().filter(|name| *name != top));
    }
    graph
}

/// A file's module path from `src/`: `run/row.rs` is `[run, row]`,
/// `engine/mod.rs` is `[engine]`, `lib.rs` is `[]`.
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .components()
        .map(|part| {
            part.as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The top-level modules `code`, in the module at `module`, names.
fn named(code: &str, module: &[String]) -> BTreeSet<String> {
    let ident = |text: &str| -> String {
        text.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    // What follows a path prefix that resolves to the module at `base`:
    // one name, or a `{…}` list of them.
    let mut found = BTreeSet::new();
    let mut resolve = |base: &[String], rest: &str| {
        let mut heads = Vec::new();
        if let Some(list) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in list.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => heads.push(std::mem::take(&mut item)),
                    _ => {}
                }
                if depth == 0 && c != ',' && c != '}' {
                    item.push(c);
                }
            }
            heads.push(item);
        } else {
            heads.push(rest.to_owned());
        }
        for head in heads {
            let name = ident(&head);
            let top = base.first().cloned().unwrap_or(name);
            if !top.is_empty()
                && top.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                && top != "self"
            {
                found.insert(top);
            }
        }
    };
    for (index, _) in code.match_indices("crate::") {
        resolve(&[], &code[index + 7..]);
    }
    let mut rest = code;
    while let Some(index) = rest.find("super::") {
        // A run of `super::`, counted once from its start.
        let preceded = rest[..index].ends_with("super::");
        let mut after = &rest[index..];
        let mut ups = 0;
        while let Some(next) = after.strip_prefix("super::") {
            ups += 1;
            after = next;
        }
        if !preceded && ups <= module.len() {
            resolve(&module[..module.len() - ups], after);
        }
        rest = &rest[index + 7 * ups..];
    }
    found
}

/// A cycle through `from`, if there is one.
fn cycle(
    graph: &BTreeMap<String, BTreeSet<String>>,
    from: &str,
    path: &mut Vec<String>,
) -> Option<Vec<String>> {
    if let Some(start) = path.iter().position(|module| module == from) {
        return Some(path[start..].to_vec());
    }
    path.push(from.to_owned());
    for next in graph.get(from).into_iter().flatten() {
        if graph.contains_key(next) {
            if let Some(found) = cycle(graph, next, path) {
                return Some(found);
            }
        }
    }
    path.pop();
    None
}

#[test]
fn the_core_modules_import_each_other_without_a_cycle() {
    let graph = imports();
    assert!(graph.contains_key("engine") && graph.contains_key("run"));
    assert!(graph["engine"].contains("run"), "the engine routes to runs");
    for module in graph.keys() {
        if let Some(found) = cycle(&graph, module, &mut Vec::new()) {
            panic!(
                "modules import each other in a circle: {}",
                found.join(" → ")
            );
        }
    }
}

#[test]
fn the_layering_check_sees_use_lists_and_super_paths() {
    let at = |path: &[&str]| {
        path.iter()
            .map(|part| (*part).to_owned())
            .collect::<Vec<_>>()
    };
    let names = |code: &str, module: &[String]| named(code, module).into_iter().collect::<Vec<_>>();
    assert_eq!(
        names(
            "use crate::{ids::RunId, model::{Autonomy, Budget}, state};",
            &at(&["run"])
        ),
        ["ids", "model", "state"]
    );
    // From `engine/mod.rs`, `super::` is the crate root.
    assert_eq!(names("use super::run::Run;", &at(&["engine"])), ["run"]);
    // From `run/row.rs`, `super::` is `run` itself, `super::super::` the root.
    assert_eq!(
        names(
            "use super::{Run, Custody}; use super::super::journal::X;",
            &at(&["run", "row"])
        ),
        ["journal", "run"]
    );
    assert_eq!(module_path(Path::new("engine/mod.rs")), at(&["engine"]));
    assert_eq!(
        module_path(Path::new("run/review/sheet.rs")),
        at(&["run", "review", "sheet"])
    );
}
