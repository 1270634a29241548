//! What the host (the browser adapter) tells the application beside the
//! custody machine's own shapes: the events it adds to every subscriber's
//! stream, and the state of its storage. They are declared here, with the
//! core's other serialised shapes, so that the package's types are
//! generated from one place; the adapter builds them and decides nothing
//! with them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ids::{ParticipantId, RunId, SessionId};
use crate::manifest::ManifestProblem;
use crate::protocol::{Direction, WireEvent};

/// What subscribers and presence surfaces hear beside the custody
/// machine's events, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(
    tag = "type",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum HostEvent {
    /// Text from the acting party, as deltas (never announced per delta).
    /// Coalesced: the deltas of one message that arrive in one network read
    /// come as one event (in order, nothing lost), so a fast stream never
    /// floods the page with one event per token.
    Text {
        /// The run.
        run: RunId,
        /// The message the text belongs to.
        message: String,
        /// The text.
        delta: String,
    },
    /// The acting party's own state (AG-47).
    State {
        /// The run.
        run: RunId,
        /// Which way it went.
        direction: Direction,
        /// The snapshot or the change.
        #[cfg_attr(
            feature = "typescript",
            ts(type = "Extract<WireEvent, { type: \"state-snapshot\" | \"state-delta\" }>")
        )]
        event: WireEvent,
    },
    /// The acting party's reasoning, as deltas, for surfaces that show it as
    /// its own; never announced. An encrypted value comes as it was sent.
    Reasoning {
        /// The run.
        run: RunId,
        /// The reasoning message.
        message: String,
        /// A piece of its text, or an encrypted value.
        delta: String,
        /// Whether `delta` is an encrypted value (never decoded).
        encrypted: bool,
    },
    /// What the acting party is busy with (a plan, a search in progress).
    Activity {
        /// The run.
        run: RunId,
        /// The activity's message.
        message: String,
        /// Its kind, as the acting party names it.
        activity: String,
        /// The whole activity, or (with `patch`) a JSON Patch to it.
        content: Value,
        /// Whether `content` is a JSON Patch.
        patch: bool,
    },
    /// An escape-hatch event from the acting party (AG-46).
    Custom {
        /// The run.
        run: RunId,
        /// What it is.
        name: String,
        /// Its value, as the acting party sent it.
        value: Value,
    },
    /// Persistence fell back to memory; the engine keeps running.
    StorageDegraded {
        /// Why.
        cause: String,
    },
    /// A session whose engine still held it when this one opened (a reload
    /// whose old page was not gone yet) was reconciled once it let go:
    /// `ended` of its runs and questions were ended (`interrupted`,
    /// `expired`), and `offered` of them are offered again
    /// (`engine.cutOff()`).
    StorageReconciled {
        /// The session.
        session: SessionId,
        /// Runs and questions ended.
        ended: u32,
        /// Runs offered again.
        offered: u32,
    },
    /// A stored row could not be read (damaged by a disk error, an
    /// extension, a partial restore): it was skipped, and every other row
    /// is still read. Said once per row.
    UnreadableRow {
        /// The object store it is in (`runs`, `journal`).
        store: String,
        /// Its key: a run's id, or a run's id and the journal row's place.
        key: String,
        /// Why it could not be read.
        reason: String,
    },
    /// A registration was refused (AG-13); replayed to every later
    /// subscriber.
    RegistrationRefused {
        /// The id it would have been mounted under, when the manifest says.
        participant: Option<ParticipantId>,
        /// Each problem, with its requirement and JSON path.
        problems: Vec<ManifestProblem>,
    },
    /// A participant was registered or unregistered: `engine.tools()`
    /// changed.
    ToolsChanged,
    /// The engine closed (`engine.close()`): the last event its
    /// subscribers hear, so what waits on it (a bridge's calls, a
    /// surface) can stop waiting.
    Closed,
}

/// Where an engine keeps its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum StorageMode {
    /// IndexedDB, falling back to memory if it fails.
    #[default]
    Indexeddb,
    /// Memory only, by choice or after a failure.
    Memory,
}

/// What `engine.storage` reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct StorageStatus {
    /// `indexeddb` while writing there; `memory` by choice or after a
    /// failure.
    pub mode: StorageMode,
    /// Why the engine fell back to memory, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub degraded: Option<String>,
    /// The database, when IndexedDB is used.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub db_name: Option<String>,
    /// Transactions committed: one per engine step that changed anything
    /// (group commit).
    pub transactions: u32,
    /// Journal records committed.
    pub records: u32,
    /// Runs that sessions no longer alive had left active, ended
    /// `interrupted` when this engine opened.
    pub reconciled: u32,
}
