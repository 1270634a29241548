//! The conformance vehicles in `cargo xtask test` — the kit against
//! `baton-core`, `agent-check` over the demo — and the kit's fixtures
//! bundled into the package for its JS runner (`baton-engine/conformance`):
//! one JSON array, each fixture as written, with manifests named by the
//! shared ones resolved. The native kit validates every fixture against its
//! format on each test run.

use std::path::Path;

use serde_json::Value;

use crate::{cargo, root, summarize_tests};

/// Writes `pkg/conformance-fixtures.json`; returns how many fixtures it holds.
pub fn bundle_fixtures(out: &Path) -> Result<usize, String> {
    let dir = root().join("crates/baton-conformance/fixtures");
    let read = |path: &Path| -> Result<Value, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        serde_json::from_str(&text).map_err(|error| format!("{}: {error}", path.display()))
    };
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|error| format!("{}: {error}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    let mut fixtures = Vec::new();
    for path in paths {
        let mut fixture = read(&path)?;
        for participant in fixture["participants"].as_array_mut().into_iter().flatten() {
            if let Some(name) = participant["manifest"].as_str() {
                let shared = dir.join("manifests").join(format!("{name}.json"));
                participant["manifest"] = read(&shared)?;
            }
        }
        fixtures.push(fixture);
    }
    let text = serde_json::to_string(&fixtures).map_err(|error| error.to_string())?;
    let target = out.join("conformance-fixtures.json");
    std::fs::write(&target, text).map_err(|error| format!("{}: {error}", target.display()))?;
    Ok(fixtures.len())
}

/// `agent-check` over the demo app, as a team would run it over theirs:
/// every manifest found and clean, or the step fails with the findings.
pub fn agent_check_demo() -> Result<String, String> {
    let mut command = cargo();
    command.args(["run", "-q", "-p", "agent-check", "--", "www"]);
    command.current_dir(root());
    let out = command
        .output()
        .map_err(|error| format!("could not start agent-check: {error}"))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    print!("{text}");
    let summary = text.lines().last().unwrap_or_default().to_owned();
    if out.status.success() {
        Ok(summary)
    } else {
        Err(format!("{summary} ({})", out.status))
    }
}

/// The conformance kit's fixtures against `baton-core`, and against the
/// engines broken on purpose that must fail it with the right AG-n; its
/// report (one line per failure, then a summary) is printed.
pub fn native() -> Result<String, String> {
    let mut command = cargo();
    command.args(["test", "-p", "baton-conformance", "--", "--show-output"]);
    summarize_tests(command, "conformance kit", &mut false)
}
