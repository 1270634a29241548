// `<baton-question>`, the default question surface of `baton-engine/elements`.

import { Surface, make, shadow } from "./element-surface.js";

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
