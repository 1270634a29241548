// The npm package `baton-engine` as an application uses it: imported through
// an import map from pkg/baton.js in headless Chromium, one browser for the
// file, a fresh page per test. Needs the wasm-bindgen output in pkg/
// (`cargo xtask pkg`); `cargo xtask test` runs this after building it.
//
//   node --test engine.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { TASKS, packagePages } from "./harness.mjs";
import { root } from "./server.mjs";

const TIMEOUT = 30_000;

const pages = packagePages(() => {
  for (const file of ["pkg/baton_engine.js", "pkg/baton_engine_bg.wasm", "pkg/baton.js"]) {
    if (!existsSync(join(root, file))) {
      throw new Error(`${file} is missing: build the package first (cargo xtask pkg)`);
    }
  }
});
const { withPage } = pages;

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
  run = engine.delegate({ intent: "Rename card 1", initiative: "user", autonomy: "auto" }).id;
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

test("the entry point is one module that asks V8 to compile all of it while it streams in", () => {
  const entry = readFileSync(join(root, "pkg/baton.js"), "utf8");
  assert.equal(entry.split("\n", 1)[0], "//# allFunctionsCalledOnLoad", "the compile hint is the entry's first line");
  assert.doesNotMatch(entry, /from\s*["']\.\/baton_engine\.js["']/, "the glue is bundled in, not a second request");
});

test("the package imports the way an app does, and init is idempotent", { timeout: TIMEOUT }, async () => {
  await withPage(async (page) => {
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
            // Each call resolves with the one instance's exports.
            results: results.map((r) => r === results[0] && r.memory instanceof WebAssembly.Memory),
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
        classes: ["Engine", "Participant", "Run", "Schema", "ScriptedTransport", "AgUiTransport", "TurnSink"].map(
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
      "Run",
      "Schema",
      "ScriptedTransport",
      "TurnSink",
      "approvalKey",
      "default",
    ]);
    assert.deepEqual(dynamic.classes, Array(7).fill("function"));
    assert.equal(dynamic.batonError, "function");
    // What the page fetched, as every engine's Resource Timing tells it.
    const wasmFetches = await page.evaluate(() =>
      performance.getEntriesByType("resource").map((entry) => entry.name).filter((name) => name.endsWith(".wasm")),
    );
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
      run = engine.delegate({ intent: "Rename three", initiative: "user", autonomy: "auto", plan }).id;
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

test("MCP tool names as MCP allows them (dots, a leading underscore, 128 characters) become capabilities the engine takes, and mcpToolName gives each MCP name back", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async () => {
      const baton = await import("baton-engine");
      const { manifestFromMcpTools, mcpToolName } = await import("baton-engine/mcp");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Files", ceiling: "auto", storage: "memory" });
      const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false };
      const named = ["files.read", "files_read", "_internal", "x".repeat(128)];
      // Queries, from a source the app trusts: run without review.
      const tools = named.map((name) => ({ name, description: "One look at the workspace.", inputSchema: schema, annotations: { readOnlyHint: true } }));
      const participant = { id: "files", label: "Files", description: "The files of the person's workspace.", defaultArgumentLimit: 4096, trustAnnotations: true };
      const manifest = manifestFromMcpTools(tools, participant);
      const called = [];
      const registered = engine.register(manifest, { invoke: (capability) => (called.push(mcpToolName(tools, participant, capability)), { ok: true }) });
      const capabilities = manifest.capabilities.map((capability) => capability.name);
      await engine.delegate({ intent: "Read", initiative: "user", autonomy: "auto", plan: [{ capability: "files.files_read", arguments: { path: "a" } }] }).returned;
      engine.close();
      return { problems: registered.problems, capabilities, back: capabilities.map((name) => mcpToolName(tools, participant, name)), unknown: mcpToolName(tools, participant, "nowhere") ?? null, called };
    }),
  );
  assert.deepEqual(result.problems, [], "every name is one the engine takes");
  // `files__` and the name within model APIs' 64.
  assert.deepEqual(result.capabilities, ["files_read", "files_read-2", "internal", "x".repeat(53)]);
  assert.deepEqual(result.back, ["files.read", "files_read", "_internal", "x".repeat(128)]);
  assert.equal(result.unknown, null);
  assert.deepEqual(result.called, ["files.read"], "the engine's call reaches the MCP tool by its own name");
});

test("MCP tools become a manifest and back: hints that ask for more control are taken, those that would lower it only from a trusted source; what the contract refuses is named (AG-14, AG-18, AG-25)", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async () => {
      const baton = await import("baton-engine");
      const { manifestFromMcpTools, mcpToolsFromManifest } = await import("baton-engine/mcp");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Files", ceiling: "auto", storage: "memory" });
      const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false };
      const tools = [
        { name: "read_file", description: "Read one file of the workspace.", inputSchema: schema, annotations: { readOnlyHint: true } },
        { name: "rename_file", description: "Give one file of the workspace a new name.", inputSchema: schema, annotations: { destructiveHint: false, openWorldHint: false } },
        { name: "send_file", description: "Send one file of the workspace by email.", inputSchema: schema, annotations: { readOnlyHint: true, destructiveHint: false } },
      ];
      const participant = { id: "files", label: "Files", description: "The files of the person's workspace.", history: "native", defaultArgumentLimit: 4096 };
      const untrusted = manifestFromMcpTools(tools, participant);
      const trusted = manifestFromMcpTools(tools, { ...participant, trustAnnotations: true });
      const registered = engine.register(trusted, { invoke: () => ({}), history: { mark: () => "m", revertTo() {} } });
      const back = mcpToolsFromManifest(trusted);
      // A tool without a description: refused as the contract refuses it.
      const bare = manifestFromMcpTools([{ name: "delete_file", inputSchema: schema }], { ...participant, id: "bare" });
      const refused = engine.register(bare, { invoke: () => ({}) });
      const offered = engine.tools().map((tool) => tool.name).sort();
      engine.close();
      // Which names are external acts is the core's rule (its list, in
      // pkg/rules.js): the same names, the same verdicts as
      // crates/baton-core/tests/js_rules.rs.
      const names = ["send", "Send_mail", "publish.post", "NOTIFY team", "notify-all", "sender", "resend", "publishing", "rename", "\u017fend"];
      const closed = names.map((name) => ({ name, description: "An act.", inputSchema: schema, annotations: { destructiveHint: false, openWorldHint: false } }));
      const judged = manifestFromMcpTools(closed, { ...participant, trustAnnotations: true }).capabilities.map((c) => c.effects[0].external);
      return {
        judged,
        untrusted: { tier: untrusted.tier, capabilities: untrusted.capabilities.map((c) => [c.name, c.readOnly ?? false, c.effects]) },
        trusted: { tier: trusted.tier, capabilities: trusted.capabilities.map((c) => [c.name, c.readOnly ?? false, c.effects]) },
        problems: registered.problems,
        back: back.map((tool) => [tool.name, tool.annotations]),
        refused: refused.problems.map((problem) => [problem.path, problem.requirement]),
        offered,
      };
    }),
  );
  assert.deepEqual(result.judged, [true, true, true, true, true, false, false, false, false, false]);
  const act = (name, reversible, external) => [{ name, reversible, external }];
  // Untrusted (the default): every tool an irreversible, external act.
  assert.deepEqual(result.untrusted, {
    tier: "full-acts",
    capabilities: [
      ["read_file", false, act("read_file", false, true)],
      ["rename_file", false, act("rename_file", false, true)],
      ["send_file", false, act("send_file", false, true)],
    ],
  });
  // Trusted: a query, a reversible act, and a send that stays irreversible
  // whatever it claims (AG-18).
  assert.deepEqual(result.trusted, {
    tier: "full-acts",
    capabilities: [
      ["read_file", true, []],
      ["rename_file", false, act("rename_file", true, false)],
      ["send_file", false, act("send_file", false, true)],
    ],
  });
  assert.deepEqual(result.problems, []);
  assert.deepEqual(result.back, [
    ["files__read_file", { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
    ["files__rename_file", { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }],
    ["files__send_file", { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }],
  ]);
  assert.ok(result.refused.some(([path]) => path.startsWith("$.capabilities[0]")), JSON.stringify(result.refused));
  assert.deepEqual(result.offered, ["files.read_file", "files.rename_file", "files.send_file"], "the refused participant offers nothing");
});

test("approve with edits: the person changes a planned call's arguments in review; refused as proposed ones would be, previewed again, authorized at the new revision, run with the edits (AG-15, AG-31)", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      const invoked = [];
      const previews = [];
      engine.register({ ...manifest, preview: true }, {
        invoke: (_capability, args) => (invoked.push(args), { ok: true }),
        preview: (_capability, args) => (previews.push(args.title), { title: { from: "Draft", to: args.title } }),
        history: { mark: () => "m", revertTo() {} },
      });
      const run = engine.delegate({
        intent: "Rename", initiative: "user", autonomy: "review",
        plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "Shipp" } }],
      });
      await new Promise((r) => setTimeout(r, 30));
      const shown = engine.revision(run);
      const call = engine.review(run).items[0].call;
      let refused = null;
      try {
        engine.editCall(run, shown, call, { id: "a", title: 7 });
      } catch (error) {
        refused = { code: error.code, requirement: error.requirement };
      }
      engine.editCall(run, shown, call, { id: "a", title: "Ship" });
      await new Promise((r) => setTimeout(r, 30));
      const sheet = engine.review(run);
      let stale = null;
      try {
        engine.authorize(run, shown);
      } catch (error) {
        stale = error.code;
      }
      engine.authorize(run, sheet.revision);
      for (let i = 0; i < 100 && engine.state(run).state !== "returned"; i++) await new Promise((r) => setTimeout(r, 10));
      const kinds = engine.journal(run).filter((r) => r.entry.kind === "call-edited").map((r) => [r.actor.kind, r.entry.arguments]);
      engine.close();
      return { refused, edited: sheet.items[0].edited, change: sheet.items[0].change, previews, stale, invoked, kinds };
    }, TASKS),
  );
  assert.deepEqual(result.refused, { code: "invalid-arguments", requirement: "AG-15" });
  assert.equal(result.edited, true);
  assert.deepEqual(result.change, { kind: "preview", value: { title: { from: "Draft", to: "Ship" } } });
  assert.deepEqual(result.previews, ["Shipp", "Ship"], "previewed again");
  assert.equal(result.stale, "stale-revision", "what was shown before the edit cannot be authorized");
  assert.deepEqual(result.invoked, [{ id: "a", title: "Ship" }]);
  assert.deepEqual(result.kinds, [["person", { id: "a", title: "Ship" }]]);
});

test("a run handle: engine.delegate returns a Run whose returned settles with how it ended, scoped events, and its own commands; every run-taking method takes it", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      let title = "Draft";
      engine.register(manifest, {
        invoke: (_capability, args) => ((title = args.title), { ok: true }),
        history: { mark: () => title, revertTo: (mark) => (title = mark) },
      });
      const plan = (name) => [{ capability: "tasks.rename", arguments: { id: "a", title: name } }];
      const run = engine.delegate({ intent: "Rename", initiative: "user", autonomy: "review", plan: plan("Ship") });
      const other = engine.delegate({ intent: "Other", initiative: "user", autonomy: "review", plan: plan("Later") });
      const heard = [];
      const unsubscribe = run.subscribe((event) => heard.push(event.run ?? event.runs?.[0] ?? event.report?.run));
      const waiting = { isRun: run instanceof baton.Run, id: typeof run.id, text: `${run}`, state: run.state().state, sheet: run.review() !== null };
      // Methods that take a run id take the handle.
      const revision = engine.revision(run);
      let stale = null;
      try {
        await run.authorize(revision - 1);
      } catch (error) {
        stale = error.code;
      }
      const ended = await run.authorize(revision);
      const again = await run.returned;
      other.stop();
      const otherEnded = await other.returned;
      const third = engine.delegate({ intent: "Third", initiative: "user", autonomy: "review", plan: plan("Never") });
      const rejected = await third.reject(third.review().revision, "not now");
      const report = await run.undo();
      unsubscribe();
      engine.close();
      return { waiting, stale, ended, again, otherEnded, rejected, title, report: report.reverted, onlyItsOwn: heard.every((id) => id === run.id), heard: heard.length };
    }, TASKS),
  );
  assert.equal(result.stale, "stale-revision", "a refused authorization throws");
  assert.equal(result.rejected.state, "cancelled", "reject settles with how the run ended");
  assert.deepEqual(result.waiting, { isRun: true, id: "string", text: result.waiting.text, state: "reviewing", sheet: true });
  assert.deepEqual(result.ended, { state: "returned", outcome: "completed", reason: { kind: "plan-completed" } });
  assert.deepEqual(result.again, result.ended, "settled once, read as often as asked");
  assert.deepEqual(result.otherEnded, { state: "returned", outcome: "aborted", reason: { kind: "user-interrupt" } }, "never rejects for how it ended");
  assert.equal(result.title, "Draft", "undone through the handle");
  assert.deepEqual(result.report, ["tasks"]);
  assert.ok(result.heard > 3 && result.onlyItsOwn, "its subscription hears its own events only");
});
