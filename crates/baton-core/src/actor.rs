//! Actor references: who caused a capability call (AG-32).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::ids::{CallId, RunId};

/// Names the run and call on whose behalf a participant mutates.
///
/// A participant receives one with every invocation and passes it on
/// verbatim; the engine admits a mutation carrying it only while that call
/// is in flight ([`crate::Engine::admit_mutation`], AG-1). No reference at
/// all means the person.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActorRef {
    /// The run.
    pub run: RunId,
    /// The call.
    pub call: CallId,
}

impl fmt::Display for ActorRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.run, self.call)
    }
}

/// Who a mutation is attributed to after [`crate::Engine::admit_mutation`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attribution {
    /// No reference: the person acted.
    Person,
    /// The acting party of a run, through the call in flight.
    Delegated(ActorRef),
}
