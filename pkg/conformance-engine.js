// baton-engine/conformance/engine — the package's own conformance subject:
// the JS `Engine` behind the kit's subject interface. It is the worked
// example a third party copies for its own engine. It is given the
// `baton-engine` module rather than importing it, so the kit itself never
// imports the engine it tests.
//
//   import * as baton from "baton-engine";
//   import { runConformance, formatConformanceReport } from "baton-engine/conformance";
//   import { createEngineSubject } from "baton-engine/conformance/engine";
//   await baton.default();
//   const report = await runConformance(() => createEngineSubject(baton));
//   console.log(formatConformanceReport(report));
//
// Time is virtual while a subject runs: `Date.now`, `performance.now` (the
// engine's clock is the page's time origin plus `performance.now()`),
// `setTimeout` and `clearTimeout` are the subject's own, starting at
// 1,000 ms and moving only with the `advance` command, so deadlines fire
// exactly when a fixture says. The page's own clocks and timers are
// restored by `close()`.

const wait = (ms) => new Promise((resolve) => realSetTimeout(resolve, ms));
let realSetTimeout = globalThis.setTimeout.bind(globalThis);

/** Lets every promise the last input set off run to its end. */
async function settle() {
  for (let round = 0; round < 6; round += 1) await wait(0);
}

class VirtualClock {
  #now = 1000;
  #next = 1;
  #timers = new Map();
  #saved = null;

  install() {
    this.#saved = { now: Date.now, setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
    realSetTimeout = this.#saved.setTimeout.bind(globalThis);
    Date.now = () => this.#now;
    // Shadows the prototype's method on the page's one `performance` object.
    const origin = performance.timeOrigin;
    performance.now = () => this.#now - origin;
    globalThis.setTimeout = (callback, ms = 0, ...args) => {
      const id = this.#next++;
      this.#timers.set(id, { at: this.#now + Math.max(0, Number(ms) || 0), callback, args });
      return id;
    };
    globalThis.clearTimeout = (id) => this.#timers.delete(id);
  }

  uninstall() {
    if (!this.#saved) return;
    Date.now = this.#saved.now;
    delete performance.now;
    globalThis.setTimeout = this.#saved.setTimeout;
    globalThis.clearTimeout = this.#saved.clearTimeout;
    this.#saved = null;
  }

  /** Moves time on by `ms`, firing due timers in order, each run to its end. */
  async advance(ms) {
    const target = this.#now + ms;
    for (;;) {
      const due = [...this.#timers.entries()].filter(([, t]) => t.at <= target).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) break;
      const [id, timer] = due;
      this.#timers.delete(id);
      this.#now = Math.max(this.#now, timer.at);
      timer.callback(...timer.args);
      await settle();
    }
    this.#now = target;
    await settle();
  }
}

/** A wire event of a fixture as `baton/1` events: `call` stands for a whole tool call. */
function expand(event) {
  if (event.type !== "call") return [event];
  return [
    { type: "tool-call-start", call: event.call, tool: event.tool, ...(event.via ? { via: event.via } : {}) },
    { type: "tool-call-args", call: event.call, delta: JSON.stringify(event.arguments) },
    { type: "tool-call-end", call: event.call },
  ];
}

class EngineSubject {
  #baton;
  #engine = null;
  #clock = new VirtualClock();
  #aliases = new Map(); // alias → run id
  #turns = []; // open turns: { run, turn, sink, resolve, started }
  #observed = null;
  #marks = 0;
  #participants = new Map(); // mounted id → the handle `register` returned
  #elements = []; // each participant's element, for aria-busy (AG-40)
  #focus = { moved: false };

  constructor(baton) {
    this.#baton = baton;
  }

  #alias(run) {
    for (const [alias, id] of this.#aliases) if (id === run) return alias;
    return null;
  }

  #run(alias) {
    const id = this.#aliases.get(alias);
    if (!id) throw Object.assign(new Error(`no run called \`${alias}\``), { code: "unknown-run" });
    return id;
  }

  async start(setup) {
    const unsupported = Object.keys(setup.engine).filter((key) => !["ceiling", "presence", "transport"].includes(key));
    if (unsupported.length) throw new Error(`Engine.open has no option for ${unsupported.join(", ")}`);
    this.#clock.install();
    this.#observed = { turns: new Map(), protocols: new Map(), invocations: [], reverts: [], announcements: [], findings: [], texts: 0, states: 0, customs: 0, busyDuringInvoke: [] };
    const transport = {
      protocolVersion: "baton/1",
      openTurn: (request, sink, signal) =>
        new Promise((resolve) => {
          const open = { run: request.run, turn: request.turn, sink, resolve, started: false };
          this.#turns.push(open);
          signal.addEventListener("abort", () => resolve());
        }),
    };
    const { transport: reach, ...settings } = setup.engine;
    this.#engine = await this.#baton.Engine.open({
      appName: "Conformance",
      storage: "memory",
      ...(reach === "none" ? {} : { transport }),
      ...settings,
    });
    this.#engine.subscribe((event) => this.#record(event));
    for (const participant of setup.participants) {
      const behaviour = participant.behaviour ?? {};
      const reply = (kind, value) => {
        const answer = behaviour[kind] ?? "ok";
        if (answer === "ok") return value();
        if (answer.fail !== undefined) throw new Error(answer.fail);
        throw new Error(`declined: ${answer.decline}`);
      };
      const mounted = `${participant.manifest.id}${participant.instance ? `#${participant.instance}` : ""}`;
      const element = document.createElement("section");
      element.dataset.participant = mounted;
      document.body.append(element);
      this.#elements.push(element);
      const handle = this.#engine.register(participant.manifest, {
        element,
        invoke: () => {
          // Busy exactly while a call mutates it (AG-40): seen from inside the call.
          this.#observed.busyDuringInvoke.push(element.getAttribute("aria-busy") === "true" ? mounted : null);
          return reply("invoke", () => ({ ok: true }));
        },
        preview: (capability, args) => reply("preview", () => ({ preview: args })),
        history: {
          mark: () => reply("mark", () => `mark-${++this.#marks}`),
          revertTo: () => reply("revert", () => undefined),
        },
        ...(participant.instance ? { instance: participant.instance } : {}),
      });
      // A refused registration publishes nothing; the core knows no such participant.
      if (handle.problems.length === 0) this.#participants.set(mounted, handle);
    }
    await settle();
  }

  #record(event) {
    const seen = this.#observed;
    switch (event.type) {
      case "effect":
        if (event.kind === "open-turn") {
          seen.turns.set(event.run, (seen.turns.get(event.run) ?? 0) + 1);
          seen.protocols.set(event.run, [...(seen.protocols.get(event.run) ?? []), event.request.protocol]);
        } else if (event.kind === "invoke") {
          const identity = this.#engine.resolveActor(event.actor);
          const genuine = identity?.run === event.run && identity?.call === event.call;
          seen.invocations.push({
            run: this.#alias(event.run),
            capability: `${event.capability.participant}.${event.capability.capability}`,
            arguments: event.arguments,
            actor: genuine ? "genuine" : "unresolved",
            // Who acted, when a subagent did: the chain the reference names.
            ...(genuine && identity.via?.length ? { via: identity.via } : {}),
          });
        } else if (event.kind === "revert") {
          seen.reverts.push({ run: this.#alias(event.run), participant: event.participant });
        }
        break;
      case "announcement":
        seen.announcements.push({ speaker: event.speaker, runs: event.runs.map((run) => this.#alias(run)), said: event.said });
        break;
      case "finding": seen.findings.push(event.reason); break;
      case "text": seen.texts += 1; break;
      case "state": seen.states += 1; break;
      case "custom": seen.customs += 1; break;
      default:
    }
  }

  #questions() {
    return this.#engine.questions().slice().sort((a, b) => a.askedAt - b.askedAt || (a.id < b.id ? -1 : 1));
  }

  #question(index) {
    const question = this.#questions()[index];
    if (!question) throw Object.assign(new Error(`no question ${index}`), { code: "unknown-question" });
    return question;
  }

  async command(command) {
    const focused = document.activeElement;
    try {
      await this.#dispatch(command);
    } finally {
      await settle();
      // The engine never moves focus (AG-38): nothing the subject does moves it either.
      if (document.activeElement !== focused) this.#focus.moved = true;
    }
  }

  async #dispatch(command) {
    const engine = this.#engine;
    const revision = (run) => engine.journal(run).at(-1)?.revision ?? 0;
    switch (command.do) {
      case "delegate": {
        const { do: _, as: alias, ...request } = command;
        this.#aliases.set(alias, engine.delegate(request).id);
        return;
      }
      case "turn": {
        const run = this.#run(command.run);
        const open = this.#turns.filter((turn) => turn.run === run && !turn.done).at(-1);
        if (!open) throw Object.assign(new Error(`\`${command.run}\` has no open turn`), { code: "no-open-turn" });
        const events = command.events.flatMap(expand);
        if (!open.started && events[0]?.type !== "turn-started") events.unshift({ type: "turn-started" });
        open.started = true;
        for (const event of events) {
          open.sink.push(event);
          if (event.type === "turn-finished" || event.type === "turn-error") {
            open.done = true;
            open.resolve();
          }
          await settle();
        }
        return;
      }
      case "close-turn": {
        const run = this.#run(command.run);
        const open = this.#turns.filter((turn) => turn.run === run && !turn.done).at(-1);
        if (!open) throw Object.assign(new Error(`\`${command.run}\` has no open turn`), { code: "no-open-turn" });
        open.done = true;
        open.resolve(); // the stream ends before the turn did
        return;
      }
      case "authorize": {
        const run = this.#run(command.run);
        const { do: _, run: __, revision: which, ...authorization } = command;
        const at = revision(run) - (which === "previous" ? 1 : 0);
        engine.authorize(run, at, authorization);
        return;
      }
      case "reject": {
        const run = this.#run(command.run);
        engine.reject(run, revision(run), command.note ?? "");
        return;
      }
      case "resolve": {
        const run = this.#run(command.run);
        engine.resolveEscalation(run, revision(run), command.resolution);
        return;
      }
      case "stop": engine.stop(this.#run(command.run)); return;
      case "pause": engine.pause(this.#run(command.run)); return;
      case "resume": this.#aliases.set(command.as, engine.resume(this.#run(command.run)).id); return;
      case "kill-all": engine.killAll(); return;
      case "disable": engine.disable(); return;
      case "enable": engine.enable(); return;
      case "answer": {
        const question = this.#question(command.question);
        const digest = command.digest === "forged" ? "0".repeat(64) : question.digest;
        engine.answer(question.id, digest, command.value);
        return;
      }
      case "decline": engine.decline(this.#question(command.question).id); return;
      case "dismiss": engine.dismiss(this.#question(command.question).id); return;
      case "postpone": engine.postpone(this.#question(command.question).id, Date.now() + command.ms); return;
      case "undo": await engine.undo(this.#run(command.run)); return;
      case "advance": await this.#clock.advance(command.ms); return;
      case "publish": {
        const handle = this.#participants.get(command.participant);
        if (!handle) throw Object.assign(new Error(`no participant ${command.participant} is mounted`), { code: "invalid-read" });
        handle.publish(command.read, { version: command.version, origin: command.origin ?? "author" });
        return;
      }
      default:
        throw new Error(`unknown command ${command.do}`);
    }
  }

  async observe() {
    await settle();
    const engine = this.#engine;
    const seen = this.#observed;
    const runs = {};
    for (const [alias, id] of this.#aliases) {
      const state = engine.state(id);
      const journal = engine.journal(id);
      const states = ["offered"];
      const refusals = [];
      for (const { entry } of journal) {
        if (entry.kind === "transition") states.push(entry.to.state);
        if (entry.kind === "call-refused") refusals.push(entry.refusal.code);
        if (entry.kind === "call-finished" && entry.result.kind === "refused") refusals.push(entry.result.refusal.code);
      }
      const count = (kind) => journal.filter((record) => record.entry.kind === kind).length;
      runs[alias] = {
        alias,
        state: state.state,
        outcome: state.outcome ?? null,
        reason: state.reason?.kind ?? null,
        states,
        journal: journal.map((record) => record.entry.kind),
        refusals,
        turns: seen.turns.get(id) ?? 0,
        protocols: seen.protocols.get(id) ?? [],
        usage: { turns: count("turn-reserved"), calls: count("call-dispatched") + count("call-refused") },
        revision: journal.at(-1)?.revision ?? 0,
      };
    }
    const tools = engine.tools().map((tool) => ({ name: tool.name, described: tool.description.trim() !== "" }));
    tools.sort((a, b) => (a.name < b.name ? -1 : 1));
    const regions = [...document.querySelectorAll("[aria-live]")].filter((region) => region.getAttribute("aria-live") !== "off");
    const page = {
      liveRegions: regions.map((region) => ({ live: region.getAttribute("aria-live"), baton: region.hasAttribute("data-baton-live-region") })),
      focusMoved: this.#focus.moved,
      busyDuringInvoke: seen.busyDuringInvoke,
      busyNow: this.#elements.filter((element) => element.getAttribute("aria-busy") === "true").map((element) => element.dataset.participant),
    };
    return {
      page,
      runs,
      tools,
      invocations: seen.invocations,
      reverts: seen.reverts,
      questions: this.#questions().map((q) => ({ run: this.#alias(q.run), state: q.state.state, asker: q.asker.kind })),
      announcements: seen.announcements,
      findings: seen.findings,
      texts: seen.texts,
      states: seen.states,
      customs: seen.customs,
    };
  }

  async close() {
    try {
      this.#engine?.close();
    } finally {
      this.#clock.uninstall();
      for (const element of this.#elements) element.remove();
    }
  }
}

/** A conformance subject for the JS engine of the `baton-engine` module given. */
export function createEngineSubject(baton) {
  return new EngineSubject(baton);
}
