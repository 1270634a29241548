// `<baton-presence>`, the default presence surface of `baton-engine/elements`.

import { Surface, button, make, shadow } from "./element-surface.js";

const STYLE = `
:host { display: block; }
:host([hidden]) { display: none; }
[hidden] { display: none !important; }
[part=status], [part=undo-choice] { display: flex; align-items: center; gap: var(--baton-gap, 0.5em); flex-wrap: wrap; }
[part=undo-note] { margin: 0; flex-basis: 100%; }
[part=shape] {
  display: inline-flex; align-items: center; justify-content: center; box-sizing: border-box;
  width: var(--baton-shape-size, 0.9em); height: var(--baton-shape-size, 0.9em);
  border: 2px solid currentColor; border-radius: 50%;
}
[part=shape]::after { content: var(--baton-glyph, ""); font-size: 0.6em; line-height: 1; font-weight: bold; }
[data-state=planning] [part=shape] { border-style: dashed; }
[data-state=reviewing] [part=shape] { border-radius: 0; border-width: 4px; border-style: double; }
[data-state=needs-you] [part=shape] { border-radius: 0; border-width: 3px; --baton-glyph: "!"; }
[data-state=acting] [part=shape] { border-radius: 0; transform: rotate(45deg); animation: baton-turn 1.2s linear infinite; }
[data-ending=done] [part=shape] { --baton-glyph: "\\2713"; }
[data-ending=answered-without-changes] [part=shape] { --baton-glyph: "="; }
[data-ending=partly-done] [part=shape] { --baton-glyph: "\\BD"; }
[data-ending=rolled-back] [part=shape] { --baton-glyph: "\\21BA"; }
[data-ending=stopped] [part=shape] { --baton-glyph: "\\25A0"; }
[data-ending=paused] [part=shape] { --baton-glyph: "\\2016"; }
[data-ending=rejected] [part=shape] { --baton-glyph: "\\2013"; }
[data-ending=interrupted] [part=shape] { --baton-glyph: "\\22EF"; border-style: dotted; }
[data-ending=failed] [part=shape] { --baton-glyph: "\\2715"; }
[data-ending=undone] [part=shape] { --baton-glyph: "\\21B6"; }
@keyframes baton-turn { from { transform: rotate(45deg); } to { transform: rotate(405deg); } }
@media (prefers-reduced-motion: reduce) {
  [data-state=acting] [part=shape] { animation: none; }
}
@media (forced-colors: active) {
  [part=shape] { border-color: CanvasText; color: CanvasText; }
  button { border: 1px solid ButtonText; }
}
[part=badge]:empty { display: none; }
`;

/** How the person reads a run in progress: a shape name and words. */
function describe(state) {
  switch (state.state) {
    case "offered":
    case "planned":
      return ["planning", "Planning"];
    case "reviewing":
      return ["reviewing", "Waiting for your review"];
    case "escalated":
      return ["needs-you", "Needs you"];
    default:
      return ["acting", "Acting"];
  }
}

/** How the last run ended, in words: by the core's `Ending`, and `undone`. */
const ENDED = {
  done: "Done",
  "answered-without-changes": "Answered, nothing changed",
  "partly-done": "Partly done, the rest kept as it was",
  "rolled-back": "Rolled back, nothing kept",
  stopped: "Stopped, control is back with you",
  paused: "Paused",
  rejected: "Plan rejected, nothing done",
  interrupted: "Cut off",
  failed: "Failed",
  undone: "Undone",
};

/** Endings after which the run changed nothing, so there is nothing to undo. */
const NOTHING_KEPT = new Set(["answered-without-changes", "rolled-back", "rejected", "undone"]);

/** `a`, `a and b`, `a, b and c`. */
function list(names) {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

export class BatonPresence extends Surface {
  /** Runs not yet terminal, by id, with their last state. */
  #active = new Map();
  /** The run that ended last, how (an `Ending`, or `undone`), and whether undo found nothing to revert. */
  #ended = null;
  /** An undo held back (A.2): the run, what the engine said, and what `{ only: "untouched" }` would revert. */
  #held = null;
  #status;
  #text;
  #badge;
  #stop;
  #kill;
  #undo;
  #choice;
  #note;
  #rest;

  constructor() {
    super();
    this.#status = make("div", "status");
    this.#status.setAttribute("role", "group");
    this.#status.setAttribute("aria-label", this.getAttribute("label") ?? "Assistant");
    const shape = make("span", "shape");
    shape.setAttribute("aria-hidden", "true");
    this.#text = make("span", "text", "Idle");
    this.#badge = make("span", "badge");
    this.#stop = button("stop", "Stop", () => this.#stopLatest());
    this.#kill = button("kill", "Stop everything", () => this.engine?.killAll());
    this.#undo = button("undo", "Undo", () => this.undo().catch(() => {}));
    this.#status.append(shape, this.#text, this.#badge, this.#stop, this.#kill, this.#undo);
    this.#choice = make("div", "undo-choice");
    this.#choice.setAttribute("role", "group");
    this.#choice.hidden = true;
    this.#note = make("p", "undo-note");
    this.#note.id = "undo-note";
    this.#choice.setAttribute("aria-labelledby", "undo-note");
    this.#rest = button("undo-rest", "Undo only the rest", () => this.#choose({ only: "untouched" }));
    this.#choice.append(
      this.#note,
      this.#rest,
      button("undo-force", "Undo everything anyway", () => this.#choose({ force: true })),
      button("undo-keep", "Keep everything as it is", () => {
        this.#held = null;
        this.render();
      }),
    );
    shadow(this, STYLE).append(this.#status, this.#choice);
    this.render();
  }

  static observedAttributes = ["label"];

  /** `label`, set in markup or later (as frameworks set it): the group's accessible name. */
  attributeChangedCallback(name, _before, label) {
    if (name === "label") this.#status.setAttribute("aria-label", label ?? "Assistant");
  }

  engineChanged() {
    this.#active.clear();
    this.#ended = null;
    this.#held = null;
  }

  /** The state shown: `idle`, `planning`, `reviewing`, `acting`, `needs-you` or `returned`. */
  get state() {
    return this.#status.dataset.state;
  }

  /** How the last run ended while none is active (an `Ending`, or `undone`); otherwise `undefined`. */
  get ending() {
    return this.#status.dataset.ending;
  }

  /**
   * Undoes a run (by default the one that ended last) in one step (A.2), as
   * the Undo control does. When what it changed was changed since, resolves
   * `null` and offers the person the choice; otherwise resolves the engine's
   * report. Other refusals reject with the engine's `BatonError`.
   */
  async undo(run = this.#ended?.run, options) {
    if (!this.engine || !run) return null;
    this.#held = null;
    try {
      return await this.engine.undo(run, options);
    } catch (error) {
      if (error?.code === "undo-conflict") {
        this.#held = { run, untouched: error.untouched ?? [], said: this.#held?.said };
        return null;
      }
      if (error?.code === "not-undoable" && this.#ended?.run === run) this.#ended.nothing = true;
      throw error;
    } finally {
      this.render();
    }
  }

  #choose(options) {
    if (this.#held) this.undo(this.#held.run, options).catch(() => {});
  }

  /** The engine calls this with every event (a presence surface). */
  handleEvent(event) {
    if (event.type === "journal" && event.entry.kind === "transition") {
      const state = event.entry.to;
      if (state.state === "returned" || state.state === "cancelled") {
        this.#active.delete(event.run);
        // How it ended is the core's to say: its closing announcement
        // follows in the same step (a kill says it once for every run).
        this.#ended = { run: event.run, ending: undefined };
        if (this.#held?.run === event.run) this.#held = null;
      } else this.#active.set(event.run, state);
    } else if (event.type === "announcement") {
      const said = event.said;
      const ended = this.#ended && event.runs.includes(this.#ended.run);
      if (said.kind === "closed" && ended) this.#ended.ending = said.ending;
      if (said.kind === "killed" && ended) this.#ended.ending = "stopped";
      if (said.kind === "undo-held") this.#held = { run: event.runs[0], untouched: this.#held?.untouched, said };
    } else if (event.type === "undone") {
      if (this.#ended?.run === event.report.run) this.#ended.ending = "undone";
      this.#held = null;
    } else if (event.type !== "question") return;
    this.render();
  }

  #latest() {
    let latest = null;
    for (const [run, state] of this.#active) latest = [run, state];
    return latest;
  }

  #stopLatest() {
    const latest = this.#latest();
    if (latest) this.engine?.stop(latest[0]);
  }

  render() {
    const latest = this.#latest();
    const ended = latest ? null : this.#ended;
    const [shape, words] = latest ? describe(latest[1]) : ended ? ["returned", ENDED[ended.ending] ?? "Ended"] : ["idle", "Idle"];
    this.#status.dataset.state = shape;
    if (ended?.ending) this.#status.dataset.ending = ended.ending;
    else delete this.#status.dataset.ending;
    this.#text.textContent = words;
    const counters = this.engine?.counters();
    const waiting = counters ? counters.actionRequired + counters.awaitingReview : 0;
    this.#badge.textContent = waiting > 0 ? `${waiting} waiting for you` : "";
    this.#stop.disabled = !latest;
    this.#kill.disabled = !this.engine;
    this.#undo.disabled = !ended || ended.nothing || NOTHING_KEPT.has(ended.ending) || !!this.#held;
    const held = this.#held;
    this.#choice.hidden = !held;
    if (held) {
      const since = [];
      if (held.said?.changedByYou.length) since.push(`you changed ${list(held.said.changedByYou)}`);
      if (held.said?.changedByRuns.length) since.push(`another delegation changed ${list(held.said.changedByRuns)}`);
      this.#note.textContent = since.length ? `Not undone: since then, ${since.join(", and ")}.` : "Not undone: what it changed was changed since.";
      this.#rest.disabled = !held.untouched || held.untouched.length === 0;
    }
  }
}
