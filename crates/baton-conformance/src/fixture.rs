//! Fixtures as data: `baton-conformance/1` JSON files, checked against the
//! format's JSON Schema (`fixture.schema.json`) before they are read, with
//! manifests named by the shared ones in `fixtures/manifests/`.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::subject::{Command, ParticipantSetup, Setup};

/// The format's JSON Schema.
pub const FORMAT_SCHEMA: &str = include_str!("../fixture.schema.json");

/// The fixtures shipped with the kit.
pub fn kit_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// One scenario of the contract.
#[derive(Debug, Clone, PartialEq)]
pub struct Fixture {
    /// Its id (the file's name without `.json`).
    pub id: String,
    /// What it shows, in a sentence.
    pub title: String,
    /// The requirements it proves; the first is cited unless an
    /// expectation names its own.
    pub proves: Vec<String>,
    /// Rules of the adopted patterns it also proves.
    pub rules: Vec<String>,
    /// `page` when only a subject that observes its page can play it.
    pub observer: Option<String>,
    /// What is mounted before the first step.
    pub setup: Setup,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

/// One step: a command, or an expectation about what is observed.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A command; `fails` names the error code it must fail with.
    Command {
        /// The command.
        command: Command,
        /// The error code it must fail with, if it must.
        fails: Option<String>,
    },
    /// An expectation.
    Expect(Expectation),
}

/// What must hold of the observation at one point.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// A JSON Pointer into the observation.
    pub pointer: String,
    /// The requirement a failure cites, if not the fixture's first.
    pub ag: Option<String>,
    /// What must hold of the value there.
    pub matcher: Matcher,
}

/// What must hold of an observed value.
#[derive(Debug, Clone, PartialEq)]
pub enum Matcher {
    /// Equal to this value.
    Is(Value),
    /// An array holding these items, in this order (others may come between).
    Includes(Vec<Value>),
    /// An array holding none of these items.
    Excludes(Vec<Value>),
    /// An array or string of exactly this length.
    Length(usize),
    /// An array or string at least this long.
    AtLeast(usize),
    /// Nothing there.
    Absent,
}

/// Why fixtures could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// A file could not be read.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// What failed.
        message: String,
    },
    /// A file is not a valid fixture.
    #[error("{path}: not a baton-conformance/1 fixture: {problems}")]
    Invalid {
        /// The file.
        path: String,
        /// What is wrong, per the format's schema or its rules.
        problems: String,
    },
}

/// Every fixture in `dir` (its `*.json` files, in name order), with shared
/// manifests from `dir/manifests/`.
pub fn load_all(dir: &Path) -> Result<Vec<Fixture>, FixtureError> {
    let io = |path: &Path, error: std::io::Error| FixtureError::Io {
        path: path.display().to_string(),
        message: error.to_string(),
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|error| io(dir, error))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).map_err(|error| io(path, error))?;
            load(&text, &dir.join("manifests")).map_err(|problems| FixtureError::Invalid {
                path: path.display().to_string(),
                problems,
            })
        })
        .collect()
}

/// One fixture from its text; manifests named by a string come from
/// `manifests/<name>.json`.
pub fn load(text: &str, manifests: &Path) -> Result<Fixture, String> {
    let value: Value = serde_json::from_str(text).map_err(|error| error.to_string())?;
    let format: Value = serde_json::from_str(FORMAT_SCHEMA).map_err(|e| e.to_string())?;
    let validator = jsonschema::validator_for(&format).map_err(|e| e.to_string())?;
    let problems: Vec<String> = validator
        .iter_errors(&value)
        .map(|error| format!("at `{}`: {error}", error.instance_path()))
        .collect();
    if !problems.is_empty() {
        return Err(problems.join("; "));
    }
    let strings = |key: &str| -> Vec<String> {
        value[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|item| item.as_str().map(str::to_owned))
            .collect()
    };
    let mut participants = Vec::new();
    for participant in value["participants"].as_array().into_iter().flatten() {
        let mut participant = participant.clone();
        if let Some(name) = participant["manifest"].as_str() {
            let path = manifests.join(format!("{name}.json"));
            let text = std::fs::read_to_string(&path)
                .map_err(|error| format!("manifest `{name}` ({}): {error}", path.display()))?;
            participant["manifest"] = serde_json::from_str(&text)
                .map_err(|error| format!("manifest `{name}`: {error}"))?;
        }
        participants.push(
            serde_json::from_value::<ParticipantSetup>(participant)
                .map_err(|error| format!("a participant: {error}"))?,
        );
    }
    let steps = value["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(index, step)| step_of(step).map_err(|error| format!("step {}: {error}", index + 1)))
        .collect::<Result<Vec<Step>, String>>()?;
    Ok(Fixture {
        id: value["id"].as_str().unwrap_or_default().to_owned(),
        title: value["title"].as_str().unwrap_or_default().to_owned(),
        proves: strings("proves"),
        rules: strings("rules"),
        observer: value["observer"].as_str().map(str::to_owned),
        setup: Setup {
            engine: value["engine"].as_object().cloned().unwrap_or_default(),
            participants,
        },
        steps,
    })
}

fn step_of(step: &Value) -> Result<Step, String> {
    let mut object: Map<String, Value> = step.as_object().cloned().unwrap_or_default();
    if let Some(pointer) = object.remove("expect") {
        let ag = object
            .remove("ag")
            .and_then(|ag| ag.as_str().map(str::to_owned));
        if object.len() != 1 {
            return Err("an expectation has exactly one matcher".into());
        }
        let (name, value) = object
            .into_iter()
            .next()
            .ok_or("an expectation needs a matcher")?;
        let items = |value: Value| value.as_array().cloned().unwrap_or_default();
        let count = |value: &Value| value.as_u64().unwrap_or_default() as usize;
        let matcher = match name.as_str() {
            "is" => Matcher::Is(value),
            "includes" => Matcher::Includes(items(value)),
            "excludes" => Matcher::Excludes(items(value)),
            "length" => Matcher::Length(count(&value)),
            "atLeast" => Matcher::AtLeast(count(&value)),
            "absent" => Matcher::Absent,
            other => return Err(format!("unknown matcher `{other}`")),
        };
        return Ok(Step::Expect(Expectation {
            pointer: pointer.as_str().unwrap_or_default().to_owned(),
            ag,
            matcher,
        }));
    }
    let fails = object
        .remove("fails")
        .and_then(|code| code.as_str().map(str::to_owned));
    let command: Command =
        serde_json::from_value(Value::Object(object)).map_err(|error| error.to_string())?;
    Ok(Step::Command { command, fails })
}
