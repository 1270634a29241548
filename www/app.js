// The demo app: a team workspace whose task board and settings take part in
// delegations through Baton, driven by the built-in actor. It uses only the
// package's public API, imported as any app imports it.

import init, { AgUiTransport, Engine } from "baton-engine";
import "baton-engine/elements";
import { attachWebMcp } from "baton-engine/webmcp";
import { BuiltInActor } from "./actor.js";
import { Board, COLUMNS, boardManifest } from "./board.js";
import { Settings, settingsManifest } from "./settings.js";
import { INBOX, Team, inboxManifest, teamManifest } from "./team.js";

const $ = (id) => document.getElementById(id);
const element = (tag, text, attributes = {}) => {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
};

await init();
// The built-in actor by default; any AG-UI 1.0 agent with `?agent=URL`
// (for example the AG-UI peer in tests/peers, at http://127.0.0.1:PORT/demo).
const agent = new URLSearchParams(location.search).get("agent");
const engine = await Engine.open({
  appName: "Team workspace",
  actorName: agent ? "Agent" : "Assistant",
  ceiling: "auto",
  transport: agent ? new AgUiTransport({ url: agent }) : new BuiltInActor(),
  dbName: "baton-demo",
});
$("acting-party").textContent = agent ? `the AG-UI agent at ${agent}` : "the built-in offline assistant";
// Every delegation traced with OpenTelemetry, exported over OTLP/HTTP to a
// collector on 127.0.0.1 with `?otel=URL` (for example Arize Phoenix's
// http://127.0.0.1:6006/v1/traces). The SDK loads only when asked for.
const collector = new URLSearchParams(location.search).get("otel");
if (collector) {
  const otel = await import("@opentelemetry/api");
  const provider = new otel.WebTracerProvider({
    resource: otel.resourceFromAttributes({ "service.name": "baton-demo" }),
    spanProcessors: [new otel.BatchSpanProcessor(new otel.OTLPTraceExporter({ url: collector }), { scheduledDelayMillis: 500 })],
  });
  provider.register();
  const { instrument } = await import("baton-engine/otel");
  instrument(engine);
  window.batonTraces = provider; // `await batonTraces.forceFlush()` sends what is pending
  $("acting-party").textContent += `, traced to ${collector}`;
}
window.baton = engine; // for the curious, in the console
$("presence-surface").engine = engine;
$("review-surface").engine = engine;
$("question-surface").engine = engine;

const board = new Board($("board"));
const settings = new Settings($("settings"));
const boardHandle = engine.register(boardManifest, board.behaviour());
const settingsHandle = engine.register(settingsManifest, settings.behaviour());
// A change a call made is published with the call's actor reference: it is
// the run's own. The person's edits go without one (A.2).
board.onChange = (actor) => {
  boardHandle.publish("board", { version: board.version, actor });
  renderBoard();
};
settings.onChange = (actor) => {
  settingsHandle.publish("form", { version: settings.version, actor });
  renderSettings();
};
boardHandle.publish("board", { version: board.version });
settingsHandle.publish("form", { version: settings.version });

const team = new Team(board);
engine.register(teamManifest, team.behaviour());
team.onChange = () => renderInbox();
const inboxHandle = engine.register(inboxManifest, { read: () => ({ messages: INBOX }) });
// A browser's own agent (WebMCP, where the browser has it) drives the same
// capabilities, each call inside a Baton run: reviewed as the person asks,
// stopped by Stop and Escape, undone in one step. The person opened this
// page to delegate, so its initiative is theirs.
const webMcp = attachWebMcp(engine, { initiative: "user", autonomy: "review", intent: "The browser's agent acting on the workspace", idleMs: 5_000 });
if (webMcp.attached) $("acting-party").textContent += ", and the browser's own agent (WebMCP)";
// The inbox is in the assistant's context only when the person says so; its
// content is third-party, so while it is there, plans are reviewed (AG-28).
$("with-inbox").addEventListener("change", (event) => {
  if (event.target.checked) inboxHandle.publish("messages", { version: 1 });
  else inboxHandle.withdraw("messages");
});

const runs = []; // this page's runs, newest last
let current = null; // the run the person is looking at

let editing = null; // the card the person is renaming, if any

function renderBoard() {
  const columns = $("columns");
  columns.replaceChildren(
    ...COLUMNS.map((column) => {
      const box = element("div");
      box.append(element("h3", column));
      const list = element("ul", undefined, { "aria-label": column });
      for (const card of board.cards.filter((card) => card.column === column)) {
        list.append(editing === card.id ? cardEditor(card) : cardItem(card));
      }
      box.append(list);
      return box;
    }),
  );
}

function cardItem(card) {
  const item = element("li", undefined, { "data-card": card.id });
  item.append(element("span", `${card.id.slice(1)}. ${card.title}`, { "data-title": "" }));
  for (const tag of card.tags) item.append(" ", element("span", `#${tag}`, { class: "tag", "data-tag": tag }));
  const rename = element("button", "Rename", { type: "button", "aria-label": `Rename card ${card.id.slice(1)}` });
  // The person's own edit; a plan under review made on the board as it
  // was is superseded by it, and the review says so (A.2).
  rename.addEventListener("click", () => {
    editing = card.id;
    renderBoard();
    $("edit-title").focus(); // the person asked for the field: focus follows their action
  });
  item.append(" ", rename);
  return item;
}

function cardEditor(card) {
  const item = element("li", undefined, { "data-card": card.id });
  const form = element("form", undefined, { "aria-label": `Rename card ${card.id.slice(1)}` });
  const label = element("label", `New title for card ${card.id.slice(1)} `, { for: "edit-title" });
  const input = element("input", undefined, { id: "edit-title", name: "title", required: "", autocomplete: "off" });
  input.value = card.title;
  const save = element("button", "Save", { type: "submit" });
  const cancel = element("button", "Cancel", { type: "button" });
  const done = () => {
    editing = null;
    renderBoard();
    document.querySelector(`[data-card="${card.id}"] button`)?.focus();
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    editing = null;
    board.edit(card.id, input.value); // publishes the board's new version
    done();
  });
  cancel.addEventListener("click", done);
  // Escape cancels the edit, and is used up here: it does not also stop a
  // delegation (AG-42 belongs to Escapes nobody used).
  form.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    done();
  });
  form.append(label, input, " ", save, " ", cancel);
  item.append(form);
  return item;
}

function renderInbox() {
  $("messages").replaceChildren(...INBOX.map((message) => element("li", message)));
  $("sent").replaceChildren(...team.sent.map((mail) => element("li", `To ${mail.to}: ${mail.summary}`, { "data-sent": mail.to })));
}

function renderSettings() {
  const values = $("settings-values");
  values.replaceChildren();
  for (const [name, value] of Object.entries(settings.values)) {
    values.append(element("dt", name), element("dd", value, { "data-setting": name }));
  }
  document.documentElement.dataset.theme = settings.values.theme;
}

function stateOf(run) {
  try {
    return engine.state(run);
  } catch {
    return null;
  }
}

/**
 * A run's journal, or none for a finished run that has left memory (the
 * engine keeps the 64 most recent; the rest are `engine.history(run)`).
 */
function journalOf(run) {
  try {
    return engine.journal(run);
  } catch {
    return [];
  }
}

function describe(state) {
  switch (state?.state) {
    case undefined: return ["idle", "Idle"];
    case "returned":
      if (state.reason.kind === "interrupted") return ["idle", "Cut off by a reload"];
      return ["idle", `Returned: ${state.outcome.replace("-", " ")}`];
    case "cancelled": return ["idle", state.reason.kind === "no-plan" ? "Answered without changes" : "Cancelled"];
    case "escalated": return ["escalated", "Needs you"];
    case "reviewing": return ["reviewing", "Waiting for your review"];
    case "acting": return ["acting", "Acting"];
    default: return ["acting", "Planning"];
  }
}

function renderPresence() {
  const state = current ? stateOf(current) : null;
  const [, text] = describe(state);
  $("status-text").textContent = state ? `Last delegation: ${text}` : "";
}

function renderJournal() {
  const list = $("runs");
  list.replaceChildren();
  for (const run of runs) {
    const state = stateOf(run);
    const [, text] = describe(state);
    const records = journalOf(run);
    const intent = records[0]?.entry.intent ?? run;
    const item = element("li", undefined, { "data-run": run });
    item.append(element("span", `“${intent}” — ${text}${undone.has(run) ? " (undone)" : ""}`, { "data-outcome": "" }));
    item.append(whoDidWhat(run, records), whatItSaw(run, records));
    list.append(item);
  }
}

// ----- Who did what --------------------------------------------------------

function who(actor) {
  switch (actor.kind) {
    case "person": return "You";
    case "acting-party": return agent ? "The agent" : "The assistant";
    case "engine": return "Baton";
    default: return LABELS.get(actor.participant) ?? actor.participant;
  }
}

const STATES = {
  planned: "has a plan", reviewing: "put the plan up for your review", authorized: "authorized the plan",
  acting: "started acting", escalated: "stopped to ask you", cancelled: "ended it without changes",
};

/** One journal record in plain words, or null for the engine's bookkeeping. */
function said(record) {
  const entry = record.entry;
  const call = (capability) => `${LABELS.get(capability.participant) ?? capability.participant}: ${capability.capability}`;
  switch (entry.kind) {
    case "created": return `asked “${entry.intent}”`;
    case "transition":
      if (entry.to.state === "returned") return `ended it: ${entry.to.outcome} (${entry.to.reason.kind.replaceAll("-", " ")})`;
      return STATES[entry.to.state] ?? entry.to.state;
    case "turn-ended": return `proposed ${entry.proposed} change${entry.proposed === 1 ? "" : "s"}`;
    case "call-finished":
      if (entry.result.kind === "applied") return `applied ${entry.call}`;
      return entry.result.kind === "refused" ? `refused ${entry.call}: ${entry.result.refusal.code}` : `failed ${entry.call}: ${entry.result.message}`;
    case "call-dispatched": return `handed ${call(entry.capability)} over${entry.via ? ` (through ${entry.via.join(" → ")})` : ""}`;
    case "agent-acted": return `used its own tool ${entry.tool}, outside the page`;
    case "said": return `said “${entry.text.length > 120 ? `${entry.text.slice(0, 119)}…` : entry.text}”`;
    case "call-refused": return `refused ${call(entry.capability)}: ${entry.refusal.code}`;
    case "question-asked": return "asked a question";
    case "question-closed": return `closed the question: ${entry.outcome.kind}`;
    case "review-superseded": return `noticed ${LABELS.get(entry.read.participant) ?? entry.read.participant} changed under the plan`;
    case "undone": return "undid the whole delegation";
    case "authorized": return `bound the authorization to what you saw (${entry.allowlist.length} capabilit${entry.allowlist.length === 1 ? "y" : "ies"})`;
    default: return null;
  }
}

/** A run's journal as who did what, in order, in plain words. */
function whoDidWhat(run, records) {
  const details = disclosure(`who:${run}`, { "data-who": run }, "Who did what");
  const list = element("ol");
  for (const record of records) {
    const text = said(record);
    if (text) list.append(element("li", `${who(record.actor)} ${text}`, { "data-actor": record.actor.kind, "data-kind": record.entry.kind }));
  }
  details.append(list);
  return details;
}

// ----- What the assistant saw (A.1) ---------------------------------------

const LABELS = new Map([boardManifest, settingsManifest, teamManifest, inboxManifest].map((m) => [m.id, m.label]));
const ATTENTION = {
  focus: "you were working in it",
  viewport: "it was on screen",
  elsewhere: "it was off screen, and there was room for it",
};
const disclosures = new Map(); // each disclosure's element, kept across renders

/**
 * A disclosure that stays as the person left it across renders: the same
 * element each time, its content drawn anew under its summary, so a click
 * that lands while the page redraws still reaches it, and it stays open or
 * closed as they left it.
 */
function disclosure(key, attributes, title) {
  let details = disclosures.get(key);
  if (!details) {
    details = element("details", undefined, attributes);
    details.append(element("summary", title));
    disclosures.set(key, details);
  }
  details.replaceChildren(details.firstElementChild);
  return details;
}

function readName(stamp) {
  const origin = stamp.origin === "author" ? "" : `, ${stamp.origin}`;
  return `${LABELS.get(stamp.read.participant) ?? stamp.read.participant}: ${stamp.read.read} (version ${stamp.version}${origin})`;
}

function fateText(read) {
  switch (read.fate.kind) {
    case "pulled": return `content sent (${read.fate.bytes} bytes) — ${ATTENTION[read.attention]}`;
    case "over-budget": return `index entry only — its ${read.fate.bytes} bytes did not fit the ${read.fate.budget}-byte budget left after what you were looking at`;
    default: return `index entry only — ${read.fate.reason}`;
  }
}

/**
 * Per turn of a run, from its journal: the index sent with every turn, and
 * which reads' content went with it and why (the engine chose, by the
 * person's attention, and journalled the choice).
 */
function whatItSaw(run, records) {
  const details = disclosure(run, { "data-saw": run }, "What the assistant saw");
  const turns = records.filter((record) => record.entry.kind === "turn-reserved");
  if (turns.length === 0) details.append(element("p", "Nothing: no turn went to the assistant."));
  for (const reserved of turns) {
    const turn = reserved.entry.turn;
    const box = element("div", undefined, { "data-turn": String(turn) });
    box.append(element("h3", `Turn ${turn}`));
    const reads = reserved.entry.context.reads.map(readName);
    box.append(element("p", `Index, sent with every turn: ${[...LABELS.values()].join(", ")}; reads ${reads.join("; ") || "none"}.`));
    const pulled = records.find((record) => record.entry.kind === "reads-pulled" && record.entry.turn === turn);
    const list = element("ul");
    for (const read of pulled?.entry.reads ?? []) {
      const id = `${read.stamp.read.participant}.${read.stamp.read.read}`;
      list.append(element("li", `${readName(read.stamp)}: ${fateText(read)}`, { "data-read": id, "data-fate": read.fate.kind }));
    }
    if (!pulled) list.append(element("li", "The turn ended before its reads were gathered."));
    box.append(list);
    details.append(box);
  }
  return details;
}

// Runs of earlier page loads, as the engine lists its history from
// IndexedDB (`engine.runs()`): nothing a reload cut off is lost, and the
// engine that opens next ends it as `interrupted`.
async function renderEarlier() {
  const history = await engine.runs({ limit: 20 });
  const items = [];
  for (const listed of history.runs.filter((entry) => !runs.includes(entry.run))) {
    const records = await engine.history(listed.run);
    const [, text] = describe(listed.state);
    const item = element("li", undefined, { "data-run": listed.run });
    item.append(element("span", `“${listed.intent}” — ${text}`, { "data-outcome": "" }));
    item.append(whoDidWhat(listed.run, records), whatItSaw(listed.run, records));
    items.push(item);
  }
  $("earlier").replaceChildren(...items);
}

function render() {
  renderPresence();
  renderWhy();
  renderJournal();
}

/** Why a plan the person let go ahead is reviewed all the same (AG-28). */
function renderWhy() {
  const state = current ? stateOf(current) : null;
  $("why").hidden = !(state?.state === "reviewing" && lowered.has(current));
  // The surfaces show nothing when nothing waits; their sections follow suit.
  const asking = engine.questions().some((q) => ["open", "postponed"].includes(q.state.state));
  $("question").hidden = !asking;
  // What a reload cut off while it waited for review is offered there too,
  // and any run waiting for the person (the browser agent's, say).
  const offered = engine.cutOff().length > 0;
  const counters = engine.counters();
  const waiting = counters.awaitingReview + counters.actionRequired > 0;
  $("review").hidden = !(offered || waiting || state?.state === "reviewing" || state?.state === "escalated");
}

const undone = new Set();
const lowered = new Set(); // runs asked to go ahead while third-party content was in context
engine.presence.attach({ handleEvent: () => queueMicrotask(render) });
engine.subscribe((event) => {
  if (event.type === "undone") undone.add(event.report.run);
  // A run the form did not start — a plan a reload cut off, reviewed again;
  // the browser agent's session — is the one the person now looks at.
  if (event.type === "journal" && event.entry.kind === "created" && !runs.includes(event.run)) {
    runs.push(event.run);
    current = event.run;
  }
  // A reload's old page let go of its session: its cut-off runs are now ended.
  if (event.type === "storage-reconciled") renderEarlier();
});

$("delegate").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  try {
    const autonomy = String(form.get("autonomy"));
    // Its `created` record was heard as it started: listed already.
    current = engine.delegate({ intent: String(form.get("intent")), initiative: "user", autonomy }).id;
    if (autonomy === "auto" && $("with-inbox").checked) lowered.add(current);
    $("intent").value = "";
  } catch (error) {
    $("status-text").textContent = `Refused: ${error.message}`;
  }
  render();
});
// Undo is the presence surface's: one delegation, one step, and a choice
// when what it changed was changed since (A.2).
function undoLast() {
  $("presence-surface").undo().catch((error) => ($("status-text").textContent = `Not undone: ${error.message}`));
}
// The app's own Ctrl+Z (⌘Z) undoes a whole delegation in one step (A.2),
// except while the person types in a field, where it undoes their typing.
document.addEventListener("keydown", (event) => {
  const typing = event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement;
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "z" && !event.shiftKey && !typing) {
    event.preventDefault();
    undoLast();
  }
});

renderBoard();
renderSettings();
renderInbox();
render();
await renderEarlier();
document.documentElement.dataset.ready = "true";
