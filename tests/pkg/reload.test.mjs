// A reload, as an app meets it: what IndexedDB keeps across page loads —
// the journal, the actor key, the approval key, the history — and the runs
// a reload cut off, returned `interrupted` or offered again for review.
//
//   node --test reload.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";

import { TASKS, packagePages } from "./harness.mjs";

const TIMEOUT = 30_000;

const pages = packagePages();

test("a reload loses nothing: the journal and the actor key survive in IndexedDB, and a run the reload cut off returns interrupted", { timeout: TIMEOUT }, async () => {
  const page = await pages.browser.newPage();
  try {
    await page.goto(`${pages.server.url}/tests/pkg/page.html`);
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
      const done = engine.delegate({ intent: "Rename", initiative: "user", autonomy: "auto", plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "T" } }] }).id;
      for (let i = 0; i < 200 && engine.state(done).state !== "returned"; i++) await new Promise((r) => setTimeout(r, 10));
      const cut = engine.delegate({ intent: "Think", initiative: "user", autonomy: "auto" }).id;
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

test("the approval key is one per origin: kept across a reload in IndexedDB, its private half not extractable, its JWK's kid its thumbprint", { timeout: TIMEOUT }, async () => {
  const page = await pages.browser.newPage();
  try {
    await page.goto(`${pages.server.url}/tests/pkg/page.html`);
    const key = () =>
      page.evaluate(async () => {
        const baton = await import("baton-engine");
        await baton.default();
        const jwk = await baton.approvalKey();
        const stored = await new Promise((resolve, reject) => {
          const open = indexedDB.open("baton-approval-key");
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const read = open.result.transaction("keys").objectStore("keys").get("approval");
            read.onsuccess = () => resolve(read.result);
          };
        });
        const members = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
        const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(members)));
        const thumbprint = btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
        const exported = await crypto.subtle.exportKey("jwk", stored.privateKey).then(() => "exported", (error) => error.name);
        return { jwk, thumbprint, privateExtractable: stored.privateKey.extractable, exported, usages: stored.privateKey.usages };
      });
    const before = await key();
    assert.deepEqual(Object.keys(before.jwk).sort(), ["alg", "crv", "kid", "kty", "use", "x", "y"], "a public JWK: no private member");
    assert.equal(before.jwk.crv, "P-256");
    assert.equal(before.jwk.kid, before.thumbprint, "kid is the RFC 7638 thumbprint");
    assert.equal(before.privateExtractable, false);
    assert.equal(before.exported, "InvalidAccessError", "the private key cannot be exported");
    assert.deepEqual(before.usages, ["sign"]);
    await page.reload();
    const after = await key();
    assert.deepEqual(after.jwk, before.jwk, "the same key after a reload");
  } finally {
    await page.close();
  }
});

test("AG-11: a plan waiting for review when the page reloads is offered again by the next page: reviewed again, authorized and applied; another discarded", { timeout: TIMEOUT }, async () => {
  const page = await pages.browser.newPage();
  try {
    await page.goto(`${pages.server.url}/tests/pkg/page.html`);
    const before = await page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      // A page of its own session, as every page load is by default.
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", dbName: "cut-off-test" });
      engine.register({ ...manifest, preview: true }, {
        history: { mark: () => "m", revertTo() {} },
        invoke: () => ({ ok: true }),
        preview: (_capability, args) => ({ title: { from: "Draft", to: args.title } }),
      });
      const plan = (title) => [{ capability: "tasks.rename", arguments: { id: "a", title } }];
      const kept = engine.delegate({ intent: "Rename to Ship", initiative: "user", autonomy: "review", plan: plan("Ship") }).id;
      const dropped = engine.delegate({ intent: "Rename to Later", initiative: "user", autonomy: "review", plan: plan("Later") }).id;
      await new Promise((r) => setTimeout(r, 100));
      return { kept, dropped, states: [engine.state(kept).state, engine.state(dropped).state] };
    }, TASKS);
    assert.deepEqual(before.states, ["reviewing", "reviewing"]);
    await page.reload();
    const after = await page.evaluate(async ({ manifest, kept, dropped }) => {
      const baton = await import("baton-engine");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", dbName: "cut-off-test" });
      const applied = [];
      engine.register({ ...manifest, preview: true }, {
        history: { mark: () => "m", revertTo() {} },
        invoke: (_capability, args) => (applied.push(args.title), { ok: true }),
        preview: (_capability, args) => ({ title: { from: "Draft", to: args.title } }),
      });
      // The old page may still be letting go of its session: its cut-off
      // runs come when it has.
      for (let i = 0; i < 300 && engine.cutOff().length < 2; i++) await new Promise((r) => setTimeout(r, 10));
      const offered = engine.cutOff();
      const chained = engine.reviewAgain(kept);
      await new Promise((r) => setTimeout(r, 50));
      const sheet = engine.review(chained);
      engine.authorize(chained, sheet.revision);
      for (let i = 0; i < 200 && engine.state(chained).state !== "returned"; i++) await new Promise((r) => setTimeout(r, 10));
      engine.discard(dropped);
      let twice = null;
      try {
        engine.reviewAgain(kept);
      } catch (error) {
        twice = { code: error.code, requirement: error.requirement };
      }
      const kinds = (records) => records.map((r) => r.entry.kind).filter((kind) => kind.startsWith("offer"));
      return {
        offered,
        state: engine.state(chained),
        resumes: engine.journal(chained)[0].entry.resumes,
        again: sheet.again,
        change: sheet.items[0].change,
        applied,
        left: engine.cutOff(),
        twice,
        keptJournal: kinds(await engine.history(kept)),
        droppedJournal: kinds(await engine.history(dropped)),
      };
    }, { manifest: TASKS, ...before });
    assert.deepEqual(
      after.offered.map((offer) => [offer.run, offer.intent, offer.waiting]).sort(),
      [[before.kept, "Rename to Ship", "review"], [before.dropped, "Rename to Later", "review"]].sort(),
    );
    assert.equal(after.resumes, before.kept, "a run chained to the one cut off");
    assert.deepEqual(after.again, { kind: "cut-off", run: before.kept });
    assert.deepEqual(after.change, { kind: "preview", value: { title: { from: "Draft", to: "Ship" } } }, "previewed again");
    assert.deepEqual(after.state, { state: "returned", outcome: "completed", reason: { kind: "plan-completed" } });
    assert.deepEqual(after.applied, ["Ship"]);
    assert.deepEqual(after.left, [], "nothing offered twice");
    assert.deepEqual(after.twice, { code: "not-cut-off", requirement: "AG-11" });
    assert.deepEqual(after.keptJournal, ["offered-again", "offer-settled"]);
    assert.deepEqual(after.droppedJournal, ["offered-again", "offer-settled"]);
  } finally {
    await page.close();
  }
});

test("engine.runs() lists the history newest first and paged, a run from before a reload included, with what can still be done with each", { timeout: TIMEOUT }, async () => {
  const page = await pages.browser.newPage();
  try {
    await page.goto(`${pages.server.url}/tests/pkg/page.html`);
    const before = await page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", dbName: "runs-test" });
      engine.register(manifest, { history: { mark: () => "m", revertTo() {} }, invoke: () => ({ ok: true }) });
      const plan = [{ capability: "tasks.rename", arguments: { id: "a", title: "T" } }];
      const done = engine.delegate({ intent: "Rename it", initiative: "user", autonomy: "auto", plan });
      await done.returned;
      await new Promise((r) => setTimeout(r, 5));
      const waiting = engine.delegate({ intent: "Rename it later", initiative: "user", autonomy: "review", plan }).id;
      for (let i = 0; i < 100 && engine.state(waiting).state !== "reviewing"; i++) await new Promise((r) => setTimeout(r, 10));
      const live = await engine.runs();
      return { done: done.id, waiting, session: engine.session, live };
    }, TASKS);
    assert.deepEqual(before.live.runs.map((entry) => entry.run), [before.waiting, before.done], "newest first, before a reload too");
    assert.equal(before.live.runs[0].state.state, "reviewing");
    assert.equal(before.live.runs[0].endedAt, null);
    await page.reload();
    const after = await page.evaluate(async ({ done, waiting }) => {
      const baton = await import("baton-engine");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", dbName: "runs-test" });
      // The old page may still be letting go of its session.
      for (let i = 0; i < 300 && engine.cutOff().length < 1; i++) await new Promise((r) => setTimeout(r, 10));
      const all = await engine.runs();
      const first = await engine.runs({ limit: 1 });
      const second = await engine.runs({ limit: 1, after: first.next });
      const mine = await engine.runs({ session: engine.session });
      const refused = [];
      for (const query of [{ limit: 0 }, { page: 2 }, { after: "nowhere/r1" }]) {
        try {
          await engine.runs(query);
        } catch (error) {
          refused.push(error.code);
        }
      }
      return { all, first, second, mine, refused, session: engine.session };
    }, before);
    const byId = Object.fromEntries(after.all.runs.map((entry) => [entry.run, entry]));
    assert.deepEqual(after.all.runs.map((entry) => entry.run), [before.waiting, before.done]);
    assert.equal(after.all.next, null);
    const done = byId[before.done];
    assert.equal(done.intent, "Rename it");
    assert.equal(done.outcome, "completed");
    assert.equal(done.session, before.session, "a run of the page before, held by its session");
    assert.ok(done.endedAt >= done.createdAt && done.createdAt > 0);
    assert.equal(done.reviewableAgain, false);
    const cut = byId[before.waiting];
    assert.deepEqual([cut.state.state, cut.state.reason.kind, cut.outcome], ["returned", "interrupted", "aborted"]);
    assert.equal(cut.reviewableAgain, true, "cut off while it waited for review: offered again");
    assert.equal(cut.session, after.session, "adopted by the session that offers it");
    assert.deepEqual(after.first.runs.map((entry) => entry.run), [before.waiting]);
    assert.equal(after.first.next, before.waiting);
    assert.deepEqual(after.second.runs.map((entry) => entry.run), [before.done]);
    assert.equal(after.second.next, null);
    assert.deepEqual(after.mine.runs.map((entry) => entry.run), [before.waiting], "only the runs this session holds");
    assert.deepEqual(after.refused, ["invalid-value", "invalid-value", "unknown-run"]);
  } finally {
    await page.close();
  }
});

test("AG-11: a plan offered again survives the next reload too, when the person did nothing with it in between", { timeout: TIMEOUT }, async () => {
  const page = await pages.browser.newPage();
  try {
    await page.goto(`${pages.server.url}/tests/pkg/page.html`);
    // The page before's engine still holds its session when the next one
    // opens (a reload whose old page is slow to go): the next engine
    // adopts its cut-off plan once it lets go. Then the page reloads again
    // before the person does anything.
    const first = await page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const open = () => baton.Engine.open({ appName: "Board", ceiling: "auto", dbName: "offered-twice-test" });
      const leaving = await open();
      leaving.register(manifest, { history: { mark: () => "m", revertTo() {} }, invoke: () => ({ ok: true }) });
      const plan = [{ capability: "tasks.rename", arguments: { id: "a", title: "Ship" } }];
      const run = leaving.delegate({ intent: "Rename to Ship", initiative: "user", autonomy: "review", plan }).id;
      await new Promise((r) => setTimeout(r, 100));
      const next = await open();
      window.next = next;
      leaving.close();
      for (let i = 0; i < 300 && next.cutOff().length < 1; i++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 100));
      return { run, offered: next.cutOff().map((offer) => offer.run) };
    }, TASKS);
    assert.deepEqual(first.offered, [first.run], "adopted by the engine that opened next");
    await page.reload();
    const after = await page.evaluate(async () => {
      const baton = await import("baton-engine");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", dbName: "offered-twice-test" });
      for (let i = 0; i < 300 && engine.cutOff().length < 1; i++) await new Promise((r) => setTimeout(r, 10));
      return engine.cutOff().map((offer) => offer.run);
    });
    assert.deepEqual(after, [first.run], "offered again after the next reload: nothing lost");
  } finally {
    await page.close();
  }
});
