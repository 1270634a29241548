//! How a refused manifest reports what is wrong: every problem, with its
//! JSON path and the requirement it breaks.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ids::WIRE_SEPARATOR;

/// One thing wrong with a manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ManifestProblem {
    /// Where, as a JSON path (`$.capabilities[0].description`).
    pub path: String,
    /// The requirement broken, if one is (`AG-14`).
    #[cfg_attr(feature = "typescript", ts(type = "`AG-${number}` | null"))]
    pub requirement: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ManifestProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.requirement {
            Some(requirement) => write!(f, "{requirement}: {}: {}", self.path, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// A refused manifest, with every problem found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ManifestError {
    /// The problems, in document order.
    pub problems: Vec<ManifestProblem>,
}

impl ManifestError {
    pub(super) fn single(path: String, requirement: Option<&str>, message: String) -> Self {
        ManifestError {
            problems: vec![ManifestProblem {
                path,
                requirement: requirement.map(str::to_owned),
                message,
            }],
        }
    }

    /// Whether some problem breaks `requirement` (`"AG-16"`).
    pub fn breaks(&self, requirement: &str) -> bool {
        self.problems
            .iter()
            .any(|p| p.requirement.as_deref() == Some(requirement))
    }
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, problem) in self.problems.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

#[derive(Default)]
pub(super) struct Problems(Vec<ManifestProblem>);

/// Words that stand in for a description without being one.
const PLACEHOLDERS: &[&str] = &[
    "todo",
    "tbd",
    "fixme",
    "xxx",
    "n/a",
    "na",
    "none",
    "null",
    "description",
    "placeholder",
    "lorem ipsum",
    "test",
    "foo",
    "bar",
    "...",
    "-",
];

impl Problems {
    pub(super) fn push(&mut self, path: &str, requirement: Option<&str>, message: String) {
        self.0.push(ManifestProblem {
            path: path.into(),
            requirement: requirement.map(str::to_owned),
            message,
        });
    }

    pub(super) fn identifier(&mut self, path: &str, value: &str) {
        let valid = !value.is_empty()
            && value.len() <= 64
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            && value
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic());
        if !valid {
            self.push(
                path,
                None,
                format!("`{value}` is not an identifier: 1–64 ASCII letters, digits, `-` or `_`, starting with a letter"),
            );
        }
    }

    /// A participant id must leave the wire tool name reversible
    /// ([`crate::CapabilityRef::wire_name`]): no `__`, no trailing `_` (AG-15).
    pub(super) fn wire_participant(&mut self, id: &str) {
        if id.contains(WIRE_SEPARATOR) || id.ends_with('_') {
            self.push(
                "$.id",
                Some("AG-15"),
                format!("`{id}` cannot name tools for the acting party: a participant id must not contain `{WIRE_SEPARATOR}` or end with `_`, which separate it from the capability in a tool name"),
            );
        }
    }

    /// A capability's wire tool name must fit the 64 characters model APIs
    /// accept (AG-15).
    pub(super) fn wire_name(&mut self, path: &str, participant: &str, capability: &str) {
        let length = participant.len() + WIRE_SEPARATOR.len() + capability.len();
        if length > 64 {
            self.push(
                &format!("{path}.name"),
                Some("AG-15"),
                format!("the tool name `{participant}{WIRE_SEPARATOR}{capability}` would be {length} characters; model APIs accept at most 64"),
            );
        }
    }

    /// What every named entry (a read, a capability) must be: an identifier,
    /// described for the acting party (AG-14), declared once.
    pub(super) fn entry(
        &mut self,
        path: &str,
        what: &str,
        name: &str,
        description: &str,
        names: &mut BTreeSet<String>,
    ) {
        self.identifier(&format!("{path}.name"), name);
        self.description(&format!("{path}.description"), description, name);
        if !names.insert(name.to_owned()) {
            self.push(
                &format!("{path}.name"),
                None,
                format!("{what} `{name}` is declared twice"),
            );
        }
    }

    pub(super) fn text(&mut self, path: &str, value: &str, min: usize) {
        if value.trim().chars().count() < min {
            self.push(path, None, "must not be empty".into());
        }
    }

    /// AG-14: a description the acting party can use — not empty, not a
    /// placeholder, not the name again.
    pub(super) fn description(&mut self, path: &str, value: &str, name: &str) {
        let trimmed = value.trim();
        // ASCII case only: the placeholders are English words, and full
        // Unicode case mapping would ship its tables for this one check.
        let lower = trimmed.to_ascii_lowercase();
        let normalized = lower.trim_end_matches('.');
        let problem = if trimmed.is_empty() {
            Some("is empty".to_owned())
        } else if PLACEHOLDERS.contains(&normalized) || normalized.starts_with("todo") {
            Some(format!("`{trimmed}` is a placeholder"))
        } else if normalized == name.to_ascii_lowercase() {
            Some("only repeats the name".to_owned())
        } else if trimmed.split_whitespace().count() < 3 {
            Some(format!(
                "`{trimmed}` is too short to tell the acting party anything; write a sentence"
            ))
        } else {
            None
        };
        if let Some(problem) = problem {
            self.push(
                path,
                Some("AG-14"),
                format!("the description for the acting party {problem}"),
            );
        }
    }

    pub(super) fn finish(self) -> Result<(), ManifestError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ManifestError { problems: self.0 })
        }
    }
}
