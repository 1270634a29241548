// The npm package `baton-engine` as an application uses it: imported through
// an import map from pkg/baton.js in headless Chromium, one browser for the
// file, a fresh page per test. Needs the wasm-bindgen output in pkg/
// (`cargo xtask pkg`); `cargo xtask test` runs this after building it.
//
//   node --test engine.test.mjs

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

import { CHROMIUM, FLAGS } from "./chromium.mjs";

import { withPage as withPageOf } from "./harness.mjs";
import { root, serve } from "./server.mjs";

const TIMEOUT = 30_000;

/** The task board of the engine's own browser tests (crates/baton-wasm). */
const TASKS = {
  id: "tasks",
  label: "Task board",
  tier: "reversible-acts",
  history: "native",
  description: "The team's task board: cards in columns.",
  capabilities: [
    {
      name: "rename",
      description: "Give one card a new title.",
      arguments: {
        type: "object",
        required: ["id", "title"],
        properties: { id: { type: "string" }, title: { type: "string" } },
        additionalProperties: false,
      },
      argumentLimits: { id: 64, title: 200 },
      effects: [{ name: "retitle", reversible: true }],
    },
  ],
};

let server;
let browser;

before(async () => {
  for (const file of ["pkg/baton_engine.js", "pkg/baton_engine_bg.wasm", "pkg/baton.js"]) {
    if (!existsSync(join(root, file))) {
      throw new Error(`${file} is missing: build the package first (cargo xtask pkg)`);
    }
  }
  server = await serve();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/**
 * Runs `body(page)` in a fresh page that has loaded tests/pkg/page.html (the
 * import map), then fails if the page threw anything uncaught.
 */
/** A fresh page on the package test page; see harness.mjs. */
const withPage = (body) => withPageOf(browser, server, body);

/**
 * In the page: a delegation to an acting party reached through a transport
 * written right here. Turn 1 proposes `tasks.rename` (its arguments in two
 * pieces); turn 2 sees the result and ends with a message. With `undo`, the
 * run is then undone. Returns what an assertion needs, as plain data.
 */
async function delegateThroughTransport({ manifest, undo }) {
  const baton = await import("baton-engine");
  await baton.default();
  const { Engine } = baton;

  // Every node written into the page's live region, as it is written.
  const announced = [];
  new MutationObserver((records) => {
    for (const record of records) {
      if (!(record.target instanceof Element) || !record.target.closest("[data-baton-live-region]")) continue;
      for (const node of record.addedNodes) announced.push(node.textContent);
    }
  }).observe(document.body, { childList: true, subtree: true });

  const requests = [];
  const transport = {
    protocolVersion: "baton/1",
    async openTurn(request, sink, signal) {
      requests.push(JSON.parse(JSON.stringify(request)));
      // The acting party answers over the network: never within the call.
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (signal.aborted) return;
      sink.push({ type: "turn-started" });
      if (request.turn === 1) {
        sink.push({ type: "tool-call-start", call: "c1", tool: "tasks.rename" });
        sink.push({ type: "tool-call-args", call: "c1", delta: '{"id": "card-1", ' });
        sink.push({ type: "tool-call-args", call: "c1", delta: '"title": "Ship"}' });
        sink.push({ type: "tool-call-end", call: "c1" });
      } else {
        sink.push({ type: "message-start", message: "m1" });
        sink.push({ type: "message-delta", message: "m1", delta: "Renamed card 1." });
        sink.push({ type: "message-end", message: "m1" });
      }
      sink.push({ type: "turn-finished", outcome: "completed" });
    },
  };

  const section = document.createElement("section");
  document.body.append(section);
  const cards = [
    { id: "card-1", title: "Draft" },
    { id: "card-2", title: "Review" },
  ];
  const snapshots = [];
  const invoked = [];
  const reverted = [];
  const board = {
    element: section,
    invoke(capability, args, actor) {
      invoked.push({ capability, args, actor, busy: section.getAttribute("aria-busy") });
      const card = cards.find((c) => c.id === args.id);
      if (card === undefined) throw new Error(`declined: there is no card ${args.id}`);
      card.title = args.title;
      return { renamed: args.id };
    },
    history: {
      mark() {
        snapshots.push(structuredClone(cards));
        return `mark-${snapshots.length - 1}`;
      },
      revertTo(token) {
        reverted.push(token);
        const saved = snapshots[Number(token.slice("mark-".length))];
        cards.splice(0, cards.length, ...structuredClone(saved));
      },
    },
  };

  const engine = await Engine.open({ appName: "Board", actorName: "Helper", ceiling: "auto", transport });
  const surfaceSaw = [];
  engine.presence.attach({ handleEvent: (event) => surfaceSaw.push(event.type) });
  const participant = engine.register(manifest, board);

  const events = [];
  let run;
  const ended = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      const state = run === undefined ? "no run" : JSON.stringify(engine.state(run));
      const seen = events.map((e) => (e.type === "journal" ? `journal:${e.entry.kind}` : e.type));
      reject(new Error(`the run did not return within 5 s: state ${state}; events ${seen.join(", ")}`));
    }, 5_000);
    engine.subscribe((event) => {
      events.push(event);
      if (event.type === "journal" && event.entry.kind === "transition") {
        const to = event.entry.to;
        if (to.state === "returned" || to.state === "cancelled") {
          clearTimeout(timer);
          resolve(to);
        }
      }
    });
  });
  run = engine.delegate({ intent: "Rename card 1", initiative: "user", autonomy: "auto" });
  const endedIn = await ended;

  // The closing message lands after the region's first-write delay.
  const deadline = Date.now() + 2_000;
  while (!announced.some((m) => m.includes("is done")) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  const regions = [...document.querySelectorAll("[data-baton-live-region]")];
  const result = {
    run,
    session: engine.session,
    participantId: participant.id,
    endedIn,
    state: engine.state(run),
    revision: engine.revision(run),
    journal: engine.journal(run),
    counters: engine.counters(),
    cards: structuredClone(cards),
    invoked,
    actor: invoked[0] ? engine.resolveActor(invoked[0].actor) : null,
    forged: invoked[0] ? engine.resolveActor(`${invoked[0].actor}0`) : "no call",
    requests,
    texts: events.filter((e) => e.type === "text").map(({ type, run, message, delta }) => ({ type, run, message, delta })),
    busyAfter: section.getAttribute("aria-busy"),
    surfaceSaw: [...new Set(surfaceSaw)],
    regions: regions.map((r) => ({ live: r.getAttribute("aria-live"), text: r.textContent })),
    announced,
  };
  if (undo) {
    const seen = events.length;
    const report = await engine.undo(run);
    result.undo = {
      report,
      reverted,
      cards: structuredClone(cards),
      undoneEvents: events.slice(seen).filter((e) => e.type === "undone"),
    };
  }
  engine.close();
  return result;
}

test("the package imports the way an app does, and init is idempotent", { timeout: TIMEOUT }, async () => {
  await withPage(async (page) => {
    const wasmFetches = [];
    page.on("request", (request) => {
      if (request.url().endsWith(".wasm")) wasmFetches.push(request.url());
    });
    // A module script with static imports through the import map, as an app writes it.
    await page.addScriptTag({
      type: "module",
      content: `
        import init, { BatonError, Engine, Schema } from "baton-engine";
        try {
          const beforeInit = typeof BatonError;
          const results = await Promise.all([init(), init()]);
          const first = BatonError;
          await init();
          const engine = await Engine.open();
          window.__app = {
            beforeInit,
            results: results.map((r) => r === undefined),
            afterInit: typeof BatonError,
            sameClass: first === BatonError,
            errorSubclass: BatonError.prototype instanceof Error,
            session: typeof engine.session,
            schema: Schema.compile({ type: "string" }).validate("x").valid,
          };
          engine.close();
        } catch (error) {
          window.__app = { error: String(error && error.stack || error) };
        }
      `,
    });
    await page.waitForFunction(() => window.__app !== undefined, null, { timeout: 10_000 });
    const app = await page.evaluate(() => window.__app);
    assert.equal(app.error, undefined);
    assert.deepEqual(app, {
      beforeInit: "undefined",
      results: [true, true],
      afterInit: "function",
      sameClass: true,
      errorSubclass: true,
      session: "string",
      schema: true,
    });

    // And as a dynamic import: the namespace carries the public names only,
    // and BatonError is a live binding there too.
    const dynamic = await page.evaluate(async () => {
      const baton = await import("baton-engine");
      await baton.default();
      await baton.default();
      return {
        names: Object.keys(baton).sort(),
        classes: ["Engine", "Participant", "Schema", "ScriptedTransport", "AgUiTransport", "TurnSink"].map(
          (name) => typeof baton[name],
        ),
        batonError: typeof baton.BatonError,
      };
    });
    assert.deepEqual(dynamic.names, [
      "AgUiTransport",
      "BatonError",
      "Engine",
      "Participant",
      "Schema",
      "ScriptedTransport",
      "TurnSink",
      "default",
    ]);
    assert.deepEqual(dynamic.classes, Array(6).fill("function"));
    assert.equal(dynamic.batonError, "function");
    assert.equal(wasmFetches.length, 1, `the wasm was fetched once: ${wasmFetches.join(", ")}`);
    assert.match(wasmFetches[0], /\/pkg\/baton_engine_bg\.wasm$/);
  });
});

test("AG-37, AG-39, AG-32: a delegation through an application's transport acts, returns completed, is journalled without gaps and announced with attribution", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) => page.evaluate(delegateThroughTransport, { manifest: TASKS, undo: false }));

  // The participant changed, through one call with the assembled arguments.
  assert.deepEqual(result.cards, [
    { id: "card-1", title: "Ship" },
    { id: "card-2", title: "Review" },
  ]);
  assert.equal(result.participantId, "tasks");
  assert.equal(result.invoked.length, 1);
  assert.equal(result.invoked[0].capability, "rename");
  assert.deepEqual(result.invoked[0].args, { id: "card-1", title: "Ship" });
  // AG-40: busy while the call mutates, not after.
  assert.equal(result.invoked[0].busy, "true");
  assert.equal(result.busyAfter, null);
  // AG-32, AG-33: the actor reference resolves to this run and call; an altered one to nothing.
  assert.deepEqual(result.actor, { session: result.session, run: result.run, call: "c1" });
  assert.equal(result.forged, null);

  // Two turns: the plan, then the result going back to the acting party.
  assert.equal(result.requests.length, 2);
  const [first, second] = result.requests;
  assert.equal(first.protocol, "baton/1");
  assert.equal(first.run, result.run);
  assert.equal(first.turn, 1);
  assert.equal(first.intent, "Rename card 1");
  assert.deepEqual(first.tools.map((tool) => tool.name), ["tasks.rename"]);
  assert.deepEqual(first.tools[0].parameters, TASKS.capabilities[0].arguments, "AG-15: the schema exactly as declared");
  assert.ok(first.index.some((entry) => entry.id === "tasks" && entry.type === "participant"));
  assert.deepEqual(first.results, []);
  assert.equal(second.turn, 2);
  assert.deepEqual(second.results, [
    {
      call: "c1",
      capability: { participant: "tasks", capability: "rename" },
      result: { kind: "applied", value: { renamed: "card-1" } },
    },
  ]);
  assert.deepEqual(result.texts, [{ type: "text", run: result.run, message: "m1", delta: "Renamed card 1." }]);

  // The final state, exactly as serialised.
  assert.deepEqual(result.endedIn, { state: "returned", outcome: "completed", reason: { kind: "finished" } });
  assert.deepEqual(result.state, result.endedIn);

  // The journal: gap-free revisions from 1, this run only, from created to returned.
  const journal = result.journal;
  assert.ok(journal.length >= 8, `a full story, not ${journal.length} records`);
  journal.forEach((record, index) => {
    assert.equal(record.revision, index + 1, "revisions grow by exactly one");
    assert.equal(record.run, result.run);
    assert.equal(typeof record.at, "number");
  });
  assert.equal(result.revision, journal.length);
  assert.deepEqual(journal[0].entry.kind, "created");
  assert.equal(journal[0].entry.intent, "Rename card 1");
  assert.equal(journal[0].entry.initiative, "user");
  const path = journal.filter((r) => r.entry.kind === "transition").map((r) => r.entry.to.state);
  assert.deepEqual(path, ["planned", "authorized", "acting", "returned"]);
  const dispatched = journal.find((r) => r.entry.kind === "call-dispatched");
  assert.deepEqual(dispatched.entry.capability, { participant: "tasks", capability: "rename" });
  assert.deepEqual(dispatched.entry.arguments, { id: "card-1", title: "Ship" });
  const finished = journal.find((r) => r.entry.kind === "call-finished");
  assert.deepEqual(finished.entry, { kind: "call-finished", call: "c1", result: { kind: "applied", value: { renamed: "card-1" } } });
  assert.ok(journal.some((r) => r.entry.kind === "mark-taken" && r.entry.token === "mark-0"));
  assert.deepEqual(result.counters, { actionRequired: 0, awaitingReview: 0, awaitingAgent: 0, overdue: 0, failed: 0 });

  // AG-36: one polite region; AG-37, AG-39: attributed messages, the last with the outcome.
  assert.deepEqual(result.regions.map((r) => r.live), ["polite"]);
  assert.ok(result.announced.length >= 1 && result.announced.length <= 3, `few messages: ${JSON.stringify(result.announced)}`);
  for (const message of result.announced) {
    assert.match(message, /^Helper\b/, `attributed to the actor: ${message}`);
  }
  assert.ok(
    result.announced.some((m) => m.includes("Rename card 1") && m.includes("is done")),
    `the outcome is announced: ${JSON.stringify(result.announced)}`,
  );
  assert.match(result.regions[0].text, /^Helper\b/);
  // AG-35: the attached presence surface saw the run.
  assert.ok(result.surfaceSaw.includes("journal"), `surface saw ${result.surfaceSaw}`);
});

test("AG-19: engine.undo(run) reverts the run through the participant's history and reports it", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) => page.evaluate(delegateThroughTransport, { manifest: TASKS, undo: true }));
  assert.deepEqual(result.state, { state: "returned", outcome: "completed", reason: { kind: "finished" } });
  assert.equal(result.cards[0].title, "Ship", "the run had acted");
  assert.deepEqual(result.undo.report, { run: result.run, reverted: ["tasks"], failed: [] });
  assert.deepEqual(result.undo.reverted, ["mark-0"], "reverted once, to the mark taken before the run's first change");
  assert.deepEqual(result.undo.cards, [
    { id: "card-1", title: "Draft" },
    { id: "card-2", title: "Review" },
  ]);
  assert.deepEqual(result.undo.undoneEvents, [{ type: "undone", report: result.undo.report }]);
});

test("AG-50: errors are BatonErrors with a stable code and the requirement they enforce", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const { Engine, Schema, BatonError } = baton;
      const caught = (body) => {
        try {
          body();
        } catch (error) {
          return {
            batonError: error instanceof BatonError,
            error: error instanceof Error,
            name: error.name,
            code: error.code,
            requirement: error.requirement,
            message: String(error.message),
          };
        }
        return "nothing thrown";
      };
      const engine = await Engine.open();
      const noTransport = caught(() => engine.delegate({ intent: "x", initiative: "user" }));
      const warnings = [];
      const warn = console.warn;
      console.warn = (...args) => warnings.push(args.join(" "));
      let unknownField;
      try {
        const refused = engine.register({ ...manifest, colour: "blue" }, { invoke() {} });
        unknownField = { id: refused.id, problems: refused.problems };
      } catch (error) {
        unknownField = { thrown: String(error) };
      } finally {
        console.warn = warn;
      }
      const replayed = [];
      engine.subscribe((event) => {
        if (event.type === "registration-refused") replayed.push(event);
      });
      const registered = engine.register(manifest, { invoke() {} }).id;
      const unknownRun = caught(() => engine.state("no-such-run"));
      const schema = Schema.compile({ type: "object", required: ["a"] });
      const invalid = schema.validate({});
      const valid = schema.validate({ a: 1 });
      const badSchema = caught(() => Schema.compile("{"));
      engine.close();
      return { noTransport, unknownField, warnings, replayed, registered, unknownRun, invalid, valid, badSchema };
    }, TASKS),
  );

  assert.deepEqual(
    { ...result.noTransport, message: undefined },
    { batonError: true, error: true, name: "BatonError", code: "no-transport", requirement: "AG-50", message: undefined },
  );
  assert.match(result.noTransport.message, /^AG-50: /);

  // AG-13: registration never throws for a manifest's problems; the handle lists them.
  assert.equal(result.unknownField.thrown, undefined, "register() did not throw");
  assert.equal(result.unknownField.id, "tasks");
  assert.equal(result.unknownField.problems.length, 1);
  assert.equal(result.unknownField.problems[0].path, "$.colour");
  assert.match(result.unknownField.problems[0].message, /colour/, "the problem names the unknown field");
  assert.equal(result.warnings.length, 1, "one console warning");
  assert.match(result.warnings[0], /colour/);
  assert.equal(result.replayed.length, 1, "a later subscriber hears of the refusal");
  assert.deepEqual(result.replayed[0].problems, result.unknownField.problems);
  assert.equal(result.registered, "tasks", "the same manifest without it registers");

  assert.equal(result.unknownRun.batonError, true);
  assert.equal(result.unknownRun.code, "unknown-run");
  assert.equal(result.unknownRun.requirement, undefined);

  assert.equal(result.invalid.valid, false);
  assert.equal(result.invalid.errors.length, 1);
  assert.deepEqual(Object.keys(result.invalid.errors[0]).sort(), ["instancePath", "keyword", "message"]);
  assert.equal(result.invalid.errors[0].instancePath, "");
  assert.equal(result.invalid.errors[0].keyword, "required");
  assert.match(result.invalid.errors[0].message, /\ba\b/);
  assert.deepEqual(result.valid, { valid: true, errors: [] });

  assert.equal(result.badSchema.batonError, true);
  assert.equal(result.badSchema.error, true);
  assert.equal(result.badSchema.code, "invalid-schema");
});

test("AG-36, AG-39: two engines on one page share exactly one polite live region", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const { Engine } = baton;
      const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
      const regions = () => [...document.querySelectorAll("[data-baton-live-region]")];
      const written = [];
      new MutationObserver((records) => {
        for (const record of records) {
          if (!(record.target instanceof Element) || !record.target.closest("[data-baton-live-region]")) continue;
          for (const node of record.addedNodes) written.push(node.textContent);
        }
      }).observe(document.body, { childList: true, subtree: true });

      const before = regions().length;
      const first = await Engine.open({ appName: "Board" });
      const afterFirst = regions();
      const second = await Engine.open({ appName: "Board", actorName: "Macro", ceiling: "auto" });
      const afterSecond = regions();

      // Once the region is established, the second engine speaks through
      // the region the first created, the outcome last.
      await sleep(300);
      second.register(manifest, {
        invoke: () => ({ ok: true }),
        history: { mark: () => "m", revertTo() {} },
      });
      const run = second.delegate({
        intent: "Rename card 2",
        initiative: "user",
        autonomy: "auto",
        plan: [{ capability: "tasks.rename", arguments: { id: "card-2", title: "Done" } }],
      });
      const deadline = Date.now() + 3_000;
      while (!written.some((m) => m.includes("is done")) && Date.now() < deadline) await sleep(20);
      await sleep(50);
      const result = {
        before,
        afterFirst: afterFirst.length,
        afterSecond: afterSecond.length,
        same: afterFirst[0] === afterSecond[0],
        live: afterSecond.map((r) => r.getAttribute("aria-live")),
        allLive: document.querySelectorAll("[aria-live]").length,
        sessions: first.session !== second.session,
        state: second.state(run),
        written,
        text: afterFirst[0]?.textContent,
      };
      first.close();
      second.close();
      result.afterClose = regions().length;
      return result;
    }, TASKS),
  );
  assert.equal(result.before, 0);
  assert.equal(result.afterFirst, 1);
  assert.equal(result.afterSecond, 1);
  assert.equal(result.same, true, "the second engine joined the first one's region");
  assert.deepEqual(result.live, ["polite"]);
  assert.equal(result.allLive, 1, "no other live region on the page");
  assert.equal(result.sessions, true, "each engine has its own session");
  assert.deepEqual(result.state, { state: "returned", outcome: "completed", reason: { kind: "plan-completed" } });
  assert.equal(result.written.length, 2, `one message when acting, one with the outcome: ${JSON.stringify(result.written)}`);
  assert.match(result.written[0], /^Macro\b/);
  assert.match(result.written[1], /^Macro\b.*Rename card 2.* is done\.$/);
  assert.equal(result.text, result.written[1], "the region ends on the outcome");
  assert.equal(result.afterClose, 1, "the region stays for the page");
});

/** The first ```js block after `marker` in a README. */
function readmeExample(file = "README.md", marker = "<!-- readme-example -->") {
  const readme = readFileSync(join(root, file), "utf8");
  const at = readme.indexOf(marker);
  assert.ok(at >= 0, `${file} has ${marker}`);
  return exampleAt(readme, at);
}

function exampleAt(readme, marker) {
  const block = /```js\n([\s\S]*?)```/.exec(readme.slice(marker));
  assert.ok(block, "a ```js block follows the marker");
  return block[1];
}

test("the README's example runs as written: register, delegate, return, undo", { timeout: TIMEOUT }, async () => {
  const code = readmeExample();
  const logs = await withPage(async (page) => {
    const lines = [];
    page.on("console", (message) => {
      if (message.type() === "log") lines.push(message.text());
    });
    await page.evaluate(() => {
      const list = document.createElement("ul");
      list.id = "todos";
      document.body.append(list);
    });
    await page.addScriptTag({ type: "module", content: code });
    const deadline = Date.now() + 10_000;
    while (!lines.some((line) => line.startsWith("undone")) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const items = await page.evaluate(() => document.querySelectorAll("#todos li").length);
    return { lines, items };
  });
  assert.deepEqual(logs.lines, [
    "true invalid-delegation",
    "returned completed: Buy milk",
    "undone todos: 0 left",
  ]);
  assert.equal(logs.items, 0, "the undo re-rendered the list empty");
});

test("a participant may call back into the engine from inside invoke, even to stop its own run", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto" });
      const seen = [];
      let run;
      engine.register(manifest, {
        history: { mark: () => "m", revertTo() {} },
        invoke(capability, args) {
          seen.push(engine.state(run).state);
          seen.push(engine.counters().awaitingReview);
          seen.push(engine.journal(run).length > 0);
          if (args.id === "card-1") engine.stop(run);
          return { ok: true };
        },
      });
      const plan = ["card-0", "card-1", "card-2"].map((id) => ({ capability: "tasks.rename", arguments: { id, title: "T" } }));
      run = engine.delegate({ intent: "Rename three", initiative: "user", autonomy: "auto", plan });
      for (let i = 0; i < 200 && engine.state(run).state !== "returned"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return { seen, state: engine.state(run) };
    }, TASKS),
  );
  assert.deepEqual(result.seen, ["acting", 0, true, "acting", 0, true]);
  assert.equal(result.state.state, "returned");
  assert.equal(result.state.outcome, "aborted");
  assert.equal(result.state.reason.kind, "user-interrupt");
});

test("a reload loses nothing: the journal and the actor key survive in IndexedDB, and a run the reload cut off returns interrupted", { timeout: TIMEOUT }, async () => {
  const page = await browser.newPage();
  try {
    await page.goto(`${server.url}/tests/pkg/page.html`);
    const before = await page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const hanging = { protocolVersion: "baton/1", openTurn: (request, sink) => { sink.push({ type: "turn-started" }); return new Promise(() => {}); } };
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", dbName: "reload-test", session: "tab", transport: hanging });
      const actors = [];
      engine.register(manifest, {
        history: { mark: () => "m", revertTo() {} },
        invoke(capability, args, actor) { actors.push(actor); return { ok: true }; },
      });
      const done = engine.delegate({ intent: "Rename", initiative: "user", autonomy: "auto", plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "T" } }] });
      for (let i = 0; i < 200 && engine.state(done).state !== "returned"; i++) await new Promise((r) => setTimeout(r, 10));
      const cut = engine.delegate({ intent: "Think", initiative: "user", autonomy: "auto" });
      await new Promise((r) => setTimeout(r, 200));
      return { done, cut, journal: engine.journal(done), actor: actors[0], storage: engine.storage };
    }, TASKS);
    assert.equal(before.storage.mode, "indexeddb");
    await page.reload();
    const after = await page.evaluate(async ({ done, cut, actor }) => {
      const baton = await import("baton-engine");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", dbName: "reload-test", session: "tab" });
      return { journal: await engine.history(done), cut: engine.state(cut), actor: engine.resolveActor(actor) };
    }, before);
    assert.deepEqual(after.journal, before.journal, "every record, none twice");
    assert.equal(after.cut.state, "returned");
    assert.equal(after.cut.reason.kind, "interrupted");
    assert.equal(after.actor.run, before.done, "a reference minted before the reload still resolves");
  } finally {
    await page.close();
  }
});

test("the package README's minimal example runs as written", { timeout: TIMEOUT }, async () => {
  const code = readmeExample("pkg/README.md", "## A minimal example");
  const lines = await withPage(async (page) => {
    const logs = [];
    page.on("console", (message) => {
      if (message.type() === "log") logs.push(message.text());
    });
    await page.evaluate(() => {
      const board = document.createElement("section");
      board.id = "board";
      document.body.append(board);
    });
    await page.addScriptTag({ type: "module", content: code });
    const deadline = Date.now() + 10_000;
    while (!logs.some((line) => line.startsWith("returned:")) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return logs;
  });
  assert.deepEqual(lines, ["returned: completed"]);
});

test("the package README's problems, grants, state and errors example runs as written", { timeout: TIMEOUT }, async () => {
  const code = readmeExample("pkg/README.md", "## Problems, grants, state and errors");
  const lines = await withPage(async (page) => {
    const logs = [];
    page.on("console", (message) => {
      if (message.type() === "log") logs.push(message.text());
    });
    await page.addScriptTag({ type: "module", content: code });
    const deadline = Date.now() + 10_000;
    while (!logs.some((line) => line.startsWith("state:")) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return logs;
  });
  assert.deepEqual(lines, [
    "problem: AG-14 $.description",
    "refused: true invalid-delegation AG-2",
    "grants: allow add live=true",
    'state: {"filter":"open","view":"today"}',
  ]);
});

test("AG-35, AG-42, AG-43, AG-44: <baton-presence> shows the cycle in text and shape, static under reduced motion, with a Stop control", { timeout: TIMEOUT }, async () => {
  const observed = await withPage(async (page) => {
    const watch = async (reducedMotion) => {
      await page.emulateMedia({ reducedMotion });
      return page.evaluate(async (manifest) => {
        const baton = await import("baton-engine");
        await import("baton-engine/elements");
        await baton.default();
        const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
        engine.register(manifest, {
          // A slow call, so the run is seen acting.
          invoke: () => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), 400)),
          history: { mark: () => "m", revertTo() {} },
        });
        const presence = document.createElement("baton-presence");
        document.body.append(presence);
        presence.engine = engine;
        const seen = (part) => presence.shadowRoot.querySelector(`[part=${part}]`);
        const idle = { state: presence.state, text: seen("text").textContent, stopDisabled: seen("stop").disabled };
        const run = engine.delegate({
          intent: "Rename", initiative: "user", autonomy: "auto",
          plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "T" } }],
        });
        await new Promise((resolve) => setTimeout(resolve, 150));
        const shape = seen("shape");
        const style = getComputedStyle(shape);
        const acting = {
          state: presence.state,
          text: seen("text").textContent,
          shown: style.display !== "none" && style.visibility !== "hidden" && shape.getBoundingClientRect().width > 0,
          animation: style.animationName,
          transform: style.transform,
          stopDisabled: seen("stop").disabled,
          focusMoved: document.activeElement !== document.body,
          liveRegions: presence.shadowRoot.querySelectorAll("[aria-live]").length,
        };
        seen("stop").click();
        const after = { state: presence.state, outcome: engine.state(run).outcome, reason: engine.state(run).reason.kind };
        presence.remove();
        engine.close();
        return { idle, acting, after };
      }, TASKS);
    };
    return { moving: await watch("no-preference"), still: await watch("reduce") };
  });
  const { moving, still } = observed;
  assert.deepEqual(moving.idle, { state: "idle", text: "Idle", stopDisabled: true });
  // AG-44: the state is in words and in shape, not in colour alone.
  assert.equal(moving.acting.state, "acting");
  assert.equal(moving.acting.text, "Acting");
  assert.equal(moving.acting.shown, true);
  assert.equal(moving.acting.animation, "baton-turn");
  // AG-43: under reduced motion, shown static — never hidden.
  assert.equal(still.acting.text, "Acting");
  assert.equal(still.acting.shown, true, "still shown");
  assert.equal(still.acting.animation, "none", "static");
  // AG-42: a visible Stop returns control; the surface never moved focus and has no region of its own.
  assert.equal(moving.acting.stopDisabled, false);
  assert.equal(moving.acting.focusMoved, false);
  assert.equal(moving.acting.liveRegions, 0);
  assert.deepEqual(moving.after, { state: "idle", outcome: "aborted", reason: "user-interrupt" });
});

test("AG-31: <baton-review> shows each concrete change in the app's own terms and authorizes at the revision seen", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await import("baton-engine/elements");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      const titles = { a: "Draft" };
      engine.register({ ...manifest, preview: true }, {
        invoke: (capability, args) => { titles[args.id] = args.title; return { ok: true }; },
        preview: (capability, args) => ({ title: { from: titles[args.id], to: args.title } }),
        history: { mark: () => "m", revertTo() {} },
      });
      const review = document.createElement("baton-review");
      document.body.append(review);
      review.engine = engine;
      const run = engine.delegate({
        intent: "Rename a", initiative: "user", autonomy: "review",
        plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "Ship" } }],
      });
      const part = (name) => review.shadowRoot.querySelector(`[part=${name}]`);
      const deadline = Date.now() + 3000;
      while (part("authorize").disabled && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const shown = {
        title: part("title").textContent,
        label: part("label").textContent,
        change: part("change").textContent,
        authorizeDisabled: part("authorize").disabled,
        before: titles.a,
      };
      part("authorize").click();
      while (engine.state(run).state !== "returned" && Date.now() < deadline + 3000) await new Promise((r) => setTimeout(r, 20));
      const after = { state: engine.state(run).outcome, title: titles.a, hidden: part("sheet").hasAttribute("data-empty") };
      engine.close();
      return { shown, after };
    }, TASKS),
  );
  assert.equal(result.shown.title, "The plan for “Rename a”:");
  assert.equal(result.shown.label, "Task board: rename");
  assert.equal(result.shown.change, 'title: "Draft" → "Ship"', "the change in the app's terms, not prose");
  assert.equal(result.shown.authorizeDisabled, false);
  assert.equal(result.shown.before, "Draft", "nothing changed before authorizing");
  assert.deepEqual(result.after, { state: "completed", title: "Ship", hidden: true });
});

test("AG-41: <baton-question> builds a non-modal form from the question's schema, shows the validator's message inline, and answers", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await import("baton-engine/elements");
      await baton.default();
      const schema = {
        type: "object", required: ["column", "count"], additionalProperties: false,
        properties: { column: { enum: ["todo", "done"], title: "Column" }, count: { type: "integer", minimum: 1, maximum: 5, title: "How many" } },
      };
      const at = (event) => ({ atMs: 0, event });
      const transport = new baton.ScriptedTransport({
        protocol: "baton/1",
        turns: [
          { events: [at({ type: "turn-started" }), at({ type: "elicitation", request: "q1", prompt: "Where, and how many?", schema }), at({ type: "turn-finished", outcome: "interrupted" })] },
          { events: [at({ type: "turn-started" }), at({ type: "turn-finished", outcome: "completed" })] },
        ],
      });
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
      engine.register(manifest, { invoke: () => ({}), history: { mark: () => "m", revertTo() {} } });
      const asking = document.createElement("baton-question");
      document.body.append(asking);
      asking.engine = engine;
      const run = engine.delegate({ intent: "Tidy", initiative: "user", autonomy: "review" });
      const part = (name) => asking.shadowRoot.querySelector(`[part=${name}]`);
      const wait = async (done) => {
        const deadline = Date.now() + 3000;
        while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      };
      await wait(() => !part("form").hasAttribute("data-empty"));
      const fields = [...asking.shadowRoot.querySelectorAll("[part=field]")];
      const shown = {
        prompt: part("prompt").textContent,
        fields: fields.map((f) => `${f.name}:${f.tagName.toLowerCase()}:${f.type}`),
        options: [...fields[0].options].map((o) => o.textContent),
        deadline: part("deadline").textContent,
        focusMoved: document.activeElement !== document.body,
      };
      fields[0].value = JSON.stringify("done");
      fields[1].value = "9";
      part("answer").click();
      const refused = { error: part("error").textContent, stillOpen: !part("form").hasAttribute("data-empty") };
      fields[1].value = "2";
      part("answer").click();
      await wait(() => engine.state(run).state === "cancelled");
      const after = { closed: part("form").hasAttribute("data-empty"), state: engine.state(run).state };
      engine.close();
      return { shown, refused, after };
    }, TASKS),
  );
  assert.equal(result.shown.prompt, "Where, and how many?");
  assert.deepEqual(result.shown.fields, ["column:select:select-one", "count:input:number"]);
  assert.deepEqual(result.shown.options, ["todo", "done"]);
  assert.match(result.shown.deadline, /^Open for \d+ minutes\.$/);
  assert.equal(result.shown.focusMoved, false, "never modal, never takes focus");
  assert.match(result.refused.error, /^AG-41: /, `the engine's validator, inline: ${JSON.stringify(result)}`);
  assert.equal(result.refused.stillOpen, true);
  assert.deepEqual(result.after, { closed: true, state: "cancelled" });
});

test("AG-41: <baton-question> renders nested objects and arrays of primitives, leaves empty optional members out, and answers with typed JSON", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await import("baton-engine/elements");
      await baton.default();
      const schema = {
        type: "object", required: ["card", "labels"], additionalProperties: false,
        properties: {
          card: {
            type: "object", title: "Card", required: ["title"], additionalProperties: false,
            properties: { title: { type: "string", minLength: 1, title: "Title" }, due: { type: "string", format: "date", title: "Due" } },
          },
          labels: { type: "array", title: "Labels", items: { enum: ["bug", "ux", "docs"] } },
          estimates: { type: "array", title: "Estimates", items: { type: "integer" } },
        },
      };
      const at = (event) => ({ atMs: 0, event });
      const transport = new baton.ScriptedTransport({
        protocol: "baton/1",
        turns: [
          { events: [at({ type: "turn-started" }), at({ type: "elicitation", request: "q1", prompt: "Which card?", schema }), at({ type: "turn-finished", outcome: "interrupted" })] },
          { events: [at({ type: "turn-started" }), at({ type: "turn-finished", outcome: "completed" })] },
        ],
      });
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
      engine.register(manifest, { invoke: () => ({}), history: { mark: () => "m", revertTo() {} } });
      const asking = document.createElement("baton-question");
      document.body.append(asking);
      asking.engine = engine;
      engine.delegate({ intent: "Plan", initiative: "user", autonomy: "review" });
      const root = asking.shadowRoot;
      const part = (name) => root.querySelector(`[part=${name}]`);
      const wait = async (done) => {
        const deadline = Date.now() + 3000;
        while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      };
      await wait(() => !part("form").hasAttribute("data-empty"));
      const shown = {
        legends: [...root.querySelectorAll("legend")].map((legend) => legend.textContent),
        fields: [...root.querySelectorAll("[part=field]")].map((f) => `${f.name}:${f.tagName.toLowerCase()}:${f.type}`),
      };
      const named = (name) => [...root.querySelectorAll(`[part=field][name=${name}]`)];
      named("title")[0].value = "Ship";
      for (const box of named("labels")) box.checked = ["\"bug\"", "\"docs\""].includes(box.value);
      named("estimates")[0].value = "3\nlots";
      part("answer").click();
      const refused = part("error").textContent;
      named("estimates")[0].value = "3\n5\n";
      part("answer").click();
      const question = engine.questions()[0];
      engine.close();
      return { shown, refused, state: question.state.state, answer: question.state.answer };
    }, TASKS),
  );
  assert.deepEqual(result.shown.legends, ["Card", "Labels"], "the root's legend is the prompt itself");
  assert.deepEqual(result.shown.fields, [
    "title:input:text", "due:input:date",
    "labels:input:checkbox", "labels:input:checkbox", "labels:input:checkbox",
    "estimates:textarea:textarea",
  ]);
  assert.match(result.refused, /^AG-41: .*estimates/, "an item that is not an integer is named by the engine's validator");
  assert.equal(result.state, "answered");
  assert.deepEqual(result.answer, { card: { title: "Ship" }, labels: ["bug", "docs"], estimates: [3, 5] });
});

test("AG-7: <baton-review> shows an exhausted budget in words with the engine's own choices, and Allow lets the run finish", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await import("baton-engine/elements");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      const titles = {};
      engine.register(manifest, {
        invoke: (capability, args) => { titles[args.id] = args.title; return { ok: true }; },
        history: { mark: () => "m", revertTo() {} },
      });
      const review = document.createElement("baton-review");
      document.body.append(review);
      review.engine = engine;
      const run = engine.delegate({
        intent: "Rename two", initiative: "user", autonomy: "auto",
        budget: { maxTurns: 8, maxCalls: 1, runDeadlineMs: 300000, turnDeadlineMs: 60000 },
        plan: [
          { capability: "tasks.rename", arguments: { id: "a", title: "One" } },
          { capability: "tasks.rename", arguments: { id: "b", title: "Two" } },
        ],
      });
      const root = review.shadowRoot;
      const wait = async (done) => {
        const deadline = Date.now() + 3000;
        while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      };
      await wait(() => !root.querySelector("[part=escalation]").hasAttribute("data-empty"));
      const shown = {
        state: engine.state(run).state,
        reason: root.querySelector("[part=reason]").textContent,
        choices: [...root.querySelectorAll("[part=choice]")].map((button) => button.textContent),
        sheetHidden: root.querySelector("[part=sheet]").hasAttribute("data-empty"),
        titles: { ...titles },
      };
      root.querySelector("[part=choice][data-choice=allow]").click();
      await wait(() => engine.state(run).state === "returned");
      const after = {
        outcome: engine.state(run).outcome,
        titles: { ...titles },
        hidden: root.querySelector("[part=escalation]").hasAttribute("data-empty"),
        sheet: engine.escalation(run),
      };
      engine.close();
      return { shown, after };
    }, TASKS),
  );
  assert.deepEqual(result.shown, {
    state: "escalated",
    reason: "“Rename two” is waiting for you. It has made all 1 of the calls it was allowed (1 used).",
    choices: ["Allow up to 2 calls", "End it"],
    sheetHidden: true,
    titles: { a: "One" },
  });
  assert.deepEqual(result.after, { outcome: "completed", titles: { a: "One", b: "Two" }, hidden: true, sheet: null });
});
