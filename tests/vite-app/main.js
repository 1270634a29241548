// The smallest app that uses baton-engine the way an app built with Vite
// does: the package's entry points by their bare names, the WebAssembly
// located by the package itself (`new URL(…, import.meta.url)`), which Vite
// must emit as an asset. A fixed plan renames one card: no transport, no
// acting party. Top-level await, as apps write it. The outcome is written to
// <html data-result> for the test; a failure surfaces as an uncaught error.

import init, { Engine } from "baton-engine";
import "baton-engine/elements";

const manifest = {
  id: "tasks",
  label: "Task board",
  description: "The team's task board: cards with titles.",
  tier: "reversible-acts",
  history: "native",
  capabilities: [
    {
      name: "rename",
      description: "Give one card a new title.",
      arguments: {
        type: "object",
        required: ["id", "title"],
        additionalProperties: false,
        properties: { id: { type: "string" }, title: { type: "string", minLength: 1 } },
      },
      argumentLimits: { id: 16, title: 120 },
      effects: [{ name: "retitle", reversible: true }],
    },
  ],
};

/** Resolves with the run's final state once it has returned or been cancelled. */

await init();
// The defaults an app starts with: IndexedDB storage, a `review` ceiling.
const engine = await Engine.open({ appName: "Vite app" });
document.querySelector("baton-presence").engine = engine;

const board = document.getElementById("board");
const snapshots = [];
engine.register(manifest, {
  element: board,
  invoke(capability, args) {
    const card = board.querySelector(`[data-card="${args.id}"]`);
    if (card === null) throw new Error(`declined: there is no card ${args.id}`);
    card.textContent = args.title;
    return { renamed: args.id };
  },
  history: {
    mark() {
      snapshots.push(board.innerHTML);
      return snapshots.length - 1;
    },
    revertTo(token) {
      board.innerHTML = snapshots[token];
    },
  },
});

const run = engine.delegate({
  intent: "Rename card 1 to Ship",
  initiative: "user",
  autonomy: "review",
  plan: [{ capability: "tasks.rename", arguments: { id: "card-1", title: "Ship" } }],
});
// The plan waits for review; the person authorizes it at the revision shown.
const sheet = engine.review(run);
engine.authorize(run, sheet.revision);
const state = await run.returned;

const applied = engine
  .journal(run)
  .filter(({ entry }) => entry.kind === "call-finished" && entry.result.kind === "applied")
  .map(({ entry }) => entry.call);
document.documentElement.dataset.result = JSON.stringify({
  state,
  applied,
  card: board.querySelector('[data-card="card-1"]').textContent,
  storage: engine.storage.mode,
});
