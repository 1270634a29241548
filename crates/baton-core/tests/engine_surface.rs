//! The engine's surface stays small: everything it is told goes through one
//! door, `Engine::handle(now, input)`, and reading goes through a handful of
//! accessors and borrowed views. A new command is a value in
//! `engine/commands.rs`, not another method.

use std::path::Path;

/// Most public methods `Engine` may have.
const MOST_METHODS: usize = 25;

/// The public methods of every `impl Engine` block under `src/`, as
/// `file: name`.
fn engine_methods() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut files = vec![src];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let code = std::fs::read_to_string(&path).unwrap();
        let mut inside = false;
        for line in code.lines() {
            if line.starts_with("impl ") {
                inside = line.starts_with("impl Engine {");
            }
            let method = line.strip_prefix("    pub fn ");
            if let (true, Some(rest)) = (inside, method) {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                found.push(format!("{}: {name}", path.display()));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn the_engine_has_one_door_and_few_methods() {
    let methods = engine_methods();
    assert!(
        methods.iter().any(|m| m.ends_with(": handle")),
        "Engine::handle is the door: {methods:#?}"
    );
    assert!(
        methods.len() <= MOST_METHODS,
        "Engine has {} public methods, at most {MOST_METHODS}: a command is a value told \
         through Engine::handle, a reading a view: {methods:#?}",
        methods.len()
    );
    let shorthands: Vec<_> = methods.iter().filter(|m| m.contains(": handle_")).collect();
    assert!(shorthands.is_empty(), "handle_* shorthands: {shorthands:?}");
}

#[test]
fn the_count_sees_every_public_method_of_engine() {
    // The scan finds the door and the loop's outputs where they are.
    let methods = engine_methods();
    for name in ["handle", "poll_event", "poll_timeout", "run", "new"] {
        assert!(
            methods.iter().any(|m| m.ends_with(&format!(": {name}"))),
            "{name} not found among {methods:#?}"
        );
    }
}

/// Most files under `src/run/` with an inherent `impl Run` block.
const MOST_RUN_FILES: usize = 8;

#[test]
fn the_run_is_implemented_in_a_file_per_phase() {
    let run = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/run");
    let mut files: Vec<String> = std::fs::read_dir(&run)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            std::fs::read_to_string(path)
                .unwrap()
                .lines()
                .any(|line| line.starts_with("impl Run {"))
        })
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(files.contains(&"mod.rs".to_owned()), "{files:?}");
    assert!(
        files.len() <= MOST_RUN_FILES,
        "`impl Run` in {} files, at most {MOST_RUN_FILES}: a rule about one part of a run's \
         state is a method of that part's type: {files:?}",
        files.len()
    );
}
