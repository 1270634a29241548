// The package's default surfaces (`baton-engine/elements`) in headless
// Chromium, as an app mounts them: <baton-presence> and <baton-review>
// attached to a real engine, and the three surfaces' look together
// (<baton-question>'s own behaviour: `question.test.mjs`). Needs the built
// package (`cargo xtask pkg`); `cargo xtask test` runs this after building it.
//
//   node --test surfaces.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

import { ENGINE } from "./browsers.mjs";
import { TASKS, packagePages } from "./harness.mjs";

const TIMEOUT = 30_000;
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

const pages = packagePages();
const { withPage } = pages;

test("AG-35, AG-42, AG-43, AG-44 (Chromium only: media emulated over CDP): <baton-presence> shows the cycle in text and shape, static under reduced motion, with a Stop control", { timeout: TIMEOUT, skip: ENGINE !== "chromium" && "media emulation needs CDP" }, async () => {
  const observed = await withPage(async (page) => {
    const watch = async (reducedMotion) => {
      await page.emulateMedia({ reducedMotion });
      return page.evaluate(async (manifest) => {
        const baton = await import("baton-engine");
        await import("baton-engine/elements");
        await baton.default();
        const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
        engine.register(manifest, {
          // A slow call, so the run is seen acting.
          invoke: () => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), 400)),
          history: { mark: () => "m", revertTo() {} },
        });
        const presence = document.createElement("baton-presence");
        document.body.append(presence);
        presence.engine = engine;
        const seen = (part) => presence.shadowRoot.querySelector(`[part=${part}]`);
        const idle = { state: presence.state, text: seen("text").textContent, stopDisabled: seen("stop").disabled };
        const run = engine.delegate({
          intent: "Rename", initiative: "user", autonomy: "auto",
          plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "T" } }],
        });
        await new Promise((resolve) => setTimeout(resolve, 150));
        const shape = seen("shape");
        const style = getComputedStyle(shape);
        const acting = {
          state: presence.state,
          text: seen("text").textContent,
          shown: style.display !== "none" && style.visibility !== "hidden" && shape.getBoundingClientRect().width > 0,
          animation: style.animationName,
          transform: style.transform,
          stopDisabled: seen("stop").disabled,
          focusMoved: document.activeElement !== document.body,
          liveRegions: presence.shadowRoot.querySelectorAll("[aria-live]").length,
        };
        seen("stop").click();
        const after = {
          state: presence.state,
          ending: presence.ending,
          text: seen("text").textContent,
          outcome: engine.state(run).outcome,
          reason: engine.state(run).reason.kind,
        };
        presence.remove();
        engine.close();
        return { idle, acting, after };
      }, TASKS);
    };
    return { moving: await watch("no-preference"), still: await watch("reduce") };
  });
  const { moving, still } = observed;
  assert.deepEqual(moving.idle, { state: "idle", text: "Idle", stopDisabled: true });
  // AG-44: the state is in words and in shape, not in colour alone.
  assert.equal(moving.acting.state, "acting");
  assert.equal(moving.acting.text, "Acting");
  assert.equal(moving.acting.shown, true);
  assert.equal(moving.acting.animation, "baton-turn");
  // AG-43: under reduced motion, shown static — never hidden.
  assert.equal(still.acting.text, "Acting");
  assert.equal(still.acting.shown, true, "still shown");
  assert.equal(still.acting.animation, "none", "static");
  // AG-42: a visible Stop returns control; the surface never moved focus and has no region of its own.
  assert.equal(moving.acting.stopDisabled, false);
  assert.equal(moving.acting.focusMoved, false);
  assert.equal(moving.acting.liveRegions, 0);
  assert.deepEqual(moving.after, { state: "returned", ending: "stopped", text: "Stopped, control is back with you", outcome: "aborted", reason: "user-interrupt" });
});

/** A board whose one read is published, so the person's own edits are seen (A.2). */
const BOARD = {
  id: "tasks",
  label: "Task board",
  tier: "reversible-acts",
  history: "native",
  description: "The team's task board: cards in columns.",
  reads: [{ name: "board", description: "Every card on the board, with its id and title.", origin: "author" }],
  capabilities: [{
    name: "rename",
    description: "Give one card a new title.",
    arguments: { type: "object", required: ["id", "title"], properties: { id: { type: "string" }, title: { type: "string" } }, additionalProperties: false },
    argumentLimits: { id: 64, title: 200 },
    effects: [{ name: "retitle", reversible: true }],
    reads: ["board"],
  }],
};

test("AG-44 (Chromium only: media emulated over CDP): <baton-presence> gives every state of the cycle its own words and shape, with colour removed and under forced colours", { timeout: TIMEOUT, skip: ENGINE !== "chromium" && "media emulation needs CDP" }, async () => {
  const looks = (forcedColors) => withPage(async (page) => {
    await page.emulateMedia({ forcedColors });
    return page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await import("baton-engine/elements");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      let finish = null;
      engine.register(manifest, {
        invoke: () => new Promise((resolve) => (finish = () => resolve({ ok: true }))),
        preview: (_capability, args) => ({ title: { from: "old", to: args.title } }),
        history: { mark: () => "m", revertTo() {} },
      });
      const presence = document.createElement("baton-presence");
      document.body.append(presence);
      presence.engine = engine;
      const tick = () => new Promise((resolve) => setTimeout(resolve, 30));
      // What a person without colour perceives: the words, and the shape's
      // geometry and glyph; every colour property is left out.
      const look = () => {
        const shape = presence.shadowRoot.querySelector("[part=shape]");
        const style = getComputedStyle(shape);
        const glyph = getComputedStyle(shape, "::after").content;
        return {
          state: presence.state,
          ending: presence.ending ?? null,
          text: presence.shadowRoot.querySelector("[part=text]").textContent,
          shape: [style.borderTopStyle, style.borderTopWidth, style.borderTopLeftRadius, style.transform === "none" ? "upright" : "turned", glyph].join(" "),
          visible: shape.getBoundingClientRect().width > 0 && style.borderTopStyle !== "none",
          forced: style.borderTopColor,
        };
      };
      const seen = [look()];
      const plan = [{ capability: "tasks.rename", arguments: { id: "a", title: "T" } }];
      // Waiting for review, then acting, then done.
      const reviewed = engine.delegate({ intent: "Rename", initiative: "user", autonomy: "review", plan });
      await tick();
      seen.push(look());
      engine.authorize(reviewed, engine.revision(reviewed));
      await tick();
      seen.push(look());
      finish();
      await tick();
      seen.push(look());
      // Undone.
      await presence.undo();
      seen.push(look());
      // Rejected.
      const rejected = engine.delegate({ intent: "Rename", initiative: "user", autonomy: "review", plan });
      await tick();
      engine.reject(rejected, engine.revision(rejected));
      await tick();
      seen.push(look());
      // Stopped while acting.
      const stopped = engine.delegate({ intent: "Rename", initiative: "user", autonomy: "auto", plan });
      await tick();
      engine.stop(stopped);
      await tick();
      seen.push(look());
      // Failed: a fixed plan whose call is refused (AG-8, AG-39).
      engine.delegate({ intent: "Rename", initiative: "user", autonomy: "auto", plan: [{ capability: "tasks.rename", arguments: { id: "a" } }] });
      await tick();
      seen.push(look());
      // The endings no run of this page reaches quickly, as the engine
      // announces them to a presence surface.
      for (const ending of ["answered-without-changes", "partly-done", "rolled-back", "paused", "interrupted"]) {
        const run = `run-${ending}`;
        presence.handleEvent({ type: "journal", run, entry: { kind: "transition", to: { state: "returned", outcome: "completed", reason: { kind: "finished" } } } });
        presence.handleEvent({ type: "announcement", speaker: "person", runs: [run], said: { kind: "closed", intent: "x", ending, reason: "" } });
        seen.push(look());
      }
      // Planning, and needs you, likewise.
      presence.handleEvent({ type: "journal", run: "run-planning", entry: { kind: "transition", to: { state: "planned" } } });
      seen.push(look());
      presence.handleEvent({ type: "journal", run: "run-planning", entry: { kind: "transition", to: { state: "escalated", reason: { kind: "budget-exhausted" } } } });
      seen.push(look());
      presence.remove();
      engine.close();
      return seen;
    }, BOARD);
  });
  for (const forced of ["none", "active"]) {
    const seen = await looks(forced);
    const names = seen.map((look) => look.ending ?? look.state);
    assert.deepEqual(names, [
      "idle", "reviewing", "acting", "done", "undone", "rejected", "stopped", "failed",
      "answered-without-changes", "partly-done", "rolled-back", "paused", "interrupted", "planning", "needs-you",
    ], `forced colours ${forced}`);
    for (const look of seen) assert.ok(look.visible, `${look.ending ?? look.state} is shown, forced colours ${forced}`);
    // Distinct in words, and distinct in shape with colour removed.
    assert.equal(new Set(seen.map((look) => look.text)).size, seen.length, JSON.stringify(seen.map((look) => look.text)));
    assert.equal(new Set(seen.map((look) => look.shape)).size, seen.length, JSON.stringify(seen.map((look) => look.shape)));
    if (forced === "active") {
      // Forced colours: system colours, one for every state.
      assert.equal(new Set(seen.map((look) => look.forced)).size, 1, JSON.stringify(seen.map((look) => look.forced)));
    }
  }
});

test("<baton-presence>'s label is its group's accessible name however a framework sets it: in markup, or after the element was made", { timeout: TIMEOUT }, async () => {
  const names = await withPage((page) =>
    page.evaluate(async () => {
      await import("baton-engine/elements");
      const name = (element) => element.shadowRoot.querySelector("[part=status]").getAttribute("aria-label");
      const made = document.createElement("baton-presence");
      made.setAttribute("label", "Helper");
      document.body.append(made);
      const holder = document.createElement("div");
      holder.innerHTML = '<baton-presence label="Scheduler"></baton-presence>';
      document.body.append(holder);
      const plain = document.createElement("baton-presence");
      return [name(made), name(holder.firstElementChild), name(plain)];
    }),
  );
  assert.deepEqual(names, ["Helper", "Scheduler", "Assistant"]);
});

test("A.2: <baton-presence> holds back an undo of what the person changed since, says so, and offers the choice", { timeout: TIMEOUT }, async () => {
  const observed = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await import("baton-engine/elements");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      let title = "Draft";
      let version = 1;
      const marks = [];
      const participant = engine.register(manifest, {
        invoke: (_capability, args, actor) => {
          title = args.title;
          version += 1;
          participant.publish("board", { version, actor });
          return { ok: true };
        },
        history: { mark: () => (marks.push(title), String(marks.length - 1)), revertTo: (mark) => (title = marks[Number(mark)]) },
      });
      participant.publish("board", { version });
      const presence = document.createElement("baton-presence");
      document.body.append(presence);
      presence.engine = engine;
      const part = (name) => presence.shadowRoot.querySelector(`[part=${name}]`);
      const tick = () => new Promise((resolve) => setTimeout(resolve, 30));
      engine.delegate({ intent: "Rename", initiative: "user", autonomy: "auto", plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "Ship" } }] });
      await tick();
      const afterRun = { title, ending: presence.ending, undoDisabled: part("undo").disabled, choiceHidden: part("undo-choice").hidden };
      // The person renames the card by hand.
      title = "Mine";
      version += 1;
      participant.publish("board", { version });
      part("undo").click();
      await tick();
      const held = {
        title,
        choiceHidden: part("undo-choice").hidden,
        note: part("undo-note").textContent,
        restDisabled: part("undo-rest").disabled,
        undoDisabled: part("undo").disabled,
        focusMoved: document.activeElement !== document.body,
      };
      // Keep everything: nothing reverted, the choice goes away.
      part("undo-keep").click();
      await tick();
      const kept = { title, choiceHidden: part("undo-choice").hidden, undoDisabled: part("undo").disabled };
      // Undo again, and this time force it.
      part("undo").click();
      await tick();
      part("undo-force").click();
      await tick();
      const forced = { title, ending: presence.ending, choiceHidden: part("undo-choice").hidden, undoDisabled: part("undo").disabled };
      presence.remove();
      engine.close();
      return { afterRun, held, kept, forced };
    }, BOARD),
  );
  assert.deepEqual(observed.afterRun, { title: "Ship", ending: "done", undoDisabled: false, choiceHidden: true });
  assert.deepEqual(observed.held, {
    title: "Mine",
    choiceHidden: false,
    note: "Not undone: since then, you changed Task board.",
    restDisabled: true,
    undoDisabled: true,
    focusMoved: false,
  });
  assert.deepEqual(observed.kept, { title: "Mine", choiceHidden: true, undoDisabled: false });
  assert.deepEqual(observed.forced, { title: "Draft", ending: "undone", choiceHidden: true, undoDisabled: true });
});

test("AG-31 (Chromium only: Playwright's fake clock): <baton-review> shows a call whose preview never arrives with its arguments and why, once due, and the person can decide", { timeout: TIMEOUT, skip: ENGINE !== "chromium" && "Playwright's fake clock is Playwright's" }, async () => {
  const observed = await withPage(async (page) => {
    await page.clock.install();
    const opened = await page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await import("baton-engine/elements");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      let applied = null;
      const participant = engine.register(manifest, {
        invoke: (_capability, args) => ((applied = args.title), { ok: true }),
        // A preview that never settles.
        preview: () => new Promise(() => {}),
        history: { mark: () => "m", revertTo() {} },
      });
      participant.publish("board", { version: 1 });
      const review = document.createElement("baton-review");
      document.body.append(review);
      review.engine = engine;
      const run = engine.delegate({
        intent: "Rename", initiative: "user", autonomy: "review",
        plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "Ship" } }],
      });
      window.hanging = { engine, review, run, applied: () => applied };
      const part = (name) => review.shadowRoot.querySelector(`[part=${name}]`);
      return { change: part("change").textContent, authorizeDisabled: part("authorize").disabled };
    }, { ...BOARD, preview: true });
    // Past the preview's deadline, on the page's own clock.
    await page.clock.runFor(10_500);
    const due = await page.evaluate(() => {
      const { engine, review, run } = window.hanging;
      const part = (name) => review.shadowRoot.querySelector(`[part=${name}]`);
      const sheet = engine.review(run);
      return {
        change: part("change").textContent,
        authorizeDisabled: part("authorize").disabled,
        sheet: sheet.items[0].change,
        ready: sheet.ready,
        journalled: engine.journal(run).filter((r) => r.entry.kind === "preview-rendered").map((r) => r.entry.error),
      };
    });
    await page.evaluate(() => window.hanging.review.shadowRoot.querySelector("[part=authorize]").click());
    await page.clock.runFor(100);
    const after = await page.evaluate(() => ({ state: window.hanging.engine.state(window.hanging.run).state, applied: window.hanging.applied() }));
    return { opened, due, after };
  });
  assert.deepEqual(observed.opened, { change: "Preparing the preview…", authorizeDisabled: true });
  assert.equal(observed.due.change, 'id: "a"\ntitle: "Ship"\n(the preview failed: it did not arrive within 10 s)');
  assert.equal(observed.due.authorizeDisabled, false);
  assert.deepEqual(observed.due.sheet, { kind: "arguments", arguments: { id: "a", title: "Ship" }, note: "the preview failed: it did not arrive within 10 s" });
  assert.equal(observed.due.ready, true);
  assert.deepEqual(observed.due.journalled, ["it did not arrive within 10 s"]);
  assert.deepEqual(observed.after, { state: "returned", applied: "Ship" });
});

test("AG-11: <baton-review> offers again what a reload cut off while it waited for review: Review it again, then Authorize; or Discard", { timeout: TIMEOUT }, async () => {
  const page = await pages.browser.newPage();
  try {
    await page.goto(`${pages.server.url}/tests/pkg/page.html`);
    const open = (manifest) =>
      page.evaluate(async (manifest) => {
        const baton = await import("baton-engine");
        await import("baton-engine/elements");
        await baton.default();
        const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", dbName: "review-again" });
        window.applied = [];
        engine.register({ ...manifest, preview: true }, {
          history: { mark: () => "m", revertTo() {} },
          invoke: (_capability, args) => (window.applied.push(args.title), { ok: true }),
          preview: (_capability, args) => ({ title: { from: "Draft", to: args.title } }),
        });
        const review = document.createElement("baton-review");
        document.body.append(review);
        review.engine = engine;
        window.engine = engine;
        window.review = review;
      }, manifest);
    await open(TASKS);
    await page.evaluate(() => {
      for (const title of ["Ship", "Later"]) {
        window.engine.delegate({
          intent: `Rename to ${title}`, initiative: "user", autonomy: "review",
          plan: [{ capability: "tasks.rename", arguments: { id: "a", title } }],
        });
      }
    });
    await page.waitForTimeout(100);
    await page.reload();
    await open(TASKS);
    const part = (name) => page.locator(`baton-review [part=${name}]`);
    await page.waitForFunction(() => window.review.shadowRoot.querySelectorAll("[part=offer]").length === 2);
    const texts = (await part("offer-text").allTextContents()).sort();
    assert.deepEqual(texts, [
      "“Rename to Later”: its plan was waiting for your review when the page went away.",
      "“Rename to Ship”: its plan was waiting for your review when the page went away.",
    ]);
    // Discard one, review the other again.
    const offers = page.locator("baton-review [part=offer]");
    await offers.filter({ hasText: "Later" }).locator("[part=discard]").click();
    assert.equal(await offers.count(), 1);
    await offers.filter({ hasText: "Ship" }).locator("[part=review-again]").click();
    await page.waitForFunction(() => !window.review.shadowRoot.querySelector("[part=authorize]").disabled);
    assert.equal(await part("again").textContent(), "This plan was waiting for your review when the page went away. Look at it again:");
    assert.equal(await part("change").textContent(), 'title: "Draft" → "Ship"');
    assert.equal(await offers.count(), 0, "nothing else offered while it is reviewed");
    await part("authorize").click();
    await page.waitForFunction(() => window.applied.length === 1);
    assert.deepEqual(await page.evaluate(() => window.applied), ["Ship"]);
    assert.deepEqual(await page.evaluate(() => window.engine.cutOff()), []);
  } finally {
    await page.close();
  }
});

test("approve with edits: <baton-review> edits a planned call in a form built from its schema, says what the engine refuses, previews the edit and authorizes it (AG-15, AG-31)", { timeout: TIMEOUT }, async () => {
  await withPage(async (page) => {
    await page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await import("baton-engine/elements");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      window.invoked = [];
      engine.register({ ...manifest, preview: true }, {
        invoke: (_capability, args) => (window.invoked.push(args), { ok: true }),
        preview: (_capability, args) => ({ title: { from: "Draft", to: args.title } }),
        history: { mark: () => "m", revertTo() {} },
      });
      const review = document.createElement("baton-review");
      document.body.append(review);
      review.engine = engine;
      window.engine = engine;
      window.run = engine.delegate({
        intent: "Rename", initiative: "user", autonomy: "review",
        plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "Shipp" } }],
      });
    }, TASKS);
    const part = (name) => page.locator(`baton-review [part=${name}]`);
    await page.waitForFunction(() => !document.querySelector("baton-review").shadowRoot.querySelector("[part=authorize]").disabled);
    await part("edit").click();
    const title = page.locator("baton-review [part=edit-form] input[name=title]");
    assert.equal(await title.inputValue(), "Shipp", "filled with the planned arguments");
    // Over the argument's byte limit: refused, said inline, nothing changed.
    await title.fill("x".repeat(300));
    await part("apply-edit").click();
    assert.match(await part("edit-error").textContent(), /AG-15/);
    assert.equal(await page.evaluate(() => window.engine.review(window.run).items[0].edited), undefined);
    // Another run's steps while the person types: the field keeps the
    // focus, and the error is not written again.
    const kept = await page.evaluate(async () => {
      const review = document.querySelector("baton-review");
      review.shadowRoot.querySelector("[part=edit-form] input[name=title]").focus();
      const error = review.shadowRoot.querySelector("[part=edit-error]");
      const other = window.engine.delegate({ intent: "Rename b", initiative: "user", autonomy: "auto", plan: [{ capability: "tasks.rename", arguments: { id: "b", title: "Later" } }] });
      await other.returned;
      return { focused: review.shadowRoot.activeElement?.name ?? null, sameError: review.shadowRoot.querySelector("[part=edit-error]") === error };
    });
    assert.deepEqual(kept, { focused: "title", sameError: true });
    await page.evaluate(() => window.invoked.splice(0));
    // A good edit: applied, marked, previewed again.
    await title.fill("Ship");
    await part("apply-edit").click();
    await page.waitForFunction(() => document.querySelector("baton-review").shadowRoot.querySelector("[part=edited]"));
    await page.waitForFunction(() => !document.querySelector("baton-review").shadowRoot.querySelector("[part=authorize]").disabled);
    assert.equal(await part("change").textContent(), 'title: "Draft" → "Ship"');
    assert.equal(await part("edit-form").count(), 0, "the form closes");
    await part("authorize").click();
    await page.waitForFunction(() => window.invoked.length === 1);
    assert.deepEqual(await page.evaluate(() => window.invoked), [{ id: "a", title: "Ship" }]);
  });
});

test("AG-31: <baton-review> shows each concrete change in the app's own terms and authorizes at the revision seen", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await import("baton-engine/elements");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      const titles = { a: "Draft" };
      engine.register({ ...manifest, preview: true }, {
        invoke: (capability, args) => { titles[args.id] = args.title; return { ok: true }; },
        preview: (capability, args) => ({ title: { from: titles[args.id], to: args.title } }),
        history: { mark: () => "m", revertTo() {} },
      });
      const review = document.createElement("baton-review");
      document.body.append(review);
      review.engine = engine;
      const run = engine.delegate({
        intent: "Rename a", initiative: "user", autonomy: "review",
        plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "Ship" } }],
      });
      const part = (name) => review.shadowRoot.querySelector(`[part=${name}]`);
      const deadline = Date.now() + 3000;
      while (part("authorize").disabled && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const shown = {
        title: part("title").textContent,
        label: part("label").textContent,
        change: part("change").textContent,
        authorizeDisabled: part("authorize").disabled,
        before: titles.a,
      };
      part("authorize").click();
      while (engine.state(run).state !== "returned" && Date.now() < deadline + 3000) await new Promise((r) => setTimeout(r, 20));
      const after = { state: engine.state(run).outcome, title: titles.a, hidden: part("sheet").hasAttribute("data-empty") };
      engine.close();
      return { shown, after };
    }, TASKS),
  );
  assert.equal(result.shown.title, "The plan for “Rename a”:");
  assert.equal(result.shown.label, "Task board: rename");
  assert.equal(result.shown.change, 'title: "Draft" → "Ship"', "the change in the app's terms, not prose");
  assert.equal(result.shown.authorizeDisabled, false);
  assert.equal(result.shown.before, "Draft", "nothing changed before authorizing");
  assert.deepEqual(result.after, { state: "completed", title: "Ship", hidden: true });
});

test("AG-7: <baton-review> shows an exhausted budget in words with the engine's own choices, and Allow lets the run finish", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await import("baton-engine/elements");
      await baton.default();
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory" });
      const titles = {};
      engine.register(manifest, {
        invoke: (capability, args) => { titles[args.id] = args.title; return { ok: true }; },
        history: { mark: () => "m", revertTo() {} },
      });
      const review = document.createElement("baton-review");
      document.body.append(review);
      review.engine = engine;
      const run = engine.delegate({
        intent: "Rename two", initiative: "user", autonomy: "auto",
        budget: { maxTurns: 8, maxCalls: 1, runDeadlineMs: 300000, turnDeadlineMs: 60000 },
        plan: [
          { capability: "tasks.rename", arguments: { id: "a", title: "One" } },
          { capability: "tasks.rename", arguments: { id: "b", title: "Two" } },
        ],
      });
      const root = review.shadowRoot;
      const wait = async (done) => {
        const deadline = Date.now() + 3000;
        while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      };
      await wait(() => !root.querySelector("[part=escalation]").hasAttribute("data-empty"));
      const shown = {
        state: engine.state(run).state,
        reason: root.querySelector("[part=reason]").textContent,
        choices: [...root.querySelectorAll("[part=choice]")].map((button) => button.textContent),
        sheetHidden: root.querySelector("[part=sheet]").hasAttribute("data-empty"),
        titles: { ...titles },
      };
      root.querySelector("[part=choice][data-choice=allow]").click();
      await wait(() => engine.state(run).state === "returned");
      const after = {
        outcome: engine.state(run).outcome,
        titles: { ...titles },
        hidden: root.querySelector("[part=escalation]").hasAttribute("data-empty"),
        sheet: engine.escalation(run),
      };
      engine.close();
      return { shown, after };
    }, TASKS),
  );
  assert.deepEqual(result.shown, {
    state: "escalated",
    reason: "“Rename two” is waiting for you. It has made all 1 of the calls it was allowed (1 used).",
    choices: ["Allow up to 2 calls", "End it"],
    sheetHidden: true,
    titles: { a: "One" },
  });
  assert.deepEqual(result.after, { outcome: "completed", titles: { a: "One", b: "Two" }, hidden: true, sheet: null });
});

/**
 * In the page: an acting party asks to approve its own call `send_email`
 * (an elicitation naming it, with `schema` if given); `<baton-question>`
 * shows it and the person does `act` — "approve", "reject" (with a note),
 * "edit-json" or "edit-form" (the recipient changed, then approved), or
 * "edit-bad" (arguments that are not a JSON object). Returns what was
 * shown and what the engine recorded.
 */

test("the surfaces' own look: <baton-review> shows a change as a visual diff, themeable by custom properties and ::part, with <baton-presence> and an open <baton-question> beside it, no axe-core violation, in light and (media emulated over CDP: Chromium) in dark", { timeout: TIMEOUT }, async () => {
  const looks = await withPage(async (page) => {
    await page.evaluate(AXE_SOURCE);
    await page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await import("baton-engine/elements");
      await baton.default();
      // An acting party that asks the person something, beside the plan.
      const at = (event) => ({ atMs: 0, event });
      const schema = { type: "object", required: ["column"], properties: { column: { enum: ["todo", "done"], title: "Column" } } };
      const transport = new baton.ScriptedTransport({
        protocol: "baton/1",
        turns: [{ events: [at({ type: "turn-started" }), at({ type: "elicitation", request: "q1", prompt: "Which column?", schema }), at({ type: "turn-finished", outcome: "interrupted" })] }],
      });
      const engine = await baton.Engine.open({ appName: "Board", ceiling: "auto", storage: "memory", transport });
      engine.register({ ...manifest, preview: true }, {
        invoke: () => ({ ok: true }),
        preview: (capability, args) => ({ title: { from: "Draft", to: args.title }, column: "doing" }),
        history: { mark: () => "m", revertTo() {} },
      });
      // A page as an app makes it: light and dark, a heading, the surfaces
      // in its main region.
      document.documentElement.style.colorScheme = "light dark";
      document.body.style.background = "Canvas";
      document.body.style.color = "CanvasText";
      const main = document.createElement("main");
      const heading = document.createElement("h1");
      heading.textContent = "Board";
      const surfaces = ["baton-presence", "baton-review", "baton-question"].map((name) => document.createElement(name));
      main.append(heading, ...surfaces);
      document.body.append(main);
      for (const element of surfaces) element.engine = engine;
      engine.delegate({ intent: "Rename a", initiative: "user", autonomy: "review", plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "Ship" } }] });
      engine.delegate({ intent: "Tidy", initiative: "user", autonomy: "review" });
      const review = main.querySelector("baton-review");
      const question = main.querySelector("baton-question");
      const deadline = Date.now() + 3000;
      const waiting = () => review.shadowRoot.querySelector("[part=authorize]").disabled || question.shadowRoot.querySelector("[part=form]").hasAttribute("data-empty");
      while (waiting() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    }, TASKS);
    // Dark needs the colour scheme emulated, which only Chromium's driver does.
    const emulates = ENGINE === "chromium";
    const look = async (colorScheme) => {
      if (emulates) await page.emulateMedia({ colorScheme });
      return page.evaluate(async () => {
        const review = document.querySelector("baton-review");
        const part = (name) => review.shadowRoot.querySelector(`[part=${name}]`);
        const style = (node) => getComputedStyle(node);
        const axe = await window.axe.run(document);
        return {
          change: part("change").textContent,
          before: { text: part("before").textContent, tag: part("before").localName, line: style(part("before")).textDecorationLine, background: style(part("before")).backgroundColor },
          after: { text: part("after").textContent, tag: part("after").localName, background: style(part("after")).backgroundColor },
          host: { color: style(review).color, sheet: style(part("sheet")).backgroundColor, font: style(review).fontFamily },
          authorize: style(part("authorize")).backgroundColor,
          asked: document.querySelector("baton-question").shadowRoot.querySelector("[part=prompt]").textContent,
          violations: axe.violations.map((violation) => `${violation.id}: ${violation.nodes.length} ${violation.nodes.map((node) => node.target.join(" > ") + " " + (node.any[0]?.message ?? "")).join("; ")}`),
        };
      });
    };
    const light = await look("light");
    const dark = emulates ? await look("dark") : null;
    // An app's theme: a custom property set on the element wins; so does
    // the app's own stylesheet, reaching a part from outside.
    const themed = await page.evaluate(() => {
      const review = document.querySelector("baton-review");
      review.style.setProperty("--baton-accent", "rgb(1, 2, 3)");
      return getComputedStyle(review.shadowRoot.querySelector("[part=authorize]")).backgroundColor;
    });
    const parted = await page.evaluate(() => {
      const sheet = document.createElement("style");
      sheet.textContent = "baton-review::part(reject) { background-color: rgb(4, 5, 6); } baton-question::part(prompt) { color: rgb(7, 8, 9); }";
      document.head.append(sheet);
      const part = (host, name) => getComputedStyle(document.querySelector(host).shadowRoot.querySelector(`[part=${name}]`));
      return { reject: part("baton-review", "reject").backgroundColor, prompt: part("baton-question", "prompt").color };
    });
    return { light, dark, themed, parted };
  });
  const { light, dark, themed, parted } = looks;
  assert.equal(light.asked, "Which column?", "the question is open beside the review, checked with it");
  assert.equal(light.change, 'column: "doing"\ntitle: "Draft" → "Ship"', "the text still reads field: from → to, line by line (fields in the preview's order)");
  assert.deepEqual([light.before.text, light.before.tag, light.before.line], ['"Draft"', "del", "line-through"], "before: struck through");
  assert.deepEqual([light.after.text, light.after.tag], ['"Ship"', "ins"], "after: inserted");
  assert.notEqual(light.after.background, "rgba(0, 0, 0, 0)", "and highlighted");
  assert.notEqual(light.before.background, light.after.background, "before and after told apart by more than text");
  assert.match(light.host.font, /system-ui/, "the surfaces' own type");
  assert.deepEqual(light.violations, [], "axe-core: no violation in light");
  if (dark) {
    assert.notEqual(light.host.color, dark.host.color, "dark follows prefers-color-scheme");
    assert.notEqual(light.host.sheet, dark.host.sheet);
    assert.notEqual(light.authorize, dark.authorize);
    assert.deepEqual(dark.violations, [], "axe-core: no violation in dark");
  }
  assert.equal(themed, "rgb(1, 2, 3)", "--baton-accent set by the app restyles the primary action");
  assert.deepEqual(parted, { reject: "rgb(4, 5, 6)", prompt: "rgb(7, 8, 9)" }, "::part() in the app's stylesheet reaches the surfaces' parts");
});
