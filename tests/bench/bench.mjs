// `cargo xtask bench`: Baton side by side with the peers an app would
// otherwise use, in headless Chromium — each workload in a fresh page,
// several repetitions, Baton and its peer measured in the same page. Prints
// a markdown table of medians, spreads and ratios, and writes the raw
// figures to target/bench/results.json. A benchmark, not a test: nothing
// here asserts a time.
//
//   node bench.mjs [repetitions] [workload-id-prefix]

import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { cpus } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

import { CHROMIUM, FLAGS } from "../pkg/chromium.mjs";
import { root, serve } from "../pkg/server.mjs";

const REPETITIONS = Number(process.argv[2] ?? 5);
const ONLY = process.argv[3] ?? "";

/** What each figure is, how it compares, and the target the README names. */
const WORKLOADS = [
  { id: "validate-small", what: "Validate a small object with a `date` format (JSON text in)", against: "Ajv 8 (2020-12 + formats) with JSON.parse", unit: "ops/s", higher: true, target: "≥ 1.0× Ajv" },
  { id: "validate-array-100", what: "Validate a 100-item array", against: "Ajv 8 with JSON.parse", unit: "ops/s", higher: true, target: "≥ 1.0× Ajv" },
  { id: "validate-invalid", what: "Validate an invalid small object (every error)", against: "Ajv 8, allErrors", unit: "ops/s", higher: true, target: "≥ 1.0× Ajv" },
  { id: "validate-invalid-verdict", what: "Judge an invalid small object, no error built (`isValidJson`)", against: "Ajv 8 (first error) with JSON.parse", unit: "ops/s", higher: true, target: "≥ 0.5× Ajv" },
  { id: "schema-compile", what: "Compile a schema", against: "Ajv 8 compile", unit: "ops/s", higher: true, target: "≥ 1.0× Ajv" },
  { id: "call-1-participant", what: "Capability call of a fixed plan, memory storage, 1 participant (p50; p99 after it)", against: null, unit: "µs/call", higher: false, target: "p50 ≤ 20 µs, p99 ≤ 100 µs" },
  { id: "call-1000-participants", what: "Same, 1,000 participants mounted", against: null, unit: "µs/call", higher: false, target: "flat to 10,000 participants" },
  { id: "call-10000-participants", what: "Same, 10,000 participants mounted", against: null, unit: "µs/call", higher: false, target: "flat to 10,000 participants" },
  { id: "sse-vs-client", what: "AG-UI SSE turn, 20,000 text deltas: stream → verify → apply", against: "@ag-ui/client 1.0 HttpAgent.runAgent, same bytes", unit: "ms", higher: false, target: "faster than the client" },
  { id: "sse-vs-floor", what: "AG-UI SSE turn, 100,000 text deltas", against: "bare fetch + split + JSON.parse, same bytes", unit: "ms", higher: false, target: "within 1.2× of the floor" },
  { id: "journal-under-load", what: "Journal commit to IndexedDB, 100 runs of 10 calls at once", against: "Dexie 4, same records in as many transactions", unit: "rec/s", higher: true, target: "≥ Dexie at equal batching, ≥ 8k rec/s" },
  { id: "memory-10k-runs", what: "Memory (JS heap + wasm) after 10,000 one-call runs, IndexedDB", against: "the same page after the first 1,000", unit: "MiB", higher: false, target: "bounded: ratio ≈ 1" },
  { id: "startup-0", what: "Startup: import + init + Engine.open, a fresh profile (medians of each)", against: "the peers' import and set-up: Ajv 8 with formats, a Dexie 4 database opened, an @ag-ui/client HttpAgent", unit: "ms", higher: false, target: "≤ 60 ms", records: 0 },
  { id: "startup-10k", what: "Startup, session of 10,000 journal records", against: null, unit: "ms", higher: false, target: "≤ 60 ms, flat", records: 10_000 },
  { id: "startup-100k", what: "Startup, session of 100,000 journal records", against: null, unit: "ms", higher: false, target: "≤ 60 ms, flat", records: 100_000 },
  { id: "history-runs-1k", what: "`runs()`, first page of 50, 1,000 stored runs", against: "a raw IndexedDB cursor over the same index, same 50 rows parsed", unit: "ms", higher: false, target: "within 2× of the raw read, flat" },
  { id: "history-runs-10k", what: "`runs()`, first page of 50, 10,000 stored runs", against: "the same raw read", unit: "ms", higher: false, target: "within 2× of the raw read, flat" },
  { id: "history-runs-100k", what: "`runs()`, first page of 50, 100,000 stored runs", against: "the same raw read", unit: "ms", higher: false, target: "within 2× of the raw read, flat" },
  { id: "history-journal-1k", what: "`history(run)`, 1,000 stored runs", against: "a raw IndexedDB read of the run's journal rows, parsed", unit: "ms", higher: false, target: "flat" },
  { id: "history-journal-10k", what: "`history(run)`, 10,000 stored runs", against: "the same raw read", unit: "ms", higher: false, target: "flat" },
  { id: "history-journal-100k", what: "`history(run)`, 100,000 stored runs", against: "the same raw read", unit: "ms", higher: false, target: "flat" },
  { id: "indexeddb-open", what: "Open with IndexedDB (a fresh database)", against: "Dexie 4 open", unit: "ms", higher: false, target: "≤ 60 ms" },
];

/**
 * The bench's AG-UI agent: POST /text?deltas=N answers one run as Server-
 * Sent Events (RUN_STARTED, one assistant message of N deltas, RUN_FINISHED),
 * echoing the request's thread and run ids. Reachable from the page's origin
 * (CORS), as a real agent would be.
 */
function agent() {
  const server = createServer((request, response) => {
    const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type, accept", "cross-origin-resource-policy": "cross-origin" };
    if (request.method === "OPTIONS") return response.writeHead(204, cors).end();
    let body = "";
    request.on("data", (chunk) => { body += chunk; });
    request.on("end", () => {
      const input = JSON.parse(body || "{}");
      const deltas = Number(new URL(request.url, "http://x").searchParams.get("deltas") ?? 1000);
      response.writeHead(200, { ...cors, "content-type": "text/event-stream", "cache-control": "no-cache" });
      const event = (value) => `data: ${JSON.stringify(value)}\n\n`;
      const parts = [
        event({ type: "RUN_STARTED", threadId: input.threadId ?? "t", runId: input.runId ?? "r" }),
        event({ type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" }),
      ];
      for (let i = 0; i < deltas; i += 1) parts.push(event({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: `token${i % 10} ` }));
      parts.push(event({ type: "TEXT_MESSAGE_END", messageId: "m" }), event({ type: "RUN_FINISHED", threadId: input.threadId ?? "t", runId: input.runId ?? "r" }));
      // Sent in 64 KiB writes, as a server flushing its buffer would.
      const text = parts.join("");
      for (let i = 0; i < text.length; i += 65_536) response.write(text.slice(i, i + 65_536));
      response.end();
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() })));
}

/** Runs `body(page)` in a fresh bench page, closed afterwards. */
async function inFreshPage(browser, url, body) {
  const page = await browser.newPage();
  try {
    await page.goto(`${url}/tests/bench/bench.html`);
    return await body(page);
  } finally {
    await page.close();
  }
}

/**
 * One repetition of a workload, each in a fresh page (startup: a filled
 * database first). A startup's three measurements (Baton, its peers, the
 * floor) take turns going first, so that none is always measured in the
 * browser's state the others left behind.
 */
async function once(browser, url, workload, env, repetition) {
  const evaluate = (id, args) => inFreshPage(browser, url, (page) => page.evaluate(async ([id, args]) => {
    const { workloads } = await import("workloads");
    return workloads[id](args);
  }, [id, args]));
  if (workload.records === undefined) return evaluate(workload.id, { ...env, repetition });
  const name = `bench-startup-${Math.random()}`;
  if (workload.records > 0) await evaluate("fill-journal", { name, records: workload.records });
  const figures = { peer: null, floor: undefined };
  const measures = [
    async () => {
      figures.parts = await batonStartup(browser, url, name);
      figures.baton = figures.parts.import + figures.parts.init + figures.parts.open;
    },
    async () => {
      if (workload.against) figures.peer = await peerStartup(browser, url, `${name}-peer`);
    },
    async () => {
      if (workload.records === 0) figures.floor = await floorStartup(browser, url, `${name}-floor`);
    },
  ];
  const first = repetition % measures.length;
  for (const measure of [...measures.slice(first), ...measures.slice(0, first)]) await measure();
  return figures;
}

/** Baton's startup in a page that has not imported the engine yet: import, init, open. */
async function batonStartup(browser, url, name) {
  return inFreshPage(browser, url, (page) => page.evaluate(async (name) => {
    const start = performance.now();
    const module = await import("baton-engine");
    const imported = performance.now();
    await module.default();
    const initialised = performance.now();
    const engine = await module.Engine.open({ appName: "Bench", storage: "indexeddb", dbName: name, session: "bench" });
    const opened = performance.now();
    engine.close();
    return { import: imported - start, init: initialised - imported, open: opened - initialised };
  }, name));
}

/**
 * The main thread's compile work in one fresh start (import, init, open),
 * from a Chromium trace: how many WebAssembly functions were compiled on
 * first call (lazy Liftoff) and how many JS functions were compiled, with
 * their time. Counts hold steady across machines where milliseconds do not,
 * so they show what a change to the start path did.
 */
async function tracedStartup(browser, url, name) {
  return inFreshPage(browser, url, async (page) => {
    await browser.startTracing(page, { categories: ["v8.wasm", "disabled-by-default-v8.compile", "devtools.timeline"] });
    await page.evaluate(async (name) => {
      const module = await import("baton-engine");
      await module.default();
      globalThis.opened = await module.Engine.open({ appName: "Bench", storage: "indexeddb", dbName: name, session: "bench" });
    }, name);
    const { traceEvents } = JSON.parse((await browser.stopTracing()).toString());
    await page.evaluate(() => globalThis.opened.close());
    const main = traceEvents.find((event) => event.name === "thread_name" && event.args?.name === "CrRendererMain")?.tid;
    const on = (name) => traceEvents.filter((event) => event.name === name && event.tid === main && event.ph === "X");
    const total = (events) => events.reduce((sum, event) => sum + event.dur / 1000, 0);
    const wasm = on("wasm.CompileLazy");
    const js = on("V8.CompileCode");
    return { wasmCompiles: wasm.length, wasmCompileMs: total(wasm), jsCompiles: js.length, jsCompileMs: total(js) };
  });
}

/**
 * The floor under any start like Baton's, in a fresh page: import a module
 * (an empty one), compile the same WebAssembly while it streams in, open a
 * new IndexedDB database creating two stores, take a Web Lock. Nothing of
 * Baton runs; what Baton takes above it is its own.
 */
async function floorStartup(browser, url, name) {
  return inFreshPage(browser, url, async (page) => {
    return await page.evaluate(async (name) => {
      const start = performance.now();
      await import("/tests/bench/empty.mjs");
      const imported = performance.now();
      await WebAssembly.compileStreaming(fetch("/pkg/baton_engine_bg.wasm"));
      const compiled = performance.now();
      const db = await new Promise((resolve, reject) => {
        const request = indexedDB.open(name, 1);
        request.onupgradeneeded = () => {
          request.result.createObjectStore("journal");
          request.result.createObjectStore("runs");
        };
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      let release;
      await new Promise((held) => navigator.locks.request(name, () => { held(); return new Promise((done) => { release = done; }); }));
      const ready = performance.now();
      release();
      db.close();
      return { total: ready - start, import: imported - start, compile: compiled - imported, storage: ready - compiled };
    }, name);
  });
}

/** What the peers take to start in a fresh page: import, then set up as an app would. */
async function peerStartup(browser, url, name) {
  return inFreshPage(browser, url, async (page) => {
    return await page.evaluate(async (name) => {
      const start = performance.now();
      const peers = await import("peers");
      const ajv = new peers.Ajv();
      peers.addFormats(ajv);
      const db = new peers.Dexie(name);
      db.version(1).stores({ journal: "[run+revision]", runs: "id" });
      await db.open();
      new peers.HttpAgent({ url: "http://127.0.0.1:9/agent" });
      const ready = performance.now();
      db.close();
      return ready - start;
    }, name);
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const figure = (value) => (value >= 100 ? Math.round(value).toLocaleString("en") : value.toPrecision(3));
const spread = (values) => `${figure(Math.min(...values))}–${figure(Math.max(...values))}`;

// Cross-origin isolated pages: performance.now() at 5 µs, not 100 µs.
const server = await serve({ headers: { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" } });
const agui = await agent();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...FLAGS, "--enable-precise-memory-info", "--js-flags=--expose-gc"] });
const results = {};
try {
  for (const workload of WORKLOADS.filter((w) => w.id.startsWith(ONLY))) {
    const baton = [];
    const peer = [];
    const p99 = [];
    const parts = [];
    const floor = [];
    // The long workloads (about a minute a repetition) run fewer times.
    const repetitions = workload.id.startsWith("memory") || workload.id === "startup-100k" ? Math.min(REPETITIONS, 2) : REPETITIONS;
    for (let repetition = 0; repetition < repetitions; repetition += 1) {
      const figures = await once(browser, server.url, workload, { agent: agui.url }, repetition);
      baton.push(figures.baton);
      if (figures.peer !== null) peer.push(figures.peer);
      if (figures.p99 !== undefined) p99.push(figures.p99);
      if (figures.parts !== undefined) parts.push(figures.parts);
      if (figures.floor !== undefined) floor.push(figures.floor);
    }
    const traced = workload.records === 0 ? await tracedStartup(browser, server.url, `bench-traced-${Math.random()}`) : null;
    results[workload.id] = { ...workload, baton, peer, p99, parts, traced, floor };
    console.log(`  ${workload.id}: done`);
  }
} finally {
  await browser.close();
  await server.close();
  agui.close();
}

const lines = [
  `Baton against its peers, headless Chromium, ${REPETITIONS} repetitions each, median (spread); ${cpus().length} cores (${cpus()[0]?.model ?? "unknown CPU"}).`,
  "Ratio: how many times better Baton is than its peer (> 1: Baton ahead).",
  "",
  "| Workload | Peer | Peer figure | Baton | Ratio | Target |",
  "|---|---|---|---|---|---|",
];
for (const result of Object.values(results)) {
  const b = median(result.baton);
  const p = result.peer.length ? median(result.peer) : null;
  const ratio = p === null ? "—" : `${(result.higher ? b / p : p / b).toFixed(2)}×`;
  const peerFigure = p === null ? "—" : `${figure(p)} ${result.unit} (${spread(result.peer)})`;
  const stages = ["import", "init", "open"].map((stage) => `${stage} ${figure(median(result.parts.map((part) => part[stage])))}`);
  const tail = result.p99.length
    ? `; p99 ${figure(median(result.p99))}`
    : result.parts.length
      ? `: ${stages.join(" + ")}`
      : "";
  lines.push(`| ${result.what} | ${result.against ?? "—"} | ${peerFigure} | ${figure(b)} ${result.unit} (${spread(result.baton)})${tail} | ${ratio} | ${result.target} |`);
}
for (const result of Object.values(results).filter((result) => result.floor?.length)) {
  const totals = result.floor.map((part) => part.total);
  const f = median(totals);
  const [imported, compiled, storage] = ["import", "compile", "storage"].map((stage) => figure(median(result.floor.map((part) => part[stage]))));
  // Each repetition's Baton against the floor measured beside it: how far
  // the ratio itself swings, which the ratio of medians does not show.
  const paired = result.baton.map((baton, i) => baton / totals[i]).sort((a, b) => a - b);
  const quartile = (q) => paired[Math.round(q * (paired.length - 1))].toFixed(2);
  lines.push("", `${result.what} — the floor under it, nothing of Baton running (an empty module imported ${imported} + the same wasm compiled while it streams ${compiled} + a new IndexedDB database opened and a Web Lock taken ${storage}): ${figure(f)} ms (${spread(totals)}); Baton takes ${(median(result.baton) / f).toFixed(2)}× the floor, ${figure(median(result.baton) - f)} ms above it. Paired by repetition: ${median(paired).toFixed(2)}× (quartiles ${quartile(0.25)}–${quartile(0.75)}×).`);
}
for (const result of Object.values(results).filter((result) => result.traced)) {
  const { wasmCompiles, wasmCompileMs, jsCompiles, jsCompileMs } = result.traced;
  lines.push("", `${result.what}, traced once — compiled on the main thread: ${wasmCompiles} WebAssembly functions on first call (${figure(wasmCompileMs)} ms), ${jsCompiles} JS functions (${figure(jsCompileMs)} ms).`);
}
const table = lines.join("\n");
console.log(table);
const out = join(root, "target/bench");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, "results.json"), JSON.stringify({ repetitions: REPETITIONS, results }, null, 2));
writeFileSync(join(out, "results.md"), `${table}\n`);
console.log(`\nraw figures: ${join(out, "results.json")}`);
