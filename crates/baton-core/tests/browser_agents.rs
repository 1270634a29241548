//! What a browser agent's bridge needs of the core: tools that say what
//! they do (read-only, irreversible, carrying others' content), and a run
//! whose acting party the host reaches through a transport of the run's own.

mod common;

use baton_core::*;
use common::*;
use serde_json::json;

fn mail() -> serde_json::Value {
    json!({
        "id": "mail",
        "label": "Inbox",
        "description": "Messages pasted in from email, as received.",
        "tier": "full-acts",
        "history": "none",
        "capabilities": [
            {
                "name": "find",
                "description": "Find the messages whose subject contains `words`.",
                "arguments": {"type": "object", "properties": {"words": {"type": "string"}}, "additionalProperties": false},
                "argumentLimits": {"words": 200},
                "effects": [],
                "readOnly": true,
                "reads": ["inbox"]
            },
            {
                "name": "reply",
                "description": "Send a reply to one message of the inbox.",
                "arguments": {"type": "object", "properties": {"text": {"type": "string"}}, "additionalProperties": false},
                "argumentLimits": {"text": 2000},
                "effects": [{"name": "send-reply", "reversible": false, "external": true}]
            }
        ],
        "reads": [{"name": "inbox", "description": "The pasted messages, newest first.", "origin": "third-party"}]
    })
}

#[test]
fn tools_say_whether_they_change_anything_cannot_be_undone_or_carry_others_content() {
    let sim = sim_with(Autonomy::Auto, &[tasks_manifest(), mail()]);
    let tools = sim.engine.registry().tools();
    let hints = |name: &str| {
        let tool = tools.iter().find(|tool| tool.name == name).expect(name);
        (tool.read_only, tool.irreversible, tool.untrusted_content)
    };
    assert_eq!(hints("mail.find"), (true, false, true));
    assert_eq!(hints("mail.reply"), (false, true, false));
    assert_eq!(hints("tasks.rename"), (false, false, false));
    // What is not so is not written: an acting party sees no noise.
    let rename =
        serde_json::to_value(tools.iter().find(|t| t.name == "tasks.rename").unwrap()).unwrap();
    assert_eq!(
        rename.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["description", "name", "parameters"]
    );
}

#[test]
fn ag_50_a_run_with_a_transport_of_its_own_is_accepted_where_the_engine_has_none() {
    let mut config = config();
    config.transport = false;
    let mut sim = Sim::with_config(config);
    let plain = Delegation::new("tidy", Initiative::System, Autonomy::Review);
    assert_eq!(
        sim.engine.handle(sim.now, Delegate(plain.clone())),
        Err(DelegateError::NoTransport)
    );
    let expected = sim.engine.next_run_id();
    let own = Delegation {
        own_transport: true,
        ..plain
    };
    let run = sim.engine.handle(sim.now, Delegate(own)).unwrap();
    assert_eq!(run, expected, "the id the host set things up for");
    assert!(sim.engine.next_run_id() != run);
    sim.drain();
    assert_eq!(
        sim.open_turns(&run),
        1,
        "its first turn goes to its own acting party"
    );
}
