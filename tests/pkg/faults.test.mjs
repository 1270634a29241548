// Faults at the package's surface, in headless Chromium: each test is one
// scenario (`fault_<scenario>`). Each asserts that control returns with a
// typed reason, that nothing already acknowledged is lost, and that the
// engine goes on working afterwards.
//
//   node --test faults.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";

import { TASKS, packagePages } from "./harness.mjs";

const TIMEOUT = 30_000;

const { withPage } = packagePages();

test("fault_json_nested_10000_deep: in arguments, results, agent state, values and schemas it is refused typed, and the engine goes on", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, engine, until, codeOf, plan }) => {
      const deep = () => {
        let value = 1;
        for (let i = 0; i < 10_000; i += 1) value = [value];
        return value;
      };
      const refused = {
        arguments: codeOf(() => engine.delegate(plan(deep()))),
        state: codeOf(() => engine.setAgentState(deep())),
        value: codeOf(() => baton.Schema.compile({}).validate(deep())),
        schema: codeOf(() => baton.Schema.compile({ items: deep() })),
      };
      // The participant's result is nested 10,000 deep.
      const run = engine.delegate(plan());
      await until(() => engine.state(run).state === "returned");
      const finished = engine.journal(run).find((r) => r.entry.kind === "call-finished")?.entry.result;
      const valid = baton.Schema.compile({ type: "array" }).validate([[1]]).valid;
      return { refused, deepResult: { outcome: engine.state(run).outcome, result: finished?.kind, value: finished?.value }, valid };
    }, { behaviour: { invoke: () => { let value = 1; for (let i = 0; i < 10_000; i += 1) value = [value]; return value; } } }),
  );
  assert.deepEqual(result.refused, {
    arguments: "BatonError/invalid-delegation",
    state: "BatonError/invalid-state",
    value: "BatonError/invalid-value",
    schema: "BatonError/invalid-schema",
  });
  assert.deepEqual(result.deepResult, { outcome: "completed", result: "applied", value: null }, "a result JSON cannot hold is recorded as null; the call was applied");
  assert.equal(result.valid, true);
  assert.equal(result.goesOn, true);
});

/** Functions as their source text (nested objects kept), to cross into the page. */
const sources = (value) =>
  typeof value === "function" ? value.toString() : Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, sources(inner)]));

/**
 * In the page: an engine on `storage` with the task board mounted under
 * `behaviour` (merged over a well-behaved one), and helpers shared by the
 * scenarios below. Each scenario runs `body(kit)` and returns plain data.
 */
async function scenario(page, body, { storage = "memory", behaviour = {} } = {}) {
  return page.evaluate(
    async ({ manifest, storage, behaviour, body }) => {
      const baton = await import("baton-engine");
      await baton.default();
      const until = async (done, ms = 5000) => {
        const deadline = Date.now() + ms;
        while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        return done();
      };
      const codeOf = (act) => {
        try {
          act();
          return "no error";
        } catch (error) {
          return `${error.name}/${error.code}`;
        }
      };
      // Behaviours cross as source text: the page builds them.
      const revive = (source) => (typeof source === "string" ? (0, eval)(`(${source})`) : Object.fromEntries(Object.entries(source).map(([k, v]) => [k, revive(v)])));
      const extra = revive(behaviour);
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage, dbName: `faults-${Math.random()}` });
      const history = { mark: () => "m", revertTo() {} };
      engine.register(manifest, { invoke: () => ({ ok: true }), ...extra, history: { ...history, ...(extra.history ?? {}) } });
      const plan = (title = "T") => ({ intent: "Rename", initiative: "user", autonomy: "auto", plan: [{ capability: "tasks.rename", arguments: { id: "a", title } }] });
      const kit = { baton, engine, until, codeOf, plan, manifest };
      const result = await (0, eval)(`(${body})`)(kit);
      // The engine still works afterwards, whatever the scenario did.
      const again = engine.delegate({ intent: "Again", initiative: "user", autonomy: "review", plan: [{ capability: "tasks.rename", arguments: { id: "b", title: "U" } }] });
      const answers = await until(() => engine.state(again).state === "reviewing");
      engine.stop(again);
      const stopped = await until(() => ["returned", "cancelled"].includes(engine.state(again).state));
      engine.close();
      return { ...result, goesOn: answers && stopped };
    },
    { manifest: TASKS, storage, behaviour: sources(behaviour), body: body.toString() },
  );
}

test("fault_subscriber_throws: a listener that throws stops nothing; the run ends and other listeners hear everything", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ engine, until, plan }) => {
      const heard = [];
      engine.subscribe(() => {
        throw new Error("a broken listener");
      });
      engine.subscribe((event) => heard.push(event.type));
      const run = engine.delegate(plan());
      await until(() => engine.state(run).state === "returned");
      return { outcome: engine.state(run).outcome, heardJournal: heard.filter((t) => t === "journal").length === engine.journal(run).length };
    }),
  ).catch((error) => ({ error: String(error) }));
  assert.deepEqual(result, { outcome: "completed", heardJournal: true, goesOn: true });
});

for (const [name, invoke, expected] of [
  ["fault_invoke_throws", () => { throw new Error("the board is gone"); }, "failed"],
  ["fault_invoke_rejects", () => Promise.reject(new Error("the board is gone")), "failed"],
  ["fault_invoke_returns_garbage", () => { const cyclic = {}; cyclic.self = cyclic; return cyclic; }, "applied"],
]) {
  test(`${name}: the call ends typed, the run returns, nothing is left acting`, { timeout: TIMEOUT }, async () => {
    const result = await withPage((page) =>
      scenario(page, async ({ engine, until, plan }) => {
        const run = engine.delegate(plan());
        const returned = await until(() => engine.state(run).state === "returned");
        const finished = engine.journal(run).find((r) => r.entry.kind === "call-finished");
        const revisions = engine.journal(run).map((r) => r.revision);
        return { returned, result: finished?.entry.result.kind, gapFree: revisions.every((r, i) => r === i + 1) };
      }, { behaviour: { invoke } }),
    );
    assert.deepEqual(result, { returned: true, result: expected, gapFree: true, goesOn: true });
  });
}

test("fault_invoke_hangs: a call that never settles is cut off — the run's deadline starts a rollback, whose own deadline (10 s) returns control, typed", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ engine, until }) => {
      const run = engine.delegate({
        intent: "Rename", initiative: "user", autonomy: "auto",
        budget: { maxTurns: 1, maxCalls: 1, runDeadlineMs: 300, turnDeadlineMs: 300 },
        plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "T" } }],
      });
      const returned = await until(() => engine.state(run).state === "returned", 15_000);
      const state = engine.state(run);
      return { returned, outcome: state.outcome, reason: state.reason?.kind, cause: state.reason?.cause?.kind, unreverted: state.reason?.participants };
    }, { behaviour: { invoke: () => new Promise(() => {}) } }),
  );
  assert.deepEqual(result, { returned: true, outcome: "error", reason: "rollback-failed", cause: "run-deadline", unreverted: ["tasks"], goesOn: true });
});

test("fault_forged_altered_and_foreign_actor_references: none resolves; the genuine one names its run", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, engine, until, plan }) => {
      const run = engine.delegate(plan());
      await until(() => engine.state(run).state === "returned");
      const actor = window.actor;
      const altered = actor.slice(0, -2) + (actor.endsWith("00") ? "11" : "00");
      const other = await baton.Engine.open({ appName: "Other", storage: "memory" });
      const foreign = other.resolveActor(actor);
      other.close();
      return {
        genuine: engine.resolveActor(actor)?.run === run,
        forged: engine.resolveActor("baton1.forged.reference"),
        altered: engine.resolveActor(altered),
        foreign,
        empty: engine.resolveActor(""),
      };
    }, { behaviour: { invoke: (_name, _args, reference) => { window.actor = reference; return {}; } } }),
  );
  assert.deepEqual(result, { genuine: true, forged: null, altered: null, foreign: null, empty: null, goesOn: true });
});

test("fault_oversized_argument: a 10 MB argument is refused to the plan, typed, before any participant sees it", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ engine, until, plan }) => {
      const huge = "x".repeat(10 * 1024 * 1024);
      let thrown = "no error";
      let run = null;
      try {
        run = engine.delegate(plan(huge));
      } catch (error) {
        thrown = `${error.name}/${error.code}`;
      }
      if (run) await until(() => engine.state(run).state === "returned");
      const refused = run ? engine.journal(run).find((r) => r.entry.kind === "call-refused")?.entry.reason?.code ?? engine.state(run).reason?.kind : null;
      return { thrown, refused, invoked: window.invoked ?? 0 };
    }, { behaviour: { invoke: () => { window.invoked = (window.invoked ?? 0) + 1; return {}; } } }),
  );
  assert.ok(result.thrown !== "no error" || typeof result.refused === "string", JSON.stringify(result));
  assert.equal(result.invoked, 0);
  assert.equal(result.goesOn, true);
});

test("fault_private_mode: with no IndexedDB the engine runs in memory and says why", { timeout: TIMEOUT }, async () => {
  const result = await withPage(async (page) => {
    await page.addInitScript(() => {
      Object.defineProperty(window, "indexedDB", { get: () => undefined, configurable: true });
    });
    await page.reload();
    return scenario(page, async ({ engine, until, plan }) => {
      const storage = engine.storage;
      const run = engine.delegate(plan());
      await until(() => engine.state(run).state === "returned");
      return { mode: storage.mode, degraded: typeof storage.degraded === "string" && storage.degraded.length > 0, outcome: engine.state(run).outcome };
    }, { storage: "indexeddb" });
  });
  assert.deepEqual(result, { mode: "memory", degraded: true, outcome: "completed", goesOn: true });
});

test("fault_mark_throws: a participant that cannot mark is never changed; the run returns typed", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ engine, until, plan }) => {
      const run = engine.delegate(plan());
      const returned = await until(() => engine.state(run).state === "returned");
      return { returned, outcome: engine.state(run).outcome, invoked: window.invoked ?? 0 };
    }, { behaviour: {
      invoke: () => { window.invoked = (window.invoked ?? 0) + 1; return {}; },
      history: { mark: () => { throw new Error("no history today"); }, revertTo: () => {} },
    } }),
  );
  assert.equal(result.returned, true);
  assert.notEqual(result.outcome, "completed");
  assert.equal(result.invoked, 0, "nothing is changed without a mark to return to");
  assert.equal(result.goesOn, true);
});

test("fault_revert_throws: an undo whose revert throws reports that participant as failed, and control returns", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ engine, until, plan }) => {
      const run = engine.delegate(plan());
      await until(() => engine.state(run).state === "returned");
      const report = await Promise.race([engine.undo(run), new Promise((resolve) => setTimeout(() => resolve("no answer"), 12_000))]);
      return { reverted: report.reverted, failed: report.failed?.map((f) => f.participant ?? f) };
    }, { behaviour: { history: { mark: () => "m", revertTo: () => { throw new Error("cannot go back"); } } } }),
  );
  assert.deepEqual(result, { reverted: [], failed: ["tasks"], goesOn: true });
});

test("fault_answer_after_the_run_ended: an answer to a question whose run is over is refused typed", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, until, codeOf }) => {
      const at = (event) => ({ atMs: 0, event });
      const transport = new baton.ScriptedTransport({
        protocol: "baton/1",
        turns: [{ events: [at({ type: "turn-started" }), at({ type: "elicitation", request: "q1", prompt: "Which column?", schema: { enum: ["todo", "done"] } }), at({ type: "turn-finished", outcome: "interrupted" })] }],
      });
      const asking = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
      const run = asking.delegate({ intent: "Tidy", initiative: "user", autonomy: "review" });
      await until(() => asking.questions().some((q) => q.run === run));
      const question = asking.questions().find((q) => q.run === run);
      asking.stop(run);
      await until(() => ["returned", "cancelled"].includes(asking.state(run).state));
      const late = codeOf(() => asking.answer(question.id, question.digest, "done"));
      const forged = codeOf(() => asking.answer(question.id, "0".repeat(64), "done"));
      asking.close();
      return { late, forged };
    }),
  );
  assert.match(result.late, /^BatonError\/[a-z-]+$/, JSON.stringify(result));
  assert.match(result.forged, /^BatonError\/[a-z-]+$/);
  assert.equal(result.goesOn, true);
});

test("fault_turn_never_ends: an acting party that starts a turn and goes silent is cut off at the turn's deadline, typed", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, until }) => {
      const transport = new baton.ScriptedTransport({ protocol: "baton/1", turns: [{ events: [{ atMs: 0, event: { type: "turn-started" } }] }] });
      const silent = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
      const run = silent.delegate({ intent: "Tidy", initiative: "user", autonomy: "auto", budget: { maxTurns: 1, maxCalls: 1, runDeadlineMs: 5000, turnDeadlineMs: 300 } });
      const ended = await until(() => ["returned", "cancelled"].includes(silent.state(run).state), 8000);
      const state = silent.state(run);
      silent.close();
      return { ended, state: state.state, reason: state.reason?.kind };
    }),
  );
  assert.equal(result.ended, true, JSON.stringify(result));
  assert.equal(typeof result.reason, "string");
  assert.equal(result.goesOn, true);
});

test("fault_second_engine_for_a_live_session: opening a session another engine drives is refused typed; the first goes on", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, engine }) => {
      const name = engine.storage.dbName;
      let second = "opened";
      try {
        const other = await baton.Engine.open({ appName: "Board", storage: "indexeddb", dbName: name, session: engine.session });
        other.close();
      } catch (error) {
        second = `${error.name}/${error.code}`;
      }
      return { second, mode: engine.storage.mode };
    }, { storage: "indexeddb" }),
  );
  assert.deepEqual(result, { second: "BatonError/session-in-use", mode: "indexeddb", goesOn: true });
});

test("fault_database_deleted_underneath: the engine lets the deletion through, goes on in memory and says why", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ engine, until, plan }) => {
      const heard = [];
      engine.subscribe((event) => { if (event.type === "storage-degraded") heard.push(event.cause); });
      const deleted = await new Promise((resolve) => {
        const request = indexedDB.deleteDatabase(engine.storage.dbName);
        request.onsuccess = () => resolve("deleted");
        request.onerror = () => resolve("error");
        request.onblocked = () => setTimeout(() => resolve("blocked"), 2000);
      });
      const run = engine.delegate(plan());
      await until(() => engine.state(run).state === "returned");
      return { deleted, mode: engine.storage.mode, said: heard.length > 0, outcome: engine.state(run).outcome };
    }, { storage: "indexeddb" }),
  );
  assert.deepEqual(result, { deleted: "deleted", mode: "memory", said: true, outcome: "completed", goesOn: true });
});

test("fault_engine_used_after_close: every method and getter throws BatonError closed; closing twice is harmless", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, codeOf, plan, manifest }) => {
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      const participant = engine.register(manifest, { invoke: () => ({}), history: { mark: () => "m", revertTo() {} } });
      const run = engine.delegate(plan());
      engine.close();
      return {
        state: codeOf(() => engine.state(run)),
        delegate: codeOf(() => engine.delegate({ intent: "x", initiative: "user" })),
        storage: codeOf(() => engine.storage),
        subscribe: codeOf(() => engine.subscribe(() => {})),
        closeAgain: codeOf(() => engine.close()),
        publish: codeOf(() => participant.publish("board", { version: 1 })),
      };
    }),
  );
  assert.deepEqual(result, {
    state: "BatonError/closed",
    delegate: "BatonError/closed",
    storage: "BatonError/closed",
    subscribe: "BatonError/closed",
    closeAgain: "no error",
    publish: "BatonError/closed",
    goesOn: true,
  });
});
