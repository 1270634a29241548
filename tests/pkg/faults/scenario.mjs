// What the fault scenarios share: `scenario(page, body, options)` runs one
// scenario in the page against an engine with the task board mounted, then
// checks that the engine still works; `until` waits in Node for a condition.

import { TASKS } from "../harness.mjs";

/** The time one scenario may take. */
export const TIMEOUT = 30_000;

/** Functions as their source text (nested objects kept), to cross into the page. */
const sources = (value) =>
  typeof value === "function" ? value.toString() : Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, sources(inner)]));

/**
 * In the page: an engine on `storage` with the task board mounted under
 * `behaviour` (merged over a well-behaved one), and helpers shared by the
 * scenarios. Each scenario runs `body(kit)` and returns plain data;
 * `params` (plain data) reach it as `kit.params`.
 */
export async function scenario(page, body, { storage = "memory", behaviour = {}, params = {} } = {}) {
  return page.evaluate(
    async ({ manifest, storage, behaviour, body, params }) => {
      const baton = await import("baton-engine");
      await baton.default();
      // Waits on the monotonic clock: some scenarios move `Date.now`.
      const until = async (done, ms = 5000) => {
        const deadline = performance.now() + ms;
        while (!done() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
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
      const kit = { baton, engine, until, codeOf, plan, manifest, params };
      const result = await (0, eval)(`(${body})`)(kit);
      // The engine still works afterwards, whatever the scenario did.
      const again = engine.delegate({ intent: "Again", initiative: "user", autonomy: "review", plan: [{ capability: "tasks.rename", arguments: { id: "b", title: "U" } }] });
      const answers = await until(() => engine.state(again).state === "reviewing");
      engine.stop(again);
      const stopped = await until(() => ["returned", "cancelled"].includes(engine.state(again).state));
      engine.close();
      return { ...result, goesOn: answers && stopped };
    },
    { manifest: TASKS, storage, behaviour: sources(behaviour), body: body.toString(), params },
  );
}
