// `<baton-review>`, the default review surface of `baton-engine/elements`.

import { editor } from "./element-form.js";
import { Surface, make, shadow } from "./element-surface.js";

const REVIEW_STYLE = `
:host { display: block; }
:host([hidden]) { display: none; }
[part=sheet][data-empty], [part=escalation][data-empty], [part=cut-off]:empty { display: none; }
[part=offer] { display: flex; gap: var(--baton-gap, 0.5em); flex-wrap: wrap; align-items: center; }
[part=choices] { display: flex; gap: var(--baton-gap, 0.5em); flex-wrap: wrap; }
[part=again], [part=stale] { font-weight: bold; }
[part=again]:empty { display: none; }
[part=items] { margin: 0; padding-left: 1.5em; }
[part=sheet] { background: var(--baton-surface); border: 1px solid var(--baton-border); border-radius: var(--baton-radius); padding: 0.75em 1em; }
[part=title] { margin: 0 0 0.5em; font-weight: 600; }
[part=item] { margin: 0 0 0.75em; }
[part=irreversible] { color: var(--baton-danger); font-weight: 600; }
[part=change] {
  margin: 0.35em 0 0.5em; padding: 0.5em 0.75em; white-space: pre-wrap; overflow-wrap: anywhere;
  font: 0.9em/1.6 var(--baton-mono); background: var(--baton-bg); border: 1px solid var(--baton-border); border-radius: calc(var(--baton-radius) - 2px);
}
[part=field] { color: var(--baton-muted); }
[part=arrow] { color: var(--baton-muted); }
[part=controls], [part=edit-controls] { display: flex; gap: var(--baton-gap, 0.5em); flex-wrap: wrap; }
[part=edit-form] { margin: 0.25em 0 0.5em; }
[part=edit-form] label { display: block; margin: 0.25em 0; }
[part=edit-error]:empty { display: none; }
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
  if (again.kind === "cut-off") {
    return "This plan was waiting for your review when the page went away. Look at it again:";
  }
  const labels = new Map(sheet.items.map((item) => [item.capability.participant, item.participantLabel]));
  const changed = [...new Set(again.reads.map((read) => labels.get(read.participant) ?? read.participant))];
  return `${changed.join(" and ")} changed since you approved this plan, and so did what it will do. Look at it again:`;
}

/**
 * A change in the app's own terms, as a visual diff: each field on its
 * line, what it was struck through (`<del part=before>`), what it becomes
 * highlighted (`<ins part=after>`); anything else as JSON. Its text reads
 * `field: from → to`, line by line, for every reader and assistive tool.
 */
function changeNodes(change) {
  if (change.kind === "pending") return [document.createTextNode("Preparing the preview…")];
  const value = change.kind === "preview" ? change.value : change.arguments;
  const note = change.kind === "arguments" && change.note ? [document.createTextNode(`\n(${change.note})`)] : [];
  if (!value || typeof value !== "object" || Array.isArray(value)) return [document.createTextNode(JSON.stringify(value)), ...note];
  const lines = Object.entries(value).map(([field, detail], index) => {
    const line = make("span", "line");
    if (index > 0) line.append("\n");
    line.append(make("span", "field", `${field}: `));
    if (detail && typeof detail === "object" && "from" in detail && "to" in detail) {
      line.append(make("del", "before", JSON.stringify(detail.from)), make("span", "arrow", " → "), make("ins", "after", JSON.stringify(detail.to)));
    } else {
      line.append(JSON.stringify(detail));
    }
    return line;
  });
  return [...lines, ...note];
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
    this.#cutOff = make("section", "cut-off");
    shadow(this, REVIEW_STYLE).append(this.#sheet, this.#escalation, this.#cutOff);
    this.render();
  }

  #escalation;
  #reason;
  #choices;
  #cutOff;
  /** The call whose arguments the person is editing: its form, kept across renders, and what was refused. */
  #edit = null;
  /** What the sheet last drew, as text. */
  #drawn = null;

  /** A new engine (or none): its sheets are drawn afresh. */
  engineChanged() {
    this.#drawn = null;
  }

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
    if (event.type === "journal" || event.type === "storage-reconciled") this.render();
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

  /**
   * Approve with edits: an Edit control for a planned call, and while the
   * person edits it a form built from the capability's schema, filled with
   * its arguments; Apply replaces them at the revision shown (validated,
   * previewed again), and what the engine refuses is said inline.
   */
  #editing(run, sheet, item) {
    const box = make("div", "edit-box");
    if (this.#edit?.call !== item.call) {
      const open = make("button", "edit", "Edit");
      open.type = "button";
      open.addEventListener("click", () => {
        const [participant] = item.capability.participant.split("#");
        const tool = this.engine.tools().find((t) => t.name === `${participant}.${item.capability.capability}`);
        this.#edit = { call: item.call, form: editor("arguments", tool?.parameters ?? {}, item.arguments), error: "" };
        this.render();
      });
      box.append(open);
      return box;
    }
    const form = make("form", "edit-form");
    const error = make("p", "edit-error", this.#edit.error);
    error.setAttribute("role", "alert");
    const controls = make("div", "edit-controls");
    const apply = make("button", "apply-edit", "Apply");
    apply.type = "submit";
    const cancel = make("button", "cancel-edit", "Cancel");
    cancel.type = "button";
    cancel.addEventListener("click", () => {
      this.#edit = null;
      this.render();
    });
    controls.append(apply, cancel);
    form.append(this.#edit.form.element, error, controls);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      try {
        this.engine.editCall(run, sheet.revision, item.call, this.#edit.form.value());
        this.#edit = null;
      } catch (refused) {
        this.#edit.error = refused.message;
      }
      this.render();
    });
    box.append(form);
    return box;
  }

  /**
   * What a reload cut off while it waited for the person, offered again
   * while nothing else waits for review (A.2, AG-11): "Review it again"
   * puts it before them in a chained run, "Discard" lets it go.
   */
  #renderCutOff(shown) {
    let offers = [];
    try {
      offers = shown ? [] : this.engine?.cutOff() ?? [];
    } catch {
      offers = [];
    }
    this.#cutOff.replaceChildren(
      ...offers.map((offer) => {
        const entry = make("div", "offer");
        const what = offer.waiting === "answer" ? "a question was waiting for your answer" : "its plan was waiting for your review";
        entry.append(make("p", "offer-text", `“${offer.intent}”: ${what} when the page went away.`));
        const again = make("button", "review-again", offer.waiting === "answer" ? "Answer it again" : "Review it again");
        again.type = "button";
        again.addEventListener("click", () => {
          const chained = this.engine.reviewAgain(offer.run).id;
          if (!this.hasAttribute("run")) this.#latest = chained;
          this.render();
        });
        const discard = make("button", "discard", "Discard");
        discard.type = "button";
        discard.addEventListener("click", () => {
          this.engine.discard(offer.run);
          this.render();
        });
        entry.append(again, discard);
        return entry;
      }),
    );
  }

  render() {
    const run = this.#shown();
    const sheet = this.#sheetOf(run);
    this.#renderEscalation(sheet ? null : run);
    this.#renderCutOff(sheet || !this.#escalation.hasAttribute("data-empty"));
    if (!sheet) {
      this.#sheet.setAttribute("data-empty", "");
      this.#items.replaceChildren();
      this.#edit = null;
      this.#drawn = null;
      return;
    }
    this.#sheet.removeAttribute("data-empty");
    const escalated = this.engine.state(run).state === "escalated";
    // Drawn again only when what it shows changed: another run's steps
    // leave the person's focus, and an error already said, where they are.
    const drawn = JSON.stringify([run, sheet, escalated, this.#edit?.call, this.#edit?.error]);
    if (drawn === this.#drawn) return;
    this.#drawn = drawn;
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
        if (item.edited) entry.append(make("span", "edited", " — changed by you"));
        const change = make("div", "change");
        change.append(...changeNodes(item.change));
        entry.append(change);
        entry.append(this.#editing(run, sheet, item));
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
