// What the default surfaces of `baton-engine/elements` share: the `engine`
// property that attaches an element as a presence surface, its shadow root,
// and DOM built without innerHTML (the surfaces run under Trusted Types).

import { BatonError, Engine } from "./baton.js";

/**
 * The surfaces' own look, shared: type, colour, spacing and controls as CSS
 * custom properties an app sets on the element (`baton-review {
 * --baton-accent: … }`), every piece also reachable with `::part`. Light and
 * dark follow `prefers-color-scheme`; under forced colours the system's
 * colours take over and every control keeps a visible border.
 */
export const THEME = `
:host {
  color-scheme: light dark;
  --baton-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --baton-mono: ui-monospace, "SF Mono", Menlo, Consolas, monospace;
  --baton-fg: #1c2430; --baton-muted: #556170; --baton-bg: #ffffff; --baton-surface: #f5f7fa;
  --baton-border: #d3d9e1; --baton-accent: #2451b3; --baton-accent-fg: #ffffff;
  --baton-danger: #a4232f; --baton-added: #ddf3e4; --baton-added-fg: #11512a;
  --baton-removed: #fbe3e4; --baton-removed-fg: #8a1c26; --baton-focus: #2451b3;
  --baton-radius: 8px; --baton-gap: 0.5em;
  font: 0.95rem/1.45 var(--baton-font);
  color: var(--baton-fg);
}
@media (prefers-color-scheme: dark) {
  :host {
    --baton-fg: #e6ebf2; --baton-muted: #a5b0bf; --baton-bg: #161b22; --baton-surface: #1f2630;
    --baton-border: #3a4452; --baton-accent: #8fb1ff; --baton-accent-fg: #0d1526;
    --baton-danger: #ff9aa2; --baton-added: #173d26; --baton-added-fg: #b5f0c8;
    --baton-removed: #4a1c22; --baton-removed-fg: #ffc2c8; --baton-focus: #8fb1ff;
  }
}
button {
  font: inherit; font-weight: 600; cursor: pointer;
  padding: 0.35em 0.9em; border-radius: calc(var(--baton-radius) - 2px);
  border: 1px solid var(--baton-border); background: var(--baton-surface); color: var(--baton-fg);
}
button:hover:not(:disabled) { border-color: var(--baton-accent); }
button:disabled { cursor: not-allowed; opacity: 0.55; }
:is(button, input, select, textarea):focus-visible { outline: 2px solid var(--baton-focus); outline-offset: 2px; }
:is([part=authorize], [part=answer], [part=review-again], [part=apply-edit]) {
  background: var(--baton-accent); border-color: var(--baton-accent); color: var(--baton-accent-fg);
}
:is([part=kill], [part=reject]) { color: var(--baton-danger); }
input, select, textarea {
  font: inherit; color: var(--baton-fg); background: var(--baton-bg);
  border: 1px solid var(--baton-border); border-radius: calc(var(--baton-radius) - 2px); padding: 0.25em 0.5em;
}
del[part=before] { background: var(--baton-removed); color: var(--baton-removed-fg); text-decoration: line-through; border-radius: 3px; padding: 0 0.2em; }
ins[part=after] { background: var(--baton-added); color: var(--baton-added-fg); text-decoration: none; font-weight: 600; border-radius: 3px; padding: 0 0.2em; }
@media (forced-colors: active) {
  button, input, select, textarea { border: 1px solid ButtonText; }
  :is([part=authorize], [part=answer], [part=review-again], [part=apply-edit]) { background: ButtonFace; color: ButtonText; }
  del[part=before] { background: Canvas; color: CanvasText; text-decoration: line-through; }
  ins[part=after] { background: Mark; color: MarkText; }
}
`;

/** An open shadow root for a surface, with the shared theme and its own style sheet. */
export function shadow(host, css) {
  const root = host.attachShadow({ mode: "open" });
  const style = document.createElement("style");
  style.textContent = THEME + css;
  root.append(style);
  return root;
}

export function make(tag, part, text) {
  const node = document.createElement(tag);
  node.setAttribute("part", part);
  if (text !== undefined) node.textContent = text;
  return node;
}

export function button(part, text, onClick) {
  const node = make("button", part, text);
  node.type = "button";
  node.addEventListener("click", onClick);
  return node;
}

/**
 * What every default surface shares: an `engine` property that attaches the
 * element to the engine as a presence surface while it is in the document
 * (AG-35), and detaches it when it leaves, the engine changes or closes.
 */
export class Surface extends HTMLElement {
  #engine = null;
  #detach = null;

  /** The engine shown; setting it attaches the element as a presence surface. */
  get engine() {
    return this.#engine;
  }

  set engine(engine) {
    if (engine != null && !(engine instanceof Engine)) {
      throw new BatonError("invalid-value", `a surface's engine must be an Engine or null, not ${engine === null ? "null" : typeof engine}`);
    }
    this.#detach?.();
    this.#detach = null;
    this.#engine = engine ?? null;
    this.engineChanged();
    if (this.#engine && this.isConnected) this.#attach();
    this.render();
  }

  connectedCallback() {
    if (this.#engine && !this.#detach) this.#attach();
  }

  /**
   * Attached as a presence surface: every event goes to `handleEvent`, but
   * the engine closing lets the engine go — the element shows what it shows
   * with none, its controls off.
   */
  #attach() {
    const engine = this.#engine;
    let presence;
    try {
      presence = engine.presence;
    } catch (error) {
      // An engine already closed (set again by a framework re-rendering)
      // is let go at once.
      if (error?.code !== "closed") throw error;
      this.#engine = null;
      return;
    }
    this.#detach = presence.attach({
      handleEvent: (event) => {
        if (event.type !== "closed") this.handleEvent(event);
        else if (this.#engine === engine) {
          this.#detach = null;
          this.#engine = null;
          this.engineChanged();
          this.render();
        }
      },
    });
  }

  disconnectedCallback() {
    this.#detach?.();
    this.#detach = null;
  }

  /** A new engine was set. */
  engineChanged() {}

  /** Draws the element from the engine's state. */
  render() {}
}
