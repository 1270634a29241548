// Type declarations of the npm package `baton-engine`.
//
// Every shape the engine serialises (journal records, events, effects,
// states, reasons, review sheets, listings) is declared in `data.d.ts`,
// generated from the core's Rust types, and re-exported here. Written by
// hand here: the classes' API, and the shapes an application hands in
// (manifests, delegation requests, options), which the engine reads field
// by field and refuses unknown fields of.

import type {
  ActorIdentity, ActorRef, Autonomy, Budget, CallId, CapabilityRef, CoreEvent, Counters,
  CutOffRun, DeepRead, Digest, Direction, EscalationSheet, ExportSummary, Grant, UndoConflict, Acceptance,
  HistoryMode, HostEvent, Initiative, JournalRecord, ManifestProblem, MarkToken, Origin, ParticipantId,
  PresencePolicy, StorageStatus, Question, QuestionId, Resolution, ReviewAgain, ReviewSheet, RunId,
  RunListing, RunsPage, RunsQuery, RunState, Script, SessionId, Tier, Tool, TraceContext, TurnId,
  TurnLane, TurnRequest, UndoReport, Usage, Validation, WireEvent,
} from "./data.js";
export type * from "./data.js";

// ----- loading ----------------------------------------------------------------

/** What `init` accepts: where to fetch the engine's WebAssembly from, its bytes, or a compiled module. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/** What `init` resolves with: the WebAssembly instance's exports, its linear memory among them. */
export interface InitOutput {
  readonly memory: WebAssembly.Memory;
}

/** Loads and instantiates the engine's WebAssembly (next to this file by default); safe to call more than once. */
export default function init(input?: InitInput | Promise<InitInput>): Promise<InitOutput>;

// ----- errors -----------------------------------------------------------------

/** The stable codes of the errors Baton throws; each names what was refused. */
export type BatonErrorCode =
  /** `Engine.open` was given options it does not know or cannot use. */
  | "invalid-options"
  /** Not running in a browser window with a document. */
  | "no-window"
  /** Another live engine drives this session. */
  | "session-in-use"
  /** Storage could not be opened. */
  | "storage-failed"
  /** The engine a handle belongs to is closed. */
  | "closed"
  /** Something that cannot happen did; a bug to report. */
  | "internal"
  /** A transport is not usable: no `openTurn`, another protocol (AG-45), a bad script. */
  | "invalid-transport"
  /** A capability was to be invoked through an acting party, and there is no transport (AG-50). */
  | "no-transport"
  /** The transport broke off. */
  | "transport-lost"
  /** A delegation request is not of the expected shape, or lacks its initiative (AG-2). */
  | "invalid-delegation"
  /** Delegation is disabled until `enable()` (AG-10). */
  | "delegation-disabled"
  /** The hourly quota of non-user runs is used up. */
  | "quota-exceeded"
  /** A budget over the engine's maximum, below what was used, or without deadlines. */
  | "invalid-budget"
  /** A fixed plan with no calls (AG-3). */
  | "empty-plan"
  /** Only a paused run (or one whose transport was lost) can be resumed (AG-11). */
  | "not-resumable"
  /** The run offers nothing to review again: a reload did not cut it off while it waited for the person, or it was taken up or discarded already (AG-11). */
  | "not-cut-off"
  /** Only a call the person is reviewing can be edited (approve with edits). */
  | "not-under-review"
  /** Edited arguments refused as the acting party's would be (AG-15, AG-16): see the message. */
  | "invalid-arguments"
  /** No run has this id. */
  | "unknown-run"
  /** The command does not apply in the run's state; terminal states never reopen. */
  | "illegal-transition"
  /** The run changed since the person saw it: look again, then decide. */
  | "stale-revision"
  /** The concrete change is still being rendered; it must be seen first (AG-31). */
  | "preview-pending"
  /** The run cannot be undone (still active, rolled back, or undone already). */
  | "not-undoable"
  /** Participants the run changed were changed since, by the person or another run: undo only the rest, or force it (A.2). */
  | "undo-conflict"
  /** An actor reference this engine did not mint for this session, or for this participant (AG-33). */
  | "invalid-actor"
  /** The escalation is a question: answer, decline, dismiss or postpone it (AG-41). */
  | "answer-required"
  /** An authorization's options are not of the expected shape (AG-7). */
  | "invalid-authorization"
  /** A standing grant was refused: no time to live, or no such scope (AG-30). */
  | "invalid-grant"
  /** A resolution is not one of allow, deny, review, return. */
  | "invalid-resolution"
  /** No question has this id (AG-41). */
  | "unknown-question"
  /** The answer names another request digest than the question was asked with (AG-41). */
  | "digest-mismatch"
  /** The answer does not satisfy the question's schema, or is not text (AG-41). */
  | "invalid-answer"
  /** The question expired (AG-41). */
  | "question-expired"
  /** The question was already closed another way, or answered differently (AG-41). */
  | "question-closed"
  /** A read that is not declared, or on an unmounted participant (AG-27). */
  | "invalid-read"
  /** The to-agent state or its patch is not usable (AG-47). */
  | "invalid-state"
  /** A JSON Schema that cannot be compiled (AG-15). */
  | "invalid-schema"
  /** A value that is not JSON. */
  | "invalid-value"
  /** A number that must be whole is not (a revision, a time, an id). */
  | "invalid-number"
  /** A journal export that is not as it was written: altered, cut short or not an export at all. */
  | "invalid-export";

/** A requirement of the Delegation Contract, e.g. `AG-50`. */
export type Requirement = `AG-${number}`;

/** Every error Baton throws: an `Error` with a stable `code` and, where one is enforced, the requirement it enforces. */
export interface BatonError extends Error {
  /** Always `"BatonError"`. */
  readonly name: "BatonError";
  /** What was refused, stably (match on this, not on the message). */
  readonly code: BatonErrorCode;
  /** The requirement enforced, when the refusal enforces one. */
  readonly requirement?: Requirement;
  /** `undo-conflict`: each participant changed since the run, and who changed it. */
  readonly conflicts?: UndoConflict[];
  /** `undo-conflict`: the participants nothing changed since, which `{ only: "untouched" }` reverts. */
  readonly untouched?: ParticipantId[];
}

/** The `BatonError` class, for `instanceof`; set once `init()` has resolved (undefined before). */
export let BatonError: {
  new (code: string, message: string, requirement?: string): BatonError;
  readonly prototype: BatonError;
};

// ----- vocabulary -------------------------------------------------------------

/**
 * A JSON Schema document, self-contained: nothing is fetched. Draft 2020-12 by default; a
 * `$schema` of 2019-09, draft-07, draft-06 or draft-04 (what `zod-to-json-schema` and most
 * published schemas declare) is compiled with that draft's own semantics (`items` arrays and
 * `additionalItems`, `$recursiveRef`, `dependencies`, `definitions`, a `$ref` that overrides its
 * siblings, draft 04's boolean `exclusiveMaximum`); any other draft is refused with
 * `invalid-schema`. `$ref`
 * within the document, embedded `$id`s, anchors, `$dynamicRef` and the standard 2020-12
 * meta-schemas resolve; a reference that would need the network is refused with `invalid-schema`.
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

// ----- manifests --------------------------------------------------------------

/** A participant's inert declaration (AG-12); unknown fields are refused. */
export interface Manifest {
  /** The participant's id: the first part of its tool names. */
  readonly id: string;
  /** A label for people. */
  readonly label: string;
  /** What it is, for the acting party (AG-14). */
  readonly description: string;
  /** Its maturity tier. */
  readonly tier: Tier;
  /** Whether it keeps a native history. */
  readonly history: HistoryMode;
  /** Whether it renders previews of proposed changes for review (AG-31); `false` by default. */
  readonly preview?: boolean;
  /** The byte limit of arguments without their own limit (AG-16). */
  readonly defaultArgumentLimit?: number | null;
  /** Its capabilities; none by default. */
  readonly capabilities?: readonly CapabilityDeclaration[];
  /** Its reads; none by default. */
  readonly reads?: readonly ReadDeclaration[];
}

/** One capability of a manifest. */
export interface CapabilityDeclaration {
  /** Its name within the participant. */
  readonly name: string;
  /** What it does, for the acting party (AG-14). */
  readonly description: string;
  /** The JSON Schema of its arguments; the root is an object (AG-15). */
  readonly arguments: JsonSchema;
  /** Per-argument byte limits of compact JSON (AG-16). */
  readonly argumentLimits?: { readonly [argument: string]: number };
  /** Its effects, at least one, each with its reversibility (AG-18). */
  readonly effects: readonly EffectDeclaration[];
  /** The most autonomy it allows; it may only demand more control (AG-24). */
  readonly maxAutonomy?: Autonomy | null;
  /** Whether a failure may close the run as `partial` (AG-8); `false` by default. */
  readonly acceptsPartialClose?: boolean;
  /** The reads it acts on; acts against stale versions are refused (AG-20). */
  readonly reads?: readonly string[];
  /**
   * It changes nothing (a query): it declares no effects, may be all a `reads-only` participant
   * exposes, and its calls are nothing to roll back or undo, and no one's change. `false` by default.
   */
  readonly readOnly?: boolean;
}

/** One effect of a capability (AG-18). */
export interface EffectDeclaration {
  /** What it does, e.g. `retitle`; `send…`, `publish…` and `notify…` are irreversible whatever is declared. */
  readonly name: string;
  /** Whether the participant's history can undo it. */
  readonly reversible: boolean;
  /** Whether it leaves the application; `false` by default. */
  readonly external?: boolean;
}

/** One read of a manifest; its version is published at run time (AG-20). */
export interface ReadDeclaration {
  readonly name: string;
  readonly description: string;
  /** Where its content usually comes from; `author` by default. */
  readonly origin?: Origin;
}

// ----- participants -----------------------------------------------------------

/** A participant's native history: one run is one undo step through it (AG-19). */
export interface ParticipantHistory {
  /** Takes a mark before the run's first change; returns its token (anything else fails the mark). */
  mark(): MarkToken | Promise<MarkToken>;
  /** Reverts to a mark this history returned. */
  revertTo(token: MarkToken): void | Promise<void>;
}

/** What a participant does when the engine calls on it; given to `engine.register`. */
export interface Behaviour {
  /**
   * Applies a capability call; its result goes back to the acting party. Throw `Error("declined: …")`
   * to decline without failing the run. Publish the change it makes with `actor`, so it is the run's
   * own; `context.plannedAgainst` holds the versions of this participant's reads the call was planned
   * against, by read name, for a write that holds only if they still do.
   */
  invoke(
    capability: string,
    args: unknown,
    actor: ActorRef,
    context: { plannedAgainst: Record<string, number> },
  ): unknown | Promise<unknown>;
  /** The native history, for participants that declare `"history": "native"`. */
  history?: ParticipantHistory;
  /** Renders the concrete change a planned call would make, for review (AG-31). */
  preview?(capability: string, args: unknown): unknown | Promise<unknown>;
  /** Returns a read's full content when a turn pulls it in. */
  read?(name: string): unknown | Promise<unknown>;
  /** The element the participant owns: `aria-busy` while a call mutates it (AG-40). */
  element?: Element;
  /** The instance name, when one manifest is mounted more than once (AG-23). */
  instance?: string;
}

/**
 * A registered participant. Registration never throws for a manifest's
 * problems (AG-13): a refused participant's `problems` lists them, it
 * offers no tools, and only a call to one of its capabilities fails.
 */
export class Participant {
  private constructor();
  /** The mounted id (`id`, or `id#instance`); for a refused registration the id it would have had, or `""`. */
  readonly id: ParticipantId;
  /** Why the registration was refused; empty when the participant is mounted. */
  readonly problems: ManifestProblem[];
  /**
   * Publishes a read's version (AG-20) and, to make it less trusted than
   * declared, its origin (AG-27): the least trusted of the two counts, so a
   * read declared third-party is never laundered to `author`. `actor` is
   * the reference `invoke` was given, when that call made the change: it is
   * then the run's own. Without it the change is the person's, even while a
   * call is under way (A.2); a reference the engine did not mint for a call
   * to this participant throws `invalid-actor` (AG-33).
   */
  publish(read: string, stamp: { version: number; origin?: Origin; actor?: ActorRef }): void;
  /**
   * The actor reference a change published now is the run's under, as the
   * engine judges it (A.2, AG-32): a state-changing call to this participant
   * that is running, or returned within 100 ms, whose change is not yet
   * published; `null` otherwise (the change is the person's). Pass it on as
   * `publish`'s `actor`, verbatim.
   */
  callActor(): ActorRef | null;
  /** Withdraws a published read. */
  withdraw(read: string): void;
  /** Unmounts the participant; its capabilities are no longer offered. */
  unregister(): void;
  /** Releases the wasm-side handle now instead of at garbage collection. */
  free(): void;
}

// ----- delegation -------------------------------------------------------------

/** One call of a fixed plan. */
export interface PlanStep {
  /** The tool name, `participant.capability`. */
  readonly capability: string;
  /** The arguments; checked against the capability's schema and limits. */
  readonly arguments?: unknown;
}

/** What the person authorizes beyond "yes" (AG-7, AG-30); unknown fields are refused. */
export interface AuthorizeOptions {
  /** The capabilities allowed (tool names, `participant.capability`); by default the ones proposed. */
  readonly allowlist?: readonly string[];
  /** The budget fixed from now on; by default the one asked for. */
  readonly budget?: Budget;
  /** "Always allow these here for a while": a standing `allow` grant on every allowed capability. */
  readonly grant?: { readonly ttlMs: number };
}

/** A standing grant asked for from JS (AG-30). */
export interface GrantRequest {
  /** The participant's manifest id. */
  readonly participant: string;
  /** One capability, or all of the participant's. */
  readonly capability?: string;
  readonly decision: "allow" | "deny";
  /** How long it stands, in milliseconds; required. */
  readonly ttlMs: number;
}

/** One operation of a JSON Patch (RFC 6902). */
export type JsonPatchOperation =
  | { op: "add" | "replace" | "test"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "move" | "copy"; from: string; path: string };

/** A request to delegate; unknown fields are refused. */
export interface DelegateRequest {
  /** What the person wants, verbatim. */
  readonly intent: string;
  /** Why the run exists (AG-2); required — never assumed to be the person. */
  readonly initiative: Initiative;
  /** The person's choice of autonomy, never above the engine's ceiling; `review` by default. */
  readonly autonomy?: Autonomy;
  /** The run's budget; the engine's default when absent. */
  readonly budget?: Budget;
  /** A fixed plan (a macro, a rule): no acting party is involved (AG-3). */
  readonly plan?: readonly PlanStep[];
  /**
   * How this run reaches its acting party, when not through the engine's own transport (a browser
   * agent's session, as `baton-engine/webmcp` runs it); its protocol is checked as the engine's is (AG-45).
   */
  readonly transport?: AnyTransport;
  /**
   * The conversation with the acting party this run continues (1 to 256 bytes): a transport that
   * keeps conversations — AG-UI's `threadId` — puts the run on it instead of its default (one per
   * session, or one per run), and a run that resumes this one continues it too.
   */
  readonly thread?: string;
}

/** How `engine.undo` treats participants changed since the run: revert only the others, or all of them. */
export type UndoOptions = { only: "untouched"; force?: false } | { force: true; only?: undefined };

// ----- protocol baton/1 -------------------------------------------------------

/** A `baton/1` state snapshot. */
export type StateSnapshotWireEvent = Extract<WireEvent, { type: "state-snapshot" }>;
/** A `baton/1` state change as JSON Patch (RFC 6902). */
export type StateDeltaWireEvent = Extract<WireEvent, { type: "state-delta" }>;

// ----- transports -------------------------------------------------------------

/** The transport port: how the engine reaches its acting party, one `openTurn` per turn. */
export interface Transport {
  /** The protocol it speaks; anything but `baton/1` is refused (AG-45). */
  readonly protocolVersion: string;
  /** Streams one turn into `sink`; resolve when the stream ends, reject when the transport is lost; stop on `signal`. */
  openTurn(request: TurnRequest, sink: TurnSink, signal: AbortSignal): void | Promise<void>;
  /**
   * Optional: what became of calls whose outcome the acting party had not heard when their run
   * ended — results not sent yet, and calls never carried out (a rejected plan: `not-carried-out`,
   * with the person's note). A transport that keeps a conversation tells the acting party there.
   */
  settle?(settled: CallsSettledEvent): void;
}

/** Where a transport pushes a turn's events; created by the engine, one per turn. */
export class TurnSink {
  private constructor();
  /** Pushes one `baton/1` event (an object or JSON text); a malformed one ends the turn as an integrity violation. */
  push(event: WireEvent | string): void;
  /** Reports a violation the transport's own decoder found; the turn ends as an integrity violation. */
  report(violation: string): void;
  /** Releases the wasm-side handle now instead of at garbage collection. */
  free(): void;
}

/**
 * A scripted acting party for tests, fixtures and offline demos. The engine plays it in
 * WebAssembly: it has no `openTurn` of its own to call.
 */
export class ScriptedTransport {
  /** Plays `script` (an object or JSON text); one that is not `baton/1` throws `invalid-transport`. */
  constructor(script: Script | string);
  /** Always `baton/1`. */
  readonly protocolVersion: string;
  /** Releases the wasm-side handle now instead of at garbage collection. */
  free(): void;
}

/** Options of `AgUiTransport`. */
export interface AgUiTransportOptions {
  /** The agent's endpoint: each turn POSTs a `RunAgentInput` there and reads Server-Sent Events. */
  readonly url: string;
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Which conversation a delegation continues: one thread per engine session (`"session"`, the
   * default: `threadId` is the session, and every delegation continues the same transcript) or one
   * per delegation (`"run"`: `threadId` is the run). Every request carries the thread's whole
   * transcript either way.
   */
  readonly thread?: "session" | "run";
}

/**
 * AG-UI 1.0 over HTTP POST and Server-Sent Events: one AG-UI run per Baton turn. The engine
 * drives it in WebAssembly end to end — the turn's request in, the response's bytes through the
 * turn's own verifier, the calls settled after a run into the thread's transcript — so it has no
 * `openTurn` or `settle` of its own to call.
 */
export class AgUiTransport {
  /** A transport for the agent at `options.url`. */
  constructor(options: AgUiTransportOptions);
  /** Always `baton/1` toward the engine. */
  readonly protocolVersion: string;
  /** Releases the wasm-side handle now instead of at garbage collection. */
  free(): void;
}

/** What `Engine.open` and `delegate` take as a transport: the port, or one of Baton's own. */
export type AnyTransport = Transport | AgUiTransport | ScriptedTransport;

/**
 * The public half of this origin's approval key (ECDSA P-256), as a JWK with its RFC 7638
 * thumbprint as `kid`. Every decision the person makes about one of an AG-UI agent's own calls
 * goes out in the resume entry's `metadata.approval` as `{record, alg, kid, signature}`, signed
 * with the private half, which WebCrypto keeps non-extractable in IndexedDB. Publish this key to
 * the agent's server; it verifies `signature` over the exact text of `record`.
 */
export function approvalKey(): Promise<ApprovalKey>;

/** See `approvalKey`. */
export interface ApprovalKey {
  readonly kty: "EC";
  readonly crv: "P-256";
  readonly x: string;
  readonly y: string;
  /** The key's RFC 7638 SHA-256 thumbprint, base64url; each signature names it. */
  readonly kid: string;
  readonly alg: "ES256";
  readonly use: "sig";
}

// ----- schemas ----------------------------------------------------------------

/** A compiled JSON Schema (2020-12, or the draft its `$schema` declares): the engine's own validator, for applications. */
export class Schema {
  private constructor();
  /** Compiles a schema (an object or JSON text); an invalid one throws `invalid-schema`. */
  static compile(schema: object | string): Schema;
  /**
   * Validates a value, reporting every problem with its path. A valid value
   * gets one shared, frozen `{ valid: true, errors: [] }`: no error is built.
   */
  validate(value: unknown): Validation;
  /** Validates JSON text as it is (no parse in JS); text that is not JSON throws `invalid-value`. */
  validateJson(text: string): Validation;
  /** Whether a value satisfies the schema, with no error built at all. */
  isValid(value: unknown): boolean;
  /** Whether JSON text satisfies the schema; text that is not JSON throws `invalid-value`. */
  isValidJson(text: string): boolean;
  /** The digest of the schema's canonical JSON. */
  readonly digest: Digest;
  /** Releases the wasm-side handle now instead of at garbage collection. */
  free(): void;
}

// ----- events -----------------------------------------------------------------

/** A journal record, as it is appended. */
export type JournalEvent = Extract<CoreEvent, { type: "journal" }>;
/** An effect the engine carries out. */
export type EffectEvent = Extract<CoreEvent, { type: "effect" }>;
/** A finding. */
export type FindingEvent = Extract<CoreEvent, { type: "finding" }>;
/** A question for the person (AG-41). */
export type QuestionEvent = Extract<CoreEvent, { type: "question" }>;
/** A run above `suggest` started acting with no presence surface attached (AG-35, policy `warn`). */
export type PresenceMissingEvent = Extract<CoreEvent, { type: "presence-missing" }>;
/** The one handoff to the person after unresolved budget exhaustion. */
export type EscalationReceiptEvent = Extract<CoreEvent, { type: "escalation-receipt" }>;
/**
 * Something the person should hear, as the engine decided it (AG-37, AG-39):
 * once per plan or later batch, once when a run needs the person, once when it
 * closes. Its words are written to the live region; surfaces may show it too.
 */
export type AnnouncementEvent = Extract<CoreEvent, { type: "announcement" }>;
/** A run was undone through its participants' histories (A.2). */
export type UndoneEvent = Extract<CoreEvent, { type: "undone" }>;
/** A run ended owing its acting party the outcome of these calls (results not sent, calls never carried out). */
export type CallsSettledEvent = Extract<CoreEvent, { type: "calls-settled" }>;
/** Text from the acting party, as deltas, coalesced per network read. */
export type TextDeltaEvent = Extract<HostEvent, { type: "text" }>;
/** The acting party's own state (AG-47). */
export type AgentStateEvent = Extract<HostEvent, { type: "state" }>;
/** An escape-hatch event from the acting party (AG-46). */
export type AgentCustomEvent = Extract<HostEvent, { type: "custom" }>;
/** The acting party's reasoning, as deltas (an encrypted value carried, never decoded); never announced. */
export type ReasoningEvent = Extract<HostEvent, { type: "reasoning" }>;
/** What the acting party is busy with between messages (a plan, a search), a snapshot or a JSON Patch. */
export type ActivityEvent = Extract<HostEvent, { type: "activity" }>;
/** Persistence fell back to memory; the engine keeps running (§8). */
export type StorageDegradedEvent = Extract<HostEvent, { type: "storage-degraded" }>;
/** A session still held when this engine opened was reconciled once it let go. */
export type StorageReconciledEvent = Extract<HostEvent, { type: "storage-reconciled" }>;
/** A registration was refused (AG-13); replayed to every later subscriber. */
export type RegistrationRefusedEvent = Extract<HostEvent, { type: "registration-refused" }>;
/** A participant was registered or unregistered: `engine.tools()` changed. */
export type ToolsChangedEvent = Extract<HostEvent, { type: "tools-changed" }>;
/** The engine closed (`engine.close()`): the last event its subscribers hear. */
export type ClosedEvent = Extract<HostEvent, { type: "closed" }>;
/** Everything a subscriber or presence surface receives, tagged by `type`. */
export type BatonEvent = CoreEvent | HostEvent;

// ----- the engine -------------------------------------------------------------

/** A presence surface (AG-35): shown while runs act, it receives every event. */
export interface PresenceSurface {
  handleEvent?(event: BatonEvent): void;
}

/** Options of `Engine.open`; unknown fields are refused. */
export interface OpenOptions {
  /** The application's name, in what the person hears. */
  appName?: string;
  /** Who acts, as the person hears it; `Assistant` by default. */
  actorName?: string;
  /** The session to continue; a new one by default. */
  session?: string;
  /** The application's autonomy ceiling (AG-24); `review` by default. */
  ceiling?: Autonomy;
  /** Acting with no presence surface attached: reported (`warn`, default) or refused (`require`). */
  presence?: PresencePolicy;
  /** How to reach the acting party; without one only fixed plans run (AG-50). */
  transport?: AnyTransport;
  /** Where the page's one live region goes when it is created; `document.body` by default. */
  liveRegionParent?: Element;
  /** `indexeddb` (default; falls back to memory and says so) or `memory`. */
  storage?: "indexeddb" | "memory";
  /** The IndexedDB database; `baton` by default. Every session of the origin may share it. */
  dbName?: string;
  /** How much one turn may stream, lane by lane; over a limit the run returns `turn-over-limit`. */
  turnLimits?: TurnLimits;
}

/** Limits of one turn's stream (bounded turns); each 1 MiB by default, 256 open items, 256 tool calls. */
export interface TurnLimits {
  maxTextBytes?: number;
  maxStateBytes?: number;
  maxCustomBytes?: number;
  /** The acting party's reasoning (text, or encrypted values). */
  maxReasoningBytes?: number;
  maxArgumentsBytes?: number;
  maxOpen?: number;
  /** Tool calls one turn may make, one after another. */
  maxCalls?: number;
  /** Messages one turn may start, one after another (said or empty). */
  maxMessages?: number;
}


/**
 * A delegation as the app holds it (`engine.delegate` returns one). Every engine method that
 * takes a run id takes a `Run` too.
 */
export class Run {
  private constructor();
  /** The run's id. */
  readonly id: RunId;
  /**
   * Settles with the run's terminal state — `{ state: "returned", outcome, reason, refused? }` or
   * `{ state: "cancelled", reason }` — once it has ended; never rejects because of how it ended.
   * If the engine closes first, it rejects with `closed` (the next page load reconciles the run).
   * `refused` counts the acting party's calls the engine refused on the way: a run can end
   * `completed` having done less than was asked.
   */
  readonly returned: Promise<Extract<RunState, { state: "returned" | "cancelled" }>>;
  /** Its state now. */
  state(): RunState;
  /** Its review sheet, while it waits for review; otherwise `null`. */
  review(): ReviewSheet | null;
  /** Takes control back (AG-9). */
  stop(): void;
  /**
   * Authorizes its plan at the revision the person saw (`engine.authorize`; a refusal throws); the
   * promise settles as `returned` does, once the authorized plan has run.
   */
  authorize(revision: number, options?: AuthorizeOptions): Run["returned"];
  /** Rejects its plan at the revision the person saw (`engine.reject`); settles as `returned` does. */
  reject(revision: number, note?: string): Run["returned"];
  /** Undoes it in one step (A.2); see `engine.undo`. */
  undo(options?: UndoOptions): Promise<UndoReport>;
  /**
   * Calls `listener` for every event that concerns this run (the engine's `closed` among them);
   * returns a function that unsubscribes.
   */
  subscribe(listener: (event: BatonEvent) => void): () => void;
  /** The id. */
  toString(): RunId;
  toJSON(): RunId;
}

/** A Baton engine in the page: it holds the custody of every delegation. */
export class Engine {
  private constructor();
  /** Opens an engine, creating or joining the page's one polite live region (AG-36). */
  static open(options?: OpenOptions): Promise<Engine>;
  /**
   * Checks an export of `engine.export()`: whole and unaltered, or `invalid-export` naming the first
   * line that is not as it was written (a single changed byte is caught).
   */
  static verifyExport(text: string): ExportSummary;
  /** The session this engine drives. */
  readonly session: SessionId;
  /** Who acts, as the person hears it (`actorName` of `Engine.open`; `Assistant` by default). */
  readonly actorName: string;
  /** Presence surfaces: `attach` returns a function that detaches. */
  readonly presence: { attach(surface: PresenceSurface): () => void };
  /** Mounts a participant from its manifest (object or JSON text) and behaviour; never throws for the manifest's problems (see `Participant.problems`). */
  register(manifest: Manifest | string, behaviour: Behaviour): Participant;
  /** Starts a delegation: a `Run` handle (its `id`, `returned`, and its own commands). */
  delegate(request: DelegateRequest): Run;
  /**
   * Authorizes a reviewed plan at the revision the person saw (AG-7, AG-31).
   * `options` may narrow the allowlist, fix the budget, and make the
   * authorization a standing grant for a while (AG-30).
   */
  authorize(run: RunId | Run, revision: number, options?: AuthorizeOptions): void;
  /** Gives a standing grant (AG-30): "always allow" or "never allow", with a scope and a time to live. */
  grant(request: GrantRequest): Grant;
  /** Every grant, with whether it applies now. */
  grants(): (Grant & { live: boolean })[];
  /** Revokes a grant; whether there was one with this id. */
  revokeGrant(id: number): boolean;
  /**
   * Approve with edits: replaces the arguments of a planned call the person is reviewing, at the
   * revision they saw. Refused as the acting party's would be (`invalid-arguments`, AG-15, AG-16);
   * journalled as the person's act and previewed again; authorizing then binds the edited arguments,
   * and the acting party hears them with the call's result (`editedArgs` over AG-UI).
   */
  editCall(run: RunId | Run, revision: number, call: CallId, arguments: unknown): void;
  /** Rejects a plan under review at the revision the person saw. */
  reject(run: RunId | Run, revision: number, note?: string): void;
  /** Resolves an escalation at the revision the person saw, with one of the resolutions its sheet offers (`invalid-resolution` otherwise: drift is reviewed again, never allowed as it stands, AG-29). Allowing a pending call approves that call alone, and waits, like `authorize`, until its preview has arrived (AG-31). */
  resolveEscalation(run: RunId | Run, revision: number, resolution: Resolution): void;
  /** Pauses a run: it returns, resumable by a chained run (AG-11). */
  pause(run: RunId | Run): void;
  /** Resumes a paused run, or one whose transport was lost with nothing rolled back: a new, chained run (AG-11). */
  resume(run: RunId | Run, budget?: Budget): Run;
  /**
   * What a reload cut off while it waited for the person — a plan under review, a call to allow, a
   * question — offered again, until the person takes it up or discards it (A.2, AG-11).
   */
  cutOff(): CutOffRun[];
  /**
   * Puts what a cut-off run showed the person before them again, as a new run chained to it
   * (AG-11): the plan under review, its calls previewed again against the reads as they are now (an
   * act planned on a read that changed since is marked stale), or the question. Returns the new
   * run's id; throws `not-cut-off` when nothing is offered under that id.
   */
  reviewAgain(run: RunId | Run): Run;
  /** Discards what a cut-off run offers: journalled on it as the person's act, offered no more. */
  discard(run: RunId | Run): void;
  /** Takes control back: the run returns `aborted` (AG-9). */
  stop(run: RunId | Run): void;
  /** The global kill (AG-10): stops every active run of every engine in the page and of the origin's other tabs (over a BroadcastChannel), announced once; returns how many runs of this page it ended. */
  killAll(): number;
  /** Sets the `to-agent` state every later turn carries to the acting party (AG-47; AG-UI `state`); `null` sends none. */
  setAgentState(state: unknown): void;
  /** Updates the `to-agent` state with a JSON Patch (RFC 6902); a patch that does not apply changes nothing and throws `invalid-state`. */
  patchAgentState(patch: readonly JsonPatchOperation[]): void;
  /** The `to-agent` state the next turn carries. */
  readonly agentState: unknown;
  /** Refuses new delegations until `enable()`. */
  disable(): void;
  /** Accepts delegations again. */
  enable(): void;
  /** Answers a question with its request digest; validated, failing closed (AG-41). */
  answer(question: QuestionId, digest: Digest, answer: unknown): Acceptance;
  /** Declines a question; the run goes on without the answer. */
  decline(question: QuestionId): void;
  /** Dismisses a question. */
  dismiss(question: QuestionId): void;
  /** Hides a question until `until` (milliseconds since the epoch). */
  postpone(question: QuestionId, until: number): void;
  /**
   * Undoes a returned run through its participants' histories: one run, one undo step. A participant
   * the person or a later run changed since is not reverted blindly: the promise rejects with
   * `undo-conflict` (its `conflicts` and `untouched`), journalled and said; undo again with
   * `{ only: "untouched" }` or `{ force: true }` (A.2). If the engine closes before the undo
   * finishes, the promise rejects with `closed`.
   */
  undo(run: RunId | Run, options?: UndoOptions): Promise<UndoReport>;
  /** Calls `listener` for every event; returns a function that unsubscribes. */
  subscribe(listener: (event: BatonEvent) => void): () => void;
  /**
   * Distributed tracing of turns: `hook` is called as each turn opens and names the turn's span in
   * W3C Trace Context, which the engine checks and sends with the turn (AG-UI: `traceparent` and
   * `tracestate` headers; any other transport: `request.trace`). A context that is not Trace Context
   * is not sent; `null` stops it; without a hook nothing is sent. `baton-engine/otel` sets it.
   */
  traceTurns(hook: ((run: RunId, turn: TurnId) => TraceContext | null | undefined) | null): void;
  /** A run's state. */
  state(run: RunId | Run): RunState;
  /** A run's current revision. */
  revision(run: RunId | Run): number;
  /** The review sheet of a plan under review, or of the one call an escalation asks the person to allow (AG-31); otherwise `null`. */
  review(run: RunId | Run): ReviewSheet | null;
  /** The tools the acting party is offered: every capability of every mounted participant. */
  tools(): Tool[];
  /** The escalation sheet of an escalated run: its reason and the resolutions offered; otherwise `null`. */
  escalation(run: RunId | Run): EscalationSheet | null;
  /** A run's journal records, oldest first (this page load's runs). */
  journal(run: RunId | Run): JournalRecord[];
  /**
   * The history of delegations, newest first and paged (`after: page.next`): this engine's runs and
   * every run its IndexedDB database holds, those of earlier page loads included.
   */
  runs(query?: RunsQuery): Promise<RunsPage>;
  /** A run's whole journal from IndexedDB, runs of earlier page loads included. */
  history(run: RunId | Run): Promise<JournalRecord[]>;
  /**
   * The journal of every run, as JSON Lines for an audit trail kept elsewhere: a header, one line
   * per record (run, revision, time, actor, entry), each carrying the SHA-256 of the line before,
   * and a closing line that counts them. `since` (ms) keeps the records journalled at or after it.
   */
  export(options?: { since?: number }): Promise<string>;
  /** Where the engine keeps its state. */
  readonly storage: Readonly<StorageStatus>;
  /** The session's questions. */
  questions(): Question[];
  /** What an actor reference names, or `null` for one this engine did not mint (AG-33). */
  resolveActor(reference: string): ActorIdentity | null;
  /** Content-free counts for a badge. */
  counters(): Counters;
  /**
   * Closes the engine: no timer, listener or open turn stays behind; the live
   * region stays for other engines. Afterwards every method and getter throws
   * a `BatonError` with code `closed`; closing again does nothing. Subscribers hear
   * `{ type: "closed" }` last, and an undo under way rejects with `closed`.
   */
  close(): void;
}
