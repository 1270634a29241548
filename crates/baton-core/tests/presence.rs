//! AG-35: a run above `suggest` entering `acting` with no presence attached
//! is observable (`warn`, the default) or refused (`require`).

mod common;

use baton_core::*;
use common::*;

fn missing(sim: &Sim) -> usize {
    sim.log
        .iter()
        .filter(|e| matches!(e, Event::PresenceMissing { .. }))
        .count()
}

#[test]
fn ag_35_acting_without_presence_is_observable_by_default() {
    let mut sim = Sim::new();
    assert_eq!(config().presence, PresencePolicy::Warn);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    assert_eq!(sim.state(&run), RunState::Acting, "warn acts");
    assert_eq!(missing(&sim), 1);
    let Some(Event::PresenceMissing { run: reported }) = sim
        .log
        .iter()
        .find(|e| matches!(e, Event::PresenceMissing { .. }))
        .cloned()
    else {
        unreachable!()
    };
    assert_eq!(reported, run);
}

#[test]
fn ag_35_require_refuses_to_act_without_presence() {
    let mut config = config();
    config.presence = PresencePolicy::Require;
    let mut sim = Sim::with_config(config);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    assert_eq!(
        sim.state(&run),
        returned(Outcome::Error, ReturnReason::PresenceMissing)
    );
    sim.give_marks();
    assert!(sim.take_invoke().is_none(), "nothing acted");
}

#[test]
fn ag_35_an_attached_presence_satisfies_both_policies() {
    for policy in [PresencePolicy::Warn, PresencePolicy::Require] {
        let mut config = config();
        config.presence = policy;
        let mut sim = Sim::with_config(config);
        sim.engine.handle(0, AttachPresence);
        let run = sim.delegate(Autonomy::Auto);
        sim.propose(&run, &[rename()]);
        assert_eq!(sim.state(&run), RunState::Acting);
        assert_eq!(missing(&sim), 0);
        // Detached again: the next run is reported (or refused) again.
        sim.engine.handle(0, DetachPresence);
        assert_eq!(sim.engine.presences(), 0);
    }
}

#[test]
fn ag_35_a_run_at_suggest_needs_no_presence() {
    let mut config = config();
    config.presence = PresencePolicy::Require;
    let mut sim = Sim::with_config(config);
    let run = sim.delegate(Autonomy::Suggest);
    sim.propose(&run, &[rename()]);
    sim.authorize(&run);
    assert_eq!(sim.state(&run), RunState::Acting);
}
