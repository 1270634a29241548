//! Authorization, consent and autonomy (§4, AG-24 … AG-31) and actor
//! attribution (§5, AG-32 … AG-33), through the engine. Standing grants
//! (AG-30): `grants.rs`.

mod common;

use baton_core::*;
use common::*;
use serde_json::{json, Value};

/// A mail participant whose `send` is irreversible.
fn mail_manifest() -> Value {
    json!({
        "id": "mail",
        "label": "Mail",
        "description": "The person's outgoing mail.",
        "tier": "full-acts",
        "history": "native",
        "capabilities": [{
            "name": "send",
            "description": "Send one drafted message to its recipients.",
            "arguments": {"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": false},
            "argumentLimits": {"id": 64},
            "effects": [{"name": "send", "reversible": false}]
        }]
    })
}

fn send() -> CapabilityRef {
    CapabilityRef::new("mail", "send")
}

#[test]
fn ag_24_the_person_may_only_lower_the_ceiling() {
    // Ceiling review, the person asks for auto: still reviewed.
    let mut sim = sim_with(Autonomy::Review, &[tasks_manifest()]);
    let run = sim.delegate(Autonomy::Auto);
    assert_eq!(sim.engine.run(&run).unwrap().autonomy(), Autonomy::Review);
    sim.propose(&run, &[rename()]);
    assert_eq!(sim.state(&run), RunState::Reviewing);
    // Ceiling auto, the person lowers to review: reviewed.
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest()]);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    assert_eq!(sim.state(&run), RunState::Reviewing);
}

#[test]
fn ag_24_a_capability_may_demand_more_control_never_less() {
    let mut strict = tasks_manifest();
    strict["capabilities"][1]["maxAutonomy"] = json!("review");
    let mut sim = sim_with(Autonomy::Auto, &[strict]);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    assert!(
        matches!(sim.state(&run), RunState::Acting),
        "rename allows auto"
    );
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), archive()]);
    assert_eq!(
        sim.state(&run),
        RunState::Reviewing,
        "archive demands review"
    );
    // A laxer capability cannot raise a reviewed run.
    let mut lax = tasks_manifest();
    lax["capabilities"][0]["maxAutonomy"] = json!("auto");
    let mut sim = sim_with(Autonomy::Review, &[lax]);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    assert_eq!(sim.state(&run), RunState::Reviewing);
}

#[test]
fn ag_24_deny_overrides() {
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest()]);
    let covered = scope("tasks", Some("archive"));
    sim.grant(covered.clone(), Decision::Allow, 60_000).unwrap();
    sim.grant(covered, Decision::Deny, 60_000).unwrap();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[archive(), rename()]);
    sim.apply_all();
    assert_eq!(sim.invoked(&archive()), 0);
    assert_eq!(sim.invoked(&rename()), 1);
    let TurnRequest { results, .. } = sim.last_request();
    assert_eq!(
        results[0].result,
        CallResult::Refused {
            refusal: Refusal::Denied
        }
    );
}

#[test]
fn ag_24_a_deny_grant_overrides_the_persons_approval_of_a_plan() {
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest()]);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename(), archive()]);
    assert_eq!(sim.state(&run), RunState::Reviewing);
    // While the plan is under review, the person denies archiving for good.
    sim.grant(scope("tasks", Some("archive")), Decision::Deny, 60_000)
        .unwrap();
    sim.authorize(&run);
    sim.apply_all();
    assert_eq!(sim.invoked(&rename()), 1);
    assert_eq!(sim.invoked(&archive()), 0, "deny overrides the approval");
    let TurnRequest { results, .. } = sim.last_request();
    assert_eq!(
        results[1].result,
        CallResult::Refused {
            refusal: Refusal::Denied
        }
    );
}

#[test]
fn ag_19_a_participant_without_history_is_never_asked_for_a_mark_nor_undone() {
    let mut outbox = mail_manifest();
    outbox["history"] = json!("none");
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest(), outbox]);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename(), send()]);
    sim.authorize(&run);
    sim.give_marks();
    sim.apply_all();
    assert_eq!(
        sim.invoked(&send()),
        1,
        "sent without a mark it could not give"
    );
    let marked: Vec<ParticipantId> = sim.journal_of(&run, |entry| match entry {
        JournalEntry::MarkRequested { participant } => Some(participant.clone()),
        _ => None,
    });
    assert_eq!(marked, [ParticipantId::new("tasks")]);
    sim.propose(&run, &[]);
    let group = sim.engine.run(&run).unwrap().undo_group();
    assert_eq!(
        group.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        ["tasks"],
        "what cannot be reverted is not part of the undo"
    );
}

#[test]
fn ag_25_an_irreversible_effect_requires_review_even_under_auto() {
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest(), mail_manifest()]);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), send()]);
    assert_eq!(sim.state(&run), RunState::Reviewing);
    let sheet = sim.engine.run(&run).and_then(|run| run.review()).unwrap();
    assert_eq!(
        sheet
            .items
            .iter()
            .map(|i| i.irreversible)
            .collect::<Vec<_>>(),
        [false, true]
    );
    sim.authorize(&run);
    sim.apply_all();
    assert_eq!(sim.invoked(&send()), 1, "the reviewed send goes out");
    // A later send was never reviewed on its own: it escalates even though
    // `mail.send` is in the allowlist.
    sim.propose(&run, &[send()]);
    assert!(matches!(
        sim.state(&run),
        RunState::Escalated {
            reason: EscalationReason::ReviewRequired { .. }
        }
    ));
    assert_eq!(sim.invoked(&send()), 1);
    sim.resolve(&run, Resolution::Allow { budget: None });
    sim.apply_all();
    assert_eq!(sim.invoked(&send()), 2);
}

/// A run at `auto` whose person authorized a rename and a send, then a
/// second turn that proposes `calls`.
fn authorized_then_proposing(calls: &[CapabilityRef]) -> (Sim, RunId) {
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest(), mail_manifest()]);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), send()]);
    sim.authorize(&run);
    sim.apply_all();
    sim.propose(&run, calls);
    (sim, run)
}

/// The state of a run waiting for the person to review its call `call`, a send.
fn reviewing_send(call: &str) -> RunState {
    RunState::Escalated {
        reason: EscalationReason::ReviewRequired {
            call: CallId::new(call),
            capability: send(),
        },
    }
}

#[test]
fn ag_25_allowing_one_escalated_call_approves_that_call_alone() {
    // One turn proposes two sends; the sheet shows the first alone.
    let (mut sim, run) = authorized_then_proposing(&[send(), send()]);
    assert_eq!(sim.state(&run), reviewing_send("c2-1"));
    sim.resolve(&run, Resolution::Allow { budget: None });
    sim.apply_all();
    assert_eq!(sim.invoked(&send()), 2, "the allowed send goes out");
    // The second send was never shown: it waits for its own approval.
    assert_eq!(sim.state(&run), reviewing_send("c2-2"));
}

#[test]
fn ag_25_allowing_an_out_of_scope_call_approves_no_irreversible_call_behind_it() {
    // The turn archives, out of scope, and sends again.
    let (mut sim, run) = authorized_then_proposing(&[archive(), send()]);
    assert_eq!(
        sim.state(&run),
        RunState::Escalated {
            reason: EscalationReason::OutOfScope {
                capability: archive()
            }
        }
    );
    sim.resolve(&run, Resolution::Allow { budget: None });
    sim.apply_all();
    assert_eq!(sim.invoked(&archive()), 1);
    assert_eq!(
        sim.invoked(&send()),
        1,
        "the second send was never reviewed"
    );
    assert_eq!(sim.state(&run), reviewing_send("c2-2"));
}

#[test]
fn ag_27_reads_carry_a_version_and_an_origin_tag() {
    let manifest = Manifest::parse(&tasks_manifest().to_string()).unwrap();
    assert_eq!(manifest.read("board").unwrap().origin, Origin::Author);
    let mut imported = tasks_manifest();
    imported["reads"][0]["origin"] = json!("imported");
    assert_eq!(
        Manifest::parse(&imported.to_string())
            .unwrap()
            .read("board")
            .unwrap()
            .origin,
        Origin::Imported
    );
    let mut sim = Sim::new();
    sim.publish("tasks", "board", 4, Origin::ThirdParty);
    sim.delegate(Autonomy::Review);
    let TurnRequest { context, .. } = sim.last_request();
    assert_eq!(
        context.reads,
        vec![ReadStamp {
            read: ReadRef::new("tasks", "board"),
            version: 4,
            origin: Origin::ThirdParty
        }]
    );
}

#[test]
fn ag_28_a_published_origin_cannot_launder_a_declared_untrusted_read() {
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest(), inbox_manifest()]);
    // The inbox is declared third-party; publishing it as `author` does not
    // make it trusted: the least trusted of the two counts.
    let effective = sim
        .engine
        .handle(
            sim.now,
            PublishRead {
                stamp: ReadStamp {
                    read: ReadRef::new("mail", "inbox"),
                    version: 1,
                    origin: Origin::Author,
                },
                actor: None,
            },
        )
        .unwrap();
    assert_eq!(effective.origin, Origin::ThirdParty);
    let run = sim.delegate(Autonomy::Auto);
    assert_eq!(
        sim.last_request().context.reads[0].origin,
        Origin::ThirdParty
    );
    sim.propose(&run, &[rename()]);
    assert_eq!(
        sim.state(&run),
        RunState::Reviewing,
        "an auto run with third-party content in context is reviewed"
    );
    // A participant may lower a read's trust for today's content, never raise it.
    let lowered = sim
        .engine
        .handle(
            sim.now,
            PublishRead {
                stamp: ReadStamp {
                    read: ReadRef::new("tasks", "board"),
                    version: 2,
                    origin: Origin::Imported,
                },
                actor: None,
            },
        )
        .unwrap();
    assert_eq!(lowered.origin, Origin::Imported);
}

#[test]
fn ag_27_only_declared_reads_are_published() {
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest()]);
    let undeclared = sim.engine.handle(
        sim.now,
        PublishRead {
            stamp: ReadStamp {
                read: ReadRef::new("tasks", "secrets"),
                version: 1,
                origin: Origin::Author,
            },
            actor: None,
        },
    );
    assert_eq!(
        undeclared,
        Err(PublishError::UndeclaredRead {
            participant: ParticipantId::new("tasks"),
            read: "secrets".into()
        })
    );
    let unmounted = sim.engine.handle(
        sim.now,
        PublishRead {
            stamp: ReadStamp {
                read: ReadRef::new("nobody", "board"),
                version: 1,
                origin: Origin::Author,
            },
            actor: None,
        },
    );
    assert_eq!(
        unmounted,
        Err(PublishError::UnknownParticipant(ParticipantId::new(
            "nobody"
        )))
    );
    let run = sim.delegate(Autonomy::Auto);
    assert!(
        sim.last_request().context.reads.is_empty(),
        "a refused publication reaches no context ({run})"
    );
}

#[test]
fn ag_28_an_untrusted_origin_in_context_lowers_the_ceiling() {
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest(), inbox_manifest()]);
    sim.publish("tasks", "board", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    assert_eq!(sim.state(&run), RunState::Acting, "author content: auto");
    sim.give_marks();
    // Third-party content reaches the context of the next turn (say the card
    // text was pasted from an email)…
    sim.publish("mail", "inbox", 1, Origin::ThirdParty);
    sim.apply();
    // …and what the acting party proposes after reading it needs review.
    sim.propose(&run, &[rename()]);
    assert!(matches!(
        sim.state(&run),
        RunState::Escalated {
            reason: EscalationReason::ReviewRequired { .. }
        }
    ));
    assert_eq!(sim.invoked(&rename()), 1);
    // From the start, third-party content sends an auto plan to review.
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest()]);
    sim.publish("tasks", "board", 1, Origin::Imported);
    let run = sim.delegate(Autonomy::Auto);
    assert_eq!(sim.engine.run(&run).unwrap().autonomy(), Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    assert_eq!(sim.state(&run), RunState::Reviewing);
    assert_eq!(sim.engine.run(&run).unwrap().autonomy(), Autonomy::Review);
}

/// Each dispatched call is journalled with what the core decided about it:
/// the autonomy it was resolved to, whether the origin clamp was in force,
/// and its participant's tier, so a trace or an audit reads them, never
/// works them out again.
#[test]
fn ag_28_each_call_is_journalled_with_its_autonomy_its_tier_and_the_origin_clamp() {
    let dispatched = |sim: &Sim, run: &RunId| {
        sim.journal_of(run, |entry| match entry {
            JournalEntry::CallDispatched {
                autonomy,
                clamped,
                tier,
                ..
            } => Some((*autonomy, *clamped, *tier)),
            _ => None,
        })
    };
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest()]);
    sim.publish("tasks", "board", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.give_marks();
    let reversible = Some(Tier::ReversibleActs);
    assert_eq!(
        dispatched(&sim, &run),
        [(Some(Autonomy::Auto), false, reversible)]
    );
    // Imported content in the context: the plan went to review, and the
    // call the person authorized ran at `review`, under the clamp.
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest()]);
    sim.publish("tasks", "board", 1, Origin::Imported);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.authorize(&run);
    sim.give_marks();
    assert_eq!(
        dispatched(&sim, &run),
        [(Some(Autonomy::Review), true, reversible)]
    );
}

/// What a trace puts on every decision is what the core decided, kept
/// where the decision is read: the run's resolved autonomy in its first
/// record, the origin clamp in each turn's reservation and on the review
/// sheet, and each planned act's participant tier on the sheet.
#[test]
fn ag_28_the_run_s_autonomy_its_clamp_and_its_acts_tiers_are_kept_where_decisions_read_them() {
    let created = |sim: &Sim, run: &RunId| {
        sim.journal_of(run, |entry| match entry {
            JournalEntry::Created { autonomy, .. } => Some(*autonomy),
            _ => None,
        })
    };
    let reserved = |sim: &Sim, run: &RunId| {
        sim.journal_of(run, |entry| match entry {
            JournalEntry::TurnReserved { clamped, .. } => Some(*clamped),
            _ => None,
        })
    };
    // Only the author's content: nothing clamped.
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest()]);
    sim.publish("tasks", "board", 1, Origin::Author);
    let run = sim.delegate(Autonomy::Review);
    assert_eq!(created(&sim, &run), [Some(Autonomy::Review)]);
    assert_eq!(reserved(&sim, &run), [false]);
    sim.propose(&run, &[rename()]);
    let sheet = sim.engine.run(&run).and_then(|run| run.review()).unwrap();
    assert!(!sheet.clamped);
    let tiers: Vec<_> = sheet.items.iter().map(|item| item.tier).collect();
    assert_eq!(tiers, [Some(Tier::ReversibleActs)]);
    // Imported content: the run asked for `auto` resolves to `review`, and
    // its turn and its sheet say the clamp is in force.
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest()]);
    sim.publish("tasks", "board", 1, Origin::Imported);
    let run = sim.delegate(Autonomy::Auto);
    assert_eq!(reserved(&sim, &run), [true]);
    sim.propose(&run, &[rename()]);
    let sheet = sim.engine.run(&run).and_then(|run| run.review()).unwrap();
    assert!(sheet.clamped);
    assert_eq!(created(&sim, &run).len(), 1);
}

#[test]
fn ag_31_review_presents_the_concrete_change_in_the_apps_own_domain() {
    let mut sim = sim_with(Autonomy::Auto, &[previewing_tasks(), settings_manifest()]);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename(), theme()]);
    assert_eq!(sim.state(&run), RunState::Reviewing);
    let previews = sim.effects_of(|e| matches!(e, Effect::Preview { .. }));
    assert_eq!(
        previews.len(),
        1,
        "only the participant that renders previews is asked"
    );
    // Not authorizable before the change itself can be shown.
    let sheet = sim.engine.run(&run).and_then(|run| run.review()).unwrap();
    assert!(!sheet.ready);
    assert_eq!(sheet.items[0].change, ProposedChange::Pending);
    let error = sim
        .authorize_at(&run, sheet.revision, Authorization::default())
        .unwrap_err();
    assert!(error.to_string().starts_with("AG-31:"), "{error}");
    let diff = json!({"card": "c1-1", "title": {"from": "Draft", "to": "Ship it"}});
    sim.engine
        .handle(
            sim.now,
            Report::Preview {
                run: run.clone(),
                call: CallId::new("c1-1"),
                change: Ok(diff.clone()),
            },
        )
        .unwrap();
    let sheet = sim.engine.run(&run).and_then(|run| run.review()).unwrap();
    assert!(sheet.ready);
    assert_eq!(
        sheet.items[0].change,
        ProposedChange::Preview { value: diff }
    );
    assert_eq!(
        sheet.items[0].participant_label.as_deref(),
        Some("Task board")
    );
    // Without a preview, the structured arguments — never prose.
    assert_eq!(
        sheet.items[1].change,
        ProposedChange::Arguments {
            arguments: json!({"id": "c1-2"}),
            note: None
        }
    );
    // The fence covers what was seen: the old revision is stale.
    assert!(matches!(
        sim.authorize_at(&run, sheet.revision - 1, Authorization::default()),
        Err(CommandError::StaleRevision { .. })
    ));
    sim.authorize_at(&run, sheet.revision, Authorization::default())
        .unwrap();
    sim.drain();
    assert_eq!(sim.state(&run), RunState::Acting);
}

#[test]
fn ag_31_an_escalated_call_is_allowed_only_once_its_change_is_seen() {
    let mut mail = mail_manifest();
    mail["preview"] = json!(true);
    let mut sim = sim_with(Autonomy::Auto, &[tasks_manifest(), mail]);
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.give_marks();
    sim.apply();
    // A later turn wants to send: outside what was authorized, and
    // irreversible, so it needs the person (AG-7, AG-25)…
    sim.propose(&run, &[send()]);
    assert!(
        matches!(sim.state(&run), RunState::Escalated { ref reason } if reason.awaits_approval_of_a_call()),
        "{:?}",
        sim.state(&run)
    );
    // …who sees the concrete change before allowing it, never a blind yes.
    let asked = sim.effects_of(|e| matches!(e, Effect::Preview { .. }));
    assert_eq!(asked.len(), 1, "the pending call's participant is asked");
    let sheet = sim
        .engine
        .run(&run)
        .and_then(|run| run.review())
        .expect("an escalated call has a sheet");
    assert_eq!(sheet.items.len(), 1);
    assert_eq!(sheet.items[0].capability, send());
    assert!(sheet.items[0].irreversible);
    assert_eq!(sheet.items[0].change, ProposedChange::Pending);
    let blind = sim
        .resolve_at(&run, sheet.revision, Resolution::Allow { budget: None })
        .unwrap_err();
    assert!(
        matches!(blind, CommandError::PreviewPending { .. }),
        "{blind}"
    );
    assert!(blind.to_string().starts_with("AG-31:"));
    let draft = json!({"to": "team@example.com", "subject": "Weekly summary"});
    sim.engine
        .handle(
            sim.now,
            Report::Preview {
                run: run.clone(),
                call: (sheet.items[0].call).clone(),
                change: Ok(draft.clone()),
            },
        )
        .unwrap();
    let sheet = sim.engine.run(&run).and_then(|run| run.review()).unwrap();
    assert!(sheet.ready);
    assert_eq!(
        sheet.items[0].change,
        ProposedChange::Preview { value: draft }
    );
    sim.resolve(&run, Resolution::Allow { budget: None });
    sim.give_marks();
    sim.apply();
    assert_eq!(sim.invoked(&send()), 1);
}

#[test]
fn ag_31_a_failed_preview_falls_back_to_the_arguments_and_says_why() {
    let mut sim = sim_with(Autonomy::Auto, &[previewing_tasks()]);
    let run = sim.delegate(Autonomy::Review);
    sim.propose(&run, &[rename()]);
    sim.engine
        .handle(
            sim.now,
            Report::Preview {
                run: run.clone(),
                call: CallId::new("c1-1"),
                change: Err("card was deleted".into()),
            },
        )
        .unwrap();
    let sheet = sim.engine.run(&run).and_then(|run| run.review()).unwrap();
    assert_eq!(
        sheet.items[0].change,
        ProposedChange::Arguments {
            arguments: json!({"id": "c1-1"}),
            note: Some("the preview failed: card was deleted".into())
        }
    );
    assert!(sheet.ready);
}

#[test]
fn ag_32_every_call_carries_an_actor_reference_and_none_means_the_person() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename(), theme()]);
    sim.give_marks();
    let invokes = || sim.effects_of(|e| matches!(e, Effect::Invoke { .. }));
    let Effect::Invoke { actor, call, .. } = invokes().pop().unwrap() else {
        unreachable!()
    };
    let identity = sim.engine.actors().resolve(&actor).unwrap();
    assert_eq!((identity.run, identity.call), (run.clone(), call));
    assert_eq!(sim.engine.actors().admit(None), Ok(Attribution::Person));
    // Each call gets its own reference.
    sim.apply();
    sim.give_marks();
    let Effect::Invoke { actor: second, .. } = sim
        .effects_of(|e| matches!(e, Effect::Invoke { .. }))
        .pop()
        .unwrap()
    else {
        unreachable!()
    };
    assert_ne!(actor, second);
}

#[test]
fn ag_33_forged_altered_or_foreign_references_resolve_to_nothing() {
    let mut sim = Sim::new();
    let run = sim.delegate(Autonomy::Auto);
    sim.propose(&run, &[rename()]);
    sim.give_marks();
    let genuine = sim.engine.run(&run).and_then(|run| run.actor()).unwrap();
    assert!(sim.engine.actors().resolve(&genuine).is_some());
    let text = genuine.as_str();
    let altered = format!("{}0{}", &text[..text.len() - 1], "");
    let forged = [
        ActorRef::new(""),
        ActorRef::new("person"),
        ActorRef::new(format!("{run}#c1-1")),
        ActorRef::new(altered),
        ActorRef::new(text.replacen("baton1", "baton2", 1)),
    ];
    for reference in &forged {
        assert_eq!(sim.engine.actors().resolve(reference), None, "{reference}");
        assert!(sim.engine.actors().admit(Some(reference)).is_err());
    }
    // The same identity minted by an engine with another secret is foreign.
    let mut config_b = config();
    config_b.session = SessionId::new("s");
    let mut other = Engine::new(config_b, ActorSecret::new([9; 32]));
    declare_all(&mut other);
    let twin = other
        .handle(
            sim.now,
            Delegate(Delegation::new("x", Initiative::User, Autonomy::Auto)),
        )
        .unwrap();
    assert_eq!(twin, run);
    assert_eq!(other.run(&twin).and_then(|run| run.actor()), None);
    assert_eq!(
        sim.engine
            .actors()
            .resolve(&ActorRef::new(genuine.as_str().to_owned())),
        sim.engine.actors().resolve(&genuine)
    );
}
