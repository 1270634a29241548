//! Playing fixtures against a subject, and the report: every failure leads
//! with its requirement, then the fixture, the step, what was expected and
//! what was observed.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::Value;

use crate::fixture::{Expectation, Fixture, Matcher, Step};
use crate::subject::ConformanceSubject;

/// How one fixture went.
#[derive(Debug, Clone, PartialEq)]
pub struct FixtureReport {
    /// The fixture.
    pub fixture: String,
    /// The requirements it proves.
    pub proves: Vec<String>,
    /// Its first failure, if any: a fixture stops at its first failure,
    /// since later steps build on earlier ones.
    pub failure: Option<Failure>,
    /// Whether it was skipped: it needs a page the subject does not observe.
    pub skipped: bool,
}

/// A fixture that did not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The requirement broken.
    pub ag: String,
    /// The fixture.
    pub fixture: String,
    /// The step, counting from 1 (0: the subject did not start).
    pub step: usize,
    /// What was checked: a pointer, or a command's verb.
    pub what: String,
    /// What was expected.
    pub expected: String,
    /// What was observed.
    pub observed: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} step {}: {} — expected {}, observed {}",
            self.ag, self.fixture, self.step, self.what, self.expected, self.observed
        )
    }
}

/// How the whole kit went.
#[derive(Debug, Clone, PartialEq)]
pub struct KitReport {
    /// Every fixture, in order.
    pub fixtures: Vec<FixtureReport>,
}

impl KitReport {
    /// The failures, in fixture order.
    pub fn failures(&self) -> Vec<&Failure> {
        self.fixtures
            .iter()
            .filter_map(|report| report.failure.as_ref())
            .collect()
    }

    /// How many fixtures were played (not skipped).
    pub fn played(&self) -> usize {
        self.fixtures
            .iter()
            .filter(|report| !report.skipped)
            .count()
    }

    /// Whether the subject conforms: at least one fixture was played, and
    /// none failed. A kit that played nothing — no fixtures, or every one
    /// skipped — proves nothing, and does not pass.
    pub fn passed(&self) -> bool {
        self.played() > 0 && self.failures().is_empty()
    }

    /// The requirements the failures cite.
    pub fn failed_requirements(&self) -> BTreeSet<String> {
        self.failures()
            .into_iter()
            .map(|failure| failure.ag.clone())
            .collect()
    }
}

/// Plays every fixture against a fresh subject from `subject`.
pub fn run_kit<S: ConformanceSubject>(
    fixtures: &[Fixture],
    mut subject: impl FnMut() -> S,
) -> KitReport {
    KitReport {
        fixtures: fixtures
            .iter()
            .map(|fixture| run_fixture(fixture, &mut subject()))
            .collect(),
    }
}

/// Plays one fixture against `subject`, stopping at its first failure.
pub fn run_fixture(fixture: &Fixture, subject: &mut dyn ConformanceSubject) -> FixtureReport {
    let cited = fixture.proves.first().cloned().unwrap_or_default();
    let failure = |step: usize, what: &str, expected: String, observed: String, ag: &str| Failure {
        ag: ag.to_owned(),
        fixture: fixture.id.clone(),
        step,
        what: what.to_owned(),
        expected,
        observed,
    };
    let report = |failure: Option<Failure>| FixtureReport {
        fixture: fixture.id.clone(),
        proves: fixture.proves.clone(),
        failure,
        skipped: false,
    };
    if let Err(error) = subject.start(&fixture.setup) {
        let failed = failure(
            0,
            "start",
            "the subject to start".into(),
            error.to_string(),
            &cited,
        );
        return report(Some(failed));
    }
    if fixture.observer.as_deref() == Some("page") && subject.observe().get("page").is_none() {
        return FixtureReport {
            skipped: true,
            ..report(None)
        };
    }
    for (index, step) in fixture.steps.iter().enumerate() {
        let number = index + 1;
        let failed = match step {
            Step::Command { command, fails } => {
                let verb = command.verb();
                match (subject.command(command), fails) {
                    (Ok(()), None) => None,
                    (Err(error), Some(code)) if error.code == *code => None,
                    (Ok(()), Some(code)) => Some(failure(
                        number,
                        &verb,
                        format!("error `{code}`"),
                        "success".into(),
                        &cited,
                    )),
                    (Err(error), Some(code)) => Some(failure(
                        number,
                        &verb,
                        format!("error `{code}`"),
                        format!("error `{error}`"),
                        &cited,
                    )),
                    (Err(error), None) => Some(failure(
                        number,
                        &verb,
                        "success".into(),
                        format!("error `{error}`"),
                        &cited,
                    )),
                }
            }
            Step::Expect(expectation) => {
                let observation = subject.observe();
                check(expectation, &observation).map(|(expected, observed)| {
                    let ag = expectation.ag.as_deref().unwrap_or(&cited);
                    failure(number, &expectation.pointer, expected, observed, ag)
                })
            }
        };
        if failed.is_some() {
            return report(failed);
        }
    }
    report(None)
}

/// `None` when the expectation holds; otherwise what was expected and what
/// was observed, in words.
fn check(expectation: &Expectation, observation: &Value) -> Option<(String, String)> {
    let found = observation.pointer(&expectation.pointer);
    let shown = |value: Option<&Value>| value.map_or("nothing".to_owned(), |v| v.to_string());
    let length = |value: Option<&Value>| match value {
        Some(Value::Array(items)) => Some(items.len()),
        Some(Value::String(text)) => Some(text.chars().count()),
        _ => None,
    };
    let holds = match &expectation.matcher {
        Matcher::Is(value) => found == Some(value),
        Matcher::Includes(items) => found
            .and_then(Value::as_array)
            .is_some_and(|array| is_subsequence(items, array)),
        Matcher::Excludes(items) => found
            .and_then(Value::as_array)
            .is_some_and(|array| items.iter().all(|item| !array.contains(item))),
        Matcher::Length(n) => length(found) == Some(*n),
        Matcher::AtLeast(n) => length(found).is_some_and(|len| len >= *n),
        Matcher::Absent => found.is_none_or(Value::is_null),
    };
    if holds {
        return None;
    }
    let expected = match &expectation.matcher {
        Matcher::Is(value) => value.to_string(),
        Matcher::Includes(items) => format!("{} in this order", Value::from(items.clone())),
        Matcher::Excludes(items) => format!("none of {}", Value::from(items.clone())),
        Matcher::Length(n) => format!("length {n}"),
        Matcher::AtLeast(n) => format!("length at least {n}"),
        Matcher::Absent => "nothing".into(),
    };
    Some((expected, shown(found)))
}

fn is_subsequence(items: &[Value], array: &[Value]) -> bool {
    let mut rest = array.iter();
    items
        .iter()
        .all(|item| rest.any(|candidate| candidate == item))
}

/// The report as text: one line per failure, then a summary line.
pub fn format_report(report: &KitReport) -> String {
    let mut lines: Vec<String> = report
        .failures()
        .into_iter()
        .map(ToString::to_string)
        .collect();
    let total = report.fixtures.len();
    let failed = lines.len();
    let skipped = report.fixtures.iter().filter(|f| f.skipped).count();
    let covered: BTreeSet<&String> = report
        .fixtures
        .iter()
        .filter(|fixture| fixture.failure.is_none() && !fixture.skipped)
        .flat_map(|fixture| &fixture.proves)
        .collect();
    lines.push(format!(
        "conformance: {total} fixtures, {} passed, {failed} failed, {skipped} skipped (no page observed); requirements proven: {}",
        total - failed - skipped,
        covered.len()
    ));
    if report.played() == 0 {
        lines.push(
            "conformance: no fixture was played, so nothing is proven: the kit does not pass"
                .into(),
        );
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn expectation(pointer: &str, matcher: Matcher) -> Expectation {
        Expectation {
            pointer: pointer.into(),
            ag: None,
            matcher,
        }
    }

    #[test]
    fn each_matcher_holds_and_fails_as_documented() {
        let observed = json!({"runs": {"r1": {"state": "acting", "journal": ["created", "transition", "turn-ended"]}}});
        let journal = "/runs/r1/journal";
        let holds = |matcher| check(&expectation(journal, matcher), &observed).is_none();
        assert!(holds(Matcher::Includes(vec![
            json!("created"),
            json!("turn-ended")
        ])));
        assert!(
            !holds(Matcher::Includes(vec![
                json!("turn-ended"),
                json!("created")
            ])),
            "order counts"
        );
        assert!(holds(Matcher::Excludes(vec![json!("undone")])));
        assert!(!holds(Matcher::Excludes(vec![json!("created")])));
        assert!(holds(Matcher::Length(3)) && !holds(Matcher::Length(2)));
        assert!(holds(Matcher::AtLeast(3)) && !holds(Matcher::AtLeast(4)));
        assert!(!holds(Matcher::Absent));
        let state = expectation("/runs/r1/state", Matcher::Is(json!("returned")));
        assert_eq!(
            check(&state, &observed),
            Some(("\"returned\"".to_owned(), "\"acting\"".to_owned()))
        );
        assert!(check(&expectation("/runs/r2", Matcher::Absent), &observed).is_none());
    }

    #[test]
    fn a_failure_leads_with_its_requirement() {
        let failure = Failure {
            ag: "AG-20".into(),
            fixture: "ag-20-a-stale-read-is-recoverable".into(),
            step: 7,
            what: "/runs/r1/state".into(),
            expected: "\"acting\"".into(),
            observed: "\"returned\"".into(),
        };
        assert_eq!(
            failure.to_string(),
            "AG-20 ag-20-a-stale-read-is-recoverable step 7: /runs/r1/state — expected \"acting\", observed \"returned\""
        );
    }
}
