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

test("fault_damaged_live_row: a run in progress whose row cannot be read does not stop Engine.open, on the session's own engine or in the sweep of another's; it is said cut off and unreadable, nothing is reverted, and the readable run beside it is offered again", { timeout: TIMEOUT }, async () => {
  const seen = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const dbName = `live-rows-${Math.random()}`;
      const reverted = [];
      const behaviour = { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo: (token) => reverted.push(token) } };
      const request = (title) => ({ intent: `Rename to ${title}`, initiative: "user", autonomy: "review", plan: [{ capability: "tasks.rename", arguments: { id: "card-1", title } }] });
      const idb = (r) => new Promise((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));
      /** Overwrites the stored row of `run` with text that is not JSON. */
      async function damage(run) {
        const db = await idb(indexedDB.open(dbName));
        const tx = db.transaction("runs", "readwrite");
        const store = tx.objectStore("runs");
        const row = await idb(store.get(run));
        store.put({ ...row, data: "\u0000garbage" });
        await new Promise((resolve) => (tx.oncomplete = resolve));
        db.close();
      }
      /** Two runs waiting for review in `session`, its engine then gone; the first one's row damaged. */
      async function leave(session) {
        const engine = await baton.Engine.open({ ceiling: "auto", dbName, session });
        engine.register(manifest, behaviour);
        const runs = [engine.delegate(request("One")).id, engine.delegate(request("Two")).id];
        while (runs.some((run) => !engine.review(run))) await new Promise((resolve) => setTimeout(resolve, 10));
        engine.close();
        await damage(runs[0]);
        return runs;
      }
      async function reopen(session) {
        const engine = await baton.Engine.open({ ceiling: "auto", dbName, ...(session ? { session } : {}) });
        engine.register(manifest, behaviour);
        const said = [];
        engine.subscribe((event) => event.type === "unreadable-row" && said.push(event));
        // The sweep of another session runs once its lock is free: soon.
        const deadline = performance.now() + 3000;
        while (engine.cutOff().length === 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        return { engine, said };
      }
      const result = {};
      // Its own session's engine, reopened.
      const own = await leave("own");
      {
        const { engine, said } = await reopen("own");
        result.own = { runs: own, mode: engine.storage.mode, said, offered: engine.cutOff().map((cut) => cut.run), listed: (await engine.runs()).runs.map((listing) => listing.run) };
        const next = engine.delegate({ ...request("Three"), autonomy: "auto" });
        result.own.goesOn = (await next.returned).outcome;
        engine.close();
      }
      // Another session's, swept by a new engine.
      const other = await leave("other");
      {
        const { engine, said } = await reopen();
        result.other = { runs: other, mode: engine.storage.mode, said, offered: engine.cutOff().map((cut) => cut.run) };
        engine.close();
      }
      result.reverted = reverted;
      return result;
    }, TASKS),
  );
  for (const [label, outcome] of Object.entries({ own: seen.own, other: seen.other })) {
    assert.equal(outcome.mode, "indexeddb", `${label}: storage is not given up`);
    // Every engine that meets an unreadable live row says it: the one swept
    // last still meets the first session's, whose row stays as it was.
    const mine = outcome.said.filter(({ key }) => key.startsWith(`${label}/`));
    assert.deepEqual(mine.map(({ store, key }) => ({ store, key })), [{ store: "runs", key: outcome.runs[0] }], `${label}: the damaged run is said, once`);
    assert.match(mine[0].reason, /a run in progress that cannot be read .*: it is cut off, its participants left as they are/);
    assert.deepEqual(outcome.offered.filter((run) => run.startsWith(`${label}/`)), [outcome.runs[1]], `${label}: the readable run beside it is offered again`);
  }
  assert.ok(!seen.own.listed.includes(seen.own.runs[0]), "the unreadable run is not listed");
  assert.equal(seen.own.goesOn, "completed");
  assert.deepEqual(seen.reverted, [], "nothing reverted");
});

test("fault_mutated_rows (property): stored rows truncated, retyped, missing or given columns, or sprinkled with garbage — open, runs() and history() always answer, every good run is listed, and every row that cannot be read is said", { timeout: 120_000 }, async () => {
  const seen = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const idb = (r) => new Promise((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));
      // A seeded generator (xorshift32): the same cases every run, in every engine.
      let state = 0x9e3779b9;
      const next = () => {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        return (state >>> 0) / 2 ** 32;
      };
      const pick = (list) => list[Math.floor(next() * list.length)];
      const garbage = (text) => {
        const at = Math.floor(next() * text.length);
        return text.slice(0, at) + pick(["\u0000", "}", "\"", "\uFFFD\uFFFD", "[[[", "\\"]) + text.slice(at);
      };
      /** Each mutation: what it does to a row, and whether the row still reads. */
      const MUTATIONS = {
        truncated: (row) => ({ row: { ...row, data: row.data.slice(0, Math.floor(next() * (row.data.length - 1))) }, reads: false }),
        "data a number": (row) => ({ row: { ...row, data: 42 }, reads: false }),
        "data missing": (row) => {
          const { data: _, ...rest } = row;
          return { row: rest, reads: false };
        },
        "data an object": (row) => ({ row: { ...row, data: { run: row.id } }, reads: false }),
        "an extra column": (row) => ({ row: { ...row, extra: "from a newer tool" }, reads: true }),
        "garbage bytes": (row) => ({ row: { ...row, data: garbage(row.data) }, reads: null }),
        "valid JSON of another shape": (row) => ({ row: { ...row, data: JSON.stringify({ id: row.id, state: 7 }) }, reads: false }),
      };
      const JOURNAL_MUTATIONS = {
        truncated: (text) => text.slice(0, Math.floor(next() * (text.length - 1))),
        "a number": () => 42,
        "garbage bytes": (text) => garbage(text),
        "an object": () => ({ records: [] }),
      };
      const cases = [];
      const behaviour = { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} } };
      for (let i = 0; i < 24; i++) {
        const dbName = `mutated-${i}-${Math.random()}`;
        const first = await baton.Engine.open({ ceiling: "auto", dbName });
        first.register(manifest, behaviour);
        const runs = [];
        for (const title of ["One", "Two", "Three"]) {
          const run = first.delegate({ intent: `Rename to ${title}`, initiative: "user", autonomy: "auto", plan: [{ capability: "tasks.rename", arguments: { id: "card-1", title } }] });
          await run.returned;
          runs.push(run.id);
        }
        first.close();
        // One run row and one journal row, mutated.
        const victim = pick(runs);
        const kind = pick(Object.keys(MUTATIONS));
        const journalKind = pick(Object.keys(JOURNAL_MUTATIONS));
        const journalVictim = pick(runs);
        const db = await idb(indexedDB.open(dbName));
        const tx = db.transaction(["runs", "journal"], "readwrite");
        const row = await idb(tx.objectStore("runs").get(victim));
        const { row: mutated, reads } = MUTATIONS[kind](row);
        tx.objectStore("runs").put(mutated);
        const range = IDBKeyRange.bound([journalVictim, 0], [journalVictim, Number.MAX_VALUE]);
        const keys = await idb(tx.objectStore("journal").getAllKeys(range));
        const key = pick(keys);
        const text = await idb(tx.objectStore("journal").get(key));
        tx.objectStore("journal").put(JOURNAL_MUTATIONS[journalKind](text), key);
        await new Promise((resolve) => (tx.oncomplete = resolve));
        db.close();

        const problems = [];
        let engine;
        try {
          engine = await baton.Engine.open({ ceiling: "auto", dbName });
        } catch (error) {
          problems.push(`open threw ${error?.code ?? error}`);
        }
        if (engine) {
          const said = [];
          engine.subscribe((event) => event.type === "unreadable-row" && said.push(`${event.store}:${event.key}`));
          try {
            const listed = (await engine.runs()).runs.map((listing) => listing.run);
            for (const run of runs) {
              if (run !== victim && !listed.includes(run)) problems.push(`good run ${run} not listed`);
            }
            if (reads === true && !listed.includes(victim)) problems.push(`a row with ${kind} still reads, and was not listed`);
            if (reads === false && !said.includes(`runs:${victim}`)) problems.push(`the run row with ${kind} was not said`);
          } catch (error) {
            problems.push(`runs() threw ${error?.code}: ${error?.message}`);
          }
          for (const run of runs) {
            try {
              const records = await engine.history(run);
              if (!Array.isArray(records)) problems.push(`history(${run}) is not a list`);
              if (run !== journalVictim && records.length === 0) problems.push(`history of good run ${run} is empty`);
            } catch (error) {
              problems.push(`history(${run}) threw ${error?.code}: ${error?.message}`);
            }
          }
          engine.close();
        }
        cases.push({ kind, journalKind, problems });
      }
      return cases;
    }, TASKS),
  );
  const failed = seen.filter((one) => one.problems.length > 0);
  assert.deepEqual(failed, [], `of ${seen.length} cases`);
  assert.ok(new Set(seen.map((one) => one.kind)).size >= 5, "the cases cover most mutations");
});

test("fault_newer_database: a database a newer Baton upgraded is refused, naming its version, never misread: the engine runs in memory and says so, and the database is left as it is", { timeout: TIMEOUT }, async () => {
  const seen = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const idb = (r, upgrade) => new Promise((resolve, reject) => {
        if (upgrade) r.onupgradeneeded = () => upgrade(r.result);
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const dbName = `newer-${Math.random()}`;
      // What a later Baton leaves: its schema at version 3, with a store this one does not know.
      const later = await idb(indexedDB.open(dbName, 3), (db) => {
        db.createObjectStore("runs", { keyPath: "id" }).put({ id: "s/r1", session: "s", live: 1, data: '{"format":2}' });
        db.createObjectStore("ledger");
      });
      later.close();
      const engine = await baton.Engine.open({ ceiling: "auto", dbName });
      engine.register(manifest, { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} } });
      const said = [];
      engine.subscribe((event) => event.type === "storage-degraded" && said.push(event.cause));
      const storage = engine.storage;
      const listed = (await engine.runs()).runs.length;
      const goesOn = (await engine.delegate({ intent: "Rename", initiative: "user", autonomy: "auto", plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "T" } }] }).returned).outcome;
      engine.close();
      const after = await idb(indexedDB.open(dbName));
      const left = { version: after.version, stores: [...after.objectStoreNames].sort() };
      after.close();
      return { storage, said, listed, goesOn, left };
    }, TASKS),
  );
  assert.equal(seen.storage.mode, "memory");
  const cause = `the database \`${seen.storage.degraded.match(/`([^`]+)`/)[1]}\` was written by a newer Baton (schema version 3; this one reads version 2): it is left as it is, and nothing of it is read`;
  assert.equal(seen.storage.degraded, cause);
  assert.deepEqual(seen.said, [cause], "said to the subscriber");
  assert.equal(seen.listed, 0, "nothing of the newer database is listed");
  assert.equal(seen.goesOn, "completed");
  assert.deepEqual(seen.left, { version: 3, stores: ["ledger", "runs"] }, "left as it is");
});

test("fault_null_header: a session header stored as null is a missing one, not damage: its engine opens on IndexedDB, nothing said", { timeout: TIMEOUT }, async () => {
  const seen = await withPage((page) =>
    page.evaluate(async () => {
      const baton = await import("baton-engine");
      await baton.default();
      const dbName = `null-header-${Math.random()}`;
      const first = await baton.Engine.open({ dbName, session: "n1" });
      first.close();
      const idb = (r) => new Promise((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));
      const db = await idb(indexedDB.open(dbName));
      const tx = db.transaction("sessions", "readwrite");
      tx.objectStore("sessions").put(null, "n1");
      await new Promise((resolve) => (tx.oncomplete = resolve));
      db.close();
      const said = [];
      const engine = await baton.Engine.open({ dbName, session: "n1" });
      engine.subscribe((event) => event.type === "unreadable-row" && said.push(event.key));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const { mode, degraded } = engine.storage;
      engine.close();
      return { mode, degraded: degraded ?? null, said };
    }),
  );
  assert.deepEqual(seen, { mode: "indexeddb", degraded: null, said: [] });
});

test("fault_damaged_header: a session whose header cannot be read does not stop Engine.open: its own engine runs in memory rather than mint its run ids again over its rows, saying why; another's sweep leaves it as it is and says so (unreadable-row), storage kept", { timeout: TIMEOUT }, async () => {
  const seen = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const dbName = `headers-${Math.random()}`;
      const behaviour = { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} } };
      const request = (autonomy) => ({ intent: "Rename", initiative: "user", autonomy, plan: [{ capability: "tasks.rename", arguments: { id: "card-1", title: "T" } }] });
      const idb = (r) => new Promise((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));
      /** A run waiting for review in `session`, its engine gone, its header then damaged. */
      async function leave(session) {
        const engine = await baton.Engine.open({ ceiling: "auto", dbName, session });
        engine.register(manifest, behaviour);
        const run = engine.delegate(request("review"));
        while (!engine.review(run)) await new Promise((resolve) => setTimeout(resolve, 10));
        engine.close();
        const db = await idb(indexedDB.open(dbName));
        const tx = db.transaction("sessions", "readwrite");
        tx.objectStore("sessions").put("{\"header\": tru", session);
        await new Promise((resolve) => (tx.oncomplete = resolve));
        db.close();
      }
      async function reopen(session) {
        const engine = await baton.Engine.open({ ceiling: "auto", dbName, ...(session ? { session } : {}) });
        engine.register(manifest, behaviour);
        const said = [];
        engine.subscribe((event) => event.type === "unreadable-row" && said.push(`${event.store}:${event.key}: ${event.reason}`));
        const ended = (await engine.delegate(request("auto")).returned).outcome;
        const { mode, degraded } = engine.storage;
        engine.close();
        return { said, ended, mode, degraded };
      }
      await leave("h1");
      const own = await reopen("h1");
      await leave("h2");
      const other = await reopen();
      return { own, other };
    }, TASKS),
  );
  assert.equal(seen.own.mode, "memory", "nothing of the session is overwritten");
  assert.match(seen.own.degraded, /^a stored header: /);
  assert.equal(seen.own.ended, "completed");
  assert.equal(seen.other.mode, "indexeddb");
  assert.equal(seen.other.ended, "completed");
  assert.ok(seen.other.said.some((line) => /^sessions:h2: the session's header cannot be read \(.+\): its runs are left as they stood$/.test(line)), seen.other.said.join("\n"));
});

test("fault_damaged_rows_fill_a_page: the newest runs' rows damaged, a page of one still leads to every good run, page after page", { timeout: TIMEOUT }, async () => {
  const seen = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const dbName = `fill-${Math.random()}`;
      const first = await baton.Engine.open({ ceiling: "auto", dbName });
      first.register(manifest, { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} } });
      const runs = [];
      for (let i = 1; i <= 5; i++) {
        const run = first.delegate({ intent: `Rename ${i}`, initiative: "user", autonomy: "auto", plan: [{ capability: "tasks.rename", arguments: { id: "card-1", title: `T${i}` } }] });
        await run.returned;
        runs.push(run.id);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      first.close();
      const idb = (r) => new Promise((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));
      const db = await idb(indexedDB.open(dbName));
      const tx = db.transaction("runs", "readwrite");
      for (const run of runs.slice(3)) {
        const row = await idb(tx.objectStore("runs").get(run));
        tx.objectStore("runs").put({ ...row, data: "not json" });
      }
      await new Promise((resolve) => (tx.oncomplete = resolve));
      db.close();
      const engine = await baton.Engine.open({ ceiling: "auto", dbName });
      const listed = [];
      let page = await engine.runs({ limit: 1 });
      listed.push(...page.runs.map((listing) => listing.run));
      while (page.next) {
        page = await engine.runs({ limit: 1, after: page.next });
        listed.push(...page.runs.map((listing) => listing.run));
      }
      engine.close();
      return { runs, listed };
    }, TASKS),
  );
  assert.deepEqual(seen.listed, seen.runs.slice(0, 3).reverse(), "every good run, newest first, one page each");
});
