// `cargo xtask bench`: Baton side by side with the peers an app would
// otherwise use, in headless Chromium — each workload in a fresh page,
// several repetitions, Baton and its peer measured in the same page. Prints
// a markdown table of medians, spreads and ratios, and writes the raw
// figures to target/bench/results.json. A benchmark, not a test: nothing
// here asserts a time.
//
//   node bench.mjs [repetitions]

import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

import { CHROMIUM, FLAGS } from "../pkg/chromium.mjs";
import { root, serve } from "../pkg/server.mjs";

const REPETITIONS = Number(process.argv[2] ?? 5);

/** What each figure is, how it compares, and the target the README names. */
const WORKLOADS = [
  { id: "validate-small", what: "Validate a small object with a `date` format (JSON text in)", against: "Ajv 8 (2020-12 + formats) with JSON.parse", unit: "ops/s", higher: true, target: "≥ 1.0× Ajv" },
  { id: "validate-array-100", what: "Validate a 100-item array", against: "Ajv 8 with JSON.parse", unit: "ops/s", higher: true, target: "≥ 1.0× Ajv" },
  { id: "validate-invalid", what: "Validate an invalid small object (every error)", against: "Ajv 8, allErrors", unit: "ops/s", higher: true, target: "≥ 1.0× Ajv" },
  { id: "schema-compile", what: "Compile a schema", against: "Ajv 8 compile", unit: "ops/s", higher: true, target: "≥ 1.0× Ajv" },
  { id: "call-1-participant", what: "Capability call of a fixed plan, memory storage, 1 participant", against: null, unit: "µs/call", higher: false, target: "p50 ≤ 20 µs" },
  { id: "call-1000-participants", what: "Same, 1,000 participants mounted", against: null, unit: "µs/call", higher: false, target: "flat to 10,000 participants" },
  { id: "indexeddb-open", what: "Open with IndexedDB (a fresh database)", against: "Dexie 4 open", unit: "ms", higher: false, target: "≤ 60 ms" },
];

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const figure = (value) => (value >= 100 ? Math.round(value).toLocaleString("en") : value.toPrecision(3));
const spread = (values) => `${figure(Math.min(...values))}–${figure(Math.max(...values))}`;

const server = await serve();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
const results = {};
try {
  for (const workload of WORKLOADS) {
    const baton = [];
    const peer = [];
    for (let repetition = 0; repetition < REPETITIONS; repetition += 1) {
      const page = await browser.newPage();
      await page.goto(`${server.url}/tests/bench/bench.html`);
      const figures = await page.evaluate(async (id) => {
        const { workloads } = await import("workloads");
        return workloads[id]();
      }, workload.id);
      await page.close();
      baton.push(figures.baton);
      if (figures.peer !== null) peer.push(figures.peer);
    }
    results[workload.id] = { ...workload, baton, peer };
  }
} finally {
  await browser.close();
  await server.close();
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
  lines.push(`| ${result.what} | ${result.against ?? "—"} | ${peerFigure} | ${figure(b)} ${result.unit} (${spread(result.baton)}) | ${ratio} | ${result.target} |`);
}
const table = lines.join("\n");
console.log(table);
const out = join(root, "target/bench");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, "results.json"), JSON.stringify({ repetitions: REPETITIONS, results }, null, 2));
writeFileSync(join(out, "results.md"), `${table}\n`);
console.log(`\nraw figures: ${join(out, "results.json")}`);
