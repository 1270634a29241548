//! A request to delegate, as a host hands it over: what the person wants,
//! why the run exists, how far it may go, and optionally a fixed plan.
//!
//! Hosts that receive requests as JSON (the browser adapter) parse them with
//! [`Delegation::from_json`], so the defaults and the refusals of a request
//! are decided here, once: the initiative is never assumed (AG-2, AG-26),
//! the autonomy asked for defaults to `review`, the budget to the engine's.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::DelegateError;
use crate::fields::{Fields, Refusal};
use crate::ids::CapabilityRef;
use crate::model::{Autonomy, Budget, Initiative};

/// A request to delegate.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Delegation {
    /// What the person wants, verbatim; it goes to the acting party.
    pub intent: String,
    /// Why the run exists (AG-2).
    pub initiative: Initiative,
    /// The autonomy asked for; the engine resolves it under its ceiling.
    pub autonomy: Autonomy,
    /// The budget asked for; the engine default when absent.
    pub budget: Option<Budget>,
    /// A fixed plan (a macro, a rule): no acting party, no turns (AG-3).
    pub plan: Option<Vec<PlannedCall>>,
    /// The host reaches this run's acting party through a transport of the
    /// run's own (a browser agent's session, say), whether or not the
    /// engine has one: set by the host, never read from a request.
    pub own_transport: bool,
    /// The conversation with the acting party the run continues, when the
    /// app names one (`thread`): a transport that keeps conversations
    /// (AG-UI's `threadId`) puts the run on it instead of its default.
    pub thread: Option<String>,
}

impl Delegation {
    /// A delegation to the acting party with the default budget.
    pub fn new(intent: impl Into<String>, initiative: Initiative, autonomy: Autonomy) -> Self {
        Delegation {
            intent: intent.into(),
            initiative,
            autonomy,
            budget: None,
            plan: None,
            own_transport: false,
            thread: None,
        }
    }

    /// Sets the budget.
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Makes it a fixed plan.
    pub fn with_plan(mut self, plan: Vec<PlannedCall>) -> Self {
        self.plan = Some(plan);
        self
    }

    /// Parses a request in its JSON shape:
    /// `{ intent, initiative, autonomy?, budget?, plan?: [{ capability: "tasks.rename", arguments }] }`.
    ///
    /// `initiative` is required: a request that leaves it out is refused
    /// with [`DelegateError::MissingInitiative`] rather than assumed to come
    /// from the person, which would give automation a person's autonomy and
    /// exempt it from the hourly quota (AG-2, AG-26). `autonomy` defaults to
    /// `review`. Unknown fields are refused with their path.
    ///
    /// ```
    /// use baton_core::{Delegation, DelegateError, Initiative};
    /// use serde_json::json;
    ///
    /// let request = Delegation::from_json(json!({"intent": "Tidy", "initiative": "scheduled"})).unwrap();
    /// assert_eq!(request.initiative, Initiative::Scheduled);
    /// assert_eq!(
    ///     Delegation::from_json(json!({"intent": "Tidy"})),
    ///     Err(DelegateError::MissingInitiative)
    /// );
    /// ```
    pub fn from_json(value: Value) -> Result<Delegation, DelegateError> {
        let request = Request::read(&value).map_err(|refusal| {
            DelegateError::InvalidRequest(format!("at `{}`: {}", refusal.path, refusal.message))
        })?;
        let initiative = request.initiative.ok_or(DelegateError::MissingInitiative)?;
        if let Some(thread) = &request.thread {
            if thread.is_empty() || thread.len() > MAX_THREAD_BYTES {
                return Err(DelegateError::InvalidRequest(format!(
                    "at `$.thread`: a thread is named by 1 to {MAX_THREAD_BYTES} bytes"
                )));
            }
        }
        let plan = request
            .plan
            .map(|steps| {
                steps
                    .into_iter()
                    .map(|step| {
                        CapabilityRef::parse_tool_name(&step.capability)
                            .map(|capability| PlannedCall {
                                capability,
                                arguments: step.arguments,
                            })
                            .ok_or_else(|| {
                                DelegateError::InvalidRequest(format!(
                                    "`{}` is not participant.capability",
                                    step.capability
                                ))
                            })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        Ok(Delegation {
            intent: request.intent,
            initiative,
            autonomy: request.autonomy.unwrap_or(Autonomy::Review),
            budget: request.budget,
            plan,
            own_transport: false,
            thread: request.thread,
        })
    }
}

/// The longest name of a thread (`delegate({ thread })`), in UTF-8 bytes.
pub const MAX_THREAD_BYTES: usize = 256;

/// One call of a fixed plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlannedCall {
    /// What to invoke.
    pub capability: CapabilityRef,
    /// With what.
    pub arguments: Value,
}

/// The JSON shape of a request, before its rules are applied.
struct Request {
    intent: String,
    initiative: Option<Initiative>,
    autonomy: Option<Autonomy>,
    budget: Option<Budget>,
    plan: Option<Vec<RequestStep>>,
    thread: Option<String>,
}

struct RequestStep {
    capability: String,
    arguments: Value,
}

impl Request {
    fn read(value: &Value) -> Result<Request, Refusal> {
        let fields = Fields::of(
            value,
            "$".into(),
            &[
                "intent",
                "initiative",
                "autonomy",
                "budget",
                "plan",
                "thread",
            ],
        )?;
        let plan = if fields.is_set("plan") {
            let steps = fields.each("plan")?.into_iter().map(|(path, step)| {
                let fields = Fields::of(step, path, &["capability", "arguments"])?;
                Ok(RequestStep {
                    capability: fields.required("capability")?,
                    arguments: fields.optional("arguments")?.unwrap_or(Value::Null),
                })
            });
            Some(steps.collect::<Result<_, Refusal>>()?)
        } else {
            None
        };
        Ok(Request {
            intent: fields.required("intent")?,
            initiative: fields.optional("initiative")?,
            autonomy: fields.optional("autonomy")?,
            budget: fields.optional("budget")?,
            plan,
            thread: fields.optional("thread")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ag_2_initiative_is_never_assumed() {
        assert_eq!(
            Delegation::from_json(json!({"intent": "x", "autonomy": "auto"})),
            Err(DelegateError::MissingInitiative)
        );
        assert!(DelegateError::MissingInitiative
            .to_string()
            .starts_with("AG-2:"));
        let request =
            Delegation::from_json(json!({"intent": "x", "initiative": "system"})).unwrap();
        assert_eq!(request.initiative, Initiative::System);
        assert_eq!(request.autonomy, Autonomy::Review);
    }

    #[test]
    fn a_request_may_name_its_thread_within_bounds() {
        let named = |thread: Value| {
            Delegation::from_json(json!({"intent": "x", "initiative": "user", "thread": thread}))
        };
        assert_eq!(
            named(json!("support-42")).unwrap().thread.as_deref(),
            Some("support-42")
        );
        for bad in [
            json!(""),
            json!("x".repeat(MAX_THREAD_BYTES + 1)),
            json!(42),
        ] {
            let error = named(bad).unwrap_err();
            assert!(error.to_string().contains("thread"), "{error}");
        }
        assert_eq!(
            Delegation::from_json(json!({"intent": "x", "initiative": "user"}))
                .unwrap()
                .thread,
            None
        );
    }

    #[test]
    fn requests_are_strict_and_name_the_path() {
        let error = Delegation::from_json(json!({"intent": "x", "initiative": "user", "plan": [{"capability": "x", "arguments": {}}]}))
            .unwrap_err();
        assert!(
            error.to_string().contains("participant.capability"),
            "{error}"
        );
        let error = Delegation::from_json(json!({"intent": "x", "initiative": "usr"})).unwrap_err();
        assert!(error.to_string().contains("initiative"), "{error}");
        let error =
            Delegation::from_json(json!({"intent": "x", "initiative": "user", "budgte": {}}))
                .unwrap_err();
        assert!(error.to_string().contains("budgte"), "{error}");
        let request = Delegation::from_json(json!({
            "intent": "x", "initiative": "user",
            "plan": [{"capability": "tasks#b.rename", "arguments": {"id": 1}}]
        }))
        .unwrap();
        assert_eq!(
            request.plan.unwrap()[0].capability,
            CapabilityRef::new("tasks#b", "rename")
        );
    }
}
