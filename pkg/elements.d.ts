// Type declarations of `baton-engine/elements`: the default surfaces.

import type { BatonEvent, Ending, Engine, RunId, UndoOptions, UndoReport } from "./baton.js";

/**
 * `<baton-presence>`: the delegation cycle in text and shape (never colour
 * alone, AG-44) — idle, planning, waiting for review, acting, needs you, and
 * how the last run ended, each with its own words and shape — a badge of what
 * waits for the person, Stop / "Stop everything" controls (AG-42), and Undo
 * for the run that ended last (A.2). When what that run changed was changed
 * since, it says so and offers "Undo only the rest", "Undo everything anyway"
 * and "Keep everything as it is". Static under prefers-reduced-motion, never
 * hidden (AG-43). Attaches to its engine as a presence surface (AG-35).
 * Parts: `status`, `shape`, `text`, `badge`, `stop`, `kill`, `undo`, `undo-choice`, `undo-note`, `undo-rest`, `undo-force`, `undo-keep`.
 */
export class BatonPresence extends HTMLElement {
  /** The engine to show; setting it attaches the element as a presence surface. */
  engine: Engine | null;
  /** The state shown; `returned` while no run is active after one ended. */
  readonly state: "idle" | "planning" | "reviewing" | "acting" | "needs-you" | "returned";
  /** How the last run ended while none is active; otherwise `undefined`. */
  readonly ending: Ending | "undone" | undefined;
  /**
   * Undoes a run (by default the one that ended last) in one step, as the Undo
   * control does. Resolves the engine's report, or `null` when it was held back
   * because what it changed was changed since (the choice is then offered);
   * other refusals reject with the engine's `BatonError`.
   */
  undo(run?: RunId, options?: UndoOptions): Promise<UndoReport | null>;
  /** Receives every event of the engine it is attached to. */
  handleEvent(event: BatonEvent): void;
}

/**
 * `<baton-review>`: a plan's concrete changes in the app's own terms (AG-31),
 * irreversible calls said so in words (AG-18, AG-25), Authorize / Reject at
 * the revision the person saw (Authorize waits for every preview); for an
 * escalated call, that call with Allow / Deny. A plan shown again after
 * drift says why (`again`); an act planned on a read that changed since is
 * marked stale (A.2). Any other escalation (budget, drift, a lapsed
 * authorization) is shown with its reason in words and the engine's own
 * choices (`engine.escalation(run)`). Shows the latest run waiting for
 * review, or the one named by `run`. While nothing waits, what a reload cut
 * off while it waited for the person is offered again (`engine.cutOff()`),
 * with "Review it again" (or "Answer it again") and "Discard". Each planned
 * call can be edited before it is authorized (approve with edits): a form
 * built from the capability's schema, filled with its arguments; Apply
 * replaces them (`engine.editCall`), validated and previewed again, and the
 * call is marked "changed by you".
 * Parts: `sheet`, `title`, `again`, `items`, `item`, `label`, `irreversible`, `stale`, `edited`, `change`, `edit-box`, `edit`, `edit-form`, `edit-error`, `edit-controls`, `apply-edit`, `cancel-edit`, `controls`, `authorize`, `reject`, `escalation`, `reason`, `choices`, `choice`, `cut-off`, `offer`, `offer-text`, `review-again`, `discard`.
 */
export class BatonReview extends HTMLElement {
  /** The engine to show; setting it attaches the element as a presence surface. */
  engine: Engine | null;
  /** The run to show; by default the latest one waiting for review. */
  run: string | null;
  /** Receives every event of the engine it is attached to. */
  handleEvent(event: BatonEvent): void;
}

/**
 * `<baton-question>`: the acting party's question as a non-modal form built
 * from its JSON Schema (enums, strings with formats, numbers with bounds,
 * booleans, nested objects as fieldsets, arrays of enums as checkboxes and of
 * other primitives one per line; JSON text for deeper shapes, text when it
 * has none; optional members left empty are left out), with Answer, Decline,
 * Dismiss and Later (AG-41); the engine's validator's message shown inline;
 * the deadline in words. Shows the latest open question, or the one named by
 * `question`. An approval of the acting party's own call (`asker.approval`,
 * answered with AG-UI's `{approved, editedArgs?, reason?}`) shows the call
 * with Approve, Edit (its arguments as a form when the answer's schema
 * describes them, as JSON otherwise) and Reject, and a note for the agent.
 * Parts: `form`, `prompt`, `call`, `fields`, `group`, `legend`, `field`, `error`, `deadline`, `controls`, `answer`, `decline`, `dismiss`, `later`, `approval`, `note`, `approve`, `edit`, `reject`.
 */
export class BatonQuestion extends HTMLElement {
  /** The engine to show; setting it attaches the element as a presence surface. */
  engine: Engine | null;
  /** The question shown, by id; by default the latest open one. */
  question: string | null;
  /** Receives every event of the engine it is attached to. */
  handleEvent(event: BatonEvent): void;
}

declare global {
  interface HTMLElementTagNameMap {
    "baton-presence": BatonPresence;
    "baton-review": BatonReview;
    "baton-question": BatonQuestion;
  }
}
