// The npm package `baton-engine` as most apps consume it: packed as it would
// be published (`npm pack` of pkg/, so only the files its `files` list ships),
// installed into a copy of this scratch app in a temporary directory, built
// with Vite, served with `vite preview` and run in headless Chromium. Needs
// the built package in pkg/ (`cargo xtask pkg`); `cargo xtask test` runs this
// after building it.
//
//   npm ci && node --test vite-app.test.mjs

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { chromium } from "playwright-core";

import { CHROMIUM, FLAGS } from "../pkg/chromium.mjs";
import { buildApp } from "./build-app.mjs";

const TIMEOUT = 60_000;

let built;
let app;
let server;
let browser;
/** What Vite reported at level warn or above, while building or serving. */
let viteSaid;

before(
  async () => {
    built = await buildApp({ sources: ["index.html", "main.js"] });
    ({ app, server, said: viteSaid } = built);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  },
  { timeout: TIMEOUT },
);

after(async () => {
  await browser?.close();
  await built?.close();
});

/** The built assets whose names match `pattern`. */
async function assets(pattern) {
  return (await readdir(join(app, "dist", "assets"))).filter((name) => pattern.test(name));
}

test("vite build emits the engine's WebAssembly as a hashed asset the bundle points at", { timeout: TIMEOUT }, async () => {
  assert.deepEqual(viteSaid, [], "Vite reported no warning or error");
  const wasm = await assets(/^baton_engine_bg-[\w-]+\.wasm$/);
  assert.equal(wasm.length, 1, `one hashed wasm asset: ${wasm}`);
  const [emitted, shipped] = await Promise.all([
    readFile(join(app, "dist", "assets", wasm[0])),
    readFile(join(app, "node_modules", "baton-engine", "baton_engine_bg.wasm")),
  ]);
  assert.ok(emitted.equals(shipped), "the asset is the packed wasm, byte for byte");
  // `new URL("baton_engine_bg.wasm", import.meta.url)` was rewritten to the
  // hashed name, not left to resolve next to the bundle at run time.
  const scripts = await assets(/\.js$/);
  const code = (await Promise.all(scripts.map((name) => readFile(join(app, "dist", "assets", name), "utf8")))).join("\n");
  assert.ok(code.includes(`/assets/${wasm[0]}`), "the bundle refers to the hashed asset");
});

test("the built app runs in Chromium: the fixed plan is authorized and applied, <baton-presence> renders", { timeout: TIMEOUT }, async () => {
  const page = await browser.newPage();
  const problems = [];
  const wasm = [];
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
  page.on("console", (message) => {
    // Warnings count too: wasm-bindgen warns when it must fall back from
    // streaming compilation, the engine when storage degrades. Failed loads
    // are reported with their URL below.
    if ((message.type() === "error" || message.type() === "warning") && !message.text().startsWith("Failed to load resource")) {
      problems.push(`console.${message.type()}: ${message.text()}`);
    }
  });
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
    if (new URL(response.url()).pathname.endsWith(".wasm")) {
      wasm.push({ path: new URL(response.url()).pathname, status: response.status(), type: response.headers()["content-type"] });
    }
  });
  page.on("requestfailed", (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  try {
    await page.goto(server.resolvedUrls.local[0]);
    const handle = await page
      .waitForFunction(() => document.documentElement.dataset.result, null, { timeout: 10_000 })
      .catch((error) => assert.fail(`the app wrote no result: ${problems.join("; ") || error.message}`));
    const result = JSON.parse(await handle.jsonValue());

    assert.deepEqual(result.state, { state: "returned", outcome: "completed", reason: { kind: "plan-completed" } });
    assert.deepEqual(result.applied, ["p1"], "the plan's one call was applied");
    assert.equal(result.card, "Ship");
    assert.equal(result.storage, "indexeddb", "the default storage works in the bundle");
    assert.equal(await page.textContent('[data-card="card-1"]'), "Ship");

    // The presence surface rendered in its shadow root (its modules
    // bundled) and says how the run ended, with Undo offered.
    const status = page.locator("baton-presence [part=status]");
    assert.equal(await status.isVisible(), true, "<baton-presence> is shown");
    assert.equal(await page.locator("baton-presence [part=text]").textContent(), "Done");
    assert.equal(await page.locator("baton-presence [part=undo]").isDisabled(), false);
    assert.equal(await page.locator("baton-presence [part=stop]").isDisabled(), true);

    assert.equal(wasm.length, 1, `the wasm was fetched once: ${JSON.stringify(wasm)}`);
    assert.match(wasm[0].path, /^\/assets\/baton_engine_bg-[\w-]+\.wasm$/);
    assert.equal(wasm[0].status, 200);
    assert.equal(wasm[0].type, "application/wasm", "served for streaming compilation");
    assert.deepEqual(problems, [], "the page reported no error");
  } finally {
    await page.close();
  }
});
