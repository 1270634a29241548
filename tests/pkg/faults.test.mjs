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
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const deep = () => {
        let value = 1;
        for (let i = 0; i < 10_000; i += 1) value = [value];
        return value;
      };
      const codeOf = (act) => {
        try {
          act();
          return "no error";
        } catch (error) {
          return `${error.name}/${error.code}`;
        }
      };
      const until = async (done) => {
        const deadline = Date.now() + 5000;
        while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      };
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      // A participant whose result is nested 10,000 deep.
      engine.register(manifest, { invoke: () => deep(), history: { mark: () => "m", revertTo() {} } });
      const plan = (title) => [{ capability: "tasks.rename", arguments: { id: "a", title } }];
      const refused = {
        arguments: codeOf(() => engine.delegate({ intent: "x", initiative: "user", autonomy: "auto", plan: plan(deep()) })),
        state: codeOf(() => engine.setAgentState(deep())),
        value: codeOf(() => baton.Schema.compile({}).validate(deep())),
        schema: codeOf(() => baton.Schema.compile({ items: deep() })),
      };
      const run = engine.delegate({ intent: "Rename", initiative: "user", autonomy: "auto", plan: plan("T") });
      await until(() => engine.state(run).state === "returned");
      const deepResult = { outcome: engine.state(run).outcome, applied: engine.journal(run).some((r) => r.entry.kind === "call-finished" && r.entry.result.kind === "applied" && r.entry.result.value === null) };
      // And afterwards everything works as ever.
      engine.register({ ...manifest, id: "notes" }, { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} } });
      const after = engine.delegate({ intent: "Again", initiative: "user", autonomy: "auto", plan: [{ capability: "notes.rename", arguments: { id: "b", title: "U" } }] });
      await until(() => engine.state(after).state === "returned");
      const valid = baton.Schema.compile({ type: "array" }).validate([[1]]).valid;
      const outcome = engine.state(after).outcome;
      engine.close();
      return { refused, deepResult, after: { outcome, valid } };
    }, TASKS),
  );
  assert.deepEqual(result.refused, {
    arguments: "BatonError/invalid-delegation",
    state: "BatonError/invalid-state",
    value: "BatonError/invalid-value",
    schema: "BatonError/invalid-schema",
  });
  assert.deepEqual(result.deepResult, { outcome: "completed", applied: true }, "a result JSON cannot hold is recorded as null; the call was applied");
  assert.deepEqual(result.after, { outcome: "completed", valid: true });
});
