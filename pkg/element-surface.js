// What the default surfaces of `baton-engine/elements` share: the `engine`
// property that attaches an element as a presence surface, its shadow root,
// and DOM built without innerHTML (the surfaces run under Trusted Types).

/** An open shadow root for a surface, with its style sheet. */
export function shadow(host, css) {
  const root = host.attachShadow({ mode: "open" });
  const style = document.createElement("style");
  style.textContent = css;
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
 * (AG-35), and detaches it when it leaves or the engine changes.
 */
export class Surface extends HTMLElement {
  #engine = null;
  #detach = null;

  /** The engine shown; setting it attaches the element as a presence surface. */
  get engine() {
    return this.#engine;
  }

  set engine(engine) {
    this.#detach?.();
    this.#detach = null;
    this.#engine = engine ?? null;
    this.engineChanged();
    if (this.#engine && this.isConnected) this.#detach = this.#engine.presence.attach(this);
    this.render();
  }

  connectedCallback() {
    if (this.#engine && !this.#detach) this.#detach = this.#engine.presence.attach(this);
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
