// Faults of storage and of the page's life, in Chromium, Firefox and WebKit:
// IndexedDB missing, full, deleted or upgraded underneath; reloads, closed
// tabs and second tabs. Each test is one scenario (`fault_<scenario>`); the
// full disk is Chromium's alone (a quota set over its DevTools protocol).
//
//   node --test faults/

import { test } from "node:test";
import assert from "node:assert/strict";

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

import { ENGINE } from "../browsers.mjs";
import { CHROMIUM, FLAGS } from "../chromium.mjs";
import { TASKS, packagePages } from "../harness.mjs";
import { TIMEOUT, scenario } from "./scenario.mjs";

const pages = packagePages();
const { withPage } = pages;

test("fault_private_mode: with no IndexedDB the engine runs in memory and says why", { timeout: TIMEOUT }, async () => {
  const result = await withPage(async (page) => {
    await page.addInitScript(() => {
      Object.defineProperty(window, "indexedDB", { get: () => undefined, configurable: true });
    });
    await page.reload();
    return scenario(page, async ({ engine, until, plan }) => {
      const storage = engine.storage;
      const run = engine.delegate(plan()).id;
      await until(() => engine.state(run).state === "returned");
      return { mode: storage.mode, degraded: typeof storage.degraded === "string" && storage.degraded.length > 0, outcome: engine.state(run).outcome };
    }, { storage: "indexeddb" });
  });
  assert.deepEqual(result, { mode: "memory", degraded: true, outcome: "completed", goesOn: true });
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

test("fault_session_let_go_while_opening: an engine whose session's last holder lets go while it opens asks again and opens", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton }) => {
      const dbName = `let-go-${Math.random()}`;
      let release;
      await new Promise((held) => navigator.locks.request(`baton:${dbName}:s`, () => {
        held();
        return new Promise((done) => { release = done; });
      }));
      // The engine asks for the lock as it starts opening, and is refused;
      // the holder lets go a task later, while the database opens.
      const opening = baton.Engine.open({ appName: "Board", storage: "indexeddb", dbName, session: "s" });
      setTimeout(release, 0);
      const engine = await opening;
      const opened = { mode: engine.storage.mode, session: engine.session };
      engine.close();
      return opened;
    }, { storage: "indexeddb" }),
  );
  assert.deepEqual(result, { mode: "indexeddb", session: "s", goesOn: true });
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
      const run = engine.delegate(plan()).id;
      await until(() => engine.state(run).state === "returned");
      return { deleted, mode: engine.storage.mode, said: heard.length > 0, outcome: engine.state(run).outcome };
    }, { storage: "indexeddb" }),
  );
  assert.deepEqual(result, { deleted: "deleted", mode: "memory", said: true, outcome: "completed", goesOn: true });
});

// ----- several pages of one browser profile ---------------------------------

/** A page of `context` on the package test page; `errors` collects what it throws. */
async function tab(context) {
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (error) => page.errors.push(error.message));
  await page.goto(`${pages.server.url}/tests/pkg/page.html`);
  return page;
}

/**
 * Runs `body(context)` in a fresh browser profile (its own IndexedDB),
 * closed afterwards. `onDisk`: a profile in a directory of its own, in its
 * own browser — Chromium enforces a quota override only on disk, not in an
 * in-memory profile.
 */
async function withProfile(body, { onDisk = false } = {}) {
  const directory = onDisk ? await mkdtemp(join(tmpdir(), "baton-profile-")) : null;
  const context = onDisk
    ? await chromium.launchPersistentContext(directory, { executablePath: CHROMIUM, args: FLAGS })
    : await pages.browser.newContext();
  try {
    return await body(context);
  } finally {
    await context.close();
    if (directory) await rm(directory, { recursive: true, force: true });
  }
}

/**
 * In the page: an engine on IndexedDB for `session` with the task board
 * mounted, as `window.engine`. Every run it starts is noted in
 * localStorage, and so is the count of journal records the engine reports
 * committed each time it says anything — what the person has been told,
 * which must survive whatever happens to the page next. `hang` gives it an
 * acting party that starts a turn and never finishes it.
 */
async function boot({ manifest, dbName, session, hang = false }) {
  const baton = await import("baton-engine");
  await baton.default();
  const transport = hang
    ? { protocolVersion: "baton/1", openTurn: (request, sink) => { sink.push({ type: "turn-started" }); return new Promise(() => {}); } }
    : undefined;
  let engine;
  try {
    engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", dbName, session, transport });
  } catch (error) {
    return { refused: `${error.name}/${error.code}` };
  }
  engine.register(manifest, { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} } });
  engine.subscribe(() => {
    localStorage.setItem(`acknowledged:${session}`, String(engine.storage.records));
  });
  const runs = [];
  window.delegate = (request) => {
    const run = engine.delegate(request).id;
    runs.push(run);
    localStorage.setItem(`runs:${session}`, JSON.stringify(runs));
    return run;
  };
  window.plan = (title) => ({ intent: "Rename", initiative: "user", autonomy: "auto", plan: [{ capability: "tasks.rename", arguments: { id: "a", title } }] });
  window.engine = engine;
  window.until = async (done, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    return done();
  };
  return { mode: engine.storage.mode };
}

/**
 * In the page, after `boot` on a session another page used: what became of
 * every run the other page started, read back from IndexedDB (a run that
 * ended before the page went is history, not state: it is not loaded
 * again). `gapFree` says every journal's revisions run 1, 2, 3… without a
 * hole; `records` counts them all, to compare with what the other page
 * acknowledged; `ended` is each run's last transition.
 */
async function inventory(session) {
  const runs = JSON.parse(localStorage.getItem(`runs:${session}`) ?? "[]");
  const acknowledged = Number(localStorage.getItem(`acknowledged:${session}`) ?? 0);
  const found = [];
  let records = 0;
  let gapFree = true;
  for (const run of runs) {
    // A run whose first step never reached the disk is unknown after it.
    const history = await window.engine.history(run).catch((error) => {
      if (error.code !== "unknown-run") throw error;
      return [];
    });
    records += history.length;
    gapFree &&= history.every((record, i) => record.revision === i + 1);
    const last = history.filter((record) => record.entry.kind === "transition").at(-1)?.entry.to;
    found.push({ run, written: history.length > 0, state: last?.state ?? null, reason: last?.reason?.kind ?? null });
  }
  return { runs: found, records, acknowledged, gapFree };
}

test("fault_reload_mid_transaction: a reload while steps are being written keeps every acknowledged record, gap-free; runs it cut off return interrupted", { timeout: TIMEOUT }, async () => {
  await withProfile(async (context) => {
    const page = await tab(context);
    const args = { manifest: TASKS, dbName: "faults-reload", session: "reloaded" };
    assert.deepEqual(await page.evaluate(boot, args), { mode: "indexeddb" });
    // Fifty runs at once: writes are in flight when the reload lands.
    await page.evaluate(async () => {
      window.delegate(window.plan("first"));
      await window.until(() => window.engine.storage.records > 0);
      for (let i = 0; i < 50; i += 1) window.delegate(window.plan(`T${i}`));
    });
    await page.reload();
    assert.deepEqual(await page.evaluate(boot, args), { mode: "indexeddb" });
    const after = await page.evaluate(inventory, "reloaded");
    assert.equal(after.gapFree, true, "every journal read back is gap-free");
    assert.ok(after.acknowledged > 0, "something was acknowledged before the reload");
    assert.ok(after.records >= after.acknowledged, `${after.records} records kept, ${after.acknowledged} acknowledged`);
    // Every run that reached the disk ended — finished before the reload,
    // or closed as interrupted when the next page opened the session.
    const written = after.runs.filter((r) => r.written);
    assert.ok(written.length >= 1);
    for (const run of written) {
      assert.equal(run.state, "returned", JSON.stringify(run));
      assert.ok(["plan-completed", "finished", "interrupted"].includes(run.reason), JSON.stringify(run));
    }
    assert.deepEqual(page.errors, []);
  });
});

test("fault_tab_closed_mid_run_and_reopened: the run the closed tab was driving returns interrupted in the next tab; its finished runs are there whole", { timeout: TIMEOUT }, async () => {
  await withProfile(async (context) => {
    const args = { manifest: TASKS, dbName: "faults-closed", session: "closed", hang: true };
    const first = await tab(context);
    await first.evaluate(boot, args);
    const before = await first.evaluate(async () => {
      const done = window.delegate({ ...window.plan("Done"), plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "Done" } }] });
      await window.until(() => window.engine.state(done).state === "returned");
      const cut = window.delegate({ intent: "Think", initiative: "user", autonomy: "auto" });
      // Its turn is open and everything so far is on disk when the tab goes.
      await window.until(() => window.engine.storage.records >= window.engine.journal(done).length + window.engine.journal(cut).length);
      return { done, cut, journal: window.engine.journal(done) };
    });
    await first.close({ runBeforeUnload: false });
    const second = await tab(context);
    await second.evaluate(boot, { ...args, hang: false });
    const after = await second.evaluate(async ({ done, cut }) => ({ journal: await window.engine.history(done), cut: window.engine.state(cut) }), before);
    assert.deepEqual(after.journal, before.journal, "every record of the finished run, none twice");
    assert.equal(after.cut.state, "returned");
    assert.equal(after.cut.reason.kind, "interrupted");
    const inventory_ = await second.evaluate(inventory, "closed");
    assert.equal(inventory_.gapFree, true);
    assert.ok(inventory_.records >= inventory_.acknowledged);
    assert.deepEqual(second.errors, []);
  });
});

test("fault_two_tabs_on_one_session: the second tab is refused typed while the first drives it, and takes it over once the first is gone", { timeout: TIMEOUT }, async () => {
  await withProfile(async (context) => {
    const args = { manifest: TASKS, dbName: "faults-two-tabs", session: "shared" };
    const first = await tab(context);
    const second = await tab(context);
    await first.evaluate(boot, args);
    const refused = await second.evaluate(boot, args);
    const firstGoesOn = await first.evaluate(async () => {
      const run = window.delegate(window.plan("Still mine"));
      await window.until(() => window.engine.state(run).state === "returned");
      await window.until(() => window.engine.storage.records >= window.engine.journal(run).length);
      return { run, outcome: window.engine.state(run).outcome };
    });
    await first.close({ runBeforeUnload: false });
    let takenOver = { refused: "not yet" };
    for (let attempt = 0; attempt < 20 && takenOver.refused; attempt += 1) {
      takenOver = await second.evaluate(boot, args);
      if (takenOver.refused) await new Promise((r) => setTimeout(r, 100));
    }
    const seen = await second.evaluate(inventory, "shared");
    assert.deepEqual(refused, { refused: "BatonError/session-in-use" });
    assert.equal(firstGoesOn.outcome, "completed");
    assert.deepEqual(takenOver, { mode: "indexeddb" });
    assert.deepEqual(seen.runs.map((r) => [r.run, r.state, r.reason]), [[firstGoesOn.run, "returned", "plan-completed"]], "the first tab's run is there, whole");
    assert.equal(seen.gapFree, true);
    assert.deepEqual(second.errors, []);
  });
});

test("fault_versionchange_from_a_newer_page: the engine lets a newer page upgrade the database, goes on in memory and says why", { timeout: TIMEOUT }, async () => {
  await withProfile(async (context) => {
    const args = { manifest: TASKS, dbName: "faults-upgrade", session: "older" };
    const older = await tab(context);
    await older.evaluate(boot, args);
    await older.evaluate(() => {
      window.heard = [];
      window.engine.subscribe((event) => { if (event.type === "storage-degraded") window.heard.push(event.cause); });
    });
    const newer = await tab(context);
    const upgraded = await newer.evaluate((name) => new Promise((resolve) => {
      indexedDB.databases().then((all) => {
        const current = all.find((db) => db.name === name)?.version ?? 1;
        const request = indexedDB.open(name, current + 1);
        request.onsuccess = () => { request.result.close(); resolve("upgraded"); };
        request.onerror = () => resolve(`error: ${request.error?.name}`);
        request.onblocked = () => setTimeout(() => resolve("blocked"), 2000);
      });
    }), args.dbName);
    const after = await older.evaluate(async () => {
      const run = window.delegate(window.plan("After"));
      await window.until(() => window.engine.state(run).state === "returned");
      return { mode: window.engine.storage.mode, degraded: window.engine.storage.degraded ?? null, heard: window.heard, outcome: window.engine.state(run).outcome };
    });
    assert.equal(upgraded, "upgraded", "the newer page is not blocked");
    assert.equal(after.mode, "memory");
    assert.equal(typeof after.degraded, "string");
    assert.equal(after.heard.length, 1, "the page hears it once");
    assert.equal(after.outcome, "completed", "the engine goes on");
    assert.deepEqual(older.errors, []);
  });
});

test("fault_quota_exceeded_mid_run (Chromium only: a quota set over CDP): when IndexedDB fills up the engine goes on in memory, says why, and loses nothing it had", { timeout: TIMEOUT, skip: ENGINE !== "chromium" && "the quota is set over Chromium's DevTools protocol" }, async () => {
  await withProfile(async (context) => {
    const page = await tab(context);
    // A small disk: the origin's quota, through the DevTools protocol, set
    // before the first write (Chromium reads it when storage first opens).
    const cdp = await context.newCDPSession(page);
    await cdp.send("Storage.overrideQuotaForOrigin", { origin: pages.server.url, quotaSize: 2_000_000 });
    await page.evaluate(boot, { manifest: TASKS, dbName: "faults-quota", session: "full" });
    const first = await page.evaluate(async () => {
      window.heard = [];
      window.engine.subscribe((event) => { if (event.type === "storage-degraded") window.heard.push(event.cause); });
      const run = window.delegate(window.plan("Fits"));
      await window.until(() => window.engine.state(run).state === "returned");
      await window.until(() => window.engine.storage.records >= window.engine.journal(run).length);
      return { run, mode: window.engine.storage.mode, journal: window.engine.journal(run) };
    });
    assert.equal(first.mode, "indexeddb", "the first run fits");
    const after = await page.evaluate(async (firstRun) => {
      const runs = [];
      for (let i = 0; i < 50 && window.engine.storage.mode === "indexeddb"; i += 1) {
        // A long intent of random text (the disk compresses what repeats):
        // each run writes a few hundred kilobytes.
        const noise = Array.from({ length: 3 }, () => Array.from(crypto.getRandomValues(new Uint8Array(50_000)), (byte) => byte.toString(16).padStart(2, "0")).join("")).join("");
        const run = window.delegate({ ...window.plan(`Run ${i}`), intent: `Run ${i} ${noise}` });
        runs.push(run);
        await window.until(() => window.engine.state(run).state === "returned");
      }
      const last = runs.at(-1);
      await window.until(() => window.engine.state(last).state === "returned");
      // Steps are written behind the run: the write that no longer fits fails a moment later.
      await window.until(() => window.engine.storage.mode === "memory", 10_000);
      const journal = window.engine.journal(last);
      return {
        mode: window.engine.storage.mode,
        degraded: window.engine.storage.degraded ?? "",
        heard: window.heard,
        outcomes: [...new Set(runs.map((run) => window.engine.state(run).outcome))],
        lastGapFree: journal.every((record, i) => record.revision === i + 1),
        lastEnds: journal.at(-1)?.entry.kind,
        firstKept: await window.engine.history(firstRun),
      };
    }, first.run);
    assert.equal(after.mode, "memory", JSON.stringify(after));
    assert.match(after.degraded, /Quota/);
    assert.equal(after.heard.length, 1);
    assert.deepEqual(after.outcomes, ["completed"], "every run completed, before and after the disk filled");
    assert.equal(after.lastGapFree, true);
    assert.equal(after.lastEnds, "transition");
    assert.deepEqual(after.firstKept, first.journal, "what was written before the disk filled is all there");
    assert.deepEqual(page.errors, []);
  }, { onDisk: true });
});

test("fault_ten_thousand_runs_in_one_page_load: memory stays bounded — finished runs leave memory for IndexedDB, and every record is still read back", { timeout: 300_000 }, async () => {
  const result = await withPage((page) =>
    scenario(page, async ({ baton, engine, until, plan, codeOf }) => {
      // The engine's linear memory, which never shrinks: bounded means it stops growing.
      const { memory } = await baton.default();
      const returned = new Set();
      let heard = 0;
      engine.subscribe((event) => {
        if (event.type !== "journal") return;
        heard += 1;
        if (event.entry.kind === "transition" && event.entry.to.state === "returned") returned.add(event.run);
      });
      const all = [];
      const sizes = {};
      for (let started = 0; started < 10_000; started += 100) {
        const batch = Array.from({ length: 100 }, (_, i) => engine.delegate(plan(`Run ${started + i}`)).id);
        all.push(...batch);
        // At the pace IndexedDB writes: what is not yet written stays in memory.
        await until(() => batch.every((run) => returned.has(run)) && engine.storage.records >= heard, 20_000);
        if ((started + 100) % 2_000 === 0) sizes[started + 100] = { wasm: memory.buffer.byteLength, heap: performance.memory?.usedJSHeapSize ?? 0 };
      }
      await until(() => engine.storage.records >= heard, 20_000);
      const readBack = async (run) => {
        const history = await engine.history(run);
        return { records: history.length, gapFree: history.every((r, i) => r.revision === i + 1), ends: history.at(-1)?.entry.to?.state ?? null };
      };
      return {
        runs: all.length,
        returned: returned.size,
        sizes,
        heard,
        written: engine.storage.records,
        first: await readBack(all[0]),
        middle: await readBack(all[5_000]),
        firstState: codeOf(() => engine.state(all[0])),
        lastState: engine.state(all.at(-1)).state,
        mode: engine.storage.mode,
      };
    }, { storage: "indexeddb" }),
  );
  assert.equal(result.mode, "indexeddb");
  assert.equal(result.returned, 10_000, "every run returned");
  assert.equal(result.written, result.heard, "every record heard was written");
  for (const read of [result.first, result.middle]) {
    assert.ok(read.records > 0 && read.gapFree && read.ends === "returned", JSON.stringify(read));
  }
  assert.equal(result.firstState, "BatonError/unknown-run", "a finished run that left memory is history, not state");
  assert.equal(result.lastState, "returned", "the most recently finished stay");
  const grown = result.sizes[10_000].wasm - result.sizes[2_000].wasm;
  assert.ok(grown <= 1 << 20, `the engine's memory grew by ${grown} bytes from 2,000 to 10,000 runs: ${JSON.stringify(result.sizes)}`);
  assert.equal(result.goesOn, true);
});
