// Type declarations of `baton-engine/elements`: the default surfaces.

import type { BatonEvent, Engine } from "./baton.js";

/**
 * `<baton-presence>`: the delegation cycle in text and shape (never colour
 * alone, AG-44), a badge of what waits for the person, and Stop / "Stop
 * everything" controls (AG-42). Static under prefers-reduced-motion, never
 * hidden (AG-43). Attaches to its engine as a presence surface (AG-35).
 * Parts: `status`, `shape`, `text`, `badge`, `stop`, `kill`.
 */
export class BatonPresence extends HTMLElement {
  /** The engine to show; setting it attaches the element as a presence surface. */
  engine: Engine | null;
  /** The state shown. */
  readonly state: "idle" | "planning" | "reviewing" | "acting" | "needs-you";
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
 * review, or the one named by `run`.
 * Parts: `sheet`, `title`, `again`, `items`, `item`, `label`, `irreversible`, `stale`, `change`, `controls`, `authorize`, `reject`, `escalation`, `reason`, `choices`, `choice`.
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
 * `question`.
 * Parts: `form`, `prompt`, `fields`, `group`, `legend`, `field`, `error`, `deadline`, `controls`, `answer`, `decline`, `dismiss`, `later`.
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
