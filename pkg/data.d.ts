// Generated from baton-core's types by `crates/baton-core/tests/typescript.rs`;
// do not edit. Change the Rust type (its fields, serde attributes and doc
// comments) and run `BATON_WRITE_TYPES=1 cargo test -p baton-core --features
// typescript --test typescript`.
//
// Numbers: every integer is a JavaScript number (no count or time the engine
// serialises reaches 2^53).

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

/**
 * One delegation. Minted by the engine as `<session>/r<n>`.
 */
export type RunId = string;

/**
 * The long-lived identity that runs belong to (one engine drives one session).
 */
export type SessionId = string;

/**
 * A participant: a component that registered a manifest.
 */
export type ParticipantId = string;

/**
 * A capability call, named by the acting party (tool-call id) or, for a
 * fixed plan, by the engine (`p<n>`). Unique within its run.
 */
export type CallId = string;

/**
 * A question to the person, minted by the engine as `<session>/q<n>`.
 */
export type QuestionId = string;

/**
 * One exchange with the acting party, numbered from 1 within its run.
 */
export type TurnId = number;

/**
 * An opaque token returned by a participant's native history when asked
 * for a mark; handed back exactly as given when reverting. Histories hand
 * out strings (`"h42"`) or numbers (a stack depth), so both are kept, the
 * number as the very same number.
 */
export type MarkToken = string | number;

/**
 * An opaque actor reference, as handed to participants.
 */
export type ActorRef = string;

/**
 * A SHA-256 digest, shown and serialized as lowercase hex.
 */
export type Digest = string;

/**
 * How far a run may go without the person, from least to most.
 */
export type Autonomy = "suggest" | "review" | "auto";

/**
 * Why a run exists (AG-2). Every run carries one.
 */
export type Initiative = "user" | "system" | "scheduled";

/**
 * Where a read's content came from (AG-27), ordered from most to least
 * trusted. Anything but `author` is untrusted content as far as autonomy
 * is concerned (AG-28).
 */
export type Origin = "author" | "imported" | "third-party";

/**
 * The answer to the contract's open decision D.1 (AG-35): observable by
 * default, a hard refusal for applications that want one.
 */
export type PresencePolicy = "warn" | "require";

/**
 * The limits of one run, fixed when it is authorized.
 *
 * A turn is charged when it is reserved, before anything is sent; a call is
 * charged when it is dispatched. Charges are never refunded: a failed or
 * timed-out turn has consumed its share.
 */
export type Budget = {
  /**
   * Exchanges with the acting party, the planning turn included.
   */
  maxTurns: number,
  /**
   * Capability calls dispatched, correctable refusals included.
   */
  maxCalls: number,
  /**
   * Milliseconds from the run's creation until it must have returned.
   */
  runDeadlineMs: number,
  /**
   * Milliseconds a single turn may stay open (the deadman timer).
   */
  turnDeadlineMs: number,
};

/**
 * The address of a capability: which participant, which of its capabilities.
 */
export type CapabilityRef = {
  /**
   * The participant that declared the capability.
   */
  participant: ParticipantId,
  /**
   * The capability's name inside that participant's manifest.
   */
  capability: string,
};

/**
 * The address of a read: which participant, which of its reads.
 */
export type ReadRef = {
  /**
   * The participant that exposes the read.
   */
  participant: ParticipantId,
  /**
   * The read's name inside that participant's manifest.
   */
  read: string,
};

/**
 * A read as it stood at one moment: its version and origin (AG-20, AG-27).
 */
export type ReadStamp = {
  /**
   * Which read.
   */
  read: ReadRef,
  /**
   * Its version; an act planned against another version is stale.
   */
  version: number,
  /**
   * Where its content came from.
   */
  origin: Origin,
};

/**
 * The snapshot of reads taken when a turn opens, ordered by read.
 */
export type Context = {
  /**
   * Every published read, ordered by [`ReadRef`].
   */
  reads: Array<ReadStamp>,
};

/**
 * What a manifest may expose (AG-17).
 */
export type Tier = "reads-only" | "reversible-acts" | "full-acts";

/**
 * Whether the participant keeps a native history the engine can mark and
 * revert to (AG-19).
 */
export type HistoryMode = "native" | "none";

/**
 * One thing wrong with a manifest.
 */
export type ManifestProblem = {
  /**
   * Where, as a JSON path (`$.capabilities[0].description`).
   */
  path: string,
  /**
   * The requirement broken, if one is (`AG-14`).
   */
  requirement: `AG-${number}` | null,
  /**
   * What is wrong.
   */
  message: string,
};

/**
 * Why an argument was refused (AG-15, AG-16). Never a truncation.
 */
export type ArgumentError =
  | { "kind": "not-an-object" }
  | {
    "kind": "too-large",
    /**
     * The argument.
     */
    argument: string,
    /**
     * Its limit in bytes of compact JSON.
     */
    limit: number,
    /**
     * Its size.
     */
    size: number,
  }
  | { "kind": "schema" } & ValidationIssue;

/**
 * A standing decision of the person.
 */
export type Grant = {
  /**
   * The grant's id.
   */
  id: number,
  /**
   * What it covers.
   */
  scope: GrantScope,
  /**
   * What it decides.
   */
  decision: Decision,
  /**
   * When it was given.
   */
  grantedAt: number,
  /**
   * When it lapses.
   */
  expiresAt: number,
  /**
   * The participant's capability set it was given against.
   */
  capabilitySet: Digest,
};

/**
 * What a grant covers.
 */
export type GrantScope = {
  /**
   * The participant, as the acting party addresses it (its manifest id).
   */
  participant: ParticipantId,
  /**
   * One capability, or every capability of the participant.
   */
  capability: string | null,
};

/**
 * What a grant decides.
 */
export type Decision = "allow" | "deny";

/**
 * How the person resolves an escalation.
 */
export type Resolution =
  | {
    "kind": "allow",
    /**
     * A replacement budget; it may only be raised relative to usage.
     */
    budget?: Budget | null,
  }
  | { "kind": "deny" }
  | { "kind": "review" }
  | { "kind": "return" };

/**
 * Who made a change.
 */
export type ChangedBy =
  | { "kind": "person" }
  | {
    "kind": "run",
    /**
     * The run.
     */
    run: RunId,
  };

/**
 * A participant a run changed that something else changed after it.
 */
export type UndoConflict = {
  /**
   * The participant.
   */
  participant: ParticipantId,
  /**
   * Who changed it since the run did.
   */
  changedBy: ChangedBy,
};

/**
 * What an undo did, once every participant has answered (or run out of time).
 */
export type UndoReport = {
  /**
   * The run undone.
   */
  run: RunId,
  /**
   * The participants reverted, in the order they were.
   */
  reverted: Array<ParticipantId>,
  /**
   * The participants whose revert failed, with why.
   */
  failed: Array<UndoFailure>,
};

/**
 * A participant whose revert failed during an undo.
 */
export type UndoFailure = {
  /**
   * The participant.
   */
  participant: ParticipantId,
  /**
   * What went wrong.
   */
  message: string,
};

/**
 * The typed outcome of a returned run (AG-5).
 */
export type Outcome = "completed" | "partial" | "rolled-back" | "aborted" | "error";

/**
 * A limit of the [`Budget`].
 */
export type BudgetLimit = "turns" | "calls";

/**
 * Who holds control of a run. Terminal states never reopen.
 */
export type RunState =
  | { "state": "offered" }
  | { "state": "planned" }
  | { "state": "reviewing" }
  | { "state": "authorized" }
  | { "state": "acting" }
  | {
    "state": "escalated",
    /**
     * Why control went to the person.
     */
    reason: EscalationReason,
  }
  | {
    "state": "returned",
    /**
     * What happened.
     */
    outcome: Outcome,
    /**
     * Why.
     */
    reason: ReturnReason,
    /**
     * How many of the acting party's calls the engine refused on the
     * way (invalid arguments, undeclared tools, denied, …): a run can
     * finish `completed` having done less than was asked, and says so.
     */
    refused?: number,
  }
  | {
    "state": "cancelled",
    /**
     * Why.
     */
    reason: CancelReason,
  };

/**
 * The name of a [`RunState`].
 */
export type StateName = "offered" | "planned" | "reviewing" | "authorized" | "acting" | "escalated" | "returned" | "cancelled";

/**
 * The kind of rule that was broken: the stable `code` of an integrity
 * finding, of a run that ended for one, and of a dialect adapter's refusal.
 */
export type ProtocolViolation = "not-json" | "framing" | "not-an-event" | "unknown-event-type" | "out-of-order" | "already-open" | "not-open" | "left-open" | "too-many-open" | "over-limit" | "wrong-direction" | "wrong-thread" | "duplicate-call" | "duplicate-question" | "too-many-questions" | "illegal-transition" | "unclassified";

/**
 * Why a report was refused: the stable code of a
 * [`crate::FindingReason::ReportRefused`] finding.
 */
export type ReportRefusal = "unknown-run" | "run-ended" | "no-such-call" | "not-waiting-for";

/**
 * Why a run returned.
 */
export type ReturnReason =
  | { "kind": "finished" }
  | { "kind": "plan-completed" }
  | { "kind": "user-interrupt" }
  | { "kind": "kill" }
  | { "kind": "paused" }
  | { "kind": "interrupted" }
  | { "kind": "escalation-returned" }
  | {
    "kind": "review-rejected",
    /**
     * The person's words, if any.
     */
    note: string,
  }
  | { "kind": "escalation-timeout" }
  | { "kind": "question-expired" }
  | { "kind": "presence-missing" }
  | {
    "kind": "budget-exhausted",
    /**
     * Which limit ran out.
     */
    limit: BudgetLimit,
  }
  | { "kind": "turn-deadman" }
  | { "kind": "run-deadline" }
  | {
    "kind": "turn-failed",
    /**
     * What the transport said.
     */
    message: string,
  }
  | {
    "kind": "agent-error",
    /**
     * The status it answered (HTTP).
     */
    status: number,
    /**
     * What it said, cut to a few hundred characters.
     */
    message: string,
  }
  | {
    "kind": "transport-lost",
    /**
     * What the transport said.
     */
    message: string,
  }
  | {
    "kind": "integrity-violation",
    /**
     * The kind of rule broken: a stable code.
     */
    code: ProtocolViolation,
    /**
     * What was wrong.
     */
    finding: string,
  }
  | {
    "kind": "turn-over-limit",
    /**
     * Which lane.
     */
    lane: TurnLane,
    /**
     * Its limit, in bytes.
     */
    limit: number,
  }
  | {
    "kind": "plan-refused",
    /**
     * The refused call.
     */
    call: CallId,
    /**
     * Its capability.
     */
    capability: CapabilityRef,
    /**
     * Why it was refused: the refusal's code (`invalid-arguments`,
     * `stale`, …); the journal's `call-refused` record has it whole.
     */
    refusal: string,
  }
  | {
    "kind": "call-failed",
    /**
     * The failing capability.
     */
    capability: CapabilityRef,
    /**
     * What it said.
     */
    message: string,
  }
  | {
    "kind": "mark-failed",
    /**
     * The participant.
     */
    participant: ParticipantId,
    /**
     * What it said.
     */
    message: string,
  }
  | {
    "kind": "rollback-failed",
    /**
     * What made the rollback necessary.
     */
    cause: ReturnReason,
    /**
     * The participants that did not confirm their revert.
     */
    participants: Array<ParticipantId>,
  };

/**
 * Why a run was cancelled before anything was authorized.
 */
export type CancelReason =
  | {
    "kind": "rejected",
    /**
     * The person's words, if any.
     */
    note: string,
  }
  | { "kind": "no-plan" };

/**
 * Why a run is escalated (AG-6).
 */
export type EscalationReason =
  | {
    "kind": "out-of-scope",
    /**
     * The capability asked for.
     */
    capability: CapabilityRef,
  }
  | {
    "kind": "budget-exhausted",
    /**
     * Which one.
     */
    limit: BudgetLimit,
  }
  | {
    "kind": "review-required",
    /**
     * The call.
     */
    call: CallId,
    /**
     * Its capability.
     */
    capability: CapabilityRef,
  }
  | {
    "kind": "drift",
    /**
     * The reads that changed.
     */
    reads: Array<ReadRef>,
  }
  | { "kind": "authorization-expired" }
  | {
    "kind": "awaiting-answer",
    /**
     * The question.
     */
    question: QuestionId,
  };

/**
 * A lane of a turn's stream whose size is bounded (bounded turns).
 */
export type TurnLane = "text" | "state" | "custom" | "reasoning";

/**
 * What a run has consumed of its budget.
 */
export type Usage = {
  /**
   * Turns reserved so far.
   */
  turns: number,
  /**
   * Calls dispatched so far.
   */
  calls: number,
};

/**
 * One record of a run's journal. Records are append-only; `revision` starts
 * at 1 and increases by exactly one per record, so a store can detect gaps.
 */
export type JournalRecord = {
  /**
   * The run the record belongs to.
   */
  run: RunId,
  /**
   * The run's revision after this record.
   */
  revision: number,
  /**
   * When it happened (milliseconds, the engine's clock input).
   */
  at: number,
  /**
   * Who caused it.
   */
  actor: JournalActor,
  /**
   * What happened.
   */
  entry: JournalEntry,
};

/**
 * Who caused a journal record.
 */
export type JournalActor =
  | { "kind": "person" }
  | { "kind": "acting-party" }
  | { "kind": "engine" }
  | {
    "kind": "participant",
    /**
     * Which one.
     */
    participant: ParticipantId,
  };

/**
 * What a journal record says happened.
 */
export type JournalEntry =
  | {
    "kind": "created",
    /**
     * The person's intent, verbatim.
     */
    intent: string,
    /**
     * Why the run exists.
     */
    initiative: Initiative,
    /**
     * The budget asked for.
     */
    budget: Budget,
    /**
     * The run this one resumes, if it is a chained resume (AG-11).
     */
    resumes: RunId | null,
    /**
     * The run-level autonomy the person's choice resolved to (AG-24,
     * AG-26). Absent from records written before it was kept.
     */
    autonomy?: Autonomy,
  }
  | {
    "kind": "transition",
    /**
     * The state before.
     */
    from: StateName,
    /**
     * The state after, with its payload.
     */
    to: RunState,
  }
  | {
    "kind": "turn-reserved",
    /**
     * The turn.
     */
    turn: TurnId,
    /**
     * When its deadman timer fires.
     */
    deadlineAt: number,
    /**
     * The snapshot of reads the turn opens with.
     */
    context: Context,
    /**
     * Whether the run's context, this turn's reads included, holds
     * content from outside the author, which lowers the ceiling one
     * step (the origin clamp, AG-28).
     */
    clamped?: boolean,
  }
  | {
    "kind": "turn-ended",
    /**
     * The turn.
     */
    turn: TurnId,
    /**
     * How many calls it proposed.
     */
    proposed: number,
  }
  | {
    "kind": "said",
    /**
     * The turn.
     */
    turn: TurnId,
    /**
     * The acting party's id for the message.
     */
    message: string,
    /**
     * What it said.
     */
    text: string,
  }
  | {
    "kind": "agent-acted",
    /**
     * The turn.
     */
    turn: TurnId,
    /**
     * The acting party's id for the call.
     */
    call: CallId,
    /**
     * The tool, as the acting party named it.
     */
    tool: string,
    /**
     * Its arguments.
     */
    arguments: JsonValue,
    /**
     * What it produced.
     */
    result: JsonValue,
  }
  | {
    "kind": "authorized",
    /**
     * The capabilities the run may call.
     */
    allowlist: Array<CapabilityRef>,
    /**
     * The fixed budget.
     */
    budget: Budget,
    /**
     * The fingerprint of the reads it was computed on (AG-29).
     */
    fingerprint: Digest,
    /**
     * When it lapses.
     */
    expiresAt: number,
  }
  | {
    "kind": "reauthorized",
    /**
     * The new fingerprint.
     */
    fingerprint: Digest,
    /**
     * The reads that changed.
     */
    drifted: Array<ReadRef>,
  }
  | {
    "kind": "reads-pulled",
    /**
     * The turn.
     */
    turn: TurnId,
    /**
     * Every read of the turn's context, most attended first.
     */
    reads: Array<PulledRead>,
  }
  | {
    "kind": "review-superseded",
    /**
     * The read that changed.
     */
    read: ReadRef,
  }
  | {
    "kind": "mark-requested",
    /**
     * The participant.
     */
    participant: ParticipantId,
  }
  | {
    "kind": "mark-taken",
    /**
     * The participant.
     */
    participant: ParticipantId,
    /**
     * Its opaque token.
     */
    token: MarkToken,
  }
  | {
    "kind": "call-dispatched",
    /**
     * The call.
     */
    call: CallId,
    /**
     * Its capability.
     */
    capability: CapabilityRef,
    /**
     * Its arguments.
     */
    arguments: JsonValue,
    /**
     * The read versions it was planned against (AG-20).
     */
    plannedAgainst: Array<ReadStamp>,
    /**
     * Who acted inside the acting party, outermost first: the
     * subagents it was made through (empty: the acting party
     * itself).
     */
    via?: Array<string>,
    /**
     * The autonomy it was resolved to (AG-24 … AG-28). Absent from
     * records written before it was kept.
     */
    autonomy?: Autonomy,
    /**
     * Whether the turn's context held content from outside the author,
     * which lowers the ceiling one step (the origin clamp, AG-28).
     */
    clamped?: boolean,
    /**
     * The participant's maturity tier (AG-17).
     */
    tier?: Tier,
  }
  | {
    "kind": "call-finished",
    /**
     * The call.
     */
    call: CallId,
    /**
     * How.
     */
    result: CallResult,
  }
  | {
    "kind": "call-refused",
    /**
     * The call.
     */
    call: CallId,
    /**
     * Its capability.
     */
    capability: CapabilityRef,
    /**
     * Why.
     */
    refusal: Refusal,
  }
  | {
    "kind": "preview-rendered",
    /**
     * The call.
     */
    call: CallId,
    /**
     * Why it failed, if it did.
     */
    error: string | null,
  }
  | {
    "kind": "question-asked",
    /**
     * The question.
     */
    question: QuestionId,
    /**
     * The digest an answer must repeat.
     */
    digest: Digest,
  }
  | {
    "kind": "question-postponed",
    /**
     * The question.
     */
    question: QuestionId,
    /**
     * Until when.
     */
    until: number,
  }
  | {
    "kind": "question-closed",
    /**
     * The question.
     */
    question: QuestionId,
    /**
     * How it closed.
     */
    outcome: QuestionClosure,
  }
  | {
    "kind": "rollback-started",
    /**
     * Participants to revert, in the order they will be asked.
     */
    participants: Array<ParticipantId>,
  }
  | {
    "kind": "reverted",
    /**
     * The participant.
     */
    participant: ParticipantId,
    /**
     * `None` when the revert succeeded, else what went wrong.
     */
    error: string | null,
  }
  | {
    "kind": "escalation-receipt",
    /**
     * The escalation that went unresolved.
     */
    reason: EscalationReason,
  }
  | {
    "kind": "undone",
    /**
     * The participants to revert, last touched first.
     */
    participants: Array<ParticipantId>,
    /**
     * Participants changed since the run, left as they are (the person
     * chose to undo only the others).
     */
    kept?: Array<UndoConflict>,
    /**
     * Participants changed since the run, reverted anyway (the person
     * forced the undo).
     */
    overridden?: Array<UndoConflict>,
  }
  | {
    "kind": "undo-held",
    /**
     * Each, and who changed it.
     */
    conflicts: Array<UndoConflict>,
  }
  | {
    "kind": "offered-again",
    /**
     * What they were shown.
     */
    waiting: Waiting,
  }
  | {
    "kind": "call-edited",
    /**
     * The call.
     */
    call: CallId,
    /**
     * Its arguments now, a full replacement of those proposed.
     */
    arguments: JsonValue,
  }
  | {
    "kind": "offer-settled",
    /**
     * Whether a chained run puts it before the person again.
     */
    reviewedAgain: boolean,
  };

/**
 * Where a participant stands in the person's attention, most attended
 * first.
 */
export type Attention = "focus" | "viewport" | "elsewhere";

/**
 * What became of one read of a turn's context.
 */
export type ReadFate =
  | {
    "kind": "pulled",
    /**
     * Its size in bytes of JSON text.
     */
    bytes: number,
  }
  | {
    "kind": "over-budget",
    /**
     * Its size in bytes of JSON text.
     */
    bytes: number,
    /**
     * The budget.
     */
    budget: number,
  }
  | {
    "kind": "unavailable",
    /**
     * Why.
     */
    reason: string,
  };

/**
 * One read of a turn's context, as the person may see it afterwards.
 */
export type PulledRead = {
  /**
   * The read, its version and origin.
   */
  stamp: ReadStamp,
  /**
   * Its participant's place in the person's attention.
   */
  attention: Attention,
  /**
   * Whether its content went, and why.
   */
  fate: ReadFate,
};

/**
 * How a dispatched capability call ended, as its participant reports it.
 */
export type CallResult =
  | {
    "kind": "applied",
    /**
     * The handler's result.
     */
    value: JsonValue,
  }
  | {
    "kind": "refused",
    /**
     * Why, typed.
     */
    refusal: Refusal,
  }
  | {
    "kind": "failed",
    /**
     * What went wrong.
     */
    message: string,
  };

/**
 * Why a call was answered without being applied. Every refusal is
 * correctable: the run goes on and the acting party can re-read and re-plan.
 */
export type Refusal =
  | { "code": "undeclared-capability" }
  | {
    "code": "invalid-arguments",
    /**
     * Every problem found.
     */
    errors: Array<ArgumentError>,
  }
  | {
    "code": "stale",
    /**
     * The read.
     */
    read: ReadRef,
    /**
     * The version the act was planned against.
     */
    planned: number | null,
    /**
     * The version now; `None` if the read is gone.
     */
    current: number | null,
  }
  | { "code": "denied" }
  | {
    "code": "declined",
    /**
     * What the participant said.
     */
    message: string,
  }
  | {
    "code": "not-carried-out",
    /**
     * How the run ended: its reason's `kind` (`rejected`,
     * `user-interrupt`, `kill`, …).
     */
    reason: string,
    /**
     * The person's words, when they rejected it with some.
     */
    note?: string | null,
  }
  | {
    "code": "registration-refused",
    /**
     * Each problem, with its requirement and JSON path.
     */
    problems: Array<ManifestProblem>,
  };

/**
 * How a question closed.
 */
export type QuestionClosure =
  | {
    "kind": "answered",
    /**
     * The digest of the answer.
     */
    answerDigest: Digest,
  }
  | { "kind": "declined" }
  | { "kind": "dismissed" }
  | { "kind": "expired" }
  | { "kind": "withdrawn" };

/**
 * What a verified export holds.
 */
export type ExportSummary = {
  /**
   * The session whose engine wrote it.
   */
  session: string,
  /**
   * The time it starts at (ms).
   */
  since: number,
  /**
   * Its records.
   */
  records: number,
  /**
   * The runs they belong to.
   */
  runs: number,
};

/**
 * One of the acting party's own calls, put to the person for approval.
 * Read back by hand (`read.rs`).
 */
export type AgentCall = {
  /**
   * The acting party's id for the call.
   */
  call: CallId,
  /**
   * The tool, as the acting party named it.
   */
  tool: string,
  /**
   * Its arguments, as streamed.
   */
  arguments: JsonValue,
};

/**
 * Who asked. Read back by hand (`read.rs`).
 */
export type Asker =
  | {
    "kind": "acting-party",
    /**
     * The acting party's id for the request.
     */
    request: string,
    /**
     * When it asks the person to approve one of its own calls (an
     * AG-UI interrupt about a tool call): that call, as it streamed it
     * — what the person reviews, and (being part of the asker) bound
     * into the question's digest, so an answer names what was shown.
     */
    approval?: AgentCall | null,
  }
  | {
    "kind": "engine",
    /**
     * The call whose address is ambiguous.
     */
    call: CallId,
    /**
     * The instances it could mean.
     */
    candidates: Array<ParticipantId>,
  };

/**
 * Where a question stands. Read back by hand (`read.rs`).
 */
export type QuestionState =
  | { "state": "open" }
  | {
    "state": "postponed",
    /**
     * When it comes back.
     */
    until: number,
  }
  | {
    "state": "answered",
    /**
     * The answer.
     */
    answer: JsonValue,
    /**
     * Its digest, to recognise an identical retry.
     */
    answerDigest: Digest,
    /**
     * When.
     */
    at: number,
    /**
     * The run's revision after the answer was recorded.
     */
    revision: number,
  }
  | {
    "state": "declined",
    /**
     * When.
     */
    at: number,
  }
  | {
    "state": "dismissed",
    /**
     * When.
     */
    at: number,
  }
  | {
    "state": "expired",
    /**
     * When.
     */
    at: number,
  }
  | {
    "state": "withdrawn",
    /**
     * When.
     */
    at: number,
  };

/**
 * A question to the person. Stored as JSON and read back by hand
 * (`read.rs`): serde's derived reader for its tagged parts buffers every
 * value and costs the browser runtime kilobytes.
 */
export type Question = {
  /**
   * Its id.
   */
  id: QuestionId,
  /**
   * The run that waits for it.
   */
  run: RunId,
  /**
   * Who asked.
   */
  asker: Asker,
  /**
   * What is asked, in words.
   */
  prompt: string,
  /**
   * The schema the answer must satisfy; without one the answer is text.
   */
  schema: JsonValue | null,
  /**
   * When it was asked.
   */
  askedAt: number,
  /**
   * When it expires.
   */
  deadlineAt: number,
  /**
   * The digest of the exact request; an answer must repeat it.
   */
  digest: Digest,
  /**
   * Where it stands.
   */
  state: QuestionState,
  /**
   * Bumped by every change of state.
   */
  revision: number,
};

/**
 * The engine's confirmation that an answer was accepted. An identical
 * retry returns the same acceptance.
 */
export type Acceptance = {
  /**
   * The question.
   */
  question: QuestionId,
  /**
   * The run.
   */
  run: RunId,
  /**
   * The digest of the accepted answer.
   */
  answerDigest: Digest,
  /**
   * When it was accepted.
   */
  at: number,
  /**
   * The run's revision after the answer was recorded.
   */
  revision: number,
};

/**
 * Content-free counts for a badge: what is pending, never what it says.
 */
export type Counters = {
  /**
   * Questions and escalations waiting for the person now.
   */
  actionRequired: number,
  /**
   * Runs waiting for review.
   */
  awaitingReview: number,
  /**
   * Runs waiting for the acting party (a turn is open).
   */
  awaitingAgent: number,
  /**
   * Open questions past their deadline (overlaps `action_required`).
   */
  overdue: number,
  /**
   * Runs that returned with outcome `error`.
   */
  failed: number,
};

/**
 * What happened to a question, for the acting party. Read back by hand
 * (`read.rs`).
 */
export type AnswerOutcome =
  | {
    "kind": "answered",
    /**
     * The answer.
     */
    answer: JsonValue,
  }
  | { "kind": "declined" }
  | { "kind": "dismissed" }
  | {
    "kind": "refused",
    /**
     * Why.
     */
    reason: string,
  }
  | { "kind": "expired" };

/**
 * What the acting party hears about its question in the next turn.
 */
export type AnswerReport = {
  /**
   * The acting party's request id.
   */
  request: string,
  /**
   * What happened.
   */
  outcome: AnswerOutcome,
  /**
   * When the person decided about one of the acting party's own calls:
   * the decision record, as the exact text a transport signs: the
   * question's digest, the call and the words shown, the decision and
   * its time, keys sorted.
   */
  record?: string,
};

/**
 * The concrete change one planned act would make.
 */
export type ProposedChange =
  | { "kind": "pending" }
  | {
    "kind": "preview",
    /**
     * What the participant returned.
     */
    value: JsonValue,
  }
  | {
    "kind": "arguments",
    /**
     * The arguments exactly as the act would receive them.
     */
    arguments: JsonValue,
    /**
     * Why no preview is shown, if one was expected.
     */
    note: string | null,
  };

/**
 * One planned act under review.
 */
export type ReviewItem = {
  /**
   * The call.
   */
  call: CallId,
  /**
   * Its capability as the acting party addressed it.
   */
  capability: CapabilityRef,
  /**
   * Its arguments, exactly as the act would receive them: what the
   * person edits (approve with edits).
   */
  arguments: JsonValue,
  /**
   * The participant's label, for people.
   */
  participantLabel: string | null,
  /**
   * Whether the act has an irreversible effect (AG-18, AG-25).
   */
  irreversible: boolean,
  /**
   * The change.
   */
  change: ProposedChange,
  /**
   * Set when a read this act was planned against has changed since —
   * the person's own edit, say: the plan is superseded, and authorizing
   * it has this act refused as stale and planned again by the acting
   * party against the read as it is now (AG-20, A.2).
   */
  stale: StaleRead | null,
  /**
   * The person changed its arguments (approve with edits).
   */
  edited?: boolean,
  /**
   * The subagents the acting party proposes it through, outermost first
   * (empty: the acting party itself).
   */
  via?: Array<string>,
  /**
   * Its participant's maturity tier (AG-17), when the capability names
   * one participant.
   */
  tier?: Tier,
};

/**
 * A read an act under review was planned against, and how it moved since.
 */
export type StaleRead = {
  /**
   * The read.
   */
  read: ReadRef,
  /**
   * The version the acting party planned against.
   */
  planned: number | null,
  /**
   * The version now, if it is still published.
   */
  current: number | null,
};

/**
 * Everything the person reviews before authorizing a run.
 */
export type ReviewSheet = {
  /**
   * The run.
   */
  run: RunId,
  /**
   * The revision to authorize at (the fence).
   */
  revision: number,
  /**
   * The person's intent.
   */
  intent: string,
  /**
   * The run-level autonomy.
   */
  autonomy: Autonomy,
  /**
   * The fingerprint of the reads the plan was computed on (AG-29).
   */
  fingerprint: Digest,
  /**
   * Whether the reads the plan was made with hold content from outside
   * the author, which lowered the ceiling one step (the origin clamp,
   * AG-28).
   */
  clamped: boolean,
  /**
   * The planned acts, in order.
   */
  items: Array<ReviewItem>,
  /**
   * Whether every preview has arrived.
   */
  ready: boolean,
  /**
   * Set when the person approved this plan before and must look again:
   * what changed since. A surface says so, so the new review is not
   * mistaken for the old one.
   */
  again: ReviewAgain | null,
};

/**
 * Why a plan the person already approved is before them once more.
 */
export type ReviewAgain =
  | {
    "kind": "drift",
    /**
     * The reads that changed.
     */
    reads: Array<ReadRef>,
  }
  | { "kind": "authorization-expired" }
  | {
    "kind": "cut-off",
    /**
     * The run the reload cut off.
     */
    run: RunId,
  };

/**
 * An escalated run, as the person decides it.
 */
export type EscalationSheet = {
  /**
   * The run.
   */
  run: RunId,
  /**
   * The revision to resolve at (the fence).
   */
  revision: number,
  /**
   * The person's intent.
   */
  intent: string,
  /**
   * Why the run waits.
   */
  reason: EscalationReason,
  /**
   * The run's budget now.
   */
  budget: Budget,
  /**
   * What it has used of it.
   */
  usage: Usage,
  /**
   * The ways to resolve it, the one that lets the run go on first.
   */
  choices: Array<Resolution>,
};

/**
 * What the person was shown when the run was cut off.
 */
export type Waiting = "review" | "answer";

/**
 * A run a reload cut off while it waited for the person, offered again.
 */
export type CutOffRun = {
  /**
   * The cut-off run.
   */
  run: RunId,
  /**
   * The person's intent.
   */
  intent: string,
  /**
   * What the person was shown.
   */
  waiting: Waiting,
};

/**
 * One run as a history lists it.
 */
export type RunListing = {
  /**
   * The run.
   */
  run: RunId,
  /**
   * The session that holds it now (a run a reload cut off is adopted by
   * the session that offers it again).
   */
  session: string,
  /**
   * The person's intent, verbatim.
   */
  intent: string,
  /**
   * Who started it (AG-2).
   */
  initiative: Initiative,
  /**
   * Its state.
   */
  state: RunState,
  /**
   * How it ended, once it has returned.
   */
  outcome: Outcome | null,
  /**
   * When it was started, in milliseconds since the epoch.
   */
  createdAt: number,
  /**
   * When it ended, if it has (unknown for a run stored before this was
   * kept).
   */
  endedAt: number | null,
  /**
   * The run it chains to (AG-11), if any.
   */
  resumes: RunId | null,
  /**
   * Whether a reload cut it off while it waited for the person and it can
   * be reviewed again (`engine.reviewAgain`).
   */
  reviewableAgain: boolean,
  /**
   * Whether it was paused and can be resumed (`engine.resume`).
   */
  resumable: boolean,
  /**
   * Whether it was undone.
   */
  undone: boolean,
};

/**
 * One page of the history.
 */
export type RunsPage = {
  /**
   * Newest first.
   */
  runs: Array<RunListing>,
  /**
   * Where the next page starts (its query's `after`), if there is one.
   */
  next: RunId | null,
};

/**
 * Which page of the history to list.
 */
export type RunsQuery = {
  /**
   * At most this many runs (1 to [`RUNS_PAGE_MAX`]).
   */
  limit: number,
  /**
   * The runs listed after this one: the `next` of the page before.
   */
  after: RunId | null,
  /**
   * Only the runs this session holds.
   */
  session: string | null,
};

/**
 * What a genuine reference names.
 */
export type ActorIdentity = {
  /**
   * The session of the engine that minted it.
   */
  session: SessionId,
  /**
   * The run.
   */
  run: RunId,
  /**
   * The capability call.
   */
  call: CallId,
  /**
   * The subagents the acting party made the call through, outermost
   * first (empty: the acting party itself). Part of what the reference
   * is keyed over: altering the chain is forging the reference.
   */
  via?: Array<string>,
};

/**
 * Which way state flows (AG-47).
 */
export type Direction = "to-agent" | "from-agent";

/**
 * How the acting party ended a turn.
 */
export type TurnOutcome = "completed" | "interrupted" | "cancelled";

/**
 * One event of protocol `baton/1`.
 *
 * It is read by hand ([`WireEvent::from_value`], which its `Deserialize`
 * uses) rather than by serde's derive for internally tagged enums, which
 * buffers every event and costs the browser runtime tens of kilobytes.
 */
export type WireEvent =
  | { "type": "turn-started" }
  | {
    "type": "turn-finished",
    /**
     * How.
     */
    outcome: TurnOutcome,
  }
  | {
    "type": "turn-error",
    /**
     * What the acting party said.
     */
    message: string,
    /**
     * Its code, if any.
     */
    code?: string | null,
  }
  | {
    "type": "message-start",
    /**
     * Its id.
     */
    message: string,
    /**
     * Who speaks (`assistant` by default).
     */
    role?: string | null,
  }
  | {
    "type": "message-delta",
    /**
     * The message.
     */
    message: string,
    /**
     * The text.
     */
    delta: string,
  }
  | {
    "type": "message-end",
    /**
     * The message.
     */
    message: string,
  }
  | {
    "type": "tool-call-start",
    /**
     * Its id.
     */
    call: string,
    /**
     * The tool, `participant.capability`.
     */
    tool: string,
    /**
     * The message it belongs to.
     */
    parentMessage?: string | null,
    /**
     * The subagents the acting party makes it through, outermost
     * first (empty: the acting party itself).
     */
    via?: Array<string>,
  }
  | {
    "type": "tool-call-args",
    /**
     * The call.
     */
    call: string,
    /**
     * A piece of the arguments' JSON text.
     */
    delta: string,
  }
  | {
    "type": "tool-call-end",
    /**
     * The call.
     */
    call: string,
  }
  | {
    "type": "tool-call-result",
    /**
     * The call.
     */
    call: string,
    /**
     * What it produced.
     */
    content: JsonValue,
  }
  | {
    "type": "elicitation",
    /**
     * The acting party's id for the request.
     */
    request: string,
    /**
     * What to ask.
     */
    prompt: string,
    /**
     * The schema the answer must satisfy.
     */
    schema?: JsonValue | null,
    /**
     * When the acting party stops waiting for the answer (epoch ms).
     */
    expiresAt?: number | null,
    /**
     * One of the acting party's own calls of this turn (a tool the
     * turn did not declare) that it asks the person to approve.
     */
    call?: string | null,
  }
  | {
    "type": "state-snapshot",
    /**
     * Which way.
     */
    direction: Direction,
    /**
     * The state.
     */
    snapshot: JsonValue,
  }
  | {
    "type": "state-delta",
    /**
     * Which way.
     */
    direction: Direction,
    /**
     * The operations.
     */
    patch: JsonValue,
  }
  | {
    "type": "reasoning",
    /**
     * The reasoning message (for an encrypted value, the entity it
     * belongs to).
     */
    message: string,
    /**
     * A piece of its text, or the encrypted value.
     */
    delta: string,
    /**
     * Whether `delta` is an encrypted value.
     */
    encrypted?: boolean,
  }
  | {
    "type": "activity",
    /**
     * The activity's message.
     */
    message: string,
    /**
     * Its kind (`PLAN`, `SEARCH`, as the acting party names it).
     */
    activity: string,
    /**
     * The whole activity, or (with `patch`) a JSON Patch to it.
     */
    content: JsonValue,
    /**
     * Whether `content` is a JSON Patch (RFC 6902).
     */
    patch?: boolean,
  }
  | {
    "type": "custom",
    /**
     * What it is.
     */
    name: string,
    /**
     * Its payload.
     */
    value: JsonValue,
  };

/**
 * A capability as the acting party sees it: a tool.
 */
export type Tool = {
  /**
   * `participant.capability`.
   */
  name: string,
  /**
   * The capability's description (AG-14).
   */
  description: string,
  /**
   * The argument schema, exactly as declared (AG-15).
   */
  parameters: JsonValue,
  /**
   * It changes nothing: a query (MCP's `readOnlyHint`).
   */
  readOnly?: boolean,
  /**
   * One of its effects cannot be undone, or leaves the application
   * (AG-18): always reviewed (AG-25).
   */
  irreversible?: boolean,
  /**
   * It acts on a read whose content comes from elsewhere (imported, or
   * third parties'), so its result may carry it (AG-27).
   */
  untrustedContent?: boolean,
};

/**
 * One entry of the context index: enough for the acting party to know a
 * participant or a read exists, what it is, and how current it is.
 */
export type IndexEntry = {
  /**
   * `participant`, or `participant.read`.
   */
  id: string,
  /**
   * `participant` or `read`.
   */
  type: string,
  /**
   * A label for people.
   */
  label: string,
  /**
   * What it is, in a sentence (the manifest's description).
   */
  summary: string,
  /**
   * A read's version when the turn opened.
   */
  version?: number | null,
  /**
   * A read's origin when the turn opened (AG-27).
   */
  origin?: Origin | null,
};

/**
 * A read's full content, pulled into this turn.
 */
export type DeepRead = {
  /**
   * The read, `participant.read`.
   */
  id: string,
  /**
   * Its version and origin.
   */
  stamp: ReadStamp,
  /**
   * Its content.
   */
  content: JsonValue,
};

/**
 * A call's result as the acting party will see it in the next turn.
 */
export type CallReport = {
  /**
   * The call.
   */
  call: CallId,
  /**
   * Its capability.
   */
  capability: CapabilityRef,
  /**
   * What happened.
   */
  result: CallResult,
  /**
   * The arguments the person set in review, in place of those the acting
   * party proposed (approve with edits): the call ran with these.
   */
  edited?: JsonValue | null,
};

/**
 * What the engine sends to open a turn.
 */
export type TurnRequest = {
  /**
   * The protocol.
   */
  protocol: string,
  /**
   * The session (a thread, in dialects that have them).
   */
  session: SessionId,
  /**
   * The run.
   */
  run: RunId,
  /**
   * The turn.
   */
  turn: TurnId,
  /**
   * The person's intent.
   */
  intent: string,
  /**
   * The conversation the app named for the run (`delegate({ thread })`),
   * if any: a transport that keeps conversations continues that one.
   */
  thread?: string,
  /**
   * The capabilities, as tools (AG-14, AG-15).
   */
  tools: Array<Tool>,
  /**
   * The read stamps the turn opened with (version and origin of each).
   */
  context: Context,
  /**
   * The always-present index of participants and reads.
   */
  index: Array<IndexEntry>,
  /**
   * The deep reads selected for this turn.
   */
  reads: Array<DeepRead>,
  /**
   * Results of the calls since the previous turn.
   */
  results: Array<CallReport>,
  /**
   * What became of the acting party's questions.
   */
  answers: Array<AnswerReport>,
  /**
   * Context state for the acting party (AG-47, `to-agent`).
   */
  state: JsonValue,
  /**
   * The turn's span in the app's distributed trace, when the app traces
   * its delegations (`baton-engine/otel`): a transport sends it on, as
   * AG-UI sends `traceparent` and `tracestate` headers.
   */
  trace?: TraceContext,
};

/**
 * A turn's place in a distributed trace, as W3C Trace Context carries it.
 */
export type TraceContext = {
  /**
   * `version-traceid-parentid-flags`, lowercase hex: the turn's span.
   */
  traceparent: string,
  /**
   * Vendors' entries, carried as given.
   */
  tracestate?: string,
};

/**
 * One event of a scripted turn.
 */
export type ScriptedEvent = {
  /**
   * Milliseconds after the turn opened.
   */
  atMs: number,
  /**
   * The event.
   */
  event: WireEvent,
};

/**
 * One turn of a [`Script`].
 */
export type ScriptTurn = {
  /**
   * The events, in order.
   */
  events: Array<ScriptedEvent>,
};

/**
 * A scripted acting party: pure JSON data, one entry per turn, each a list
 * of events with virtual-time offsets. It drives the conformance fixtures
 * and the offline demo actor.
 */
export type Script = {
  /**
   * The protocol the script speaks (AG-45).
   */
  protocol: "baton/1",
  /**
   * What it plays, turn by turn.
   */
  turns: Array<ScriptTurn>,
};

/**
 * One way a value fails a schema.
 */
export type ValidationIssue = {
  /**
   * JSON Pointer to the failing part of the value (`""` is the root).
   */
  instancePath: string,
  /**
   * The schema keyword that failed (`type`, `format`, `required`, …).
   */
  keyword: string,
  /**
   * A sentence a person or an acting party can act on.
   */
  message: string,
};

/**
 * The result of [`Schema::validate`]: every issue, not only the first.
 */
export type Validation = {
  /**
   * Whether the value satisfies the schema.
   */
  valid: boolean,
  /**
   * Every issue found, in the validator's order (a valid result is
   * shared and frozen in the browser: read-only).
   */
  errors: ReadonlyArray<ValidationIssue>,
};

/**
 * Everything the engine produces, in order, from [`crate::Engine::poll_event`].
 */
export type CoreEvent =
  | { "type": "journal" } & JournalRecord
  | { "type": "effect" } & Effect
  | { "type": "finding" } & Finding
  | { "type": "question" } & Question
  | {
    "type": "presence-missing",
    /**
     * The run.
     */
    run: RunId,
  }
  | {
    "type": "escalation-receipt",
    /**
     * The run.
     */
    run: RunId,
    /**
     * The escalation that went unresolved.
     */
    reason: EscalationReason,
  }
  | { "type": "announcement" } & Announcement
  | {
    "type": "calls-settled",
    /**
     * The run.
     */
    run: RunId,
    /**
     * What became of each call.
     */
    results: Array<CallReport>,
  }
  | {
    "type": "undone",
    /**
     * What was reverted and what failed.
     */
    report: UndoReport,
  };

/**
 * A request to the host. Each names what to report back and where.
 */
export type Effect =
  | {
    "kind": "open-turn",
    /**
     * The run.
     */
    run: RunId,
    /**
     * The turn to address inbound traffic to.
     */
    turn: TurnId,
    /**
     * When the engine gives up on it.
     */
    deadlineAt: number,
    /**
     * What to send: intent, tools, context, results, answers. The host
     * adds the deep reads it selects and its `to-agent` state.
     */
    request: TurnRequest,
  }
  | {
    "kind": "cancel-turn",
    /**
     * The run.
     */
    run: RunId,
    /**
     * The turn.
     */
    turn: TurnId,
  }
  | {
    "kind": "mark",
    /**
     * The run.
     */
    run: RunId,
    /**
     * The participant.
     */
    participant: ParticipantId,
  }
  | {
    "kind": "invoke",
    /**
     * The run.
     */
    run: RunId,
    /**
     * The call.
     */
    call: CallId,
    /**
     * What to invoke: the mounted participant and its capability.
     */
    capability: CapabilityRef,
    /**
     * With what; already checked against the schema and byte limits.
     */
    arguments: JsonValue,
    /**
     * The read versions the call was planned against (AG-20).
     */
    plannedAgainst: Array<ReadStamp>,
    /**
     * Who causes the change, to pass on verbatim (AG-32, AG-34).
     */
    actor: ActorRef,
  }
  | {
    "kind": "preview",
    /**
     * The run.
     */
    run: RunId,
    /**
     * The planned call.
     */
    call: CallId,
    /**
     * The mounted participant and capability.
     */
    capability: CapabilityRef,
    /**
     * The arguments the act would receive.
     */
    arguments: JsonValue,
  }
  | {
    "kind": "revert",
    /**
     * The run.
     */
    run: RunId,
    /**
     * The participant.
     */
    participant: ParticipantId,
    /**
     * The token from its mark.
     */
    token: MarkToken,
  };

/**
 * What was wrong with the traffic.
 */
export type FindingReason =
  | { "kind": "unknown-run" }
  | { "kind": "outside-open-turn" }
  | { "kind": "after-turn-ended" }
  | {
    "kind": "integrity",
    /**
     * The kind of rule broken: a stable code.
     */
    code: ProtocolViolation,
    /**
     * What was wrong.
     */
    detail: string,
  }
  | {
    "kind": "report-refused",
    /**
     * Why, as a stable code.
     */
    code: ReportRefusal,
    /**
     * Why, in words.
     */
    detail: string,
  }
  | {
    "kind": "unreadable-result",
    /**
     * The call.
     */
    call: CallId,
    /**
     * Why it could not be read.
     */
    detail: string,
  };

/**
 * Traffic that broke the rules. Recorded, never acted on.
 */
export type Finding = {
  /**
   * When.
   */
  at: number,
  /**
   * The run it was addressed to, if any.
   */
  run: RunId | null,
  /**
   * The turn it was addressed to, if any.
   */
  turn: TurnId | null,
  /**
   * What was wrong.
   */
  reason: FindingReason,
};

/**
 * Something the person should hear.
 */
export type Announcement = {
  /**
   * Whose act it reports.
   */
  speaker: Speaker,
  /**
   * The runs it is about: one, or every run a kill ended.
   */
  runs: Array<RunId>,
  /**
   * What happened.
   */
  said: Said,
};

/**
 * Whose act an announcement reports (AG-37: announcements are attributed).
 */
export type Speaker = "acting-party" | "person";

/**
 * How a run ended, in the terms a person uses (AG-39).
 */
export type Ending = "done" | "answered-without-changes" | "partly-done" | "rolled-back" | "stopped" | "paused" | "rejected" | "interrupted" | "failed";

/**
 * What an announcement reports, tagged by `kind`.
 */
export type Said =
  | {
    "kind": "acting",
    /**
     * The person's intent.
     */
    intent: string,
    /**
     * How many changes the plan or batch proposes.
     */
    changes: number,
    /**
     * The labels of the participants it changes, in order.
     */
    participants: Array<string>,
    /**
     * Whether this is a later batch, not the reviewed plan.
     */
    later: boolean,
    /**
     * The subagents the acting party acts through, outermost first,
     * when every change of the batch is made through the same ones
     * (the announcement names the innermost, for the acting party).
     */
    via?: Array<string>,
  }
  | {
    "kind": "needs-you",
    /**
     * The person's intent.
     */
    intent: string,
    /**
     * Why.
     */
    reason: EscalationReason,
  }
  | {
    "kind": "closed",
    /**
     * The person's intent.
     */
    intent: string,
    /**
     * How, in plain terms.
     */
    ending: Ending,
    /**
     * The typed reason's code (`call-failed`, `turn-deadman`, …).
     */
    reason: string,
    /**
     * How many of its calls were refused on the way.
     */
    refused?: number,
  }
  | {
    "kind": "killed",
    /**
     * How many.
     */
    count: number,
  }
  | {
    "kind": "undo-held",
    /**
     * The person's intent.
     */
    intent: string,
    /**
     * The labels of the participants the person changed since.
     */
    changedByYou: Array<string>,
    /**
     * The labels of the participants other runs changed since.
     */
    changedByRuns: Array<string>,
  }
  | {
    "kind": "undone",
    /**
     * The person's intent.
     */
    intent: string,
    /**
     * The labels of the participants reverted.
     */
    reverted: Array<string>,
    /**
     * The labels of the participants whose revert failed.
     */
    failed: Array<string>,
  };

/**
 * What subscribers and presence surfaces hear beside the custody
 * machine's events, tagged by `type`.
 */
export type HostEvent =
  | {
    "type": "text",
    /**
     * The run.
     */
    run: RunId,
    /**
     * The message the text belongs to.
     */
    message: string,
    /**
     * The text.
     */
    delta: string,
  }
  | {
    "type": "state",
    /**
     * The run.
     */
    run: RunId,
    /**
     * Which way it went.
     */
    direction: Direction,
    /**
     * The snapshot or the change.
     */
    event: Extract<WireEvent, { type: "state-snapshot" | "state-delta" }>,
  }
  | {
    "type": "reasoning",
    /**
     * The run.
     */
    run: RunId,
    /**
     * The reasoning message.
     */
    message: string,
    /**
     * A piece of its text, or an encrypted value.
     */
    delta: string,
    /**
     * Whether `delta` is an encrypted value (never decoded).
     */
    encrypted: boolean,
  }
  | {
    "type": "activity",
    /**
     * The run.
     */
    run: RunId,
    /**
     * The activity's message.
     */
    message: string,
    /**
     * Its kind, as the acting party names it.
     */
    activity: string,
    /**
     * The whole activity, or (with `patch`) a JSON Patch to it.
     */
    content: JsonValue,
    /**
     * Whether `content` is a JSON Patch.
     */
    patch: boolean,
  }
  | {
    "type": "custom",
    /**
     * The run.
     */
    run: RunId,
    /**
     * What it is.
     */
    name: string,
    /**
     * Its value, as the acting party sent it.
     */
    value: JsonValue,
  }
  | {
    "type": "storage-degraded",
    /**
     * Why.
     */
    cause: string,
  }
  | {
    "type": "storage-reconciled",
    /**
     * The session.
     */
    session: SessionId,
    /**
     * Runs and questions ended.
     */
    ended: number,
    /**
     * Runs offered again.
     */
    offered: number,
  }
  | {
    "type": "unreadable-row",
    /**
     * The object store it is in (`runs`, `journal`).
     */
    store: string,
    /**
     * Its key: a run's id, or a run's id and the journal row's place.
     */
    key: string,
    /**
     * Why it could not be read.
     */
    reason: string,
  }
  | {
    "type": "registration-refused",
    /**
     * The id it would have been mounted under, when the manifest says.
     */
    participant: ParticipantId | null,
    /**
     * Each problem, with its requirement and JSON path.
     */
    problems: Array<ManifestProblem>,
  }
  | { "type": "tools-changed" }
  | { "type": "closed" };

/**
 * Where an engine keeps its state.
 */
export type StorageMode = "indexeddb" | "memory";

/**
 * What `engine.storage` reports.
 */
export type StorageStatus = {
  /**
   * `indexeddb` while writing there; `memory` by choice or after a
   * failure.
   */
  mode: StorageMode,
  /**
   * Why the engine fell back to memory, if it did.
   */
  degraded?: string,
  /**
   * The database, when IndexedDB is used.
   */
  dbName?: string,
  /**
   * Transactions committed: one per engine step that changed anything
   * (group commit).
   */
  transactions: number,
  /**
   * Journal records committed.
   */
  records: number,
  /**
   * Runs that sessions no longer alive had left active, ended
   * `interrupted` when this engine opened.
   */
  reconciled: number,
};
