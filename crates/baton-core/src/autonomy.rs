//! How much a call may do without the person (contract §4, AG-24 … AG-28).

use serde::{Deserialize, Serialize};

use crate::model::{Autonomy, Initiative};

/// Everything autonomy resolution looks at, for one capability call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AutonomyInputs {
    /// The application's ceiling.
    pub ceiling: Autonomy,
    /// The person's choice for this run (or a standing grant's); it may only lower the ceiling.
    pub person: Autonomy,
    /// The most autonomy the capability allows; it may only demand more control.
    pub capability: Option<Autonomy>,
    /// Why the run exists.
    pub initiative: Initiative,
    /// Whether the capability has an irreversible effect.
    pub irreversible: bool,
    /// Whether the turn's context holds content not produced by the author.
    pub untrusted_context: bool,
    /// Whether anything denies the call (a "never allow" grant).
    pub denied: bool,
}

/// The verdict of resolving autonomy for a call (not to be confused with
/// [`crate::Resolution`], the person's answer to an escalation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", content = "autonomy", rename_all = "kebab-case")]
pub enum Verdict {
    /// Nothing may happen: deny overrides everything (AG-24).
    Denied,
    /// The call may go as far as this.
    Allowed(Autonomy),
}

impl Verdict {
    /// As a run-level autonomy: a run that may do nothing on its own may
    /// still suggest.
    pub fn level(self) -> Autonomy {
        match self {
            Verdict::Allowed(level) => level,
            Verdict::Denied => Autonomy::Suggest,
        }
    }
}

/// One step more control: `auto` → `review` → `suggest`.
pub fn lower(autonomy: Autonomy) -> Autonomy {
    match autonomy {
        Autonomy::Auto => Autonomy::Review,
        Autonomy::Review | Autonomy::Suggest => Autonomy::Suggest,
    }
}

/// Resolves autonomy, in the contract's order:
///
/// 1. the application sets the ceiling, and untrusted content in the turn's
///    context lowers it one step (AG-28);
/// 2. the person may only lower it further (AG-24);
/// 3. the capability may demand more control, never less (AG-24);
/// 4. an irreversible effect requires at least `review` (AG-25);
/// 5. `system` and `scheduled` initiative is clamped to `review` (AG-26);
/// 6. a deny anywhere overrides all of it (AG-24).
pub fn resolve(inputs: AutonomyInputs) -> Verdict {
    if inputs.denied {
        return Verdict::Denied;
    }
    let mut level = inputs.ceiling;
    if inputs.untrusted_context {
        level = lower(level);
    }
    level = level.min(inputs.person);
    if let Some(capability) = inputs.capability {
        level = level.min(capability);
    }
    if inputs.irreversible {
        level = level.min(Autonomy::Review);
    }
    if !inputs.initiative.is_user() {
        level = level.min(Autonomy::Review);
    }
    Verdict::Allowed(level)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEVELS: [Autonomy; 3] = [Autonomy::Suggest, Autonomy::Review, Autonomy::Auto];
    const INITIATIVES: [Initiative; 3] =
        [Initiative::User, Initiative::System, Initiative::Scheduled];

    /// Every combination of ceiling, person, capability floor, initiative,
    /// reversibility, origin and deny, checked against the rules one by one.
    #[test]
    fn ag_24_to_28_resolution_table() {
        let mut rows = 0;
        for ceiling in LEVELS {
            for person in LEVELS {
                for capability in [
                    None,
                    Some(Autonomy::Suggest),
                    Some(Autonomy::Review),
                    Some(Autonomy::Auto),
                ] {
                    for initiative in INITIATIVES {
                        for irreversible in [false, true] {
                            for untrusted_context in [false, true] {
                                for denied in [false, true] {
                                    rows += 1;
                                    let inputs = AutonomyInputs {
                                        ceiling,
                                        person,
                                        capability,
                                        initiative,
                                        irreversible,
                                        untrusted_context,
                                        denied,
                                    };
                                    let resolved = resolve(inputs);
                                    if denied {
                                        assert_eq!(
                                            resolved,
                                            Verdict::Denied,
                                            "AG-24 deny overrides: {inputs:?}"
                                        );
                                        continue;
                                    }
                                    let Verdict::Allowed(level) = resolved else {
                                        panic!("only a deny denies: {inputs:?}");
                                    };
                                    // AG-24: never above the ceiling, the person, or the capability.
                                    assert!(level <= ceiling, "{inputs:?}");
                                    assert!(level <= person, "{inputs:?}");
                                    assert!(capability.is_none_or(|c| level <= c), "{inputs:?}");
                                    // AG-25, AG-26.
                                    if irreversible || !initiative.is_user() {
                                        assert!(level <= Autonomy::Review, "{inputs:?}");
                                    }
                                    // AG-28: untrusted content lowers the ceiling.
                                    if untrusted_context {
                                        assert!(level <= lower(ceiling), "{inputs:?}");
                                    }
                                    // And nothing lowers it more than the rules say.
                                    let mut expected = if untrusted_context {
                                        lower(ceiling)
                                    } else {
                                        ceiling
                                    };
                                    expected = expected
                                        .min(person)
                                        .min(capability.unwrap_or(Autonomy::Auto));
                                    if irreversible || !initiative.is_user() {
                                        expected = expected.min(Autonomy::Review);
                                    }
                                    assert_eq!(level, expected, "{inputs:?}");
                                }
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(rows, 3 * 3 * 4 * 3 * 2 * 2 * 2);
    }

    #[test]
    fn ag_24_the_person_cannot_raise_the_ceiling() {
        let inputs = AutonomyInputs {
            ceiling: Autonomy::Review,
            person: Autonomy::Auto,
            capability: None,
            initiative: Initiative::User,
            irreversible: false,
            untrusted_context: false,
            denied: false,
        };
        assert_eq!(resolve(inputs), Verdict::Allowed(Autonomy::Review));
    }

    #[test]
    fn ag_24_a_capability_may_demand_more_control_never_less() {
        let base = AutonomyInputs {
            ceiling: Autonomy::Review,
            person: Autonomy::Review,
            capability: Some(Autonomy::Auto),
            initiative: Initiative::User,
            irreversible: false,
            untrusted_context: false,
            denied: false,
        };
        assert_eq!(resolve(base), Verdict::Allowed(Autonomy::Review));
        let stricter = AutonomyInputs {
            capability: Some(Autonomy::Suggest),
            ..base
        };
        assert_eq!(resolve(stricter), Verdict::Allowed(Autonomy::Suggest));
    }

    #[test]
    fn ag_25_irreversible_effects_require_review_even_under_an_auto_ceiling() {
        let inputs = AutonomyInputs {
            ceiling: Autonomy::Auto,
            person: Autonomy::Auto,
            capability: None,
            initiative: Initiative::User,
            irreversible: true,
            untrusted_context: false,
            denied: false,
        };
        assert_eq!(resolve(inputs), Verdict::Allowed(Autonomy::Review));
    }

    #[test]
    fn ag_28_untrusted_origin_lowers_the_ceiling() {
        let inputs = AutonomyInputs {
            ceiling: Autonomy::Auto,
            person: Autonomy::Auto,
            capability: None,
            initiative: Initiative::User,
            irreversible: false,
            untrusted_context: true,
            denied: false,
        };
        assert_eq!(resolve(inputs), Verdict::Allowed(Autonomy::Review));
    }
}
