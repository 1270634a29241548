// Default surfaces of `baton-engine`, as framework-free custom elements:
//
//   import "baton-engine/elements";
//   document.querySelector("baton-presence").engine = engine;
//
// <baton-presence> shows the delegation cycle in text and in shape (never
// colour alone, AG-44), a badge of what needs the person, and visible Stop
// and "Stop everything" controls (AG-42). Under prefers-reduced-motion it is
// shown static, never hidden (AG-43); under forced colours it uses system
// colours. It attaches to the engine as a presence surface (AG-35). It has no
// live region of its own — the engine's one region speaks — never moves
// focus, and builds its DOM without innerHTML (it runs under Trusted Types).
// Style it through the parts `status`, `shape`, `text`, `badge`, `stop`,
// `kill`, and the custom properties `--baton-gap` and `--baton-shape-size`.

const STYLE = `
:host { display: block; }
:host([hidden]) { display: none; }
[part=status] { display: flex; align-items: center; gap: var(--baton-gap, 0.5em); flex-wrap: wrap; }
[part=shape] {
  display: inline-block; box-sizing: border-box;
  width: var(--baton-shape-size, 0.9em); height: var(--baton-shape-size, 0.9em);
  border: 2px solid currentColor;
}
[data-state=idle] [part=shape] { border-radius: 50%; }
[data-state=planning] [part=shape] { border-style: dashed; border-radius: 50%; }
[data-state=reviewing] [part=shape], [data-state=needs-you] [part=shape] { border-width: 4px; border-style: double; }
[data-state=acting] [part=shape] { transform: rotate(45deg); animation: baton-turn 1.2s linear infinite; }
@keyframes baton-turn { from { transform: rotate(45deg); } to { transform: rotate(405deg); } }
@media (prefers-reduced-motion: reduce) {
  [data-state=acting] [part=shape] { animation: none; }
}
@media (forced-colors: active) {
  [part=shape] { border-color: CanvasText; }
  button { border: 1px solid ButtonText; }
}
[part=badge]:empty { display: none; }
`;

/** How the person reads a run's state: a shape name and words. */
function describe(state) {
  switch (state?.state) {
    case undefined:
    case "returned":
    case "cancelled":
      return ["idle", "Idle"];
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

function make(tag, part, text) {
  const node = document.createElement(tag);
  node.setAttribute("part", part);
  if (text !== undefined) node.textContent = text;
  return node;
}

export class BatonPresence extends HTMLElement {
  #engine = null;
  #detach = null;
  /** Runs not yet terminal, by id, with their last state. */
  #active = new Map();
  #root;
  #status;
  #text;
  #badge;
  #stop;
  #kill;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: "open" });
    const style = document.createElement("style");
    style.textContent = STYLE;
    this.#status = make("div", "status");
    this.#status.setAttribute("role", "group");
    this.#status.setAttribute("aria-label", this.getAttribute("label") ?? "Assistant");
    const shape = make("span", "shape");
    shape.setAttribute("aria-hidden", "true");
    this.#text = make("span", "text", "Idle");
    this.#badge = make("span", "badge");
    this.#stop = make("button", "stop", "Stop");
    this.#stop.type = "button";
    this.#kill = make("button", "kill", "Stop everything");
    this.#kill.type = "button";
    this.#stop.addEventListener("click", () => this.#stopLatest());
    this.#kill.addEventListener("click", () => this.#engine?.killAll());
    this.#status.append(shape, this.#text, this.#badge, this.#stop, this.#kill);
    this.#root.append(style, this.#status);
    this.#render();
  }

  /** The engine to show; set it to attach as a presence surface (AG-35). */
  get engine() {
    return this.#engine;
  }

  set engine(engine) {
    this.#detach?.();
    this.#detach = null;
    this.#engine = engine ?? null;
    this.#active.clear();
    if (this.#engine && this.isConnected) this.#attach();
    this.#render();
  }

  /** The state shown: `idle`, `planning`, `reviewing`, `acting` or `needs-you`. */
  get state() {
    return this.#status.dataset.state;
  }

  connectedCallback() {
    if (this.#engine && !this.#detach) this.#attach();
  }

  disconnectedCallback() {
    this.#detach?.();
    this.#detach = null;
  }

  /** The engine calls this with every event (a presence surface). */
  handleEvent(event) {
    if (event.type === "journal" && event.entry.kind === "transition") {
      const state = event.entry.to;
      if (state.state === "returned" || state.state === "cancelled") this.#active.delete(event.run);
      else this.#active.set(event.run, state);
      this.#render();
    } else if (event.type === "question" || event.type === "announcement") {
      this.#render();
    }
  }

  #attach() {
    this.#detach = this.#engine.presence.attach(this);
  }

  #latest() {
    let latest = null;
    for (const [run, state] of this.#active) latest = [run, state];
    return latest;
  }

  #stopLatest() {
    const latest = this.#latest();
    if (latest) this.#engine?.stop(latest[0]);
  }

  #render() {
    const latest = this.#latest();
    const [shape, words] = describe(latest?.[1]);
    this.#status.dataset.state = shape;
    this.#text.textContent = words;
    const counters = this.#engine?.counters();
    const waiting = counters ? counters.actionRequired + counters.awaitingReview : 0;
    this.#badge.textContent = waiting > 0 ? `${waiting} waiting for you` : "";
    this.#stop.disabled = !latest;
    this.#kill.disabled = !this.#engine;
  }
}

if (!customElements.get("baton-presence")) customElements.define("baton-presence", BatonPresence);
