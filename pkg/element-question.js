// `<baton-question>`, the default question surface of `baton-engine/elements`.

import { editor } from "./element-form.js";
import { Surface, make, shadow } from "./element-surface.js";

const QUESTION_STYLE = `
:host { display: block; }
:host([hidden]) { display: none; }
[part=form][data-empty] { display: none; }
label { display: block; margin: 0.25em 0; }
[part=fields] > fieldset { border: 0; padding: 0; margin: 0; }
[part=group] { margin: 0.25em 0; }
[part=error]:empty { display: none; }
[part=call]:empty { display: none; }
[part=call] { font-family: ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
[part=controls] { display: flex; gap: var(--baton-gap, 0.5em); flex-wrap: wrap; margin-top: 0.5em; }
@media (forced-colors: active) { button, input, select, textarea { border: 1px solid ButtonText; } }
`;

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
  #call;
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
    // An approval of the acting party's own call: the call itself, as it
    // was streamed, is what the person reviews.
    this.#call = make("p", "call");
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
    this.#form.append(this.#prompt, this.#call, this.#fields, this.#error, this.#deadline, controls);
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
    const approval = question.asker.kind === "acting-party" ? question.asker.approval : undefined;
    this.#call.textContent = approval ? `${approval.tool} ${JSON.stringify(approval.arguments, null, 1)}` : "";
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
