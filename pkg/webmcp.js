// `baton-engine/webmcp`: a page's capabilities as WebMCP tools, and every
// call a browser agent makes through them inside a Baton run.
//
//   import { attachWebMcp } from "baton-engine/webmcp";
//   const bridge = attachWebMcp(engine, { autonomy: "review" });
//   …
//   bridge.detach();
//
// Browsers let their own agents call the tools a page registers on
// `document.modelContext`, with no review, attribution, undo or kill switch
// of their own. Here the agent is the acting party of a Baton run: a run
// spans its session — from its first call until it has been idle for
// `idleMs`, or until the person stops it — and each call is a capability
// call of that run. Arguments are validated with their limits before
// anything runs; autonomy resolves as for any run, under `autonomy`, and an
// irreversible call is always reviewed; the initiative is not the person's
// unless the app says so (`initiative: "user"`), so AG-26 clamps. A call
// waiting for review keeps the agent's promise pending until the person
// decides; the result, or a typed refusal, goes back as the tool's result,
// and nothing waits past the run's end (its deadline, the kill switch,
// Escape). Undo reverts a whole session in one step: `engine.undo(run)`.

const UNSAFE = /[^A-Za-z0-9_.-]/g;

/** A tool's WebMCP name: `participant.capability`, within `[A-Za-z0-9_.-]{1,128}`. */
function webMcpName(name) {
  return name.replace(UNSAFE, "_").slice(0, 128);
}

/**
 * What goes back to the agent when a call does not apply: typed, never a
 * hang. It is MCP's `CallToolResult` for a tool error — the words as text
 * content, `isError`, and Baton's typed refusal as `structuredContent` — so
 * an agent that speaks MCP reads it as it reads any tool's failure.
 */
function refusal(code, message, details) {
  return {
    content: [{ type: "text", text: message }],
    isError: true,
    structuredContent: { code, message, ...(details ? { details } : {}) },
  };
}

/** A call refused by the engine, as the agent hears it: its code and why. */
function refused(why) {
  const { code, ...details } = why;
  const message = code === "invalid-arguments"
    ? `the arguments were refused before anything ran: ${details.errors.map((error) => error.message ?? error.kind).join("; ")}`
    : code === "denied"
      ? "the person did not allow this call"
      : code === "declined"
        ? why.message
        : `the call was refused (${code})`;
  return refusal(code, message, Object.keys(details).length ? details : undefined);
}

/** One browser agent's session: one Baton run at a time, its turns fed with the agent's calls. */
class AgentSession {
  #engine;
  #options;
  /** The session's run, while it lasts; then the last one. */
  run = null;
  #active = false;
  #turn = null;
  #queue = [];
  #pending = new Map();
  #calls = 0;
  #idle = undefined;
  #unsubscribe = null;

  constructor(engine, options) {
    this.#engine = engine;
    this.#options = options;
  }

  /**
   * One call of the agent: resolves with the participant's result or a
   * refusal. When the agent cancels (`signal`, from WebMCP's `execute`), the
   * call stops: one not yet handed to the run is dropped; one the run holds
   * (waiting for review, or running) stops the run — the person hears it
   * ended, the journal says so — and either way the agent's promise settles
   * `cancelled`.
   */
  call(tool, input, signal) {
    return new Promise((resolve) => {
      this.#calls += 1;
      const call = `webmcp-${this.#calls}`;
      if (signal?.aborted) {
        resolve(refusal("cancelled", "the agent cancelled the call before it was made"));
        return;
      }
      this.#pending.set(call, resolve);
      this.#queue.push({ call, tool, input });
      signal?.addEventListener("abort", () => this.#cancel(call), { once: true });
      if (this.#active) this.#flush();
      else this.#start();
    });
  }

  #cancel(call) {
    if (!this.#pending.has(call)) return;
    const queued = this.#queue.findIndex((waiting) => waiting.call === call);
    if (queued >= 0) this.#queue.splice(queued, 1);
    // Settled first: the stop below settles whatever is left as `run-ended`.
    this.#settle(call, refusal("cancelled", "the agent cancelled the call; it was not carried out"));
    if (queued < 0 && this.#active && this.run) {
      // The run holds the call: stopping it is the only way to be sure it
      // never happens later.
      try {
        this.#engine.stop(this.run);
      } catch {
        // Already ended.
      }
    }
  }

  #start() {
    const transport = {
      protocolVersion: "baton/1",
      openTurn: (request, sink, signal) => this.#openTurn(sink, signal),
    };
    const options = this.#options;
    this.#unsubscribe ??= this.#engine.subscribe((event) => this.#heard(event));
    try {
      this.#active = true;
      const run = this.#engine.delegate({
        intent: options.intent ?? "Act on this page for its browser agent",
        initiative: options.initiative ?? "system",
        autonomy: options.autonomy ?? "review",
        ...(options.budget ? { budget: options.budget } : {}),
        transport,
      });
      this.run = run.id;
    } catch (error) {
      this.#active = false;
      this.#settleAll(refusal(error?.code ?? "refused", error?.message ?? String(error)));
    }
  }

  /** The engine opens a turn: the calls waiting go into it, or it waits for the agent. */
  #openTurn(sink, signal) {
    return new Promise((finish) => {
      const turn = { sink, finish };
      this.#turn = turn;
      sink.push({ type: "turn-started" });
      signal.addEventListener("abort", () => {
        if (this.#turn === turn) this.#turn = null;
        clearTimeout(this.#idle);
        finish();
      });
      this.#flush();
    });
  }

  #flush() {
    const turn = this.#turn;
    if (!turn) return;
    clearTimeout(this.#idle);
    if (this.#queue.length === 0) {
      // Idle for long enough, the session ends: the run returns.
      this.#idle = setTimeout(() => this.#finishTurn(), this.#options.idleMs ?? 30_000);
      return;
    }
    for (const { call, tool, input } of this.#queue.splice(0)) {
      turn.sink.push({ type: "tool-call-start", call, tool });
      turn.sink.push({ type: "tool-call-args", call, delta: JSON.stringify(input ?? {}) });
      turn.sink.push({ type: "tool-call-end", call });
    }
    this.#finishTurn();
  }

  #finishTurn() {
    const turn = this.#turn;
    if (!turn) return;
    this.#turn = null;
    clearTimeout(this.#idle);
    turn.sink.push({ type: "turn-finished", outcome: "completed" });
    turn.finish();
  }

  #settle(call, result) {
    const resolve = this.#pending.get(call);
    if (!resolve) return;
    this.#pending.delete(call);
    resolve(result);
  }

  #settleAll(result) {
    for (const call of [...this.#pending.keys()]) this.#settle(call, result);
    this.#queue = [];
  }

  /** The session's run is over: no turn, no idle timer, and what waited hears `result`. */
  #over(result) {
    this.#active = false;
    this.#turn = null;
    clearTimeout(this.#idle);
    this.#settleAll(result);
  }

  #heard(event) {
    if (event.type !== "journal" || event.run !== this.run) return;
    const entry = event.entry;
    if (entry.kind === "call-finished") {
      const result = entry.result;
      if (result.kind === "applied") this.#settle(entry.call, result.value);
      else if (result.kind === "refused") this.#settle(entry.call, refused(result.refusal));
      else this.#settle(entry.call, refusal("failed", result.message));
    } else if (entry.kind === "call-refused") {
      this.#settle(entry.call, refused(entry.refusal));
    } else if (entry.kind === "transition" && ["returned", "cancelled"].includes(entry.to.state)) {
      // The run ended (idle, stopped, killed, past its deadline): nothing
      // the agent waits for hangs.
      const why = entry.to.reason?.kind ?? entry.to.state;
      this.#over(refusal("run-ended", `the run ended before the call was carried out (${why})`));
    }
  }

  /**
   * The bridge goes away (detached, or the engine closed): the session's
   * run is stopped, nothing left waiting; what waited hears `why`.
   */
  end(why = refusal("detached", "the page withdrew its tools")) {
    if (this.#active && this.run) {
      try {
        this.#engine.stop(this.run);
      } catch {
        // Already ended, or the engine closed.
      }
    }
    this.#over(why);
    this.#unsubscribe?.();
    this.#unsubscribe = null;
  }
}

/**
 * Registers every capability of `engine` as a WebMCP tool, following
 * participants as they register and go away, and runs every call inside a
 * Baton run. `options`: `modelContext` (a polyfill; `document.modelContext`
 * by default), `autonomy` (the ceiling for the agent, `"review"` by
 * default), `initiative` (`"system"` by default; `"user"` when the person
 * started the agent), `intent`, `budget`, `idleMs` (30 s by default).
 * Without a model context it registers nothing and says so:
 * `{ attached: false, reason: "no-model-context" }`.
 */
export function attachWebMcp(engine, options = {}) {
  const context = "modelContext" in options
    ? options.modelContext
    : globalThis.document?.modelContext ?? globalThis.navigator?.modelContext;
  if (!context || typeof context.registerTool !== "function") {
    return { attached: false, reason: "no-model-context", tools: [], run: null, detach() {} };
  }
  const session = new AgentSession(engine, options);
  const registered = new Map();
  const sync = () => {
    const wanted = new Map(engine.tools().map((tool) => [webMcpName(tool.name), tool]));
    for (const [name, controller] of registered) {
      if (!wanted.has(name)) {
        controller.abort();
        registered.delete(name);
      }
    }
    for (const [name, tool] of wanted) {
      if (registered.has(name)) continue;
      const controller = new AbortController();
      registered.set(name, controller);
      const definition = {
        name,
        title: tool.name,
        description: tool.description,
        inputSchema: tool.parameters,
        annotations: {
          readOnlyHint: tool.readOnly === true,
          consequentialHint: tool.irreversible === true,
          untrustedContentHint: tool.untrustedContent === true,
        },
        execute: (input, client) => session.call(tool.name, input, client?.signal),
      };
      Promise.resolve(context.registerTool(definition, { signal: controller.signal })).catch(() => {
        if (registered.get(name) === controller) registered.delete(name);
      });
    }
  };
  sync();
  const unsubscribe = engine.subscribe((event) => {
    if (event.type === "tools-changed") sync();
    // A closed engine has no tools: they are withdrawn, as on detach.
    if (event.type === "closed") withdraw(refusal("closed", "the engine closed before the call was carried out"), true);
  });
  // The page's other scripts change the model context too: a tool of ours
  // that went missing from it is registered again.
  const following = async () => {
    if (typeof context.getTools !== "function") return;
    const present = new Set((await context.getTools()).map((tool) => tool.name));
    let missing = false;
    for (const name of [...registered.keys()]) {
      if (!present.has(name)) {
        registered.delete(name);
        missing = true;
      }
    }
    if (missing) sync();
  };
  const onToolChange = () => {
    following().catch(() => {});
  };
  context.addEventListener?.("toolchange", onToolChange);
  /**
   * The session ended — what waited hears `why` — and every tool withdrawn:
   * at once on `detach()`; a task `later` when the engine closed, since a
   * model context rejects a call whose tool goes away, and the agent is
   * owed the engine's answer first.
   */
  const withdraw = (why, later = false) => {
    unsubscribe();
    context.removeEventListener?.("toolchange", onToolChange);
    session.end(why);
    const controllers = [...registered.values()];
    registered.clear();
    const abort = () => controllers.forEach((controller) => controller.abort());
    if (later) setTimeout(abort);
    else abort();
  };
  return {
    attached: true,
    get tools() {
      return [...registered.keys()];
    },
    get run() {
      return session.run;
    },
    detach() {
      withdraw();
    },
  };
}
