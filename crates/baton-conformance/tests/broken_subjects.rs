//! The kit is not vacuous: engines broken on purpose, one defect each, fail
//! it — and fail it with exactly the requirements that defect breaks.
//!
//! Each broken subject wraps the `baton-core` subject and behaves as an
//! engine with that one defect would: it drops or rewrites a command on its
//! way in, or reports what such an engine would show.

use std::collections::BTreeSet;

use baton_conformance::{
    format_report, load_all, run_kit, Command, ConformanceSubject, CoreSubject, Setup, SubjectError,
};
use serde_json::{json, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Defect {
    /// Stop is acknowledged and ignored: the run never returns.
    StopIgnored,
    /// Time passes but no timer fires: an escalation waits for ever.
    NoTimeouts,
    /// The kill stops runs as the person's interruption, missing what a kill is.
    KillIsAStop,
    /// A call to an undeclared capability ends the run.
    UndeclaredEndsTheRun,
    /// A stale read fails the run instead of letting it re-plan.
    StaleFailsTheRun,
    /// An answer is accepted whatever digest it carries.
    AnswerWithoutDigest,
    /// A turn is charged only once it is over.
    ChargedAfterTheTurn,
    /// A failed turn is retried on its own.
    TurnRetried,
    /// Every streamed word is announced.
    AnnouncesEveryDelta,
    /// Origins are not tracked: all content is trusted as the author's.
    IgnoresOrigins,
    /// Every effect is taken as reversible.
    EverythingReversible,
    /// A failure mid-sequence leaves the changes in place.
    NoRollback,
    /// An authorization's allowlist is ignored: every capability is allowed.
    AllowlistIgnored,
    /// Calls carry an actor reference the engine cannot resolve.
    ForgeableActors,
    /// The revision fence is not checked.
    NoRevisionFence,
}

struct Broken {
    inner: CoreSubject,
    defect: Defect,
    aliases: Vec<String>,
}

impl Broken {
    fn new(defect: Defect) -> Self {
        Broken {
            inner: CoreSubject::new(),
            defect,
            aliases: Vec::new(),
        }
    }

    fn refusals(&mut self, run: &str) -> Vec<Value> {
        self.inner.observe()["runs"][run]["refusals"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

impl ConformanceSubject for Broken {
    fn start(&mut self, setup: &Setup) -> Result<(), SubjectError> {
        let mut setup = setup.clone();
        if self.defect == Defect::IgnoresOrigins {
            for participant in &mut setup.participants {
                let reads = participant
                    .manifest
                    .get_mut("reads")
                    .and_then(Value::as_array_mut);
                for read in reads.into_iter().flatten() {
                    read["origin"] = json!("author");
                }
            }
        }
        if self.defect == Defect::EverythingReversible {
            for participant in &mut setup.participants {
                participant.manifest["tier"] = json!("reversible-acts");
                for capability in participant.manifest["capabilities"]
                    .as_array_mut()
                    .into_iter()
                    .flatten()
                {
                    capability["effects"] = json!([{ "name": "change", "reversible": true }]);
                }
            }
        }
        self.inner.start(&setup)
    }

    fn command(&mut self, command: &Command) -> Result<(), SubjectError> {
        use Defect::*;
        let mut command = command.clone();
        match (&mut command, self.defect) {
            (Command::Stop { .. }, StopIgnored) => return Ok(()),
            (Command::Advance { .. }, NoTimeouts) => return Ok(()),
            (Command::KillAll, KillIsAStop) => {
                for alias in self.aliases.clone() {
                    let _ = self.inner.command(&Command::Stop { run: alias });
                }
                return Ok(());
            }
            (Command::Answer { digest, .. }, AnswerWithoutDigest) => {
                *digest = Default::default();
            }
            (Command::Publish { origin, .. }, IgnoresOrigins) => *origin = "author".into(),
            (Command::Authorize { authorization, .. }, AllowlistIgnored) => {
                let everything: Vec<Value> = self.inner.observe()["tools"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|tool| tool["name"].clone())
                    .collect();
                authorization.insert("allowlist".into(), Value::from(everything));
            }
            (Command::Authorize { revision, .. }, NoRevisionFence) => {
                *revision = Default::default()
            }
            _ => {}
        }
        match &command {
            Command::Delegate { alias, .. } | Command::Resume { alias, .. } => {
                self.aliases.push(alias.clone());
            }
            _ => {}
        }
        let result = self.inner.command(&command);
        if let Command::Turn { run, .. } = &command {
            let refusals = self.refusals(run);
            let ends = match self.defect {
                UndeclaredEndsTheRun => refusals.contains(&json!("undeclared-capability")),
                StaleFailsTheRun => refusals.contains(&json!("stale")),
                _ => false,
            };
            if ends {
                let _ = self.inner.command(&Command::Stop { run: run.clone() });
            }
        }
        result
    }

    fn observe(&mut self) -> Value {
        use Defect::*;
        let mut observed = self.inner.observe();
        match self.defect {
            ChargedAfterTheTurn => {
                for run in observed["runs"]
                    .as_object_mut()
                    .into_iter()
                    .flat_map(|runs| runs.values_mut())
                {
                    let open = run["state"] != "returned" && run["state"] != "cancelled";
                    if open {
                        let turns = run["usage"]["turns"].as_u64().unwrap_or_default();
                        run["usage"]["turns"] = json!(turns.saturating_sub(1));
                    }
                }
            }
            TurnRetried => {
                for run in observed["runs"]
                    .as_object_mut()
                    .into_iter()
                    .flat_map(|runs| runs.values_mut())
                {
                    if run["reason"] == "turn-failed" {
                        let turns = run["turns"].as_u64().unwrap_or_default();
                        run["turns"] = json!(turns + 1);
                    }
                }
            }
            AnnouncesEveryDelta => {
                let deltas = observed["texts"].as_u64().unwrap_or_default();
                if let Some(list) = observed["announcements"].as_array_mut() {
                    for _ in 0..deltas {
                        list.insert(
                            0,
                            json!({ "speaker": "acting-party", "said": { "kind": "text" } }),
                        );
                    }
                }
            }
            NoRollback => observed["reverts"] = json!([]),
            ForgeableActors => {
                for call in observed["invocations"].as_array_mut().into_iter().flatten() {
                    call["actor"] = json!("unresolved");
                }
            }
            _ => {}
        }
        observed
    }
}

fn failed_with(defect: Defect) -> BTreeSet<String> {
    let fixtures = load_all(&baton_conformance::fixture::kit_dir()).expect("the fixtures load");
    let report = run_kit(&fixtures, || Broken::new(defect));
    println!("{defect:?}:\n{}", format_report(&report));
    report.failed_requirements()
}

fn set(requirements: &[&str]) -> BTreeSet<String> {
    requirements.iter().map(|ag| ag.to_string()).collect()
}

#[test]
fn each_defect_fails_the_kit_with_the_requirements_it_breaks() {
    use Defect::*;
    let expected: &[(Defect, &[&str])] = &[
        (StopIgnored, &["AG-4", "AG-42"]),
        (NoTimeouts, &["AG-6", "AG-30"]),
        (KillIsAStop, &["AG-10"]),
        (UndeclaredEndsTheRun, &["AG-21"]),
        (StaleFailsTheRun, &["AG-20"]),
        (AnswerWithoutDigest, &["AG-41"]),
        (ChargedAfterTheTurn, &["AG-7"]),
        (TurnRetried, &["AG-46"]),
        (AnnouncesEveryDelta, &["AG-37"]),
        (IgnoresOrigins, &["AG-27", "AG-28", "AG-29"]),
        (EverythingReversible, &["AG-17", "AG-25"]),
        (NoRollback, &["AG-19"]),
        // A grant's scope is the allowlist it was given with.
        (AllowlistIgnored, &["AG-7", "AG-30"]),
        (ForgeableActors, &["AG-32"]),
        (NoRevisionFence, &["AG-31"]),
    ];
    let mut wrong = Vec::new();
    for (defect, requirements) in expected {
        let failed = failed_with(*defect);
        if failed != set(requirements) {
            wrong.push(format!(
                "{defect:?}: expected {requirements:?}, failed {failed:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
