import { chromium } from "playwright-core";
import { CHROMIUM, FLAGS } from "../pkg/chromium.mjs";
import { serve } from "../pkg/server.mjs";
const server = await serve({ headers: { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" } });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...FLAGS] });
const agg = {};
const N = Number(process.argv[2] ?? 5);
for (let rep = 0; rep < N; rep++) {
  const page = await browser.newPage();
  await page.goto(`${server.url}/tests/bench/bench.html`);
  await browser.startTracing(page, { categories: ["devtools.timeline", "v8", "v8.wasm", "disabled-by-default-v8.compile", "blink.user_timing", "IndexedDB", "disabled-by-default-devtools.timeline"] });
  const marks = await page.evaluate(async (name) => {
    const t0 = performance.now();
    performance.mark("s");
    const module = await import("baton-engine");
    performance.mark("imported");
    await module.default();
    performance.mark("init");
    const engine = await module.Engine.open({ appName: "Bench", storage: "indexeddb", dbName: name, session: "bench" });
    performance.mark("opened");
    engine.close();
    return performance.now() - t0;
  }, `prof-${Math.random()}`);
  const { traceEvents } = JSON.parse((await browser.stopTracing()).toString());
  await page.close();
  const main = traceEvents.find((e) => e.name === "thread_name" && e.args?.name === "CrRendererMain")?.tid;
  const mark = (n) => traceEvents.find((e) => e.name === n && e.cat.includes("user_timing"))?.ts;
  const [a, b] = [mark(process.env.FROM ?? "init"), mark(process.env.TO ?? "opened")];
  const slices = traceEvents.filter((e) => e.tid === main && e.ph === "X" && e.ts >= a && e.ts <= b);
  if (rep === 0) { const lz = slices.filter((e) => e.name === "wasm.CompileLazy"); console.log(JSON.stringify(lz.slice(0, 3))); globalThis.lazy = lz.map((e) => [e.args?.func_index ?? e.args?.funcIndex ?? JSON.stringify(e.args), e.dur]);
    const marksIdb = slices.filter((e) => e.name.startsWith("IDBOpenDBRequest") || e.name === "wasm.CompileLazy" || e.name === "FunctionCall" || e.name === "v8.callFunction").map((e) => [e.name === "wasm.CompileLazy" ? e.args.func_index : e.name, ((e.ts - a) / 1000).toFixed(2), (e.dur / 1000).toFixed(2)]);
    import("node:fs").then((fs) => fs.writeFileSync("/tmp/prof/order.json", JSON.stringify(marksIdb)));
  }
  // top-level-ish: sum by name
  for (const e of slices) { agg[e.name] ??= { n: 0, ms: 0 }; agg[e.name].n++; agg[e.name].ms += (e.dur ?? 0) / 1000; }
  agg.__window ??= { n: 0, ms: 0 }; agg.__window.n++; agg.__window.ms += (b - a) / 1000;
  // other threads busy during window
  for (const e of traceEvents.filter((e) => e.tid !== main && e.ph === "X" && e.ts >= a && e.ts <= b && e.dur > 200)) {
    const k = `other:${e.name}`; agg[k] ??= { n: 0, ms: 0 }; agg[k].n++; agg[k].ms += e.dur / 1000;
  }
}
for (const [k, v] of Object.entries(agg).sort((x, y) => y[1].ms - x[1].ms).slice(0, 40)) console.log(`${(v.ms / N).toFixed(2).padStart(8)} ms ${String(v.n / N).padStart(6)}x ${k}`);
import("node:fs").then((fs) => fs.writeFileSync("/tmp/prof/lazy.json", JSON.stringify(globalThis.lazy)));
await browser.close();
await server.close();
