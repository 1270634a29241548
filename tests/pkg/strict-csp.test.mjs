// The package under the strictest policy an app may serve: scripts only
// from its own origin (plus compiling WebAssembly), Trusted Types required
// for every script sink and no policy allowed to create them. The engine,
// its live region and every default surface must run there without one
// violation report. The page (strict.html) has no inline script at all; the
// package is imported by path, as a bundler would leave it.
//
//   node --test strict-csp.test.mjs

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { launch } from "./browsers.mjs";
import { TASKS } from "./harness.mjs";
import { serve } from "./server.mjs";

const POLICY =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "require-trusted-types-for 'script'; trusted-types 'none'";

let server;
let browser;
before(async () => {
  server = await serve({ headers: { "content-security-policy": POLICY } });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test("under script-src 'self' and trusted-types 'none', the engine and its default surfaces run with no violation", { timeout: 60_000 }, async () => {
  const page = await browser.newPage();
  // Every error the page reports, but the one the test provokes on purpose
  // (Chromium words it as a console error, Firefox as an uncaught one).
  const provoked = (text) => text.includes("requires 'TrustedHTML' assignment") || text.includes("require-trusted-types-for");
  const problems = [];
  page.on("pageerror", (error) => {
    if (!provoked(error.message)) problems.push(`uncaught: ${error.message}`);
  });
  page.on("console", (message) => {
    if (message.type() === "error" && !provoked(message.text())) problems.push(message.text());
  });
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  await page.addInitScript(() => {
    window.policyViolations = [];
    document.addEventListener("securitypolicyviolation", (event) => {
      window.policyViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  await page.goto(`${server.url}/tests/pkg/strict.html`);
  const result = await page.evaluate(async (manifest) => {
    const baton = await import("/pkg/baton.js");
    await import("/pkg/elements.js");
    await baton.default();
    const wait = async (done) => {
      const deadline = Date.now() + 5000;
      while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    const at = (event) => ({ atMs: 0, event });
    const schema = { type: "object", required: ["column"], properties: { column: { enum: ["todo", "done"], title: "Column" } } };
    const transport = new baton.ScriptedTransport({
      protocol: "baton/1",
      turns: [
        { events: [at({ type: "turn-started" }), at({ type: "elicitation", request: "q1", prompt: "Which column?", schema }), at({ type: "turn-finished", outcome: "interrupted" })] },
        { events: [at({ type: "turn-started" }), at({ type: "turn-finished", outcome: "completed" })] },
      ],
    });
    // IndexedDB, the live region and the surfaces: everything the engine touches.
    const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "indexeddb", dbName: `strict-${Math.random()}`, transport });
    engine.register(manifest, { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} }, preview: () => ({ summary: "Rename card a to T" }) });
    const surfaces = ["baton-presence", "baton-review", "baton-question"].map((name) => {
      const element = document.createElement(name);
      document.body.append(element);
      element.engine = engine;
      return element;
    });
    const [, review, asking] = surfaces;
    const part = (element, name) => element.shadowRoot.querySelector(`[part=${name}]`);

    // A plan under review, authorized from <baton-review>.
    const planned = engine.delegate({ intent: "Rename", initiative: "user", autonomy: "review", plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "T" } }] });
    await wait(() => part(review, "authorize") && !part(review, "authorize").disabled);
    part(review, "authorize").click();
    await wait(() => engine.state(planned).state === "returned");

    // A question from the acting party, answered in <baton-question>.
    const asked = engine.delegate({ intent: "Tidy", initiative: "user", autonomy: "review" });
    await wait(() => !part(asking, "form").hasAttribute("data-empty"));
    const field = asking.shadowRoot.querySelector("[part=field]");
    field.value = JSON.stringify("done");
    part(asking, "answer").click();
    await wait(() => engine.state(asked).state === "cancelled" || engine.state(asked).state === "returned");
    await wait(() => (document.querySelector("[aria-live]")?.textContent ?? "") !== "");

    const quiet = [...window.policyViolations];
    // The watcher itself is proven: a string into a script sink is refused and reported.
    let refused = false;
    try {
      document.createElement("div").innerHTML = "<b>x</b>";
    } catch {
      refused = true;
    }
    await new Promise((r) => setTimeout(r, 50));
    const outcome = { planned: engine.state(planned).outcome, asked: engine.state(asked).state, said: document.querySelector("[aria-live]").textContent };
    const storage = engine.storage.mode;
    engine.close();
    return { quiet, refused, afterSink: window.policyViolations.length - quiet.length, outcome, storage };
  }, TASKS);
  await page.close();
  assert.deepEqual(problems, [], "the page reported no other error");
  assert.deepEqual(result.quiet, [], "no Content Security Policy or Trusted Types violation");
  assert.equal(result.refused, true, "the policy is in force: innerHTML with a string throws");
  assert.equal(result.afterSink, 1, "and its violation is reported to the watcher");
  assert.equal(result.outcome.planned, "completed");
  assert.equal(result.storage, "indexeddb", "IndexedDB ran under the policy");
  assert.notEqual(result.outcome.said, "", "the engine's live region spoke");
});
