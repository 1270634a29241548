//! Standing grants (AG-30): a scope and a time to live, re-gated at every
//! call, made from an authorization that narrows a run's scope (AG-7), and
//! dropped once lapsed when the engine reconciles — through the engine.

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

#[test]
fn ag_30_persistent_grants_have_a_scope_and_a_ttl_and_are_regated() {
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest()]);
    // Without a time to live, or out of scope, there is no grant.
    let covered = scope("tasks", Some("rename"));
    assert_eq!(
        sim.grant(covered.clone(), Decision::Allow, 0),
        Err(GrantError::NoTimeToLive)
    );
    assert!(sim.grant(scope("nope", None), Decision::Allow, 1).is_err());
    assert!(sim
        .grant(scope("tasks", Some("fly")), Decision::Allow, 1)
        .is_err());
    let grant = sim.grant(covered, Decision::Allow, 60_000).unwrap();
    // The person reviews by default, but "always allow rename" covers this plan.
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    assert_eq!(sim.state(&run), RunState::Acting);
    // It does not reach beyond its scope.
    let other = sim.delegate(Autonomy::Review);
    sim.propose(&other, &[archive()]);
    assert_eq!(sim.state(&other), RunState::Reviewing);
    // It lapses.
    sim.now = grant.expires_at;
    let late = sim.delegate(Autonomy::Review);
    sim.propose(&late, &[rename()]);
    assert_eq!(sim.state(&late), RunState::Reviewing);
    assert!(!sim.engine.grants(sim.now)[0].live);
    // And it is re-gated when the capability set changes.
    let grant = sim
        .grant(scope("tasks", None), Decision::Allow, 60_000)
        .unwrap();
    assert!(sim
        .engine
        .grants(sim.now)
        .iter()
        .any(|listed| listed.grant.id == grant.id && listed.live));
    sim.engine
        .handle(0, Unregister(ParticipantId::new("tasks")));
    let mut changed = tasks_manifest();
    changed["capabilities"][1]["effects"] = json!([{"name": "archive-item", "reversible": true}, {"name": "reindex", "reversible": true}]);
    sim.mount(changed, None);
    assert!(sim
        .engine
        .grants(sim.now)
        .iter()
        .any(|listed| listed.grant.id == grant.id && !listed.live));
    let regated = sim.delegate(Autonomy::Review);
    sim.propose(&regated, &[rename()]);
    assert_eq!(sim.state(&regated), RunState::Reviewing);
}

#[test]
fn ag_7_and_ag_30_an_authorization_narrows_scope_and_can_stand_as_a_grant() {
    // The application allows auto; the person chooses review.
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest()]);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename(), archive()]);
    // Narrowed to rename, made a standing grant for an hour.
    let authorization = Authorization::from_json(json!({
        "allowlist": ["tasks.rename"],
        "grant": {"ttlMs": 3_600_000}
    }))
    .unwrap();
    let revision = sim.revision(&run);
    sim.authorize_at(&run, revision, authorization).unwrap();
    sim.drain();
    let grants = sim.engine.grants(sim.now);
    assert_eq!(grants.len(), 1, "one grant, for what was allowed");
    let (grant, live) = (&grants[0].grant, grants[0].live);
    assert!(live);
    assert_eq!(grant.scope.capability.as_deref(), Some("rename"));
    assert_eq!(grant.decision, Decision::Allow);
    assert_eq!(grant.expires_at, sim.now + 3_600_000);
    // The narrowed allowlist holds: archive escalates instead of running (AG-7).
    sim.give_marks();
    sim.apply();
    assert!(matches!(
        sim.state(&run),
        RunState::Escalated {
            reason: EscalationReason::OutOfScope { .. }
        }
    ));
    // The next run's rename needs no review while the grant lives (the
    // grant stands for the person's choice, never above the ceiling).
    let next = sim.delegate(Autonomy::Review);
    sim.propose(&next, &[rename()]);
    assert_eq!(sim.state(&next), RunState::Acting);
    // Shapes that are not an authorization are refused with their path.
    let wrong = Authorization::from_json(json!({"allowlist": ["rename"]})).unwrap_err();
    assert!(wrong.to_string().starts_with("AG-7:"), "{wrong}");
    let wrong = Authorization::from_json(json!({"grant": {"ttl": 5}})).unwrap_err();
    assert!(wrong.to_string().contains("grant"), "{wrong}");
    let zero = Authorization::from_json(json!({"grant": {"ttlMs": 0}})).unwrap();
    let other = sim.delegate(Autonomy::Review);
    sim.propose(&other, &[archive()]);
    let revision = sim.revision(&other);
    assert!(matches!(
        sim.authorize_at(&other, revision, zero),
        Err(CommandError::Grant(GrantError::NoTimeToLive))
    ));
}

#[test]
fn ag_30_reconcile_drops_lapsed_grants_and_keeps_live_ones() {
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest()]);
    let covered = scope("tasks", Some("rename"));
    sim.grant(covered.clone(), Decision::Allow, 1_000).unwrap();
    sim.grant(covered, Decision::Allow, 60_000).unwrap();
    let mut restored = Engine::restore(config(), secret(), sim.engine.snapshot());
    let result = restored.handle(sim.now + 5_000, Reconcile);
    assert_eq!(result.grants_dropped, 1);
    assert_eq!(restored.grants(sim.now + 5_000).len(), 1);
    assert_eq!(
        restored.handle(sim.now + 5_000, Reconcile).grants_dropped,
        0
    );
}
