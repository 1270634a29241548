//! The conformance kit's fixtures, bundled into the package for its JS
//! runner (`baton-engine/conformance`): one JSON array, each fixture as
//! written, with manifests named by the shared ones resolved. The native
//! kit validates every fixture against its format on each test run.

use std::path::Path;

use serde_json::Value;

use crate::root;

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
