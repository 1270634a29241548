//! Recording a run's steps: every journal record bumps its revision, and
//! every change of custody passes the machine's table (a transition it
//! forbids is refused and reported, whoever attempts it).

use crate::event::{Effect, Event, Finding, FindingReason};
use crate::ids::{RunId, TurnId};
use crate::journal::{Actor, JournalEntry, JournalRecord};
use crate::state::RunState;

use super::{Run, Step};

impl Run {
    pub(super) fn record(&mut self, step: &mut Step<'_>, actor: Actor, entry: JournalEntry) {
        let revision = self.custody.next_revision();
        let record = JournalRecord {
            run: self.id.clone(),
            revision,
            at: step.now,
            actor,
            entry,
        };
        self.journal.push(record.clone());
        step.events.push_back(Event::Journal(record));
    }

    pub(super) fn transition(&mut self, step: &mut Step<'_>, actor: Actor, to: RunState) {
        // Every caller checks legality first. Should one be wrong, the state
        // stays (terminal states never reopen) and the breach is reported as
        // a typed integrity finding — never a silent no-op.
        let from = match self.custody.enter(to.clone(), step.now) {
            Ok(from) => from,
            Err(from) => {
                let detail = format!(
                    "illegal transition {from} -> {} refused; the run stays {from}",
                    to.name()
                );
                Run::finding(
                    step,
                    Some(self.id.clone()),
                    None,
                    crate::event::FindingReason::Integrity {
                        code: crate::violation::ProtocolViolation::IllegalTransition,
                        detail,
                    },
                );
                return;
            }
        };
        self.record(
            step,
            actor.clone(),
            JournalEntry::Transition {
                from,
                to: to.clone(),
            },
        );
        self.announce_transition(step, &actor, &to);
    }

    pub(super) fn emit(step: &mut Step<'_>, effect: Effect) {
        step.events.push_back(Event::Effect(effect));
    }

    pub(crate) fn finding(
        step: &mut Step<'_>,
        run: Option<RunId>,
        turn: Option<TurnId>,
        reason: FindingReason,
    ) {
        let finding = Finding {
            at: step.now,
            run,
            turn,
            reason,
        };
        step.findings.push(finding.clone());
        crate::event::trim_findings(step.findings);
        step.events.push_back(Event::Finding(finding));
    }
}

#[cfg(test)]
mod tests {
    use crate::actor::ActorSecret;
    use crate::config::EngineConfig;
    use crate::delegation::Delegation;
    use crate::engine::Engine;
    use crate::event::{Event, FindingReason};
    use crate::journal::Actor;
    use crate::model::{Autonomy, Initiative};
    use crate::state::{RunState, StateName};

    #[test]
    fn an_illegal_transition_is_refused_and_reported_never_silent() {
        let mut engine = Engine::new(EngineConfig::new("s"), ActorSecret::new([1; 32]));
        let run = engine
            .delegate(0, Delegation::new("x", Initiative::User, Autonomy::Review))
            .unwrap();
        engine.stop(0, &run).unwrap();
        while engine.poll_event().is_some() {}
        let revision = engine.run(&run).unwrap().revision();
        // A returned run may never act again; a caller that tries is refused.
        engine.with_run(1, &run, |run, step| {
            run.transition(step, Actor::Engine, RunState::Acting)
        });
        let mut findings = Vec::new();
        while let Some(event) = engine.poll_event() {
            if let Event::Finding(finding) = event {
                findings.push(finding);
            }
        }
        let state = engine.run(&run).unwrap();
        assert_eq!(
            state.state().name(),
            StateName::Returned,
            "the state stayed"
        );
        assert_eq!(state.revision(), revision, "nothing was journalled");
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].run.as_ref(), Some(&run));
        assert!(matches!(
            &findings[0].reason,
            FindingReason::Integrity { code: crate::ProtocolViolation::IllegalTransition, detail } if detail == "illegal transition returned -> acting refused; the run stays returned"
        ));
    }
}
