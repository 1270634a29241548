// `baton-engine/otel`: every delegation as an OpenTelemetry trace, in the
// GenAI semantic conventions, joined to the acting party's own trace.
//
// It depends on `@opentelemetry/api` only (an optional peer dependency):
// without an SDK installed by the app every span is a no-op and nothing is
// sent to the acting party. The core package never imports this module, so
// an app that does not trace pays nothing for it.
//
// Spans, from the engine's journal (what the core decided, never worked out
// again here):
//   invoke_agent {actor}        one per run (INTERNAL), under the context
//                               active when the run was delegated
//     turn {actor}              one per turn of the acting party (CLIENT);
//                               its context goes to the agent as
//                               `traceparent` / `tracestate`
//       execute_tool {tool}     one per capability call (INTERNAL), under
//                               the turn that proposed it (a fixed plan's
//                               under the run)
// The person's decisions are events on the run span (`baton.review.*`,
// `baton.question.*`, `baton.kill`, `baton.escalation.*`); an undo, which
// comes after its run has ended, is a short `undo {actor}` span under it.
// What the person typed and what components returned stay off every span
// unless `captureContent` is on. Actor references never go on a span
// (AG-33): `baton.actor` is only who decided (person, engine, …).

import { context, isSpanContextValid, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";

/** The instrumentation scope's name and version. */
const SCOPE = "baton-engine";
const VERSION = "0.1.0";
const OPTIONS = new Set(["tracerProvider", "captureContent"]);

/** Why a run ended, when it ended for a failure: the span's status is `ERROR`. */
const FAILED = new Set(["partial", "rolled-back", "error"]);

/** The maturity tiers, lowest first (AG-17): a run's is its highest act's. */
const TIERS = ["reads-only", "reversible-acts", "full-acts"];
const higher = (a, b) => (TIERS.indexOf(b) > TIERS.indexOf(a) ? b : a);

/** Records only a run that has already ended writes: they open no span. */
const AFTER_THE_END = new Set(["reverted", "offered-again", "offer-settled"]);

/**
 * Traces every run of `engine` from now on. Returns `{ detach() }`, which
 * ends the spans still open and stops tracing. Unknown options throw a
 * `TypeError`.
 */
export function instrument(engine, options = {}) {
  for (const key of Object.keys(options ?? {})) {
    if (!OPTIONS.has(key)) throw new TypeError(`instrument: unknown option ${JSON.stringify(key)} (expected tracerProvider, captureContent)`);
  }
  const provider = options.tracerProvider ?? trace.getTracerProvider();
  const tracer = provider.getTracer(SCOPE, VERSION);
  const captureContent = options.captureContent === true;
  const agent = engine.actorName;
  const session = engine.session;
  /** What is open of each run: its span, its turns' spans, its calls' spans. */
  const runs = new Map();

  const runOf = (id, at) => {
    let run = runs.get(id);
    if (!run) {
      // A run first seen after it started (traced from the middle, or
      // adopted after a reload) still gets its span, said to be partial.
      run = open(id, at, { "baton.traced_from_start": false });
    }
    return run;
  };

  const open = (id, at, attributes) => {
    const span = tracer.startSpan(`invoke_agent ${agent}`, {
      kind: SpanKind.INTERNAL,
      startTime: at,
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": agent,
        "baton.run": id,
        "baton.session": session,
        ...attributes,
      },
    }, context.active());
    // `facts`: what the core last decided of the run, carried by every
    // event — its autonomy, the fingerprint its plan is bound to, its
    // highest act's tier, whether the origin clamp is in force.
    const run = { id, span, context: trace.setSpan(context.active(), span), turns: new Map(), calls: new Map(), turn: null, facts: {}, escalation: null };
    runs.set(id, run);
    return run;
  };

  const turnOf = (run, turn, at) => {
    let span = run.turns.get(turn);
    if (!span) {
      span = tracer.startSpan(`turn ${agent}`, {
        kind: SpanKind.CLIENT,
        startTime: at,
        attributes: { "baton.run": run.id, "baton.turn": turn, "gen_ai.agent.name": agent },
      }, run.context);
      run.turns.set(turn, span);
      run.turn = trace.setSpan(run.context, span);
    }
    return span;
  };

  /** The `baton.*` facts every decision carries. */
  const facts = (record, attributes) => ({ "baton.revision": record.revision, "baton.actor": record.actor.kind, ...attributes });

  /** Keeps what the core decided of a run, as the journal or a sheet says it. */
  const learn = (run, { autonomy, fingerprint, tier, clamped }) => {
    if (autonomy) run.facts["baton.autonomy"] = autonomy;
    if (fingerprint) run.facts["baton.fingerprint"] = fingerprint;
    if (tier) run.facts["baton.tier"] = higher(run.facts["baton.tier"] ?? tier, tier);
    if (clamped !== undefined) run.facts["baton.origin_clamp"] = clamped === true;
  };

  /**
   * An event on the run span. Each carries the run's autonomy, the
   * fingerprint its plan is bound to, its highest act's tier and whether
   * the origin clamp is in force, as last decided, beside its own.
   */
  const decided = (run, name, record, attributes = {}) => {
    run.span.addEvent(name, facts(record, { ...run.facts, ...attributes }), record.at);
  };

  /** What a review sheet says of the run (a plan's, or one call's). */
  const sheetOf = (run, sheet) => {
    if (!sheet) return {};
    learn(run, {
      autonomy: sheet.autonomy,
      fingerprint: sheet.fingerprint,
      tier: sheet.items.map((item) => item.tier).filter(Boolean).reduce(higher, undefined),
      clamped: sheet.clamped,
    });
    const attributes = { "baton.items": sheet.items.length };
    if (sheet.again) attributes["baton.again"] = sheet.again.kind;
    return attributes;
  };

  /**
   * An undo comes after its run has ended: a short span of its own, under
   * the run's when this page traced it, carrying the same event and what
   * was last decided of the run.
   */
  const undone = (record, name, attributes) => {
    const { parent, facts: known } = ended.get(record.run) ?? { parent: context.active(), facts: {} };
    const span = tracer.startSpan(`undo ${agent}`, { kind: SpanKind.INTERNAL, startTime: record.at, attributes: { "baton.run": record.run } }, parent);
    span.addEvent(name, facts(record, { ...known, ...attributes }), record.at);
    span.end(record.at);
  };

  /** The contexts and last facts of ended runs, for their undos: the most recent 256. */
  const ended = new Map();

  const endRun = (id, run, record, state) => {
    for (const span of run.calls.values()) span.end(record.at);
    for (const span of run.turns.values()) span.end(record.at);
    run.calls.clear();
    run.turns.clear();
    const reason = state.reason?.kind;
    const outcome = state.state === "returned" ? state.outcome : "cancelled";
    run.span.setAttributes({ "baton.outcome": outcome, ...(reason ? { "baton.reason": reason } : {}), ...(state.refused ? { "baton.refused": state.refused } : {}) });
    if (state.state === "returned" && state.outcome === "completed") run.span.setStatus({ code: SpanStatusCode.OK });
    else if (state.state === "returned" && FAILED.has(state.outcome)) {
      run.span.setAttribute("error.type", reason ?? state.outcome);
      run.span.setStatus({ code: SpanStatusCode.ERROR, message: reason ?? state.outcome });
    }
    run.span.end(record.at);
    runs.delete(id);
    ended.set(id, { parent: run.context, facts: run.facts });
    if (ended.size > 256) ended.delete(ended.keys().next().value);
  };

  const onRecord = (record) => {
    const { entry } = record;
    if (entry.kind === "created") {
      const attributes = { "baton.initiative": entry.initiative, "baton.traced_from_start": true };
      if (entry.resumes) attributes["baton.resumes"] = entry.resumes;
      if (captureContent) attributes["baton.intent"] = entry.intent;
      // The turn's hook may have seen the run first.
      const run = runs.get(record.run) ?? open(record.run, record.at, {});
      run.span.setAttributes(attributes);
      learn(run, { autonomy: entry.autonomy });
      return;
    }
    if (entry.kind === "undone") {
      undone(record, "baton.undo", {
        "baton.participants": entry.participants.length,
        "baton.kept": entry.kept?.length ?? 0,
        "baton.overridden": entry.overridden?.length ?? 0,
      });
      return;
    }
    if (entry.kind === "undo-held") {
      undone(record, "baton.undo.held", { "baton.conflicts": entry.conflicts.length });
      return;
    }
    // Journal records of a run that has ended open nothing: a revert's, or
    // an offer settled on a run an earlier page load cut off.
    if (ended.has(record.run) || (!runs.has(record.run) && AFTER_THE_END.has(entry.kind))) return;
    const run = runOf(record.run, record.at);
    switch (entry.kind) {
      case "turn-reserved":
        turnOf(run, entry.turn, record.at);
        learn(run, { clamped: entry.clamped === true });
        return;
      case "turn-ended": {
        const span = run.turns.get(entry.turn);
        span?.setAttribute("baton.turn.proposed", entry.proposed);
        span?.end(record.at);
        run.turns.delete(entry.turn);
        return;
      }
      case "said":
        if (captureContent) run.turns.get(entry.turn)?.addEvent("baton.said", { "baton.text": entry.text }, record.at);
        return;
      case "agent-acted": {
        const attributes = { "gen_ai.tool.name": entry.tool, "gen_ai.tool.call.id": entry.call };
        if (captureContent) {
          attributes["gen_ai.tool.call.arguments"] = JSON.stringify(entry.arguments);
          attributes["gen_ai.tool.call.result"] = JSON.stringify(entry.result);
        }
        run.turns.get(entry.turn)?.addEvent("baton.agent_acted", attributes, record.at);
        return;
      }
      case "call-dispatched": {
        const tool = `${entry.capability.participant}.${entry.capability.capability}`;
        const attributes = {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": tool,
          "gen_ai.tool.call.id": entry.call,
          "gen_ai.tool.type": "function",
          "baton.revision": record.revision,
        };
        if (entry.autonomy) attributes["baton.autonomy"] = entry.autonomy;
        if (entry.tier) attributes["baton.tier"] = entry.tier;
        attributes["baton.origin_clamp"] = entry.clamped === true;
        if (entry.via?.length) attributes["baton.via"] = entry.via;
        if (captureContent) attributes["gen_ai.tool.call.arguments"] = JSON.stringify(entry.arguments);
        learn(run, { tier: entry.tier, clamped: entry.clamped === true });
        const span = tracer.startSpan(`execute_tool ${tool}`, { kind: SpanKind.INTERNAL, startTime: record.at, attributes }, run.turn ?? run.context);
        run.calls.set(entry.call, span);
        return;
      }
      case "call-finished": {
        const span = run.calls.get(entry.call);
        if (!span) return;
        const { result } = entry;
        span.setAttribute("baton.result", result.kind);
        if (captureContent && result.kind === "applied") span.setAttribute("gen_ai.tool.call.result", JSON.stringify(result.value));
        if (result.kind === "applied") span.setStatus({ code: SpanStatusCode.OK });
        else {
          span.setAttribute("error.type", result.kind);
          span.setStatus({ code: SpanStatusCode.ERROR, message: result.kind });
        }
        span.end(record.at);
        run.calls.delete(entry.call);
        return;
      }
      case "call-refused": {
        // Refused before it ran: a span that says so, under the turn.
        const tool = `${entry.capability.participant}.${entry.capability.capability}`;
        const why = entry.refusal.code;
        const span = tracer.startSpan(`execute_tool ${tool}`, {
          kind: SpanKind.INTERNAL,
          startTime: record.at,
          attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool, "gen_ai.tool.call.id": entry.call, "gen_ai.tool.type": "function", "error.type": why },
        }, run.turn ?? run.context);
        span.setStatus({ code: SpanStatusCode.ERROR, message: `refused: ${why}` });
        span.end(record.at);
        // The person said no to the one call put before them.
        // The person refused the one call put before them for review (not an
        // out-of-scope capability denied, nor a question declined).
        if (record.actor.kind === "person" && why === "denied" && run.resolved?.kind === "review-required" && run.resolved.call === entry.call) {
          decided(run, "baton.review.rejected", record, { "gen_ai.tool.call.id": entry.call });
        }
        return;
      }
      case "authorized": {
        learn(run, { fingerprint: entry.fingerprint });
        // While one call is before the person (AG-31), their authorization
        // allows that call.
        const reviewed = run.escalation?.kind === "review-required" ? run.escalation.call : null;
        const call = reviewed ? { "gen_ai.tool.call.id": reviewed } : {};
        decided(run, record.actor.kind === "person" ? "baton.review.authorized" : "baton.authorized", record, {
          "baton.allowlist": entry.allowlist.length,
          ...call,
        });
        return;
      }
      case "reauthorized":
        learn(run, { fingerprint: entry.fingerprint });
        decided(run, "baton.review.reauthorized", record, { "baton.drifted": entry.drifted.length });
        return;
      case "call-edited":
        decided(run, "baton.review.edited", record, { "gen_ai.tool.call.id": entry.call });
        return;
      case "question-asked":
        decided(run, "baton.question.asked", record, { "baton.question": entry.question, "baton.digest": entry.digest });
        return;
      case "question-closed":
        decided(run, entry.outcome.kind === "answered" ? "baton.question.answered" : "baton.question.closed", record, {
          "baton.question": entry.question,
          "baton.question.outcome": entry.outcome.kind,
        });
        return;
      case "escalation-receipt":
        decided(run, "baton.escalation.unresolved", record, { "baton.reason": entry.reason.kind });
        return;
      case "transition":
        onTransition(record, run);
        return;
      default:
    }
  };

  const onTransition = (record, run) => {
    const { from, to } = record.entry;
    const escalation = run.escalation;
    run.escalation = to.state === "escalated" ? to.reason : null;
    // The escalation the person just resolved, for the record that follows.
    run.resolved = from === "escalated" ? escalation : null;
    if (to.state === "reviewing") {
      decided(run, "baton.review.shown", record, sheetOf(run, engine.review(record.run)));
    } else if (to.state === "escalated" && to.reason.kind === "review-required") {
      // One call put before the person (AG-31): a review, of that call.
      const attributes = sheetOf(run, engine.review(record.run));
      decided(run, "baton.review.shown", record, { ...attributes, "gen_ai.tool.call.id": to.reason.call });
    } else if (to.state === "escalated") {
      decided(run, "baton.escalated", record, { "baton.reason": to.reason.kind });
    } else if (from === "escalated" && record.actor.kind === "person") {
      decided(run, "baton.escalation.resolved", record, { "baton.resolution": to.state, ...(escalation ? { "baton.reason": escalation.kind } : {}) });
    }
    if (to.state === "returned" || to.state === "cancelled") {
      const reason = to.reason?.kind;
      // Rejected before anything ran (`rejected`), or on review again after
      // acting (`review-rejected`).
      if (record.actor.kind === "person" && (reason === "rejected" || reason === "review-rejected")) decided(run, "baton.review.rejected", record);
      if (reason === "kill") decided(run, "baton.kill", record);
      endRun(record.run, run, record, to);
    }
  };

  // The spans still open end now, said to be cut off (`why`: detached,
  // or the engine closed).
  const cut = (why) => {
    const now = Date.now();
    for (const run of runs.values()) {
      for (const span of [...run.calls.values(), ...run.turns.values()]) span.end(now);
      run.span.setAttribute(why, true);
      run.span.end(now);
    }
    runs.clear();
    ended.clear();
  };

  const unsubscribe = engine.subscribe((event) => {
    if (event.type === "journal") onRecord(event);
    else if (event.type === "closed") cut("baton.engine_closed");
  });

  // The turn's span, named before its request leaves: the agent server's
  // spans join the trace under it.
  engine.traceTurns((run, turn) => {
    const span = turnOf(runOf(run, Date.now()), turn, Date.now());
    const spanContext = span.spanContext();
    if (!isSpanContextValid(spanContext)) return null;
    const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, "0");
    const traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
    const tracestate = spanContext.traceState?.serialize();
    return tracestate ? { traceparent, tracestate } : { traceparent };
  });

  return {
    /** Stops tracing; the spans still open end now, said to be cut off. */
    detach() {
      unsubscribe();
      try {
        engine.traceTurns(null);
      } catch {
        // A closed engine has no turns to trace.
      }
      cut("baton.detached");
    },
  };
}
