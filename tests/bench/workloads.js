// The bench's workloads, run in the page: each returns one figure for
// Baton and one for its peer, measured alternately in the same page.

import init, { Engine, Schema } from "baton-engine";
import { Ajv, addFormats, Dexie } from "peers";

await init();

/** Operations per second of `fn`, over at least `ms` milliseconds. */
function opsPerSecond(fn, ms = 250) {
  let count = 0;
  const start = performance.now();
  let now = start;
  do {
    for (let i = 0; i < 50; i += 1) fn();
    count += 50;
    now = performance.now();
  } while (now - start < ms);
  return (count * 1000) / (now - start);
}

const CARD = {
  type: "object",
  required: ["title", "due"],
  additionalProperties: false,
  properties: { title: { type: "string", minLength: 1, maxLength: 120 }, due: { type: "string", format: "date" } },
};
const CARDS = { type: "array", items: CARD };
const SMALL = '{"title":"Ship the release","due":"2026-12-01"}';
const HUNDRED = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ title: `Card ${i}`, due: "2026-12-01" })));
const INVALID = '{"title":"","due":"not a date","extra":1}';

function ajv() {
  const instance = new Ajv({ allErrors: true, strict: false });
  addFormats(instance);
  return instance;
}

function validation(schema, text) {
  const baton = Schema.compile(schema);
  const peer = ajv().compile(schema);
  const result = {
    baton: opsPerSecond(() => baton.validate(JSON.parse(text))),
    peer: opsPerSecond(() => peer(JSON.parse(text))),
  };
  baton.free();
  return result;
}

const TASKS = {
  id: "tasks",
  label: "Task board",
  description: "The team's task board: cards in columns.",
  tier: "reversible-acts",
  history: "native",
  capabilities: [{
    name: "rename",
    description: "Give one card a new title.",
    arguments: { type: "object", required: ["id", "title"], additionalProperties: false, properties: { id: { type: "string" }, title: { type: "string" } } },
    argumentLimits: { id: 16, title: 120 },
    effects: [{ name: "retitle", reversible: true }],
  }],
};

/** Microseconds per capability call of a fixed plan of `calls`, with `mounted` participants. */
async function callPath(calls, mounted) {
  const engine = await Engine.open({ appName: "Bench", ceiling: "auto", storage: "memory" });
  const behaviour = { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} } };
  engine.register(TASKS, behaviour);
  for (let i = 1; i < mounted; i += 1) engine.register({ ...TASKS, id: `tasks${i}` }, behaviour);
  const plan = Array.from({ length: calls }, (_, i) => ({ capability: "tasks.rename", arguments: { id: `c${i}`, title: "Ship" } }));
  const start = performance.now();
  // A budget that covers the plan: the default one would escalate at 32 calls.
  const budget = { maxTurns: 1, maxCalls: calls, runDeadlineMs: 600_000, turnDeadlineMs: 60_000 };
  const run = engine.delegate({ intent: "rename them all", initiative: "user", autonomy: "auto", plan, budget });
  while (engine.state(run).state !== "returned") await new Promise((resolve) => setTimeout(resolve, 0));
  const micros = ((performance.now() - start) * 1000) / calls;
  const { outcome } = engine.state(run);
  engine.close();
  if (outcome !== "completed") throw new Error(`the plan ended ${outcome}, not completed: no figure`);
  return micros;
}

export const workloads = {
  "validate-small": () => validation(CARD, SMALL),
  "validate-array-100": () => validation(CARDS, HUNDRED),
  "validate-invalid": () => validation(CARD, INVALID),
  "schema-compile": () => {
    const peer = ajv();
    return {
      baton: opsPerSecond(() => Schema.compile(structuredClone(CARD)).free(), 300),
      peer: opsPerSecond(() => peer.compile(structuredClone(CARD)), 300),
    };
  },
  "call-1-participant": async () => ({ baton: await callPath(300, 1), peer: null }),
  "call-1000-participants": async () => ({ baton: await callPath(300, 1000), peer: null }),
  "indexeddb-open": async () => {
    const name = `bench-${Math.random()}`;
    let start = performance.now();
    const engine = await Engine.open({ appName: "Bench", storage: "indexeddb", dbName: name });
    const baton = performance.now() - start;
    engine.close();
    start = performance.now();
    const db = new Dexie(`${name}-dexie`);
    db.version(1).stores({ records: "++id" });
    await db.open();
    const peer = performance.now() - start;
    db.close();
    return { baton, peer };
  },
};
