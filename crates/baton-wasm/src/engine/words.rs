//! The words of the core's announcements: what the person hears in the live
//! region. The core decides what is said and when; this only renders it.

use baton_core::{Announcement, Ending, EscalationReason, Said, Speaker};

/// The sentence for an announcement. `actor` names the acting party
/// (`Assistant` by default); the person is "You"; `app` names the
/// application, for what spans all its runs.
pub(super) fn render(announcement: &Announcement, actor: &str, app: &str) -> String {
    let who = match announcement.speaker {
        Speaker::ActingParty => actor,
        Speaker::Person => "You",
    };
    match &announcement.said {
        Said::Acting {
            intent,
            changes,
            participants,
            later,
            via,
        } if !via.is_empty() => {
            // "Researcher, for Assistant, is acting in …": the chain's
            // innermost link acts for the acting party.
            let inner = via.last().map_or("", String::as_str);
            let more = if *later { "more " } else { "" };
            let noun = if *changes == 1 { "change" } else { "changes" };
            format!(
                "{}, for {who}, is making {changes} {more}{noun} in {} for “{intent}”.",
                capitalised(inner),
                places(participants)
            )
        }
        Said::Acting {
            intent,
            changes,
            participants,
            later: false,
            ..
        } => format!(
            "{who} is acting in {}: {} for “{intent}”.",
            places(participants),
            count(*changes, "change", "changes")
        ),
        Said::Acting {
            intent,
            changes,
            participants,
            later: true,
            ..
        } => format!(
            "{who} is making {changes} more {} in {} for “{intent}”.",
            if *changes == 1 { "change" } else { "changes" },
            places(participants)
        ),
        Said::NeedsYou { intent, reason } => {
            format!("{actor}: “{intent}” needs you: {}.", needs(reason))
        }
        Said::Closed {
            intent,
            ending,
            reason,
            refused,
        } => {
            let mut said = closed(who, intent, *ending, reason);
            // Done less than asked: the calls refused on the way are said.
            if *refused > 0 {
                said.pop();
                said.push_str(&format!(
                    "; {} refused.",
                    count(*refused, "call was", "calls were")
                ));
            }
            said
        }
        Said::Killed { count: n } => format!(
            "{who} stopped {} in {app}; control is back with you.",
            count(*n, "delegation", "delegations")
        ),
        Said::UndoHeld {
            intent,
            changed_by_you,
            changed_by_runs,
        } => {
            let mut since = Vec::new();
            if !changed_by_you.is_empty() {
                since.push(format!("you changed {}", places(changed_by_you)));
            }
            if !changed_by_runs.is_empty() {
                since.push(format!(
                    "another delegation changed {}",
                    places(changed_by_runs)
                ));
            }
            format!(
                "“{intent}” was not undone: since then, {}. Undo only the rest, or undo everything anyway.",
                since.join(", and ")
            )
        }
        Said::Undone { intent, failed, .. } if failed.is_empty() => {
            format!("{who} undid “{intent}”.")
        }
        Said::Undone { intent, failed, .. } => format!(
            "{who} undid “{intent}”, except in {}, which could not be reverted.",
            places(failed)
        ),
    }
}

fn closed(who: &str, intent: &str, ending: Ending, reason: &str) -> String {
    match ending {
        Ending::Done => format!("{who}: “{intent}” is done."),
        Ending::AnsweredWithoutChanges => format!("{who} answered “{intent}” without changes."),
        Ending::PartlyDone => format!(
            "{who}: “{intent}” stopped part-way because {}; what was done is kept.",
            why(reason)
        ),
        Ending::RolledBack => format!(
            "{who}: “{intent}” failed because {}, and every change was undone.",
            why(reason)
        ),
        Ending::Stopped => format!("{who} stopped “{intent}”; control is back with you."),
        Ending::Paused => format!("{who} paused “{intent}”; it can be resumed."),
        Ending::Rejected => format!("{who} rejected the plan for “{intent}”."),
        Ending::Interrupted => {
            format!("“{intent}” was cut off by a reload; control is back with you.")
        }
        Ending::Failed => format!("{who}: “{intent}” failed because {}.", why(reason)),
    }
}

/// A name as the start of a sentence. ASCII only: Unicode's case tables
/// would cost the runtime 13 KiB, and a name that starts otherwise is said
/// as it was given.
fn capitalised(name: &str) -> String {
    let mut name = name.to_owned();
    if let Some(first) = name.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    name
}

fn why(reason: &str) -> &str {
    match reason {
        "call-failed" => "a change failed",
        "plan-refused" => "a planned change was refused",
        "turn-over-limit" => "it sent more than one turn may hold",
        "turn-deadman" => "it stopped responding",
        "run-deadline" => "it ran out of time",
        "budget-exhausted" => "it used up its budget",
        "transport-lost" => "the connection was lost",
        "turn-failed" => "it reported an error",
        "agent-error" => "the agent answered with an error",
        "integrity-violation" => "it broke the protocol",
        "mark-failed" => "a change could not be prepared",
        "rollback-failed" => "not every change could be undone",
        "presence-missing" => "nothing was showing its progress",
        "escalation-timeout" => "nobody answered in time",
        "question-expired" => "a question went unanswered",
        _ => "something went wrong",
    }
}

fn needs(reason: &EscalationReason) -> &'static str {
    match reason {
        EscalationReason::OutOfScope { .. } => "it wants to do something you did not allow",
        EscalationReason::ReviewRequired { .. } => "a change needs your review",
        EscalationReason::BudgetExhausted { .. } => "it used up its budget",
        EscalationReason::Drift { .. } => "what it planned on has changed",
        EscalationReason::AuthorizationExpired => "your authorization ran out",
        EscalationReason::AwaitingAnswer { .. } => "it has a question",
    }
}

fn places(labels: &[String]) -> String {
    labels.join(" and ")
}

fn count(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
