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
[part=approval] label { display: block; margin: 0.25em 0; }
[part=form]:not([data-approval]) [part=approval], [part=form][data-approval] [part=controls] > :is([part=answer], [part=decline]) { display: none; }
[part=form][data-approval]:not([data-editing]) [part=fields] { display: none; }
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
 *
 * When the acting party asks to approve one of its own calls (the asker's
 * `approval`, answered with AG-UI's `{approved, editedArgs?, reason?}`), the
 * person reviews the call as streamed and chooses Approve, Edit or Reject,
 * with an optional note for the agent. Edit offers the arguments, as a form
 * when the answer's schema describes them (`editedArgs` with properties) and
 * as JSON otherwise, checked as JSON here and then by the engine's validator
 * before anything is sent.
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
  #approval;
  #note;
  #approve;
  #editing = false;
  #shown = null;

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
    // An approval of the acting party's own call: Approve, Edit, Reject.
    this.#approval = make("div", "approval");
    const note = document.createElement("label");
    note.textContent = "Note for the agent (optional) ";
    this.#note = document.createElement("input");
    this.#note.setAttribute("part", "note");
    note.append(this.#note);
    const decide = make("div", "controls");
    const choice = (part, text, act) => {
      const node = make("button", part, text);
      node.type = "button";
      node.addEventListener("click", act);
      decide.append(node);
      return node;
    };
    this.#approve = choice("approve", "Approve", () => this.#decide(true));
    choice("edit", "Edit", () => {
      this.#editing = true;
      this.render();
    });
    choice("reject", "Reject", () => this.#decide(false));
    this.#approval.append(note, decide);
    this.#form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (this.#form.hasAttribute("data-approval")) this.#decide(true);
      else this.#answer();
    });
    this.#form.append(this.#prompt, this.#call, this.#fields, this.#approval, this.#error, this.#deadline, controls);
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
    this.#send(question, this.#editor.value() ?? null);
  }

  /** Sends `answer`; the engine's validator says what is wrong, and the form stays open. */
  #send(question, answer) {
    try {
      this.engine.answer(question.id, question.digest, answer);
      this.#error.textContent = "";
    } catch (error) {
      this.#error.textContent = error.message;
    }
    this.render();
  }

  /** Approves (with the edited arguments, when editing) or rejects the call. */
  #decide(approved) {
    const question = this.#current();
    if (!question) return;
    const answer = { approved };
    if (approved && this.#editing && this.#editor) {
      const edited = this.#editor.value();
      if (edited === undefined || typeof edited !== "object" || Array.isArray(edited)) {
        this.#error.textContent = "The edited arguments must be a JSON object.";
        return;
      }
      answer.editedArgs = edited;
    }
    const reason = this.#note.value.trim();
    if (reason) answer.reason = reason;
    this.#send(question, answer);
  }

  #close(how) {
    const question = this.#current();
    if (!question) return;
    if (how === "postpone") this.engine.postpone(question.id, Date.now() + 5 * 60000);
    else this.engine[how](question.id);
    this.render();
  }

  /** The deadline's words kept true as time passes: drawn again every 30 s while a question shows. */
  #tick;

  disconnectedCallback() {
    super.disconnectedCallback();
    clearTimeout(this.#tick);
  }

  render() {
    clearTimeout(this.#tick);
    const question = this.#current();
    if (!question) {
      this.#form.setAttribute("data-empty", "");
      this.#fields.replaceChildren();
      this.#fields.dataset.for = "";
      this.#shown = null;
      return;
    }
    this.#form.removeAttribute("data-empty");
    this.#prompt.textContent = question.prompt;
    const approval = question.asker.kind === "acting-party" ? question.asker.approval : undefined;
    this.#call.textContent = approval ? `${approval.tool} ${JSON.stringify(approval.arguments, null, 1)}` : "";
    this.#deadline.textContent = `Open for ${inWords(question.deadlineAt)}.`;
    if (this.isConnected) this.#tick = setTimeout(() => this.render(), 30_000);
    // Approve / Edit / Reject when AG-UI's `approved` is the answer.
    const deciding = approval !== undefined && question.schema?.properties?.approved?.type === "boolean";
    this.#form.toggleAttribute("data-approval", deciding);
    if (this.#shown !== question.id) {
      // Another question: nothing of the last one's decision carries over.
      this.#shown = question.id;
      this.#editing = false;
      this.#note.value = "";
      this.#error.textContent = "";
    }
    const key = `${question.id}${deciding && this.#editing ? "/edit" : ""}`;
    this.#form.toggleAttribute("data-editing", deciding && this.#editing);
    this.#approve.textContent = this.#editing ? "Approve with edits" : "Approve";
    if (deciding && this.#fields.dataset.for !== key) {
      this.#fields.dataset.for = key;
      // The arguments as a form when the answer's schema describes them, else as JSON.
      const described = question.schema.properties.editedArgs;
      const schema = described?.properties ? { ...described, title: `${approval.tool}'s arguments` } : { type: "object", title: `${approval.tool}'s arguments` };
      this.#editor = editor("editedArgs", schema, approval.arguments);
      this.#fields.replaceChildren(this.#editor.element);
      return;
    }
    if (!deciding && this.#fields.dataset.for !== question.id) {
      this.#fields.dataset.for = question.id;
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
