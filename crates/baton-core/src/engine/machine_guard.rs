//! The custody machine's table guards every transition: one it forbids is
//! refused and reported, whoever attempts it.

#[cfg(test)]
mod tests {
    use crate::actor::ActorSecret;
    use crate::delegation::Delegation;
    use crate::engine::{Engine, EngineConfig};
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
            FindingReason::Integrity { detail } if detail == "illegal transition returned -> acting refused; the run stays returned"
        ));
    }
}
