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
 * In the page: an engine on `storage` (IndexedDB unless a scenario says
 * otherwise) with the task board mounted under `behaviour` (merged over a
 * well-behaved one), and helpers shared by the scenarios. Each scenario
 * runs `body(kit)` and returns plain data; `params` (plain data) reach it as
 * `kit.params`.
 *
 * Afterwards the result's `goesOn` says the engine still works — a new run
 * reaches review and stops — and, if the engine still writes to IndexedDB,
 * that an engine opened again on its session (what a reload does) reads
 * back every journal it held, whole and gap-free.
 */
export async function scenario(page, body, { storage = "indexeddb", behaviour = {}, params = {} } = {}) {
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
      const dbName = `faults-${Math.random()}`;
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage, dbName });
      // Every run the scenario starts on this engine, for the check after it.
      const runs = [];
      const delegate = engine.delegate.bind(engine);
      engine.delegate = (request) => {
        const run = delegate(request);
        runs.push(run.id);
        return run;
      };
      const history = { mark: () => "m", revertTo() {} };
      engine.register(manifest, { invoke: () => ({ ok: true }), ...extra, history: { ...history, ...(extra.history ?? {}) } });
      // One rename at `auto`; `budget`, if given, bounds the run.
      const plan = (title = "T", budget = undefined) => ({ intent: "Rename", initiative: "user", autonomy: "auto", budget, plan: [{ capability: "tasks.rename", arguments: { id: "a", title } }] });
      const kit = { baton, engine, until, codeOf, plan, manifest, params };
      const result = await (0, eval)(`(${body})`)(kit);
      // The engine still works afterwards, whatever the scenario did.
      const again = engine.delegate({ intent: "Again", initiative: "user", autonomy: "review", plan: [{ capability: "tasks.rename", arguments: { id: "b", title: "U" } }] });
      const answers = await until(() => engine.state(again).state === "reviewing");
      engine.stop(again);
      const stopped = await until(() => ["returned", "cancelled"].includes(engine.state(again).state));
      const kept = await keptAfterReopening(engine, runs);
      return { ...result, goesOn: answers && stopped && kept };

      /**
       * Closes `engine` once its writes are done and, if it still writes to
       * IndexedDB, opens its session again: every journal it held in memory
       * must read back the same, gap-free. An engine that fell back to memory
       * (a scenario took IndexedDB away) has nothing to compare.
       */
      async function keptAfterReopening(engine, runs) {
        const held = runs.flatMap((run) => {
          try {
            return [[run, engine.journal(run)]];
          } catch {
            return []; // a finished run that already left memory for IndexedDB
          }
        });
        const heard = held.reduce((sum, [, journal]) => sum + journal.length, 0);
        const settled = await until(() => engine.storage.mode !== "indexeddb" || engine.storage.records >= heard);
        const { mode, dbName } = engine.storage;
        const session = engine.session;
        engine.close();
        if (mode !== "indexeddb") return settled;
        let reopened = null;
        for (let attempt = 0; attempt < 50 && reopened === null; attempt += 1) {
          try {
            reopened = await baton.Engine.open({ appName: "Board", storage: "indexeddb", dbName, session });
          } catch {
            await new Promise((r) => setTimeout(r, 20)); // the closed engine's lock is still being let go
          }
        }
        if (reopened === null) return false;
        let kept = true;
        for (const [run, journal] of held) {
          const history = await reopened.history(run);
          kept &&= history.every((record, i) => record.revision === i + 1);
          kept &&= JSON.stringify(history) === JSON.stringify(journal);
        }
        reopened.close();
        return kept;
      }
    },
    { manifest: TASKS, storage, behaviour: sources(behaviour), body: body.toString(), params },
  );
}
