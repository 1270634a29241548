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

declare global {
  interface HTMLElementTagNameMap {
    "baton-presence": BatonPresence;
  }
}
