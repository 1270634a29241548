// What the package's Chromium tests share: a fresh page on the package test
// page (`page.html`, the package imported through an import map, as an app
// does), failing the test on any error the page reports.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before } from "node:test";
import { join } from "node:path";
import { launch } from "./browsers.mjs";
import { root, serve } from "./server.mjs";

/** The task board every test mounts, Rust and JS alike (tests/fixtures). */
export const TASKS = JSON.parse(readFileSync(new URL("../fixtures/task-board.json", import.meta.url), "utf8"));

/** The first ```js block after `marker` in a README of the repository, to run as written. */
export function readmeExample(file = "README.md", marker = "<!-- readme-example -->") {
  const readme = readFileSync(join(root, file), "utf8");
  const at = readme.indexOf(marker);
  assert.ok(at >= 0, `${file} has ${marker}`);
  const block = /```js\n([\s\S]*?)```/.exec(readme.slice(at));
  assert.ok(block, "a ```js block follows the marker");
  return block[1];
}

/** What `code`, run in `page` as a module script, logs (`console.log`) until `enough(lines)` holds, 10 s at most. */
export async function logsOf(page, code, enough) {
  const said = [];
  page.on("console", (message) => {
    if (message.type() === "log") said.push(message.text());
  });
  await page.addScriptTag({ type: "module", content: code });
  const deadline = Date.now() + 10_000;
  while (!enough(said) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return said;
}

/**
 * In `page`: an earlier engine of the default database (app "Todos"), the
 * task board mounted, with `finished` runs `Rename 1…n` completed and, with
 * `waiting`, one more (`Rename later`) left waiting for review as the
 * engine goes: what a README example meets as earlier page loads.
 */
export function earlierEngine(page, { finished, waiting = false }) {
  return page.evaluate(
    async ({ manifest, finished, waiting }) => {
      const baton = await import("baton-engine");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Todos", ceiling: "auto" });
      engine.register(manifest, { invoke: () => ({ ok: true }), history: { mark: () => 0, revertTo() {} } });
      const plan = [{ capability: "tasks.rename", arguments: { id: "a", title: "T" } }];
      for (let i = 1; i <= finished; i++) await engine.delegate({ intent: `Rename ${i}`, initiative: "user", autonomy: "auto", plan }).returned;
      if (waiting) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        engine.delegate({ intent: "Rename later", initiative: "user", autonomy: "review", plan });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      engine.close();
    },
    { manifest: TASKS, finished, waiting },
  );
}

/** Runs `body(page)` in a fresh page of `browser` at `server`, failing on any page error. */
export async function withPage(browser, server, body) {
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
  page.on("console", (message) => {
    // Failed loads are reported with their URL below.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
      problems.push(`console.error: ${message.text()}`);
    }
  });
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  page.on("requestfailed", (request) => {
    // An aborted request is the page's own doing (the engine cancels a
    // turn's fetch when it cuts the turn off), not a failure: Chromium and
    // Firefox each have their word for it.
    const reason = request.failure()?.errorText;
    if (!["net::ERR_ABORTED", "NS_BINDING_ABORTED"].includes(reason)) problems.push(`failed: ${request.url()} ${reason}`);
  });
  try {
    await page.goto(`${server.url}/tests/pkg/page.html`);
    const result = await body(page);
    assert.deepEqual(problems, [], "the page reported no error");
    return result;
  } finally {
    await page.close();
  }
}

/**
 * For a test file: one server and one browser for the file (started before
 * its first test, closed after its last), `withPage(body)` on them, and
 * the two themselves for a test that needs its own page. `check` runs
 * first, before anything starts.
 */
export function packagePages(check = () => {}, flags = []) {
  let server;
  let browser;
  before(async () => {
    check();
    server = await serve();
    browser = await launch(undefined, flags);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    withPage: (body) => withPage(browser, server, body),
    get browser() {
      return browser;
    },
    get server() {
      return server;
    },
  };
}
