//! # baton-core — the custody machine of Baton
//!
//! When a person hands part of an application to another actor — an LLM
//! agent, a macro, an automation rule — Baton makes the delegation
//! observable, attributable, bounded and reversible. This crate is the part
//! that decides: a pure, sans-IO, deterministic state machine. It never reads
//! a clock, a random source or the environment; time is an input in
//! milliseconds. The browser adapter (`baton-wasm`) and the tests drive it the
//! same way.
//!
//! ## The model (Delegation Contract §1)
//!
//! An [`Engine`] drives one **session**. A session holds **runs**; a run is one
//! delegation — the unit of budget, authorization, undo and audit. A run talks
//! to its acting party in **turns**; a turn may propose **capability calls**,
//! the only thing that mutates anything. Every run carries an [`Initiative`]
//! (AG-2), a resolved [`Autonomy`] and a [`Budget`].
//!
//! ## Who holds control (§2)
//!
//! ```text
//!  offered ─► planned ─► reviewing ⇄ authorized ─► acting ─► escalated{reason}
//!     │          │           │                       │   ◄──────┘ (resolved, or re-review)
//!     └──────────┴───────────┴──► cancelled          └──► returned{outcome, reason}
//!  every non-terminal state ──► returned{aborted} on stop, kill, pause, reload
//! ```
//!
//! * **offered** — the planning turn is out. Its proposed calls are *the plan*.
//! * **planned → reviewing** when autonomy is below `auto`; the person
//!   [`Authorize`]s or [`Reject`]s. With `auto` the engine
//!   authorizes directly.
//! * **acting** — marks are taken from every participant in scope (their
//!   native history), then calls are dispatched one at a time. Later turns stay
//!   in `acting`; a call outside the allowlist or the budget is **escalated**,
//!   never dispatched (AG-7). An undeclared capability is refused back to the
//!   acting party as a correctable result, charged to the budget (AG-21).
//! * **escalated** waits for [`ResolveEscalation`] and returns on its
//!   own when its timeout passes (AG-6).
//! * **returned** carries an [`Outcome`] (`completed | partial | rolled-back |
//!   aborted | error`) and a typed [`ReturnReason`]; **cancelled** a
//!   [`CancelReason`]. Terminal states never reopen (AG-4, AG-5).
//!
//! How a run ends depends on why. The acting party finishing is `completed`.
//! The person taking control back — [`Stop`] (AG-9), [`Kill`]
//! (AG-10), [`Pause`] (AG-11) — is `aborted`, never an error, and keeps
//! what was done as one undo step. A failure (a call failed, a deadman turn,
//! the deadline, exhausted budget, a protocol violation) **rolls back**: each
//! touched participant is asked, in reverse order, to revert to the mark it gave
//! when the run began acting (AG-8, AG-19) — unless the capability accepts a
//! partial close, then the run is `partial`. A revert that fails or never
//! answers makes the outcome `error` with [`ReturnReason::RollbackFailed`].
//!
//! ## Bounded turns
//!
//! A turn is charged when it is reserved, before anything is sent; a turn that
//! fails or hits its deadman timer has still consumed its budget; nothing is
//! retried automatically (resume is an explicit, chained run). When several
//! terminal causes coincide, the fixed precedence decides: integrity
//! violation, then explicit close, turn deadman, run deadline, budget
//! exhausted. Traffic that does not belong to an open turn never starts or
//! revives a run — it is an integrity [`Finding`]. `system` and `scheduled`
//! runs have an hourly start quota. Budget exhaustion that nobody resolves emits exactly one
//! [`Event::EscalationReceipt`]; the step that emits it also closes the
//! escalation, so restores and replays never repeat it.
//!
//! ## What the machine governs (§3 – §5)
//!
//! **Manifests** are inert data (AG-12): a participant's id, label,
//! description, maturity tier and its capabilities and reads, each with a
//! description for the acting party (AG-14). Arguments are typed by JSON
//! Schema 2020-12 — compiled once, `format` asserted, nothing fetched — and
//! projected unchanged as tools (AG-15); every argument has a byte limit
//! (AG-16); the tier is audited (AG-17); reversibility is declared per effect,
//! and `send`, `publish`, `notify` or `external` effects are irreversible
//! (AG-18); reversal goes only through the participant's own history (AG-19).
//! Parsing is strict: an unknown field is refused with its JSON path.
//!
//! **Before a call is dispatched** it passes, in order: the call budget,
//! declaration (an undeclared capability is a correctable refusal, AG-21),
//! the allowlist (AG-7), its arguments (AG-15, AG-16), the freshness of the
//! reads it acts on (a stale read is a correctable refusal, AG-20), its
//! resolved autonomy and the authorization's fingerprint and lifetime.
//!
//! **Autonomy** resolves per call ([`autonomy::resolve`]): the application's ceiling,
//! lowered one step by untrusted content in the turn's context (AG-28); the
//! person may only lower it; a capability may only demand more control;
//! irreversible effects need review (AG-25); `system` and `scheduled` runs
//! are clamped to review (AG-26); a deny overrides everything (AG-24).
//! Persistent [`Grant`]s carry a scope and a time to live and stop applying
//! when the participant's capability set changes (AG-30).
//!
//! **Authorization** derives an allowlist and a budget, bound to the
//! [`fingerprint`] of the reads it was computed on and a time to live. On
//! drift it is recomputed: the same result is re-approved under a new
//! fingerprint, a different one goes back to the person (AG-29). The review
//! shows each planned act's concrete change — the participant's preview, or
//! the structured arguments — never prose (AG-31).
//!
//! **Actor references** are minted by the engine and keyed with its secret
//! (HMAC-SHA-256): every call carries one, no reference means the person, and
//! a forged, altered or foreign reference resolves to nothing (AG-32, AG-33).
//!
//! **Questions** (the elicitation channel, AG-41, AG-48): the acting party —
//! or the engine, when an address is ambiguous (AG-23) — asks the person,
//! optionally with a schema. Answers bind the question's id and request
//! digest, are validated, and fail closed; a question can be declined,
//! dismissed or postponed and expires at its deadline.
//!
//! ```
//! use baton_core::*;
//! use serde_json::json;
//!
//! let mut engine = Engine::new(EngineConfig::new("s"), ActorSecret::new([1; 32]));
//! // A participant declares what it can do. Nothing happens yet (AG-12).
//! let manifest = engine.handle(0, ParseManifest(r#"{
//!     "id": "tasks", "label": "Task board", "tier": "reversible-acts", "history": "native",
//!     "description": "The team's task board: cards in columns.",
//!     "preview": true,
//!     "capabilities": [{
//!         "name": "move", "description": "Move one card to another column.",
//!         "arguments": {"type": "object", "required": ["card", "column"],
//!                       "properties": {"card": {"type": "string"}, "column": {"enum": ["todo", "done"]}},
//!                       "additionalProperties": false},
//!         "argumentLimits": {"card": 64, "column": 16},
//!         "effects": [{"name": "reorder", "reversible": true}],
//!         "reads": ["board"]
//!     }],
//!     "reads": [{"name": "board", "description": "Every card with its column.", "origin": "author"}]
//! }"#.into())).unwrap();
//! engine.handle(0, Register { manifest, instance: None }).unwrap();
//! engine.handle(0, PublishRead { stamp: ReadStamp { read: ReadRef::new("tasks", "board"), version: 1, origin: Origin::Author }, actor: None }).unwrap();
//!
//! // The person delegates; the acting party proposes a plan.
//! let run = engine.handle(0, Delegate(Delegation::new("Close the done cards", Initiative::User, Autonomy::Review))).unwrap();
//! let turn = engine.run(&run).unwrap().open_turn().unwrap();
//! engine.handle(0, Signal::Inbound { run: run.clone(), turn, inbound: Inbound::ToolCall {
//!     call: CallId::new("call-1"),
//!     capability: CapabilityRef::new("tasks", "move"),
//!     arguments: json!({"card": "c7", "column": "done"}),
//!     via: Vec::new(),
//! } });
//! engine.handle(0, Signal::inbound(&run, turn, Inbound::TurnEnd));
//!
//! // Review: the participant renders the concrete change (AG-31)…
//! let preview = std::iter::from_fn(|| engine.poll_event())
//!     .find_map(|event| match event {
//!         Event::Effect(Effect::Preview { call, .. }) => Some(call),
//!         _ => None,
//!     })
//!     .unwrap();
//! engine.handle(0, Report::Preview { run: run.clone(), call: preview.clone(), change: Ok(json!({"c7": {"from": "todo", "to": "done"}})) }).unwrap();
//! let sheet = engine.run(&run).unwrap().review().unwrap();
//! assert_eq!(sheet.items[0].change, ProposedChange::Preview { value: json!({"c7": {"from": "todo", "to": "done"}}) });
//!
//! // …and the person authorizes exactly what they saw.
//! engine.handle(0, Authorize { run: run.clone(), revision: sheet.revision, authorization: Authorization::default() }).unwrap();
//! assert_eq!(engine.run(&run).unwrap().state(), &RunState::Acting);
//! ```
//!
//! ## Layout
//!
//! The modules form a hierarchy (a test keeps it so): `engine/` routes
//! every input to its run (`commands` holds the alphabet, `inputs` the
//! door, `views` the reading), fences revisions and owns what spans runs —
//! the registry, reads, grants, questions, quotas and retention; `run/` owns
//! every rule about one run, `impl Run` in a file per phase: `mod` (the run,
//! starting it, the journal and transitions), `turns` (the acting party's
//! turns and its questions to the person), `review` (the sheet and edits
//! under review), `decisions` (authorize, reject, escalations),
//! `binding` (the fingerprint and drift), `dispatch` (calls out, reports
//! back), `closing` (returning, rolling back, a reload's cut-off, undo) and
//! `announcing`; the groups of its state each own their fields (`custody`,
//! `turn_log`, `mutation`, `approval`, `asking`), the sub-machines are types
//! of their own (`rollback`, `undoing`), with `listing` and `row` for its
//! listed and stored shapes. Below them: `protocol/` (`wire`, `verifier`,
//! `script`, `inbound`), `manifest/` (the checked form, `parse`, `check`,
//! `problems`), `autonomy`, `grants`, `questions`, `announce`, `attention`,
//! `actor`, `schema/` (the JSON Schema 2020-12 validator: `compile`,
//! `validate`, `format`, and `pattern/` — the port to the host's regular
//! expressions and the hazard analysis that refuses catastrophic patterns),
//! `patch` (JSON Patch), `fields` (reading JSON objects strictly, with
//! paths), and the value types (`config`, `authorization`,
//! `delegation`, `event`, `journal`, `state`, `model`, `ids`, `context`). The
//! [`manual`] maps each requirement AG-n to the module that decides it and the
//! test that proves it.
//!
//! ## Driving it
//!
//! One door for everything the engine is told, each with `now`:
//! [`Engine::handle`] takes an [`Input`] and answers what that input
//! answers ([`Input::Answer`]). The alphabet: the app's and the person's
//! commands, each a value of its own in `engine/commands.rs` ([`Delegate`],
//! [`Authorize`], [`Stop`], [`Undo`], [`Answer`], [`Register`],
//! [`PublishRead`], …, each answering a typed result or refusal); the
//! acting party's traffic and time, a [`Signal`] (never refused); and every
//! host's answer to an effect, a [`Report`] (a mark, a preview, a call's
//! result, a revert). Reading goes through borrowed views —
//! [`Engine::run`] gives a [`RunView`] (the run, its review and escalation
//! sheets, its call's actor reference), [`Engine::questions`] and
//! [`Engine::actors`] — and a few accessors. Outputs:
//! [`Engine::poll_event`] — [`Event::Journal`] records (revision-fenced,
//! gap-free, for the store and for audit), [`Event::Effect`]s for the host to
//! carry out, [`Event::Finding`]s — and [`Engine::poll_timeout`]. The calling
//! loop is shown on [`Engine`].
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod actor;
mod announce;
mod attention;
mod authorization;
pub mod autonomy;
mod changes;
mod config;
mod context;
mod delegation;
mod engine;
mod error;
mod error_code;
mod event;
mod fields;
mod grants;
mod host;
mod host_failure;
mod ids;
mod journal;
mod manifest;
pub mod manual;
mod model;
mod patch;
mod protocol;
mod questions;
mod registry;
mod report;
mod run;
mod state;
mod violation;

pub use actor::{ActorIdentity, ActorRef, ActorSecret, Attribution};
pub use announce::{Announcement, Ending, Said, Speaker};
pub use attention::{
    select_deep_reads, Attention, PulledRead, ReadCandidate, ReadFate, DEEP_READ_BYTES,
};
pub use authorization::Authorization;
pub use baton_schema::digest::Digest;
pub use baton_schema::{
    install_pattern_engine, CompiledPattern, Hazard, InvalidPattern, PatternEngine, PatternError,
    Schema, SchemaCache, SchemaError, Validation, ValidationIssue, MAX_SCHEMA_BYTES,
    MAX_SCHEMA_DEPTH,
};
pub use changes::{ChangedBy, Changes, UndoConflict, UndoScope};
pub use config::{EngineConfig, PresencePolicy, PREVIEW_TIMEOUT_MS};
pub use context::{Context, Origin, ReadRef, ReadStamp};
pub use delegation::{Delegation, PlannedCall, MAX_THREAD_BYTES};
pub use engine::{
    ActorsView, AddGrant, Adopt, Answer, AttachPresence, Authorize, Decline, Delegate,
    DetachPresence, Disable, Discard, Dismiss, EditCall, Enable, Engine, EngineSnapshot, Input,
    InterruptAll, Kill, KillScope, ParseManifest, PatchAgentState, Pause, Postpone, PublishRead,
    PullReads, QuestionsView, Reconcile, Register, RegisterText, Reject, ReleaseFinished,
    ResolveEscalation, Resume, ReviewCutOff, RevokeGrant, RunView, SetAgentState, Signal, Stop,
    TakeOffered, Undo, Unregister, WithdrawRead, Written, CALL_SETTLES_MS, FINISHED_RUNS_KEPT,
};
pub use error::{
    schema_requirement, AgentStateError, CommandError, DelegateError, InvalidOptions,
    MutationRefused, PublishError, RegistrationRefused, ReportError,
};
pub use error_code::ErrorCode;
pub use event::{Effect, Event, Finding, FindingReason, UndoFailure, UndoReport, FINDINGS_KEPT};
pub use grants::{Decision, Grant, GrantError, GrantScope, Grants, ListedGrant};
pub use host::{HostEvent, StorageMode, StorageStatus};
pub use ids::{
    CallId, CapabilityRef, MarkToken, ParticipantId, QuestionId, RunId, SessionId, TurnId,
    WIRE_SEPARATOR,
};
pub use journal::{
    verify_export, Actor, CallReport, CallResult, ExportChain, ExportError, ExportSummary,
    JournalEntry, JournalRecord, QuestionClosure, Refusal, EXPORT_FORMAT,
};
pub use manifest::{
    is_external_verb, ArgumentError, CapabilityDecl, EffectDecl, History, Manifest, ManifestError,
    ManifestProblem, ReadDecl, Tier, EXTERNAL_VERBS, EXTERNAL_VERB_ENDS,
};
pub use model::{Autonomy, Budget, Initiative, Usage};
pub use patch::{apply_patch, apply_patch_within, json_len, PatchError};
pub use protocol::{
    check_version, DeepRead, Direction, Inbound, IndexEntry, ProtocolError, ProtocolViolation,
    Script, ScriptError, ScriptTurn, ScriptedEvent, StreamLimits, TraceContext, TraceContextError,
    TurnOutcome, TurnRequest, TurnVerifier, Verified, Violation, WireEvent, WireEventError,
    PROTOCOL_VERSION,
};
pub use questions::{
    Acceptance, AgentCall, AnswerError, AnswerOutcome, AnswerReport, Asker, Counters, Question,
    QuestionState, Questions, Reconciliation,
};
pub use registry::{Mounted, RegisterError, Registry, Tool};
pub use report::{HostFailure, Report, ReportRefusal};
pub use run::binding::fingerprint;
pub use run::closing::{CutOff, Waiting};
pub use run::decisions::EscalationSheet;
pub use run::listing::{
    page_of_runs, ListError, RunListing, RunsPage, RunsQuery, RUNS_PAGE_DEFAULT, RUNS_PAGE_MAX,
};
pub use run::review::{ProposedChange, ReviewAgain, ReviewItem, ReviewSheet, StaleRead};
pub use run::{PlanSource, ProposedCall, Run};
pub use state::{
    BudgetLimit, CancelReason, EscalationReason, Outcome, Resolution, ReturnReason, RunState,
    StateName, TurnLane,
};
