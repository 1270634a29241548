// The bench's workloads, run in the page: each returns one figure for
// Baton and one for its peer, measured alternately in the same page.

import init, { AgUiTransport, Engine, Schema } from "baton-engine";
import { Ajv, addFormats, Dexie, HttpAgent } from "peers";

// The loaded module's exports (its linear memory among them).
const wasm = await init();

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

/** Yields to the event loop for one task, without setTimeout's clamping. */
function nextTask() {
  const { port1, port2 } = new MessageChannel();
  return new Promise((resolve) => {
    port1.onmessage = () => { port1.close(); resolve(); };
    port2.postMessage(null);
  });
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
    // JSON text in, as from the network or storage: Baton takes it as it is,
    // Ajv needs it parsed first.
    baton: opsPerSecond(() => baton.validateJson(text)),
    peer: opsPerSecond(() => peer(JSON.parse(text))),
  };
  baton.free();
  return result;
}

/** The task board every test mounts (tests/fixtures), as the page fetches it. */
const TASKS = await (await fetch("/tests/fixtures/task-board.json")).json();

const BEHAVIOUR = { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} } };

/** A fixed plan of `calls` renames, allowed to run them all. */
function fixedPlan(calls, intent = "rename them all") {
  const plan = Array.from({ length: calls }, (_, i) => ({ capability: "tasks.rename", arguments: { id: `c${i}`, title: "Ship" } }));
  // A budget that covers the plan: the default one would escalate at 32 calls.
  const budget = { maxTurns: 1, maxCalls: calls, runDeadlineMs: 600_000, turnDeadlineMs: 60_000 };
  return { intent, initiative: "user", autonomy: "auto", plan, budget };
}

/** Resolves once `done()` holds, checking after every task. */
async function until(done) {
  while (!done()) await nextTask();
}

const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];

/**
 * Microseconds between consecutive capability calls of a fixed plan, with
 * `mounted` participants: one plan warms the engine up, the next is timed
 * call by call. Returns the p50 and p99 of the intervals.
 */
async function callPath(mounted) {
  const engine = await Engine.open({ appName: "Bench", ceiling: "auto", storage: "memory" });
  const stamps = [];
  const behaviour = { ...BEHAVIOUR, invoke: () => { stamps.push(performance.now()); return { ok: true }; } };
  engine.register(TASKS, behaviour);
  for (let i = 1; i < mounted; i += 1) engine.register({ ...TASKS, id: `tasks${i}` }, BEHAVIOUR);
  for (const _ of [0, 1]) {
    stamps.length = 0;
    const run = engine.delegate(fixedPlan(500));
    await until(() => engine.state(run).state === "returned");
    const { outcome } = engine.state(run);
    if (outcome !== "completed") throw new Error(`the plan ended ${outcome}, not completed: no figure`);
  }
  engine.close();
  const intervals = stamps.slice(1).map((stamp, i) => (stamp - stamps[i]) * 1000);
  return { baton: quantile(intervals, 0.5), p99: quantile(intervals, 0.99), peer: null };
}

/**
 * One AG-UI turn of `deltas` text deltas from the bench's agent, three ways
 * over the same bytes: Baton (engine, AgUiTransport, SSE decoding, AG-UI
 * checks, the baton/1 verifier, the run returned), `@ag-ui/client`'s
 * `HttpAgent.runAgent`, and a bare fetch + split + JSON.parse. Milliseconds.
 * Baton and its peer take turns going first (`peerFirst`, every other
 * repetition): the first request of a page waits longer for its answer
 * (a new connection, its CORS preflight, a colder agent), and that wait
 * belongs to neither.
 */
async function stream(agent, deltas, peer, peerFirst) {
  const url = `${agent}/text?deltas=${deltas}`;
  const engine = await Engine.open({ appName: "Bench", ceiling: "auto", storage: "memory", transport: new AgUiTransport({ url }) });
  engine.register(TASKS, BEHAVIOUR);
  const figures = { baton: 0, peer: 0 };
  if (peerFirst) figures.peer = await peerTurn(url, deltas, peer);
  figures.baton = await batonTurn(engine, deltas);
  engine.close();
  if (!peerFirst) figures.peer = await peerTurn(url, deltas, peer);
  return figures;
}

/** Baton's turn, in milliseconds: delegated, streamed, the run returned. */
async function batonTurn(engine, deltas) {
  const start = performance.now();
  let text = 0;
  // The end is heard, as an app hears it, not polled: a loop of tasks
  // asking for the run's state would compete with the stream for the page.
  let ended;
  const end = new Promise((resolve) => { ended = resolve; });
  engine.subscribe((event) => {
    if (event.type === "text") text += event.delta.length;
    if (event.type === "journal" && event.entry.kind === "transition" && ["cancelled", "returned"].includes(event.entry.to.state)) ended();
  });
  const run = engine.delegate({ intent: "say it", initiative: "user", autonomy: "auto" });
  // A turn of text and no plan closes the run: answered, nothing changed.
  await end;
  const baton = performance.now() - start;
  const { reason } = engine.state(run);
  if (reason?.kind !== "no-plan" || text < deltas) throw new Error(`the streamed turn ended ${JSON.stringify(reason)} after ${text} characters: no figure`);
  return baton;
}

/** The peer's turn over the same bytes, in milliseconds. */
async function peerTurn(url, deltas, peer) {
  const start = performance.now();
  if (peer === "client") {
    const client = new HttpAgent({ url });
    await client.runAgent();
    const text = client.messages.at(-1)?.content ?? "";
    if (text.length < deltas) throw new Error("the AG-UI client did not assemble the message: no figure");
  } else {
    await bareParse(url);
  }
  return performance.now() - start;
}

/** The floor: fetch the stream, split it into events, JSON.parse each. */
async function bareParse(url) {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ threadId: "t", runId: "r" }) });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let events = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    const parts = buffer.split("\n\n");
    buffer = parts.pop();
    for (const part of parts) if (part.startsWith("data: ")) { JSON.parse(part.slice(6)); events += 1; }
  }
  return events;
}

/**
 * Journal records committed per second with `runs` fixed plans of `calls`
 * running at once against IndexedDB, and Dexie writing as many records in as
 * many transactions (equal batching).
 */
async function journalUnderLoad(runs, calls) {
  const name = `bench-${Math.random()}`;
  const engine = await Engine.open({ appName: "Bench", ceiling: "auto", storage: "indexeddb", dbName: name });
  engine.register(TASKS, BEHAVIOUR);
  let emitted = 0;
  // Heard, not polled: past the most recent 64, a finished run leaves
  // memory for IndexedDB and `state` no longer knows it.
  const returned = new Set();
  engine.subscribe((event) => {
    if (event.type !== "journal") return;
    emitted += 1;
    if (event.entry.kind === "transition" && event.entry.to.state === "returned") returned.add(event.run);
  });
  const start = performance.now();
  const ids = Array.from({ length: runs }, () => engine.delegate(fixedPlan(calls)).id);
  await until(() => ids.every((run) => returned.has(run)) && engine.storage.records >= emitted);
  const seconds = (performance.now() - start) / 1000;
  const { records, transactions } = engine.storage;
  engine.close();
  const db = new Dexie(`${name}-dexie`);
  db.version(1).stores({ records: "[run+revision]" });
  await db.open();
  const perTransaction = Math.max(1, Math.round(records / transactions));
  const record = (i) => ({ run: `run-${i % runs}`, revision: i, at: Date.now(), actor: "baton1.x.y", entry: { type: "call-applied", call: `c${i}`, value: { ok: true } } });
  const peerStart = performance.now();
  const writes = [];
  for (let i = 0; i < records; i += perTransaction) {
    const batch = Array.from({ length: Math.min(perTransaction, records - i) }, (_, k) => record(i + k));
    writes.push(db.transaction("rw", db.records, () => db.records.bulkPut(batch)));
  }
  await Promise.all(writes);
  const peerSeconds = (performance.now() - peerStart) / 1000;
  db.close();
  return { baton: records / seconds, peer: records / peerSeconds, records, transactions };
}

/**
 * Bytes the page holds: the live JS heap (collected first, so garbage not
 * yet swept does not count) and the engine's linear memory.
 */
function memoryBytes() {
  globalThis.gc?.();
  return (performance.memory?.usedJSHeapSize ?? 0) + wasm.memory.buffer.byteLength;
}

/**
 * Memory after `runs` one-call runs against IndexedDB, against memory after
 * the first tenth of them: bounded memory keeps the ratio near 1. Runs are
 * started at the pace the disk writes (every 100 runs the loop waits for
 * IndexedDB to catch up): started faster, what is not written yet is held,
 * never dropped, and the engine's linear memory keeps its high-water mark.
 */
async function memoryAfterRuns(runs) {
  const engine = await Engine.open({ appName: "Bench", ceiling: "auto", storage: "indexeddb", dbName: `bench-${Math.random()}` });
  engine.register(TASKS, BEHAVIOUR);
  let emitted = 0;
  engine.subscribe((event) => { if (event.type === "journal") emitted += 1; });
  let tenth = 0;
  for (let i = 0; i < runs; i += 1) {
    const run = engine.delegate(fixedPlan(1, `run ${i}`));
    await until(() => engine.state(run).state === "returned");
    if ((i + 1) % 100 === 0) await until(() => engine.storage.records >= emitted);
    if (i + 1 === runs / 10) tenth = memoryBytes();
  }
  await until(() => engine.storage.records >= emitted);
  const after = memoryBytes();
  engine.close();
  return { baton: after / 2 ** 20, peer: tenth / 2 ** 20 };
}

/** Fills session `bench` of database `name` with at least `records` journal records. */
async function fillJournal(name, records) {
  const engine = await Engine.open({ appName: "Bench", ceiling: "auto", storage: "indexeddb", dbName: name, session: "bench" });
  engine.register(TASKS, BEHAVIOUR);
  let emitted = 0;
  engine.subscribe((event) => { if (event.type === "journal") emitted += 1; });
  while (emitted < records) {
    const ids = Array.from({ length: 20 }, () => engine.delegate(fixedPlan(50)));
    await until(() => ids.every((run) => engine.state(run).state === "returned"));
  }
  await until(() => engine.storage.records >= emitted);
  engine.close();
  return emitted;
}

/** A promise for an IndexedDB request's result. */
const request = (r) => new Promise((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));

/**
 * Database `name` holding `size` stored runs, each with its journal: one
 * real run written by the engine, copied `size` times under new ids and
 * creation times straight into IndexedDB (the engine would take minutes).
 * Filled once per bench: the browser keeps it between pages.
 */
async function filledHistory(name, size) {
  if (localStorage.getItem(`filled:${name}`) === String(size)) return;
  const engine = await Engine.open({ appName: "Bench", ceiling: "auto", dbName: name, session: "template" });
  engine.register(TASKS, BEHAVIOUR);
  const template = engine.delegate(fixedPlan(1, "the template"));
  await until(() => engine.state(template).state === "returned");
  await until(() => engine.storage.records >= engine.journal(template).length);
  engine.close();
  const db = await request(indexedDB.open(name));
  const read = db.transaction(["runs", "journal"]);
  const row = await request(read.objectStore("runs").get(template.id));
  const range = IDBKeyRange.bound([template.id, 0], [template.id, Number.MAX_VALUE]);
  const journal = await Promise.all([request(read.objectStore("journal").getAllKeys(range)), request(read.objectStore("journal").getAll(range))]);
  const quoted = JSON.stringify(template.id);
  const base = row.created - size;
  for (let start = 0; start < size; start += 2_000) {
    const tx = db.transaction(["runs", "journal"], "readwrite");
    for (let i = start; i < Math.min(size, start + 2_000); i += 1) {
      const id = JSON.stringify(`history/r${i}`);
      tx.objectStore("runs").put({ ...row, id: `history/r${i}`, session: "history", live: 0, created: base + i, data: row.data.replaceAll(quoted, id).replace(/"createdAt":\d+/, `"createdAt":${base + i}`) });
      journal[0].forEach(([, revision], at) => tx.objectStore("journal").put(journal[1][at].replaceAll(quoted, id), [`history/r${i}`, revision]));
    }
    await new Promise((resolve, reject) => ((tx.oncomplete = resolve), (tx.onerror = () => reject(tx.error))));
  }
  db.close();
  localStorage.setItem(`filled:${name}`, String(size));
}

/**
 * The history at `size` stored runs: the median time of `runs()`'s first
 * page (50 runs) and of `history(run)` for a run in the middle, against a
 * raw IndexedDB read of the same rows in the same page (the runs' index
 * walked newest first for 50 rows; the journal's key range).
 */
async function historyAt(size, what) {
  const name = `bench-history-${size}`;
  await filledHistory(name, size);
  const engine = await Engine.open({ appName: "Bench", dbName: name });
  const db = await request(indexedDB.open(name));
  const middle = `history/r${Math.floor(size / 2)}`;
  const raw = {
    runs: () =>
      new Promise((resolve, reject) => {
        const rows = [];
        const cursor = db.transaction("runs").objectStore("runs").index("created").openCursor(null, "prev");
        cursor.onsuccess = () => {
          if (!cursor.result || rows.length >= 50) return resolve(rows.map((row) => JSON.parse(row.data)));
          rows.push(cursor.result.value);
          cursor.result.continue();
        };
        cursor.onerror = () => reject(cursor.error);
      }),
    history: async () => {
      const range = IDBKeyRange.bound([middle, 0], [middle, Number.MAX_VALUE]);
      return (await request(db.transaction("journal").objectStore("journal").getAll(range))).flatMap((text) => JSON.parse(text));
    },
  };
  const ours = { runs: () => engine.runs({ limit: 50 }), history: () => engine.history(middle) };
  const times = { baton: [], peer: [] };
  for (let i = 0; i < 15; i += 1) {
    for (const [side, fn] of [["baton", ours[what]], ["peer", raw[what]]]) {
      const start = performance.now();
      await fn();
      times[side].push(performance.now() - start);
    }
  }
  const listed = what === "runs" ? (await engine.runs({ limit: 50 })).runs.length : (await engine.history(middle)).length;
  engine.close();
  db.close();
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  if (listed === 0) throw new Error(`${what} at ${size}: nothing read`);
  return { baton: median(times.baton), peer: median(times.peer) };
}

export const workloads = {
  "history-runs-1k": () => historyAt(1_000, "runs"),
  "history-runs-10k": () => historyAt(10_000, "runs"),
  "history-runs-100k": () => historyAt(100_000, "runs"),
  "history-journal-1k": () => historyAt(1_000, "history"),
  "history-journal-10k": () => historyAt(10_000, "history"),
  "history-journal-100k": () => historyAt(100_000, "history"),
  "validate-small": () => validation(CARD, SMALL),
  "validate-array-100": () => validation(CARDS, HUNDRED),
  "validate-invalid": () => validation(CARD, INVALID),
  "validate-invalid-verdict": () => {
    // Only the verdict: Baton builds no error at all, Ajv stops at its
    // first (its cheapest way to say no).
    const baton = Schema.compile(CARD);
    const first = new Ajv({ strict: false });
    addFormats(first);
    const peer = first.compile(CARD);
    const result = {
      baton: opsPerSecond(() => baton.isValidJson(INVALID)),
      peer: opsPerSecond(() => peer(JSON.parse(INVALID))),
    };
    baton.free();
    return result;
  },
  "schema-compile": () => {
    const peer = ajv();
    return {
      baton: opsPerSecond(() => Schema.compile(structuredClone(CARD)).free(), 300),
      peer: opsPerSecond(() => peer.compile(structuredClone(CARD)), 300),
    };
  },
  "call-1-participant": () => callPath(1),
  "call-1000-participants": () => callPath(1000),
  "call-10000-participants": () => callPath(10_000),
  "sse-vs-client": ({ agent, repetition }) => stream(agent, 20_000, "client", repetition % 2 === 1),
  "sse-vs-floor": ({ agent, repetition }) => stream(agent, 100_000, "floor", repetition % 2 === 1),
  "journal-under-load": () => journalUnderLoad(100, 10),
  "memory-10k-runs": () => memoryAfterRuns(10_000),
  "fill-journal": ({ name, records }) => fillJournal(name, records),
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
