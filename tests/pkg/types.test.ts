// Compile-time tests of baton-engine's type declarations (pkg/baton.d.ts),
// checked with `npx tsc --noEmit -p tests/pkg`. Nothing here runs: correct
// usage must compile, and every `@ts-expect-error` line must be an error
// (tsc fails on a directive that suppresses nothing).

import init, {
  AgUiTransport,
  BatonError,
  Engine,
  Participant,
  Schema,
  ScriptedTransport,
  TurnSink,
} from "baton-engine";
import type {
  Acceptance,
  ActivityEvent,
  ReasoningEvent,
  ActorIdentity,
  BatonErrorCode,
  InitOutput,
  BatonEvent,
  Behaviour,
  Budget,
  Counters,
  ExportSummary,
  DelegateRequest,
  Digest,
  Effect,
  JournalEntry,
  JournalRecord,
  Manifest,
  OpenOptions,
  Outcome,
  Question,
  Requirement,
  MarkToken,
  Grant,
  ReturnReason,
  ReviewSheet,
  RunState,
  Script,
  StateName,
  Transport,
  TurnRequest,
  UndoReport,
  Ending,
  Run,
  CutOffRun,
  Waiting,
  RunId,
  Validation,
  WireEvent,
} from "baton-engine";
import type { BatonPresence, BatonQuestion, BatonReview } from "baton-engine/elements";

/** `true` exactly when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compiles only when its type argument is `true`. */
function assertType<T extends true>(): void {}
/** Compiles only when a switch left nothing unhandled. */
function exhaustive(value: never): never {
  throw new Error(`unhandled ${JSON.stringify(value)}`);
}

// ----- shapes that must match the Rust serialisation exactly -------------------

assertType<Equal<StateName, "offered" | "planned" | "reviewing" | "authorized" | "acting" | "escalated" | "returned" | "cancelled">>();
assertType<Equal<Extract<RunState, { state: "returned" }>, { state: "returned"; outcome: Outcome; reason: ReturnReason; refused?: number }>>();
assertType<Equal<Outcome, "completed" | "partial" | "rolled-back" | "aborted" | "error">>();
assertType<Equal<Digest, string>>();
assertType<Equal<TurnRequest["turn"], number>>();
assertType<Equal<ReturnType<Engine["delegate"]>, Run>>();
assertType<Equal<Run["id"], string>>();
assertType<Equal<Awaited<Run["returned"]>, Extract<RunState, { state: "returned" | "cancelled" }>>>();
assertType<Equal<ReturnType<Engine["killAll"]>, number>>();
assertType<Equal<ReturnType<Engine["undo"]>, Promise<UndoReport>>>();
assertType<Equal<ReturnType<Engine["review"]>, ReviewSheet | null>>();
assertType<Equal<ReturnType<Engine["resolveActor"]>, ActorIdentity | null>>();
assertType<Equal<ReturnType<Engine["answer"]>, Acceptance>>();
assertType<Equal<ReturnType<typeof init>, Promise<InitOutput>>>();
assertType<Equal<Awaited<ReturnType<typeof init>>["memory"], WebAssembly.Memory>>();
assertType<Equal<Validation["errors"][number], { instancePath: string; keyword: string; message: string }>>();
assertType<Equal<Extract<JournalEntry, { kind: "turn-reserved" }>["deadlineAt"], number>>();
assertType<Equal<Extract<Effect, { kind: "invoke" }>["actor"], string>>();
assertType<Equal<Extract<BatonEvent, { type: "undone" }>["report"], UndoReport>>();
assertType<Equal<BatonErrorCode extends string ? true : false, true>>();

// ----- a manifest and a behaviour ----------------------------------------------

const manifest = {
  id: "tasks",
  label: "Task board",
  tier: "reversible-acts",
  history: "native",
  description: "The team's task board: cards in columns.",
  capabilities: [
    {
      name: "rename",
      description: "Give one card a new title.",
      arguments: {
        type: "object",
        required: ["id", "title"],
        properties: { id: { type: "string" }, title: { type: "string" } },
        additionalProperties: false,
      },
      argumentLimits: { id: 64, title: 200 },
      effects: [{ name: "retitle", reversible: true }],
      maxAutonomy: "auto",
    },
  ],
  reads: [{ name: "cards", description: "Every card on the board.", origin: "author" }],
} as const satisfies Manifest;

const titles: Record<string, string> = {};
const board: Behaviour = {
  invoke(capability, args, actor, { plannedAgainst }) {
    const { id, title } = args as { id: string; title: string };
    if (capability !== "rename") throw new Error(`declined: no capability ${capability}`);
    const planned: number | undefined = plannedAgainst.cards;
    titles[id] = `${title} (by ${actor}, on version ${planned})`;
    return { renamed: id };
  },
  history: {
    mark: async () => "mark-1",
    revertTo(token) {
      void token;
    },
  },
  preview: (_capability, args) => ({ before: null, after: args }),
  read: async (name) => (name === "cards" ? Object.entries(titles) : null),
  element: document.createElement("section"),
  instance: "sprint",
};

// ----- a transport written by the application ----------------------------------

const transport: Transport = {
  protocolVersion: "baton/1",
  async openTurn(request, sink, signal) {
    const first: TurnRequest = request;
    if (signal.aborted) return;
    sink.push({ type: "turn-started" });
    if (first.results.length === 0) {
      sink.push({ type: "tool-call-start", call: "c1", tool: "tasks.rename" });
      sink.push({ type: "tool-call-args", call: "c1", delta: '{"id":"card-1",' });
      sink.push({ type: "tool-call-args", call: "c1", delta: '"title":"Ship"}' });
      sink.push({ type: "tool-call-end", call: "c1" });
      sink.push({ type: "tool-call-start", call: "c2", tool: "tasks.rename", parentMessage: "m0" });
      // @ts-expect-error fields are camelCase on the wire
      sink.push({ type: "tool-call-start", call: "c3", tool: "tasks.rename", parent_message: "m0" });
    } else {
      const result = first.results[0]?.result;
      if (result?.kind === "applied") sink.push({ type: "custom", name: "echo", value: result.value });
      sink.push('{"type":"message-start","message":"m1"}');
      sink.push({ type: "message-delta", message: "m1", delta: "Done." });
      sink.push({ type: "message-end", message: "m1" });
    }
    sink.push({ type: "state-snapshot", direction: "from-agent", snapshot: { step: 2 } });
    sink.push({ type: "elicitation", request: "r1", prompt: "Which column?", schema: { type: "string" } });
    sink.push({ type: "turn-finished", outcome: "completed" });
    // @ts-expect-error a tool call names its tool
    sink.push({ type: "tool-call-start", call: "c2" });
    // @ts-expect-error turn outcomes are completed | interrupted | cancelled
    sink.push({ type: "turn-finished", outcome: "done" });
    // @ts-expect-error state travels with a direction (AG-47)
    sink.push({ type: "state-delta", patch: [] });
    // @ts-expect-error no such baton/1 event
    sink.push({ type: "tool-call-chunk", call: "c1", delta: "" });
    sink.report("the dialect broke its framing");
  },
};

const script: Script = {
  protocol: "baton/1",
  turns: [
    {
      events: [
        { atMs: 0, event: { type: "turn-started" } },
        { atMs: 5, event: { type: "turn-finished", outcome: "completed" } },
      ],
    },
  ],
};

// ----- the whole API, used correctly -------------------------------------------

async function usage(): Promise<void> {
  await init();
  await init(new URL("./baton_engine_bg.wasm", import.meta.url));
  await init(fetch("/pkg/baton_engine_bg.wasm"));
  await init(new Uint8Array([0, 97, 115, 109]));

  const options: OpenOptions = {
    appName: "Board",
    actorName: "Helper",
    session: "s-1",
    ceiling: "auto",
    presence: "warn",
    transport,
    liveRegionParent: document.body,
  };
  const engine: Engine = await Engine.open(options);
  const plain = await Engine.open();
  const scripted = await Engine.open({ transport: new ScriptedTransport(script) });
  const fromText = new ScriptedTransport(JSON.stringify(script));
  const agui = await Engine.open({ transport: new AgUiTransport({ url: "/agent", headers: { authorization: "Bearer x" } }) });
  const perRun = await Engine.open({
    transport: new AgUiTransport({ url: "/agent", thread: "run" }),
    turnLimits: { maxTextBytes: 8, maxReasoningBytes: 1 << 16 },
  });
  perRun.subscribe((event) => {
    if (event.type === "reasoning") {
      const thought: ReasoningEvent = event;
      const sealed: boolean = thought.encrypted;
      void [thought.delta, sealed];
    }
    if (event.type === "activity") {
      const busy: ActivityEvent = event;
      void [busy.activity, busy.content, busy.patch];
    }
  });
  const session: string = engine.session;

  const participant: Participant = engine.register(manifest, board);
  const again = plain.register(JSON.stringify(manifest), { invoke: () => undefined, history: { mark: () => 7, revertTo(token: MarkToken) { void token; } } });
  for (const problem of again.problems) {
    const where: string = problem.path;
    const requirement: Requirement | null = problem.requirement;
    void [where, requirement, problem.message];
  }
  const id: string = participant.id;
  participant.publish("cards", { version: 3 });
  participant.publish("cards", { version: 4, origin: "third-party" });
  participant.withdraw("cards");
  participant.unregister();
  again.free();

  const budget: Budget = { maxTurns: 2, maxCalls: 8, runDeadlineMs: 60_000, turnDeadlineMs: 10_000 };
  const request: DelegateRequest = {
    intent: "Rename card 1",
    initiative: "user",
    autonomy: "auto",
    budget,
    plan: [{ capability: "tasks.rename", arguments: { id: "card-1", title: "Ship" } }],
  };
  const handle: Run = engine.delegate(request);
  const run: string = handle.id;
  const settles: Promise<{ state: "returned" | "cancelled" }> = handle.returned;
  void settles;
  handle.subscribe((event) => void event.type)();
  engine.state(handle);
  engine.authorize(handle, engine.revision(handle));
  engine.delegate({ intent: "Tidy the board", initiative: "scheduled" });

  const presence: BatonPresence = document.createElement("baton-presence");
  presence.engine = engine;
  const shown: "idle" | "planning" | "reviewing" | "acting" | "needs-you" | "returned" = presence.state;
  const lastEnding: Ending | "undone" | undefined = presence.ending;
  const undoing: Promise<UndoReport | null> = presence.undo(run, { only: "untouched" });
  const offers: CutOffRun[] = engine.cutOff();
  for (const offer of offers) {
    const waiting: Waiting = offer.waiting;
    if (waiting === "review") {
      const chained: RunId = engine.reviewAgain(offer.run).id;
      void chained;
    } else engine.discard(offer.run);
  }
  void lastEnding;
  void undoing;
  const reviewer: BatonReview = document.createElement("baton-review");
  reviewer.engine = engine;
  reviewer.run = null;
  const asking: BatonQuestion = document.createElement("baton-question");
  asking.engine = engine;
  asking.question = null;
  void shown;
  engine.setAgentState({ focus: "card-1", view: "board" });
  engine.patchAgentState([{ op: "replace", path: "/focus", value: "card-2" }]);
  const toAgent: unknown = engine.agentState;
  void toAgent;

  const revision: number = engine.revision(run);
  engine.authorize(run, revision);
  engine.authorize(run, revision, { allowlist: ["tasks.rename"], grant: { ttlMs: 3_600_000 } });
  const standing: Grant = engine.grant({ participant: "tasks", capability: "rename", decision: "allow", ttlMs: 60_000 });
  for (const grant of engine.grants()) if (grant.live) void grant.expiresAt;
  const revoked: boolean = engine.revokeGrant(standing.id);
  void revoked;
  engine.reject(run, revision);
  engine.reject(run, revision, "not now");
  engine.resolveEscalation(run, revision, { kind: "allow" });
  engine.resolveEscalation(run, revision, { kind: "allow", budget });
  engine.resolveEscalation(run, revision, { kind: "deny" });
  engine.resolveEscalation(run, revision, { kind: "review" });
  engine.resolveEscalation(run, revision, { kind: "return" });
  engine.stop(run);
  const ended: number = engine.killAll();
  engine.disable();
  engine.enable();

  const questions: Question[] = engine.questions();
  const question = questions[0];
  if (question !== undefined) {
    const accepted: Acceptance = engine.answer(question.id, question.digest, { participant: "tasks#backlog" });
    const at: number = accepted.at + question.deadlineAt;
    engine.decline(question.id);
    engine.dismiss(question.id);
    engine.postpone(question.id, Date.now() + 60_000);
    if (question.state.state === "answered") {
      const digest: string = question.state.answerDigest;
      void digest;
    }
    if (question.asker.kind === "engine") {
      const candidates: string[] = question.asker.candidates;
      void candidates;
    }
    void at;
  }

  let report: UndoReport;
  try {
    report = await engine.undo(run);
  } catch (error) {
    // Changed since by the person or a later run: the person chooses (A.2).
    if (!(error instanceof BatonError) || error.code !== "undo-conflict") throw error;
    for (const conflict of error.conflicts ?? []) void `${conflict.participant} by ${conflict.changedBy.kind}`;
    report = (error.untouched ?? []).length ? await engine.undo(run, { only: "untouched" }) : await engine.undo(run, { force: true });
  }
  for (const failure of report.failed) void `${failure.participant}: ${failure.message}`;
  const reverted: string[] = report.reverted;

  const state = engine.state(run);
  switch (state.state) {
    case "returned": {
      const outcome: Outcome = state.outcome;
      if (state.reason.kind === "call-failed") void `${state.reason.capability.participant}.${state.reason.capability.capability}`;
      if (state.reason.kind === "rollback-failed") void state.reason.cause.kind;
      void outcome;
      break;
    }
    case "cancelled":
      void (state.reason.kind === "rejected" ? state.reason.note : "no plan");
      break;
    case "escalated":
      if (state.reason.kind === "awaiting-answer") void state.reason.question;
      break;
    case "offered":
    case "planned":
    case "reviewing":
    case "authorized":
    case "acting":
      break;
    default:
      exhaustive(state);
  }

  const sheet = engine.review(run);
  if (sheet !== null) {
    engine.authorize(sheet.run, sheet.revision);
    for (const item of sheet.items) {
      if (item.change.kind === "arguments") void item.change.note;
    }
  }

  const records: JournalRecord[] = engine.journal(run);
  records.forEach((record, index) => {
    if (record.revision !== index + 1) throw new Error("a gap in the journal");
    const entry = record.entry;
    switch (entry.kind) {
      case "transition":
        void (entry.to.state === "returned" ? entry.to.outcome : entry.from);
        break;
      case "call-finished":
        if (entry.result.kind === "refused" && entry.result.refusal.code === "invalid-arguments") {
          for (const error of entry.result.refusal.errors) {
            if (error.kind === "schema") void error.instancePath;
            if (error.kind === "too-large") void (error.size - error.limit);
          }
        }
        break;
      case "created":
        void (entry.resumes ?? entry.intent);
        break;
      case "turn-reserved":
        void entry.context.reads.map((stamp) => `${stamp.read.participant}.${stamp.read.read}@${stamp.version}`);
        break;
      case "call-dispatched":
        void entry.plannedAgainst;
        break;
      case "reads-pulled":
        for (const read of entry.reads) {
          if (read.fate.kind === "over-budget") void (read.fate.bytes - read.fate.budget);
          void read.attention;
        }
        break;
      case "review-superseded":
        void entry.read.participant;
        break;
      case "authorized":
      case "turn-ended":
      case "reauthorized":
      case "mark-requested":
      case "mark-taken":
      case "call-refused":
      case "preview-rendered":
      case "question-asked":
      case "question-postponed":
      case "question-closed":
      case "rollback-started":
      case "reverted":
      case "escalation-receipt":
        break;
      case "undone":
        void entry.participants.join(", ");
        void entry.kept?.map((conflict) => conflict.participant);
        break;
      case "undo-held":
        for (const conflict of entry.conflicts) {
          const by: string = conflict.changedBy.kind === "run" ? conflict.changedBy.run : "the person";
          void by;
        }
        break;
      case "offered-again": {
        const waiting: "review" | "answer" = entry.waiting;
        void waiting;
        break;
      }
      case "offer-settled": {
        const again: boolean = entry.reviewedAgain;
        void again;
        break;
      }
      case "call-edited":
        void [entry.call, entry.arguments];
        engine.editCall(run, engine.revision(run), entry.call, entry.arguments);
        break;
      case "said":
        void entry.text.length;
        break;
      case "agent-acted":
        void [entry.tool, entry.arguments, entry.result];
        break;
      default:
        exhaustive(entry);
    }
  });

  const unsubscribe: () => void = engine.subscribe((event) => {
    switch (event.type) {
      case "journal":
        if (event.entry.kind === "transition" && event.entry.to.state === "returned") void event.entry.to.outcome;
        void event.run;
        break;
      case "effect":
        if (event.kind === "invoke") void engine.resolveActor(event.actor)?.call;
        if (event.kind === "open-turn") void event.request.tools.map((tool) => tool.name);
        break;
      case "finding":
        void (event.run ?? (event.reason.kind === "integrity" ? event.reason.detail : null));
        break;
      case "question":
        void event.digest;
        break;
      case "presence-missing":
        void event.run;
        break;
      case "escalation-receipt":
        void event.reason.kind;
        break;
      case "text":
        void event.delta;
        break;
      case "state":
        void (event.event.type === "state-snapshot" ? event.event.snapshot : event.event.patch);
        break;
      case "custom":
        void event.value;
        break;
      case "storage-degraded":
        void event.cause;
        break;
      case "storage-reconciled":
        void (event.ended > 0 ? event.session : null);
        break;
      case "registration-refused":
        void event.problems.map((problem) => `${problem.requirement ?? ""} ${problem.path}: ${problem.message}`);
        break;
      case "undone":
        void event.report.reverted;
        break;
      case "announcement":
        if (event.said.kind === "closed") void (event.said.ending === "answered-without-changes" ? event.runs : event.said.reason);
        void event.speaker;
        break;
      case "tools-changed":
        void engine.tools().map((tool) => [tool.name, tool.readOnly === true, tool.irreversible === true, tool.untrustedContent === true]);
        break;
      case "calls-settled":
        for (const report of event.results) {
          if (report.result.kind === "refused" && report.result.refusal.code === "not-carried-out") void report.result.refusal.note;
        }
        break;
      case "reasoning":
        void (event.encrypted ? null : event.delta);
        break;
      case "activity":
        void (event.patch ? event.content : event.activity);
        break;
      case "unreadable-row":
        void `${event.store} ${event.key}: ${event.reason}`;
        break;
      case "closed":
        void engine.cutOff;
        break;
      default:
        exhaustive(event);
    }
  });
  unsubscribe();

  const detach: () => void = engine.presence.attach({ handleEvent: (event: BatonEvent) => void event.type });
  detach();
  engine.presence.attach({});

  const counters: Counters = engine.counters();
  const trail: string = await engine.export({ since: 0 });
  const verified: ExportSummary = Engine.verifyExport(trail);
  void [verified.records, verified.runs, verified.session, verified.since];
  const stored = await Engine.open({ storage: "indexeddb", dbName: "app", session: "tab-1" });
  const where: "indexeddb" | "memory" = stored.storage.mode;
  const committed: number = stored.storage.transactions + stored.storage.records + stored.storage.reconciled;
  const cause: string | undefined = stored.storage.degraded;
  const history: JournalRecord[] = await stored.history("run-1");
  // @ts-expect-error storage is indexeddb or memory
  await Engine.open({ storage: "disk" });
  // @ts-expect-error the status is read-only
  stored.storage.records = 1;
  void where; void committed; void cause; void history;
  stored.pause("run-1");
  const chained: string = stored.resume("run-1").id;
  stored.resume("run-1", { maxTurns: 2, maxCalls: 4, runDeadlineMs: 60_000, turnDeadlineMs: 10_000 });
  // @ts-expect-error a budget is an object
  stored.resume("run-1", 5);
  void chained;
  void (counters.actionRequired + counters.awaitingReview + counters.awaitingAgent + counters.overdue + counters.failed);
  const identity = engine.resolveActor("baton1.x.y");
  if (identity !== null) void `${identity.session} ${identity.run} ${identity.call}`;

  const schema = Schema.compile({ type: "object", required: ["a"] });
  const text = Schema.compile('{"type": "string"}');
  const validation: Validation = schema.validate({});
  if (!validation.valid) void validation.errors.map((e) => `${e.instancePath} ${e.keyword}: ${e.message}`);
  const validatedText: Validation = schema.validateJson('{"a": 1}');
  const quick: boolean = schema.isValid({ a: 1 }) && schema.isValidJson("{}");
  // @ts-expect-error a shared valid result is read-only
  validatedText.errors.push({ instancePath: "", keyword: "x", message: "x" });
  void quick;
  const schemaDigest: string = text.digest;
  text.free();

  try {
    plain.delegate({ intent: "x", initiative: "user" });
  } catch (thrown) {
    if (thrown instanceof BatonError) {
      const error: BatonError = thrown;
      const code: BatonErrorCode = error.code;
      const requirement: Requirement | undefined = error.requirement;
      const message: string = error.message;
      const asError: Error = error;
      if (error.code === "no-transport" && error.requirement === "AG-50") void message;
      void [code, requirement, asError];
    }
  }
  const made = new BatonError("internal", "made by hand", "AG-1");
  void made.code;

  engine.close();
  void [session, id, ended, reverted, schemaDigest, scripted, fromText, agui];
}

// ----- wrong usage, rejected ---------------------------------------------------

async function misuse(engine: Engine, participant: Participant, question: Question): Promise<void> {
  // @ts-expect-error init takes a URL, a Response, bytes or a module, or nothing
  await init(null);
  // (WebAssembly.Module is an empty interface in lib.dom, so a number would
  // still type-check as one: the weakness of the platform's own typings.)

  // @ts-expect-error autonomy is suggest | review | auto
  await Engine.open({ ceiling: "full" });
  // @ts-expect-error presence policy is warn | require
  await Engine.open({ presence: "ignore" });
  // @ts-expect-error unknown options are refused
  await Engine.open({ appName: "Board", bogus: true });
  // @ts-expect-error a transport declares its protocol version (AG-45)
  await Engine.open({ transport: { openTurn() {} } });

  // @ts-expect-error a behaviour must invoke
  engine.register(manifest, { history: { mark: () => "m", revertTo() {} } });
  // @ts-expect-error mark returns its token, a string or a number
  engine.register(manifest, { invoke: () => null, history: { mark: () => ({ depth: 1 }), revertTo() {} } });
  // @ts-expect-error the tier is reads-only | reversible-acts | full-acts
  engine.register({ ...manifest, tier: "anything" }, board);
  // @ts-expect-error unknown manifest fields are refused
  engine.register({ ...manifest, colour: "blue" }, board);
  // @ts-expect-error an effect declares its reversibility (AG-18)
  engine.register({ ...manifest, capabilities: [{ ...manifest.capabilities[0], effects: [{ name: "retitle" }] }] }, board);
  // @ts-expect-error a read's origin is author | imported | third-party
  participant.publish("cards", { version: 1, origin: "web" });
  // @ts-expect-error undo takes only the untouched, or forces everything, not both
  void engine.undo(run, { only: "untouched", force: true });

  // @ts-expect-error autonomy is suggest | review | auto
  engine.delegate({ intent: "x", initiative: "user", autonomy: "full" });
  // @ts-expect-error initiative is user | system | scheduled
  engine.delegate({ intent: "x", initiative: "agent" });
  // @ts-expect-error the initiative is never assumed (AG-2)
  engine.delegate({ intent: "x", autonomy: "auto" });
  // @ts-expect-error a delegation states its intent
  engine.delegate({ initiative: "user", autonomy: "auto" });
  // @ts-expect-error a budget names all four limits
  engine.delegate({ intent: "x", initiative: "user", budget: { maxTurns: 1 } });
  // @ts-expect-error a plan step names its capability
  engine.delegate({ intent: "x", initiative: "user", plan: [{ arguments: {} }] });

  // @ts-expect-error a grant has a time to live (AG-30)
  engine.grant({ participant: "tasks", decision: "allow" });
  // @ts-expect-error an authorization's allowlist names tools
  engine.authorize("s/r1", 3, { allowlist: [1] });
  // @ts-expect-error a patch operation names its path
  engine.patchAgentState([{ op: "remove" }]);

  // @ts-expect-error authorization is revision-fenced
  engine.authorize("s/r1");
  // @ts-expect-error a resolution is allow | deny | review | return
  engine.resolveEscalation("s/r1", 3, { kind: "allow-once" });
  // @ts-expect-error an answer repeats the request digest (AG-41)
  engine.answer(question.id, { participant: "tasks#backlog" });
  // @ts-expect-error postpone says until when
  engine.postpone(question.id);

  engine.subscribe((event) => {
    // @ts-expect-error there is no "transition" event: transitions are journal entries
    if (event.type === "transition") return;
    if (event.type === "journal") {
      // @ts-expect-error journal records carry their entry, not a state
      void event.state;
    }
  });

  const state = engine.state("s/r1");
  // @ts-expect-error only a returned run has an outcome
  void state.outcome;
  if (state.state === "returned") {
    // @ts-expect-error outcomes are kebab-case
    if (state.outcome === "rolledBack") return;
  }

  try {
    engine.stop("s/r1");
  } catch (thrown) {
    if (thrown instanceof BatonError) {
      // @ts-expect-error no such error code
      if (thrown.code === "no-such-code") return;
      // @ts-expect-error the code is read-only
      thrown.code = "internal";
    }
  }

  // @ts-expect-error a script speaks baton/1
  new ScriptedTransport({ protocol: "ag-ui", turns: [] });
  // @ts-expect-error offsets are numbers of milliseconds
  new ScriptedTransport({ protocol: "baton/1", turns: [{ events: [{ atMs: "0", event: { type: "turn-started" } }] }] });
  // @ts-expect-error an AG-UI transport needs its url
  new AgUiTransport({ headers: {} });
  // @ts-expect-error a thread is one per session or one per run
  new AgUiTransport({ url: "/agent", thread: "forever" });
  // @ts-expect-error sinks are made by the engine
  new TurnSink();
  // @ts-expect-error engines are opened, not constructed
  new Engine();
  // @ts-expect-error a schema is an object or JSON text
  Schema.compile(42);
  // @ts-expect-error the validation has no `ok` field
  void Schema.compile({}).validate(1).ok;

  const event: WireEvent = { type: "turn-started" };
  // @ts-expect-error wire events are read-only once made
  event.type = "turn-finished";
}

void usage;
void misuse;
