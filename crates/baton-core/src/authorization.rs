//! What the person's authorization of a reviewed plan carries (AG-7, AG-30).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::CommandError;
use crate::fields::{Fields, Refusal};
use crate::ids::CapabilityRef;
use crate::model::Budget;

/// The person's authorization of a reviewed plan (AG-7): the allowlist and
/// budget it fixes, and whether to make it a standing grant (AG-30).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Authorization {
    /// The capabilities allowed; by default the ones proposed. Narrowing it
    /// means a later call to anything else escalates (AG-7).
    #[serde(default)]
    pub allowlist: Option<Vec<CapabilityRef>>,
    /// The budget fixed from now on; by default the one asked for.
    #[serde(default)]
    pub budget: Option<Budget>,
    /// "Always allow these here for a while": a standing `allow` grant, for
    /// this many milliseconds, on every declared capability the
    /// authorization allows (AG-30: a time to live and an explicit scope,
    /// re-gated when the participant's capability set changes).
    #[serde(default)]
    pub grant_ms: Option<u64>,
}

impl Authorization {
    /// Parses an authorization in its JSON shape, as a host receives it:
    /// `{ allowlist?: ["tasks.rename"], budget?, grant?: { ttlMs } }`.
    pub fn from_json(value: Value) -> Result<Authorization, CommandError> {
        let invalid = |message: String| CommandError::InvalidAuthorization(message);
        let at = |refusal: Refusal| invalid(format!("at `{}`: {}", refusal.path, refusal.message));
        let fields =
            Fields::of(&value, "$".into(), &["allowlist", "budget", "grant"]).map_err(at)?;
        let allowlist: Option<Vec<String>> = fields.optional("allowlist").map_err(at)?;
        let budget: Option<Budget> = fields.optional("budget").map_err(at)?;
        let grant_ms = match fields.nested("grant") {
            Some((path, grant)) => Some(
                Fields::of(grant, path, &["ttlMs"])
                    .and_then(|grant| grant.required::<u64>("ttlMs"))
                    .map_err(at)?,
            ),
            None => None,
        };
        let allowlist = allowlist
            .map(|names| {
                names
                    .iter()
                    .map(|name| {
                        CapabilityRef::parse_tool_name(name).ok_or_else(|| {
                            invalid(format!("`{name}` is not participant.capability"))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        Ok(Authorization {
            allowlist,
            budget,
            grant_ms,
        })
    }
}
