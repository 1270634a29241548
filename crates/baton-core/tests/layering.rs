//! The core's modules form a hierarchy: no top-level module reaches back
//! into one that depends on it. `engine` routes to `run`, `run` decides with
//! the protocol, the manifest and the rest, and nothing below reaches up.
//! (Inside `run/`, the files are one type, `Run`, and may use each other.)

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each top-level module and the top-level modules its code (tests aside)
/// names as `crate::<module>`.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let relative = path.strip_prefix(&src).unwrap();
            let top = relative
                .components()
                .next()
                .unwrap()
                .as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned();
            if top == "lib" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let deps = graph.entry(top.clone()).or_default();
            for (index, _) in code.match_indices("crate::") {
                let name: String = code[index + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                if !name.is_empty() && name != top {
                    deps.insert(name);
                }
            }
        }
    }
    graph
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
