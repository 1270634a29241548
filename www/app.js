// The demo app: a team workspace whose task board and settings take part in
// delegations through Baton, driven by the built-in actor. It uses only the
// package's public API, imported as any app imports it.

import init, { Engine } from "baton-engine";
import "baton-engine/elements";
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
const engine = await Engine.open({
  appName: "Team workspace",
  actorName: "Assistant",
  ceiling: "auto",
  transport: new BuiltInActor(),
  dbName: "baton-demo",
});
window.baton = engine; // for the curious, in the console
$("presence-surface").engine = engine;
$("review-surface").engine = engine;
$("question-surface").engine = engine;

const board = new Board($("board"));
const settings = new Settings($("settings"));
const boardHandle = engine.register(boardManifest, board.behaviour());
const settingsHandle = engine.register(settingsManifest, settings.behaviour());
board.onChange = () => {
  boardHandle.publish("board", { version: board.version });
  renderBoard();
};
settings.onChange = () => {
  settingsHandle.publish("form", { version: settings.version });
  renderSettings();
};
boardHandle.publish("board", { version: board.version });
settingsHandle.publish("form", { version: settings.version });

const team = new Team(board);
engine.register(teamManifest, team.behaviour());
team.onChange = () => renderInbox();
const inboxHandle = engine.register(inboxManifest, { read: () => ({ messages: INBOX }) });
// The inbox is in the assistant's context only when the person says so; its
// content is third-party, so while it is there, plans are reviewed (AG-28).
$("with-inbox").addEventListener("change", (event) => {
  if (event.target.checked) inboxHandle.publish("messages", { version: 1 });
  else inboxHandle.withdraw("messages");
});

const runs = []; // this page's runs, newest last
let current = null; // the run the person is looking at

function renderBoard() {
  const columns = $("columns");
  columns.replaceChildren(
    ...COLUMNS.map((column) => {
      const box = element("div");
      box.append(element("h3", column));
      const list = element("ul", undefined, { "aria-label": column });
      for (const card of board.cards.filter((card) => card.column === column)) {
        list.append(element("li", `${card.id.slice(1)}. ${card.title}`, { "data-card": card.id }));
      }
      box.append(list);
      return box;
    }),
  );
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
  const undoable = runs.findLast((run) => stateOf(run)?.state === "returned" && !undone.has(run));
  $("undo").disabled = !undoable;
}

function renderJournal() {
  const list = $("runs");
  list.replaceChildren();
  for (const run of runs) {
    const state = stateOf(run);
    const [, text] = describe(state);
    const intent = engine.journal(run)[0]?.entry.intent ?? run;
    list.append(element("li", `“${intent}” — ${text}${undone.has(run) ? " (undone)" : ""}`, { "data-run": run }));
  }
}

// Runs of earlier page loads, read back from IndexedDB: nothing a reload cut
// off is lost, and the engine that opens next ends it as `interrupted`.
const EARLIER = "baton-demo:runs";

function remember(run) {
  const known = JSON.parse(localStorage.getItem(EARLIER) ?? "[]");
  localStorage.setItem(EARLIER, JSON.stringify([...known, run].slice(-20)));
}

async function renderEarlier() {
  const known = JSON.parse(localStorage.getItem(EARLIER) ?? "[]").filter((run) => !runs.includes(run));
  const items = [];
  for (const run of known) {
    const records = await engine.history(run);
    const created = records.find((record) => record.entry.kind === "created");
    const last = records.findLast((record) => record.entry.kind === "transition");
    if (!created) continue;
    const [, text] = describe(last?.entry.to);
    items.push(element("li", `“${created.entry.intent}” — ${text}`, { "data-run": run }));
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
  $("review").hidden = !(state?.state === "reviewing" || state?.state === "escalated");
}

const undone = new Set();
const lowered = new Set(); // runs asked to go ahead while third-party content was in context
engine.presence.attach({ handleEvent: () => queueMicrotask(render) });
engine.subscribe((event) => {
  if (event.type === "undone") undone.add(event.report.run);
  // A reload's old page let go of its session: its cut-off runs are now ended.
  if (event.type === "storage-reconciled") renderEarlier();
});

$("delegate").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  try {
    const autonomy = String(form.get("autonomy"));
    current = engine.delegate({ intent: String(form.get("intent")), initiative: "user", autonomy });
    runs.push(current);
    remember(current);
    if (autonomy === "auto" && $("with-inbox").checked) lowered.add(current);
    $("intent").value = "";
  } catch (error) {
    $("status-text").textContent = `Refused: ${error.message}`;
  }
  render();
});
async function undoLast() {
  const run = runs.findLast((run) => stateOf(run)?.state === "returned" && !undone.has(run));
  if (run) await engine.undo(run);
  render();
}
$("undo").addEventListener("click", undoLast);
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
