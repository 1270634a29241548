// `baton-engine/webmcp` in headless Chromium: a browser agent drives the
// page through Chromium's own `document.modelContext` (WebMCP, behind
// `--enable-features=WebMCPTesting`), with `executeTool` playing the agent;
// and once through the `@mcp-b/webmcp-polyfill`, as a page without WebMCP
// would get it. Needs the built package (`cargo xtask pkg`).
//
//   node --test webmcp.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";

import { packagePages } from "./harness.mjs";

const TIMEOUT = 30_000;

const { withPage } = packagePages(() => {}, ["--enable-features=WebMCPTesting"]);
// A browser without WebMCP, as most are today.
const without = packagePages();

/** A board with a reversible rename, an irreversible share and a search that changes nothing. */
const BOARD = {
  id: "tasks",
  label: "Task board",
  tier: "full-acts",
  history: "native",
  description: "The team's task board: cards in columns.",
  reads: [{ name: "board", description: "Every card on the board, with its id and title.", origin: "author" }],
  capabilities: [
    {
      name: "rename",
      description: "Give one card a new title.",
      arguments: { type: "object", required: ["id", "title"], properties: { id: { type: "string" }, title: { type: "string" } }, additionalProperties: false },
      argumentLimits: { id: 64, title: 200 },
      effects: [{ name: "retitle", reversible: true }],
    },
    {
      name: "share",
      description: "Share one card with a teammate by email.",
      arguments: { type: "object", required: ["id"], properties: { id: { type: "string" } }, additionalProperties: false },
      argumentLimits: { id: 64 },
      effects: [{ name: "send-card", reversible: false, external: true }],
    },
    {
      name: "search",
      description: "Find the cards whose title contains `words`.",
      arguments: { type: "object", required: ["words"], properties: { words: { type: "string" } }, additionalProperties: false },
      argumentLimits: { words: 200 },
      effects: [],
      readOnly: true,
    },
  ],
};

/** Sets up the page: an engine, the board (its titles in `window.titles`), the bridge attached. */
async function setUp(page, polyfill) {
  await page.evaluate(
    async ({ manifest, polyfill }) => {
      if (polyfill) {
        const { initializeWebMCPPolyfill } = await import("/tests/pkg/node_modules/@mcp-b/webmcp-polyfill/dist/index.js");
        initializeWebMCPPolyfill();
      }
      const baton = await import("baton-engine");
      const { attachWebMcp } = await import("baton-engine/webmcp");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      const titles = { a: "Draft" };
      const marks = [];
      window.invoked = [];
      window.board = engine.register(manifest, {
        invoke: (capability, args) => {
          window.invoked.push(capability);
          if (capability === "rename") titles[args.id] = args.title;
          if (capability === "search") return Object.keys(titles).filter((id) => titles[id].includes(args.words));
          return { ok: true, titles: { ...titles } };
        },
        history: { mark: () => (marks.push({ ...titles }), String(marks.length - 1)), revertTo: (mark) => Object.assign(titles, marks[Number(mark)]) },
      });
      window.titles = titles;
      window.engine = engine;
      window.bridge = attachWebMcp(engine, { autonomy: "auto", initiative: "user", idleMs: 300 });
      window.context = document.modelContext;
      // The agent's side, as WebMCP gives it: the result as JSON text; the
      // arguments an object for Chromium, JSON text for the polyfill (the
      // API is still settling).
      window.agent = async (name, input) => {
        const tools = await document.modelContext.getTools();
        const tool = tools.find((t) => t.name === name);
        const result = await document.modelContext.executeTool(tool, polyfill ? JSON.stringify(input) : input);
        return typeof result === "string" ? JSON.parse(result) : result;
      };
      // The person, asked: a plan to review, or a call to allow.
      window.waits = (run) => ["reviewing", "escalated"].includes(engine.state(run).state);
      window.allow = (run, yes = true) => {
        const revision = engine.revision(run);
        if (engine.state(run).state === "reviewing") {
          if (yes) engine.authorize(run, revision);
          else engine.reject(run, revision);
        } else engine.resolveEscalation(run, revision, { kind: yes ? "allow" : "deny" });
      };
      window.until = async (done, ms = 5_000) => {
        const start = performance.now();
        while (!done()) {
          if (performance.now() - start > ms) return false;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return true;
      };
    },
    { manifest: BOARD, polyfill },
  );
}

/** What the agent sees of the tools, by name: title and annotations. */
function listTools(page) {
  return page.evaluate(async () =>
    Object.fromEntries(
      (await document.modelContext.getTools()).map((tool) => [
        tool.name,
        { readOnly: tool.annotations?.readOnlyHint ?? false, consequential: tool.annotations?.consequentialHint ?? false },
      ]),
    ),
  );
}

test("WebMCP: a browser agent drives the page through document.modelContext inside a Baton run — every capability a tool, bad arguments refused before anything runs, irreversible calls reviewed, the kill switch and Escape leave nothing hanging, one-step undo, detach withdraws every tool (AG-7, AG-10, AG-15, AG-25, AG-42, A.2)", { timeout: TIMEOUT }, async () => {
  await withPage(async (page) => {
    assert.equal(await page.evaluate(() => typeof document.modelContext?.registerTool), "function", "Chromium's WebMCP is on");
    await setUp(page, false);
    // Every capability is a tool, with what its manifest says.
    assert.deepEqual(await listTools(page), {
      "tasks.rename": { readOnly: false, consequential: false },
      "tasks.share": { readOnly: false, consequential: true },
      "tasks.search": { readOnly: true, consequential: false },
    });
    // A reversible call acts at once, inside a run whose acting party is the agent.
    const renamed = await page.evaluate(() => window.agent("tasks.rename", { id: "a", title: "Ship" }));
    assert.deepEqual(renamed, { ok: true, titles: { a: "Ship" } });
    const run = await page.evaluate(() => window.bridge.run);
    assert.ok(run, "the session's run");
    // Bad arguments are refused before anything runs, typed.
    const before = await page.evaluate(() => window.invoked.length);
    const refused = await page.evaluate(() => window.agent("tasks.rename", { id: "a", title: 5 }));
    assert.equal(refused.isError, true);
    assert.equal(refused.structuredContent.code, "invalid-arguments");
    assert.equal(refused.content[0].type, "text", "an MCP CallToolResult");
    assert.match(refused.content[0].text, /refused before anything ran/);
    assert.equal(await page.evaluate(() => window.invoked.length), before, "nothing invoked");
    // A capability the session has not used yet is outside what was
    // authorized: the person is asked (AG-7), then it answers.
    const searched = await page.evaluate(async (run) => {
      const searching = window.agent("tasks.search", { words: "Sh" });
      await window.until(() => window.waits(run));
      const reason = window.engine.state(run).reason.kind;
      window.allow(run);
      return { reason, result: await searching };
    }, run);
    assert.deepEqual(searched, { reason: "out-of-scope", result: ["a"] });
    // An irreversible call is reviewed: the agent waits for the person.
    const reviewed = await page.evaluate(async (run) => {
      const sharing = window.agent("tasks.share", { id: "a" });
      await window.until(() => window.waits(run));
      const waiting = { state: window.engine.state(run), invoked: window.invoked.includes("share") };
      window.allow(run);
      return { waiting, result: await sharing };
    }, run);
    assert.equal(reviewed.waiting.state.state, "escalated");
    assert.equal(reviewed.waiting.invoked, false, "not sent before the person allowed it");
    assert.deepEqual(reviewed.result, { ok: true, titles: { a: "Ship" } });
    // Idle, the session ends; its run is undone in one step.
    const undone = await page.evaluate(async (run) => {
      await window.until(() => window.engine.state(run).state === "returned");
      const state = window.engine.state(run);
      const report = await window.engine.undo(run);
      return { state, report: report.participants ?? report.reverted, titles: { ...window.titles } };
    }, run);
    // Completed, and the bad arguments refused on the way are in the outcome.
    assert.deepEqual(undone.state, { state: "returned", outcome: "completed", reason: { kind: "finished" }, refused: 1 });
    assert.deepEqual(undone.titles, { a: "Draft" }, "the whole session reverted");
    // A new session: the kill switch settles the call the person was asked about.
    const killed = await page.evaluate(async () => {
      const sharing = window.agent("tasks.share", { id: "a" });
      await window.until(() => window.bridge.run && window.waits(window.bridge.run));
      const state = window.engine.state(window.bridge.run).state;
      window.engine.killAll();
      return { state, result: await sharing };
    });
    assert.equal(killed.state, "reviewing", "a session that starts with an irreversible call starts with a review");
    assert.equal(killed.result.isError, true);
    assert.equal(killed.result.structuredContent.code, "run-ended");
    // And Escape, the person's keyboard exit (AG-42), likewise.
    await page.evaluate(async () => {
      window.escaping = window.agent("tasks.share", { id: "a" });
      await window.until(() => window.bridge.run && window.waits(window.bridge.run));
    });
    await page.keyboard.press("Escape");
    const escaped = await page.evaluate(() => window.escaping);
    assert.equal(escaped.structuredContent.code, "run-ended");
    assert.match(escaped.content[0].text, /user-interrupt/);
    // Participants come and go: their tools follow. Detach withdraws them all.
    await page.evaluate(() => window.board.unregister());
    assert.deepEqual(await listTools(page), {});
    await page.evaluate(() => {
      window.engine.register(
        { id: "notes", label: "Notes", tier: "reversible-acts", history: "native", description: "Free-form notes kept beside the board.", capabilities: [{ name: "add", description: "Append one note to the list of notes.", arguments: { type: "object", properties: { text: { type: "string" } }, additionalProperties: false }, argumentLimits: { text: 500 }, effects: [{ name: "append", reversible: true }] }] },
        { invoke: () => ({}), history: { mark: () => "m", revertTo() {} } },
      );
    });
    assert.deepEqual(Object.keys(await listTools(page)), ["notes.add"]);
    await page.evaluate(() => window.bridge.detach());
    assert.deepEqual(await listTools(page), {});
  });
});

test("WebMCP: without a model context the bridge registers nothing and says so", { timeout: TIMEOUT }, async () => {
  const missing = await without.withPage((page) =>
    page.evaluate(async () => {
      const baton = await import("baton-engine");
      const { attachWebMcp } = await import("baton-engine/webmcp");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", storage: "memory" });
      const bridge = attachWebMcp(engine);
      const result = { native: "modelContext" in document, attached: bridge.attached, reason: bridge.reason, tools: bridge.tools };
      engine.close();
      return result;
    }),
  );
  assert.deepEqual(missing, { native: false, attached: false, reason: "no-model-context", tools: [] });
});

test("WebMCP: through the @mcp-b/webmcp-polyfill, an agent's call runs inside a Baton run and is reviewed when irreversible (AG-25)", { timeout: TIMEOUT }, async () => {
  await without.withPage(async (page) => {
    await setUp(page, true);
    assert.deepEqual(Object.keys(await listTools(page)).sort(), ["tasks.rename", "tasks.search", "tasks.share"]);
    const renamed = await page.evaluate(() => window.agent("tasks.rename", { id: "a", title: "Ship" }));
    assert.deepEqual(renamed, { ok: true, titles: { a: "Ship" } });
    const run = await page.evaluate(() => window.bridge.run);
    const denied = await page.evaluate(async (run) => {
      const sharing = window.agent("tasks.share", { id: "a" });
      await window.until(() => window.waits(run));
      window.allow(run, false);
      return sharing;
    }, run);
    assert.equal(denied.isError, true);
    assert.equal(denied.structuredContent.code, "denied");
    assert.equal(await page.evaluate(() => window.invoked.includes("share")), false);
    await page.evaluate(() => window.bridge.detach());
    assert.deepEqual(await listTools(page), {});
  });
});

test("WebMCP as drafted: the agent cancelling through execute's signal stops the call and the run says so; a tool another script removed comes back on toolchange", { timeout: TIMEOUT }, async () => {
  await without.withPage(async (page) => {
    const seen = await page.evaluate(async (manifest) => {
      // A model context of our own, as the draft describes it: execute gets
      // the agent's signal, and the context fires `toolchange`.
      class Context extends EventTarget {
        tools = new Map();
        registerTool(tool, { signal } = {}) {
          this.tools.set(tool.name, tool);
          signal?.addEventListener("abort", () => this.unregister(tool.name));
          this.dispatchEvent(new Event("toolchange"));
        }
        unregister(name) {
          if (this.tools.delete(name)) this.dispatchEvent(new Event("toolchange"));
        }
        async getTools() {
          return [...this.tools.values()];
        }
        execute(name, input, signal) {
          return this.tools.get(name).execute(input, { signal });
        }
      }
      const context = new Context();
      const baton = await import("baton-engine");
      const { attachWebMcp } = await import("baton-engine/webmcp");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      const invoked = [];
      engine.register(manifest, {
        invoke: (capability) => (invoked.push(capability), { ok: true }),
        history: { mark: () => "m", revertTo() {} },
      });
      const bridge = attachWebMcp(engine, { autonomy: "auto", initiative: "user", idleMs: 60_000, modelContext: context });
      const until = async (done) => {
        for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
        return done();
      };
      // An irreversible share waits for review; the agent gives up on it.
      const agent = new AbortController();
      const sharing = context.execute("tasks.share", { id: "a" }, agent.signal);
      await until(() => bridge.run && engine.state(bridge.run).state === "reviewing");
      const run = bridge.run;
      agent.abort();
      const cancelled = await sharing;
      await until(() => engine.state(run).state === "returned");
      const ended = engine.state(run);
      // Aborted before it was made: settled at once, nothing started.
      const early = new AbortController();
      early.abort();
      const never = await context.execute("tasks.rename", { id: "a", title: "x" }, early.signal);
      // Another script removes one of our tools: it is registered again.
      context.unregister("tasks.rename");
      const back = await until(() => context.tools.has("tasks.rename"));
      bridge.detach();
      return { cancelled, ended, invoked, never: never.structuredContent.code, back, left: context.tools.size };
    }, BOARD);
    assert.equal(seen.cancelled.isError, true);
    assert.equal(seen.cancelled.structuredContent.code, "cancelled");
    assert.equal(seen.ended.state, "returned");
    assert.equal(seen.ended.outcome, "aborted", "the run says it was stopped");
    assert.deepEqual(seen.invoked, [], "the cancelled share never ran");
    assert.equal(seen.never, "cancelled");
    assert.equal(seen.back, true, "the missing tool came back on toolchange");
    assert.equal(seen.left, 0, "detach withdrew every tool");
  });
});

test("WebMCP: when the engine closes, a call waiting for review settles closed and every tool is withdrawn, as on detach", { timeout: TIMEOUT }, async () => {
  await without.withPage(async (page) => {
    await setUp(page, true);
    const settled = await page.evaluate(async () => {
      const race = (promise) => Promise.race([promise, new Promise((r) => setTimeout(() => r("never settled"), 2_000))]);
      // The share is irreversible: it waits for the person.
      const sharing = window.agent("tasks.share", { id: "a" });
      await window.until(() => window.bridge.run && window.waits(window.bridge.run));
      const heard = [];
      window.engine.subscribe((event) => heard.push(event.type));
      window.engine.close();
      const waiting = await race(sharing);
      return { waiting: waiting.structuredContent?.code ?? waiting, heard, invoked: window.invoked, tools: window.bridge.tools };
    });
    assert.deepEqual(settled.heard, ["closed"], "subscribers hear the engine close");
    assert.equal(settled.waiting, "closed");
    assert.deepEqual(settled.invoked, [], "nothing ran");
    assert.deepEqual(settled.tools, []);
    assert.deepEqual(await listTools(page), {}, "a closed engine's tools are withdrawn");
  });
});
