// The history of runs at scale: `runs()` pages through an index on the
// creation time (schema version 2), and a database written by version 1 —
// `tests/fixtures/baton-v1-database.json`, dumped from a database the
// package wrote before the index existed (seven runs of session
// `v1-session`, the last left waiting for review) — is migrated when it is
// opened: the index is made, every row gets its creation time, and nothing
// is lost.
//
//   node --test history.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { TASKS, packagePages } from "./harness.mjs";

const { withPage } = packagePages();
const V1 = JSON.parse(readFileSync(new URL("../fixtures/baton-v1-database.json", import.meta.url), "utf8"));

test("a database written by version 1 is migrated on open: every run gets its creation time in the new index, runs() pages through all of them newest first, and every journal reads back", { timeout: 60_000 }, async () => {
  const seen = await withPage((page) =>
    page.evaluate(
      async ({ manifest, dump }) => {
        const idb = (r, upgrade) =>
          new Promise((resolve, reject) => {
            if (upgrade) r.onupgradeneeded = () => upgrade(r.result);
            r.onsuccess = () => resolve(r.result);
            r.onerror = () => reject(r.error);
          });
        // The version 1 database, as it was written.
        const dbName = `v1-${Math.random()}`;
        const db = await idb(indexedDB.open(dbName, dump.version), (db) => {
          for (const [name, { keyPath, indexes, rows }] of Object.entries(dump.stores)) {
            const store = db.createObjectStore(name, keyPath ? { keyPath } : undefined);
            for (const index of indexes) store.createIndex(index.name, index.keyPath);
            for (const [key, value] of rows) store.put(value, key ?? undefined);
          }
        });
        db.close();
        const stored = dump.stores.runs.rows.map(([, row]) => row.id);

        const baton = await import("baton-engine");
        await baton.default();
        const engine = await baton.Engine.open({ ceiling: "auto", dbName });
        engine.register(manifest, { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} } });
        await new Promise((resolve) => setTimeout(resolve, 5));
        const fresh = engine.delegate({ intent: "Rename now", initiative: "user", autonomy: "auto", plan: [{ capability: "tasks.rename", arguments: { id: "card-1", title: "Now" } }] });
        await fresh.returned;
        const pages = [];
        let page = await engine.runs({ limit: 3 });
        pages.push(page.runs.map((listing) => listing.run));
        while (page.next) {
          page = await engine.runs({ limit: 3, after: page.next });
          pages.push(page.runs.map((listing) => listing.run));
        }
        const lengths = [];
        for (const run of stored) lengths.push((await engine.history(run)).length);
        engine.close();

        const after = await idb(indexedDB.open(dbName));
        const tx = after.transaction("runs");
        const runs = tx.objectStore("runs");
        const rows = await idb(runs.getAll());
        const migrated = { version: after.version, indexes: [...runs.indexNames].sort(), created: rows.map((row) => typeof row.created === "number" && row.created > 0) };
        after.close();
        return { stored, fresh: fresh.id, pages, lengths, migrated };
      },
      { manifest: TASKS, dump: V1 },
    ),
  );
  assert.equal(seen.stored.length, 7, "the fixture holds seven runs");
  const listed = seen.pages.flat();
  // Newest first: this page's run, then the fixture's from the last created to the first.
  const byNumber = [...seen.stored].sort((a, b) => Number(b.split("/r")[1]) - Number(a.split("/r")[1]));
  assert.deepEqual(listed, [seen.fresh, ...byNumber], "every run once, newest first, across pages");
  assert.deepEqual(seen.pages.map((page) => page.length), [3, 3, 2]);
  assert.ok(seen.lengths.every((length) => length > 0), `every journal reads back: ${seen.lengths}`);
  assert.equal(seen.migrated.version, 2);
  assert.deepEqual(seen.migrated.indexes, ["created", "live"]);
  assert.ok(seen.migrated.created.every(Boolean), "every row has its creation time");
});

test("Run.returned first read after its run left memory still settles, from the run's stored journal", { timeout: 60_000 }, async () => {
  const seen = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const engine = await baton.Engine.open({ ceiling: "auto", dbName: `left-memory-${Math.random()}` });
      engine.register(manifest, { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} } });
      const plan = [{ capability: "tasks.rename", arguments: { id: "card-1", title: "Now" } }];
      const delegate = () => engine.delegate({ intent: "Rename", initiative: "user", autonomy: "auto", plan });
      const first = delegate();
      // Enough runs after it that it leaves memory once written.
      for (let i = 0; i < 80; i++) await delegate().returned;
      let left = false;
      for (let i = 0; i < 300 && !left; i++) {
        await new Promise((r) => setTimeout(r, 10));
        try {
          engine.state(first.id);
        } catch (error) {
          left = error.code === "unknown-run";
        }
      }
      const returned = await Promise.race([first.returned, new Promise((r) => setTimeout(() => r("never settled"), 2_000))]);
      engine.close();
      return { left, returned };
    }, TASKS),
  );
  assert.equal(seen.left, true, "the run left memory");
  assert.deepEqual(seen.returned, { state: "returned", outcome: "completed", reason: { kind: "plan-completed" } });
});
