// Faults in what is stored: rows damaged by a disk error, an extension or a
// partial restore. A damaged row is skipped and said once; every good row
// is still read. The damage is done through the page's own IndexedDB, so
// this runs in every engine.
//
//   node --test faults/rows.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";

import { TASKS, packagePages } from "../harness.mjs";
import { TIMEOUT } from "./scenario.mjs";

const { withPage } = packagePages();

test("fault_damaged_rows: a run row and a journal row that are not JSON are skipped and said once each (unreadable-row); runs() lists every good run, history() reads every good record, and the engine goes on", { timeout: TIMEOUT }, async () => {
  const seen = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const dbName = `rows-${Math.random()}`;
      const behaviour = { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} } };
      const plan = (title) => [{ capability: "tasks.rename", arguments: { id: "card-1", title } }];
      const request = (title) => ({ intent: `Rename to ${title}`, initiative: "user", autonomy: "auto", plan: plan(title) });

      // Three finished runs, stored.
      const first = await baton.Engine.open({ ceiling: "auto", dbName });
      first.register(manifest, behaviour);
      const runs = [];
      for (const title of ["One", "Two", "Three"]) {
        const run = first.delegate(request(title));
        await run.returned;
        runs.push(run.id);
      }
      const whole = [];
      for (const run of runs) whole.push(first.journal(run).length);
      first.close();

      // The damage, as a buggy extension would do it: run two's row and run
      // three's first journal row overwritten with text that is not JSON.
      const request_ = (r) => new Promise((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));
      const db = await request_(indexedDB.open(dbName));
      const tx = db.transaction(["runs", "journal"], "readwrite");
      const damaged = [];
      await new Promise((resolve) => {
        tx.objectStore("runs").openCursor().onsuccess = (event) => {
          const cursor = event.target.result;
          if (!cursor) return resolve();
          if (cursor.value.id === runs[1]) {
            cursor.update({ ...cursor.value, data: '{"key must be a string' });
            damaged.push("run");
          }
          cursor.continue();
        };
      });
      await new Promise((resolve) => {
        const range = IDBKeyRange.bound([runs[2], 0], [runs[2], Number.MAX_VALUE]);
        tx.objectStore("journal").openCursor(range).onsuccess = (event) => {
          const cursor = event.target.result;
          if (cursor) {
            cursor.update("\u0000garbage");
            damaged.push("journal");
          }
          resolve();
        };
      });
      await new Promise((resolve) => (tx.oncomplete = resolve));
      db.close();

      // A reload: a new engine on the same database.
      const engine = await baton.Engine.open({ ceiling: "auto", dbName });
      engine.register(manifest, behaviour);
      const said = [];
      engine.subscribe((event) => {
        if (event.type === "unreadable-row") said.push(event);
      });
      const listed = (await engine.runs()).runs.map((listing) => listing.run);
      const again = (await engine.runs()).runs.map((listing) => listing.run);
      const histories = [];
      for (const run of runs) histories.push((await engine.history(run)).length);
      await engine.history(runs[2]);
      // It goes on: a new run, finished and undone.
      const next = engine.delegate(request("Four"));
      const ended = (await next.returned).outcome;
      const undone = (await next.undo()).reverted.length;
      engine.close();
      return { runs, damaged, listed, again, said, whole, histories, ended, undone };
    }, TASKS),
  );
  const { runs } = seen;
  assert.deepEqual(seen.damaged, ["run", "journal"], "the damage was done");
  assert.deepEqual([...seen.listed].sort(), [runs[0], runs[2]].sort(), "every good run is listed, the damaged one is not");
  assert.deepEqual(seen.again, seen.listed, "and again");
  assert.equal(seen.said.length, 2, `each damaged row said once: ${JSON.stringify(seen.said)}`);
  assert.deepEqual(
    seen.said.map(({ store, key }) => ({ store, key })),
    [
      { store: "runs", key: runs[1] },
      { store: "journal", key: `${runs[2]}, row 0` },
    ],
  );
  assert.ok(seen.said.every((event) => typeof event.reason === "string" && event.reason.length > 0), "each says why");
  assert.deepEqual(seen.histories.slice(0, 2), seen.whole.slice(0, 2), "the good journals are read whole");
  assert.ok(seen.histories[2] < seen.whole[2], `a journal with a damaged row gives only its good rows, and answers: ${seen.histories[2]} of ${seen.whole[2]}`);
  assert.equal(seen.ended, "completed");
  assert.equal(seen.undone, 1);
});
