// The built-in actor: a deterministic, rule-based acting party that runs in
// the page and speaks `baton/1` through the transport port, like any agent
// would. It understands a small command language over the demo's manifests,
// streams its reply as text, and proposes calls. No model, no network.
//
//   rename card 1 to Ship · move card 2 to done · add card Write the docs
//   tag card 1 as urgent · delete card 3 · set theme to dark
//   set name to Platform team
//   share the board with Ana
//
// Several commands joined by "and" or ";" are one plan.

const PAUSE_MS = 40;

/** What one command means: a call, or why it cannot be done. */
export function understand(command) {
  const text = command.trim();
  let match;
  if ((match = /^rename card (\d+) to (.+)$/i.exec(text))) {
    return { tool: "tasks.rename", arguments: { id: `c${match[1]}`, title: match[2].trim() } };
  }
  if ((match = /^move card (\d+) to (todo|doing|done)$/i.exec(text))) {
    return { tool: "tasks.move", arguments: { id: `c${match[1]}`, column: match[2].toLowerCase() } };
  }
  if ((match = /^move card (\d+)$/i.exec(text))) {
    // Where to? The actor asks rather than guess.
    return { ask: { card: `c${match[1]}` } };
  }
  if ((match = /^add card (.+?)(?: to (todo|doing|done))?$/i.exec(text))) {
    const call = { tool: "tasks.add", arguments: { title: match[1].trim() } };
    if (match[2]) call.arguments.column = match[2].toLowerCase();
    return call;
  }
  if ((match = /^tag card (\d+) (?:as|with) ([a-z0-9-]{1,24})$/i.exec(text))) {
    return { tool: "tasks.tag", arguments: { id: `c${match[1]}`, tag: match[2].toLowerCase() } };
  }
  if ((match = /^delete card (\d+)$/i.exec(text))) {
    return { tool: "tasks.delete", arguments: { id: `c${match[1]}` } };
  }
  if ((match = /^set theme to (light|dark)$/i.exec(text))) {
    return { tool: "settings.set_theme", arguments: { theme: match[1].toLowerCase() } };
  }
  if ((match = /^share the board with (ana|ben|chloé)$/i.exec(text))) {
    const to = match[1][0].toUpperCase() + match[1].slice(1).toLowerCase();
    return { tool: "team.share_summary", arguments: { to } };
  }
  if ((match = /^set name to (.+)$/i.exec(text))) {
    return { tool: "settings.set_name", arguments: { name: match[1].trim() } };
  }
  return { unknown: text };
}

/** The commands of an intent: joined by "and" or ";". */
function commands(intent) {
  return intent.split(/\s*(?:;|\band\b)\s*/i).filter(Boolean);
}

/** A plan for an intent: the calls, and what the actor says about them. */
export function plan(intent) {
  const understood = commands(intent).map(understand);
  const calls = understood.filter((item) => item.tool);
  const unknown = understood.filter((item) => item.unknown).map((item) => `“${item.unknown}”`);
  let reply;
  if (calls.length === 0) {
    reply = unknown.length
      ? `I can rename, move, tag, add or delete cards, set the workspace's name or theme and share the board, but not ${unknown.join(", ")}.`
      : "Tell me what to change.";
  } else {
    reply = `Here is my plan: ${calls.length} change${calls.length === 1 ? "" : "s"}.`;
    if (unknown.length) reply += ` I left out ${unknown.join(", ")}.`;
  }
  return { calls, reply };
}

/** The question the actor asks when a move names no column (AG-41, AG-48). */
export const COLUMN_QUESTION = {
  type: "object",
  required: ["column"],
  additionalProperties: false,
  properties: { column: { enum: ["todo", "doing", "done"], title: "Column" } },
};

export class BuiltInActor {
  constructor() {
    /** Cards the actor asked about, by run. */
    this.asked = new Map();
    /** The calls it proposed, by run and call id. */
    this.planned = new Map();
    /** How often it planned stale calls again, by run (bounded). */
    this.replanned = new Map();
  }

  get protocolVersion() {
    return "baton/1";
  }

  async openTurn(request, sink, signal) {
    const wait = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
    const push = async (event) => {
      if (signal.aborted) throw new DOMException("the turn was cancelled", "AbortError");
      sink.push(event);
      await wait();
    };
    const say = async (text, message) => {
      await push({ type: "message-start", message });
      for (const piece of text.match(/.{1,12}/gs) ?? []) await push({ type: "message-delta", message, delta: piece });
      await push({ type: "message-end", message });
    };
    await push({ type: "turn-started" });
    const answer = request.answers[0];
    if (answer && this.asked.has(request.run)) {
      const card = this.asked.get(request.run);
      this.asked.delete(request.run);
      if (answer.outcome.kind !== "answered") {
        await say("Then I will leave it where it is.", `m${request.turn}`);
      } else {
        const args = JSON.stringify({ id: card, column: answer.outcome.answer.column });
        await say(`Moving card ${card.slice(1)} to ${answer.outcome.answer.column}.`, `m${request.turn}`);
        await push({ type: "tool-call-start", call: "call-1", tool: "tasks.move" });
        await push({ type: "tool-call-args", call: "call-1", delta: args });
        await push({ type: "tool-call-end", call: "call-1" });
      }
      await push({ type: "turn-finished", outcome: "completed" });
      return;
    }
    const stale = request.results.filter((report) => report.result.kind === "refused" && report.result.refusal.code === "stale");
    const planned = this.planned.get(request.run);
    if (stale.length > 0 && planned && (this.replanned.get(request.run) ?? 0) < 2) {
      // Something it planned on changed underneath (the person's own edit):
      // it plans those calls again on the board as it is now (AG-20).
      this.replanned.set(request.run, (this.replanned.get(request.run) ?? 0) + 1);
      const cards = request.reads.find((read) => read.id === "tasks.board")?.content?.cards;
      const again = stale
        .map((report) => planned.get(report.call))
        .filter((call) => call && !(cards && call.arguments.id && !cards.some((card) => card.id === call.arguments.id)));
      await say(
        again.length ? "The board changed since I planned that, so I planned it again on the board as it is now." : "The board changed and what I planned no longer applies.",
        `m${request.turn}`,
      );
      await this.propose(push, request.run, again, `t${request.turn}-`);
      await push({ type: "turn-finished", outcome: "completed" });
      return;
    }
    if (request.results.length > 0 || request.turn > 1) {
      // Its calls were carried out: it reports and ends the run.
      const refused = request.results.filter((report) => report.result.kind !== "applied").length;
      await say(refused ? `Done, except ${refused} change${refused === 1 ? "" : "s"} that could not be made.` : "Done.", `m${request.turn}`);
      await push({ type: "turn-finished", outcome: "completed" });
      return;
    }
    const question = commands(request.intent).map(understand).find((item) => item.ask);
    if (question) {
      this.asked.set(request.run, question.ask.card);
      await push({
        type: "elicitation",
        request: `column-for-${question.ask.card}`,
        prompt: `Which column should card ${question.ask.card.slice(1)} go to?`,
        schema: COLUMN_QUESTION,
      });
      await push({ type: "turn-finished", outcome: "interrupted" });
      return;
    }
    const { calls, reply } = plan(request.intent);
    await say(reply, "m1");
    await this.propose(push, request.run, calls, "");
    await push({ type: "turn-finished", outcome: "completed" });
  }

  /** Streams calls, their arguments in two pieces, and remembers them by id. */
  async propose(push, run, calls, prefix) {
    if (!this.planned.has(run)) this.planned.set(run, new Map());
    for (const [index, call] of calls.entries()) {
      const id = `call-${prefix}${index + 1}`;
      this.planned.get(run).set(id, call);
      const args = JSON.stringify(call.arguments);
      await push({ type: "tool-call-start", call: id, tool: call.tool });
      const half = Math.ceil(args.length / 2);
      await push({ type: "tool-call-args", call: id, delta: args.slice(0, half) });
      await push({ type: "tool-call-args", call: id, delta: args.slice(half) });
      await push({ type: "tool-call-end", call: id });
    }
  }
}
