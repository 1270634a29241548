// Default surfaces of `baton-engine`, as framework-free custom elements:
//
//   import "baton-engine/elements";
//   document.querySelector("baton-presence").engine = engine;
//
// <baton-review> shows a plan's concrete changes (or an escalated call's)
// with Authorize / Reject. <baton-presence> shows the delegation cycle in text and in shape (never
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

/** An open shadow root for a surface, with its style sheet. */
function shadow(host, css) {
  const root = host.attachShadow({ mode: "open" });
  const style = document.createElement("style");
  style.textContent = css;
  root.append(style);
  return root;
}

function make(tag, part, text) {
  const node = document.createElement(tag);
  node.setAttribute("part", part);
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * What every default surface shares: an `engine` property that attaches the
 * element to the engine as a presence surface while it is in the document
 * (AG-35), and detaches it when it leaves or the engine changes.
 */
class Surface extends HTMLElement {
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

export class BatonPresence extends Surface {
  /** Runs not yet terminal, by id, with their last state. */
  #active = new Map();
  #status;
  #text;
  #badge;
  #stop;
  #kill;

  constructor() {
    super();
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
    this.#kill.addEventListener("click", () => this.engine?.killAll());
    this.#status.append(shape, this.#text, this.#badge, this.#stop, this.#kill);
    shadow(this, STYLE).append(this.#status);
    this.render();
  }

  engineChanged() {
    this.#active.clear();
  }

  /** The state shown: `idle`, `planning`, `reviewing`, `acting` or `needs-you`. */
  get state() {
    return this.#status.dataset.state;
  }

  /** The engine calls this with every event (a presence surface). */
  handleEvent(event) {
    if (event.type === "journal" && event.entry.kind === "transition") {
      const state = event.entry.to;
      if (state.state === "returned" || state.state === "cancelled") this.#active.delete(event.run);
      else this.#active.set(event.run, state);
      this.render();
    } else if (event.type === "question" || event.type === "announcement") {
      this.render();
    }
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
    const [shape, words] = describe(latest?.[1]);
    this.#status.dataset.state = shape;
    this.#text.textContent = words;
    const counters = this.engine?.counters();
    const waiting = counters ? counters.actionRequired + counters.awaitingReview : 0;
    this.#badge.textContent = waiting > 0 ? `${waiting} waiting for you` : "";
    this.#stop.disabled = !latest;
    this.#kill.disabled = !this.engine;
  }
}

const REVIEW_STYLE = `
:host { display: block; }
:host([hidden]) { display: none; }
[part=sheet][data-empty], [part=escalation][data-empty] { display: none; }
[part=choices] { display: flex; gap: var(--baton-gap, 0.5em); flex-wrap: wrap; }
[part=again], [part=stale] { font-weight: bold; }
[part=again]:empty { display: none; }
[part=items] { margin: 0; padding-left: 1.5em; }
[part=change] { margin: 0.25em 0 0.5em; white-space: pre-wrap; font-family: ui-monospace, monospace; }
[part=controls] { display: flex; gap: var(--baton-gap, 0.5em); flex-wrap: wrap; }
@media (forced-colors: active) { button { border: 1px solid ButtonText; } }
`;

/**
 * Why a plan the person approved is shown again (AG-29), in words: the
 * reads that changed, named by their participant's label where the sheet
 * knows it.
 */
function againText(sheet) {
  const again = sheet.again;
  if (!again) return "";
  if (again.kind === "authorization-expired") {
    return "Your approval of this plan ran out before it finished. Look at it again:";
  }
  const labels = new Map(sheet.items.map((item) => [item.capability.participant, item.participantLabel]));
  const changed = [...new Set(again.reads.map((read) => labels.get(read.participant) ?? read.participant))];
  return `${changed.join(" and ")} changed since you approved this plan, and so did what it will do. Look at it again:`;
}

/** A change in the app's own terms: `field: from → to` lines, else JSON. */
function changeText(change) {
  if (change.kind === "pending") return "Preparing the preview…";
  const value = change.kind === "preview" ? change.value : change.arguments;
  const note = change.kind === "arguments" && change.note ? `\n(${change.note})` : "";
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const lines = Object.entries(value).map(([field, detail]) =>
      detail && typeof detail === "object" && "from" in detail && "to" in detail
        ? `${field}: ${JSON.stringify(detail.from)} → ${JSON.stringify(detail.to)}`
        : `${field}: ${JSON.stringify(detail)}`,
    );
    return lines.join("\n") + note;
  }
  return JSON.stringify(value) + note;
}

/**
 * `<baton-review>`: the review sheet (AG-31) — for each planned call the
 * participant's concrete change in the app's own terms (or its arguments,
 * and why no preview), irreversible calls said so in words (AG-18, AG-25),
 * and Authorize / Reject at the revision the person saw; Authorize waits
 * until every preview has arrived. For an escalated call it shows that one
 * call, with Allow / Deny. Set `engine`; it shows the latest run that waits
 * for review, or the one named by `run`.
 */
export class BatonReview extends Surface {
  #run = null;
  #sheet;
  #title;
  #again;
  #items;
  #authorize;
  #reject;

  constructor() {
    super();
    this.#sheet = make("section", "sheet");
    this.#title = make("p", "title");
    this.#again = make("p", "again");
    this.#items = make("ol", "items");
    const controls = make("div", "controls");
    this.#authorize = make("button", "authorize", "Authorize");
    this.#authorize.type = "button";
    this.#reject = make("button", "reject", "Reject");
    this.#reject.type = "button";
    this.#authorize.addEventListener("click", () => this.#decide(true));
    this.#reject.addEventListener("click", () => this.#decide(false));
    controls.append(this.#authorize, this.#reject);
    this.#sheet.append(this.#title, this.#again, this.#items, controls);
    this.#escalation = make("section", "escalation");
    this.#reason = make("p", "reason");
    this.#choices = make("div", "choices");
    this.#escalation.append(this.#reason, this.#choices);
    shadow(this, REVIEW_STYLE).append(this.#sheet, this.#escalation);
    this.render();
  }

  #escalation;
  #reason;
  #choices;

  /** The run shown; by default the latest one waiting for review. */
  get run() {
    return this.#run;
  }

  set run(run) {
    this.#run = run ?? null;
    this.render();
  }

  handleEvent(event) {
    if (event.type === "journal" && event.entry.kind === "transition") {
      const waits = event.entry.to.state === "reviewing" || event.entry.to.state === "escalated";
      if (waits && !this.hasAttribute("run")) this.#latest = event.run;
    }
    if (event.type === "journal") this.render();
  }

  #latest = null;

  #shown() {
    return this.#run ?? this.getAttribute("run") ?? this.#latest;
  }

  #sheetOf(run) {
    try {
      return run ? this.engine?.review(run) ?? null : null;
    } catch {
      return null;
    }
  }

  #decide(yes) {
    const run = this.#shown();
    const sheet = this.#sheetOf(run);
    if (!sheet) return;
    const escalated = this.engine.state(run).state === "escalated";
    if (escalated) this.engine.resolveEscalation(run, sheet.revision, yes ? "allow" : "deny");
    else if (yes) this.engine.authorize(run, sheet.revision);
    else this.engine.reject(run, sheet.revision);
  }

  /**
   * An escalation no review sheet shows (budget, drift, a lapsed
   * authorization): its reason in words and the engine's own choices, each
   * resolving at the revision shown. Questions have their own surface.
   */
  #renderEscalation(run) {
    let escalation = null;
    try {
      escalation = run ? this.engine?.escalation(run) ?? null : null;
    } catch {
      escalation = null;
    }
    if (!escalation || escalation.reason.kind === "awaiting-answer") {
      this.#escalation.setAttribute("data-empty", "");
      this.#choices.replaceChildren();
      return;
    }
    this.#escalation.removeAttribute("data-empty");
    this.#reason.textContent = `“${escalation.intent}” is waiting for you. ${reasonText(escalation)}`;
    this.#choices.replaceChildren(
      ...escalation.choices.map((choice) => {
        const button = make("button", "choice", choiceText(choice, escalation));
        button.type = "button";
        button.dataset.choice = choice.kind;
        button.addEventListener("click", () => this.engine.resolveEscalation(escalation.run, escalation.revision, choice));
        return button;
      }),
    );
  }

  render() {
    const run = this.#shown();
    const sheet = this.#sheetOf(run);
    this.#renderEscalation(sheet ? null : run);
    if (!sheet) {
      this.#sheet.setAttribute("data-empty", "");
      this.#items.replaceChildren();
      return;
    }
    this.#sheet.removeAttribute("data-empty");
    const escalated = this.engine.state(run).state === "escalated";
    this.#title.textContent = escalated ? `“${sheet.intent}” needs you to allow one more change:` : `The plan for “${sheet.intent}”:`;
    this.#again.textContent = againText(sheet);
    this.#items.replaceChildren(
      ...sheet.items.map((item) => {
        const entry = make("li", "item");
        const who = make("strong", "label", `${item.participantLabel ?? item.capability.participant}: ${item.capability.capability}`);
        entry.append(who);
        if (item.irreversible) entry.append(make("span", "irreversible", " — cannot be undone"));
        if (item.stale) {
          // Superseded by a change underneath it (A.2, AG-20), said in words.
          const what = item.participantLabel ?? item.stale.read.participant;
          entry.append(make("span", "stale", ` — ${what} changed since this was planned; if you authorize, it is planned again`));
        }
        entry.append(make("pre", "change", changeText(item.change)));
        return entry;
      }),
    );
    this.#authorize.textContent = escalated ? "Allow" : "Authorize";
    this.#reject.textContent = escalated ? "Deny" : "Reject";
    this.#authorize.disabled = !sheet.ready;
  }
}

/** Why an escalated run waits, in words. */
function reasonText(escalation) {
  const { reason, budget, usage } = escalation;
  switch (reason.kind) {
    case "budget-exhausted":
      return reason.limit === "calls"
        ? `It has made all ${budget.maxCalls} of the calls it was allowed (${usage.calls} used).`
        : `It has used all ${budget.maxTurns} of the exchanges it was allowed (${usage.turns} used).`;
    case "drift":
      return "What it was allowed to do was decided on content that has changed since; look at it again or end it.";
    case "authorization-expired":
      return "Your authorization ran out before it finished.";
    default:
      return "It needs your decision to go on.";
  }
}

/** A resolution offered by the engine, as a button label. */
function choiceText(choice, escalation) {
  switch (choice.kind) {
    case "allow":
      if (!choice.budget) return "Allow";
      return escalation.reason.limit === "calls" ? `Allow up to ${choice.budget.maxCalls} calls` : `Allow up to ${choice.budget.maxTurns} exchanges`;
    case "review": return "Review again";
    case "deny": return "Deny";
    default: return "End it";
  }
}

const QUESTION_STYLE = `
:host { display: block; }
:host([hidden]) { display: none; }
[part=form][data-empty] { display: none; }
label { display: block; margin: 0.25em 0; }
[part=fields] > fieldset { border: 0; padding: 0; margin: 0; }
[part=group] { margin: 0.25em 0; }
[part=error]:empty { display: none; }
[part=controls] { display: flex; gap: var(--baton-gap, 0.5em); flex-wrap: wrap; margin-top: 0.5em; }
@media (forced-colors: active) { button, input, select, textarea { border: 1px solid ButtonText; } }
`;

const INPUT_TYPES = { email: "email", date: "date", "date-time": "datetime-local", uri: "url", time: "time" };

/** One control of a question's form, for a primitive schema. */
function control(name, schema) {
  let node;
  if (Array.isArray(schema.enum)) {
    node = document.createElement("select");
    for (const choice of schema.enum) {
      const option = document.createElement("option");
      option.value = JSON.stringify(choice);
      option.textContent = String(choice);
      node.append(option);
    }
    node.dataset.kind = "enum";
  } else if (schema.type === "boolean") {
    node = document.createElement("input");
    node.type = "checkbox";
    node.dataset.kind = "boolean";
  } else if (schema.type === "number" || schema.type === "integer") {
    node = document.createElement("input");
    node.type = "number";
    if (schema.minimum !== undefined) node.min = String(schema.minimum);
    if (schema.maximum !== undefined) node.max = String(schema.maximum);
    if (schema.type === "integer") node.step = "1";
    node.dataset.kind = "number";
  } else {
    node = document.createElement("input");
    node.type = INPUT_TYPES[schema.format] ?? "text";
    node.dataset.kind = "string";
  }
  node.name = name;
  node.setAttribute("part", "field");
  return node;
}

/** The value a primitive control holds, as JSON. */
function valueOf(node) {
  switch (node.dataset.kind) {
    case "enum": return JSON.parse(node.value);
    case "boolean": return node.checked;
    case "number": return node.value === "" ? null : Number(node.value);
    default: return node.value;
  }
}

/** An item of a list typed as its schema says; what does not parse stays text, for the validator to name. */
function itemOf(text, schema) {
  const type = schema?.type;
  if ((type === "number" || type === "integer") && text.trim() !== "" && !Number.isNaN(Number(text))) return Number(text);
  if (type === "boolean" && (text === "true" || text === "false")) return text === "true";
  return text;
}

const PRIMITIVE = new Set(["string", "number", "integer", "boolean"]);
/** How deep the form follows nested objects; deeper values are typed as JSON text. */
const MAX_FORM_DEPTH = 4;

/**
 * An editor for one value of a question's schema: its element, and `value()`
 * reading it back as JSON (`undefined`: left empty). Objects become
 * fieldsets of their properties, arrays of primitives a set of checkboxes
 * (enums) or a list, one item per line; anything else is typed as JSON text.
 */
function editor(name, schema, depth = 0) {
  const title = schema?.title ?? name;
  if (schema?.type === "object" && schema.properties && depth < MAX_FORM_DEPTH) {
    const group = make("fieldset", "group");
    group.append(make("legend", "legend", title));
    const required = new Set(schema.required ?? []);
    // The schema reaches the page with its keys sorted; required members
    // come first, in the order `required` lists them, then the rest.
    const order = [...(schema.required ?? []).filter((key) => key in schema.properties), ...Object.keys(schema.properties).filter((key) => !required.has(key))];
    const members = order.map((key) => [key, editor(key, schema.properties[key], depth + 1)]);
    group.append(...members.map(([, member]) => member.element));
    const value = () => {
      const entries = members
        .map(([key, member]) => [key, member.value()])
        // An optional member left empty is left out, not sent as "".
        .filter(([key, v]) => v !== undefined && (required.has(key) || (v !== "" && v !== null && !(Array.isArray(v) && v.length === 0))));
      return Object.fromEntries(entries);
    };
    return { element: group, value };
  }
  if (schema?.type === "array" && schema.items && Array.isArray(schema.items.enum)) {
    const group = make("fieldset", "group");
    group.append(make("legend", "legend", title));
    const boxes = schema.items.enum.map((choice) => {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.setAttribute("part", "field");
      box.name = name;
      box.value = JSON.stringify(choice);
      label.append(box, ` ${String(choice)}`);
      group.append(label);
      return box;
    });
    return { element: group, value: () => boxes.filter((box) => box.checked).map((box) => JSON.parse(box.value)) };
  }
  const label = document.createElement("label");
  if (schema?.type === "array" && PRIMITIVE.has(schema.items?.type)) {
    label.textContent = `${title} (one per line) `;
    const list = document.createElement("textarea");
    list.name = name;
    list.rows = 3;
    list.setAttribute("part", "field");
    label.append(list);
    const value = () => list.value.split("\n").filter((line) => line.trim() !== "").map((line) => itemOf(line.trim(), schema.items));
    return { element: label, value };
  }
  const structured = schema && (schema.type === "object" || schema.type === "array") && !Array.isArray(schema.enum);
  if (structured) {
    // Deeper than the form goes, or a shape it does not render: typed as JSON.
    label.textContent = `${title} (JSON) `;
    const text = document.createElement("textarea");
    text.name = name;
    text.rows = 3;
    text.setAttribute("part", "field");
    label.append(text);
    const value = () => {
      if (text.value.trim() === "") return undefined;
      try {
        return JSON.parse(text.value);
      } catch {
        return text.value; // the engine's validator says what is wrong
      }
    };
    return { element: label, value };
  }
  label.textContent = `${title} `;
  const node = control(name, schema ?? {});
  label.append(node);
  return { element: label, value: () => valueOf(node) };
}

/** A deadline in words, from now. */
function inWords(deadline) {
  const minutes = Math.max(0, Math.round((deadline - Date.now()) / 60000));
  return minutes < 1 ? "less than a minute" : minutes === 1 ? "a minute" : `${minutes} minutes`;
}

/**
 * `<baton-question>`: a question the acting party asked, as a non-modal form
 * built from its JSON Schema (enums, strings with formats, numbers with
 * bounds, booleans, nested objects as fieldsets, arrays of primitives; text
 * when it has none), with Answer, Decline, Dismiss
 * and "Later" (AG-41). The engine's own validator checks the answer; its
 * message is shown inline. The deadline is said in words. It shows the
 * latest open question, or the one named by `question`.
 */
export class BatonQuestion extends Surface {
  #question = null;
  #latest = null;
  #form;
  #prompt;
  #fields;
  #editor = null;
  #error;
  #deadline;

  constructor() {
    super();
    this.#form = make("form", "form");
    // The engine's validator is the one judge of an answer (the question's
    // schema, checked in wasm); the browser's own would second-guess it.
    this.#form.noValidate = true;
    this.#prompt = make("p", "prompt");
    this.#prompt.id = "prompt";
    this.#fields = make("div", "fields");
    this.#error = make("p", "error");
    this.#error.setAttribute("role", "alert");
    this.#deadline = make("p", "deadline");
    const controls = make("div", "controls");
    const button = (part, text, act) => {
      const node = make("button", part, text);
      node.type = part === "answer" ? "submit" : "button";
      if (act) node.addEventListener("click", act);
      controls.append(node);
    };
    button("answer", "Answer");
    button("decline", "Decline", () => this.#close("decline"));
    button("dismiss", "Dismiss", () => this.#close("dismiss"));
    button("later", "Later", () => this.#close("postpone"));
    this.#form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#answer();
    });
    this.#form.append(this.#prompt, this.#fields, this.#error, this.#deadline, controls);
    shadow(this, QUESTION_STYLE).append(this.#form);
    this.render();
  }

  /** The question shown: its id; by default the latest open one. */
  get question() {
    return this.#question;
  }

  set question(id) {
    this.#question = id ?? null;
    this.render();
  }

  handleEvent(event) {
    if (event.type === "question") this.#latest = event.id;
    if (event.type === "question" || event.type === "journal") this.render();
  }

  #current() {
    const id = this.#question ?? this.#latest;
    if (!id || !this.engine) return null;
    const question = this.engine.questions().find((q) => q.id === id);
    return question && ["open", "postponed"].includes(question.state.state) ? question : null;
  }

  #answer() {
    const question = this.#current();
    if (!question || !this.#editor) return;
    const answer = this.#editor.value() ?? null;
    try {
      this.engine.answer(question.id, question.digest, answer);
      this.#error.textContent = "";
    } catch (error) {
      // The engine's validator says what is wrong; the form stays open.
      this.#error.textContent = error.message;
    }
    this.render();
  }

  #close(how) {
    const question = this.#current();
    if (!question) return;
    if (how === "postpone") this.engine.postpone(question.id, Date.now() + 5 * 60000);
    else this.engine[how](question.id);
    this.render();
  }

  render() {
    const question = this.#current();
    if (!question) {
      this.#form.setAttribute("data-empty", "");
      this.#fields.replaceChildren();
      this.#fields.dataset.for = "";
      return;
    }
    this.#form.removeAttribute("data-empty");
    this.#prompt.textContent = question.prompt;
    this.#deadline.textContent = `Open for ${inWords(question.deadlineAt)}.`;
    if (this.#fields.dataset.for !== question.id) {
      this.#fields.dataset.for = question.id;
      this.#error.textContent = "";
      const schema = question.schema ?? { type: "string", title: "Your answer" };
      this.#editor = editor("answer", schema);
      // The prompt names the question; the root object's own legend would repeat it.
      const root = this.#editor.element;
      if (root.tagName === "FIELDSET" && schema.type === "object") {
        root.querySelector(":scope > legend").remove();
        root.setAttribute("aria-labelledby", "prompt");
      }
      this.#fields.replaceChildren(root);
    }
  }
}

if (!customElements.get("baton-presence")) customElements.define("baton-presence", BatonPresence);
if (!customElements.get("baton-question")) customElements.define("baton-question", BatonQuestion);
if (!customElements.get("baton-review")) customElements.define("baton-review", BatonReview);
