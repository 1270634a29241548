// The conformance kit's JS runner (`baton-engine/conformance`) in headless
// Chromium: the kit's fixtures against the package's own engine through its
// subject (`baton-engine/conformance/engine`), and against an engine broken
// on purpose, which must fail with the requirements it breaks.
//
//   node --test conformance.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";

import { packagePages } from "./harness.mjs";
import { root } from "./server.mjs";

const TIMEOUT = 120_000;

const { withPage } = packagePages();

/** Plays the kit in the page against the engine, or with `broken`, against one that ignores stop. */
function play(broken) {
  return withPage((page) =>
    page.evaluate(async (broken) => {
      const baton = await import("baton-engine");
      const kit = await import("baton-engine/conformance");
      const { createEngineSubject } = await import("baton-engine/conformance/engine");
      await baton.default();
      const subject = () => {
        const engine = createEngineSubject(baton);
        if (!broken) return engine;
        // An engine whose stop is acknowledged and ignored.
        return {
          start: (setup) => engine.start(setup),
          command: (command) => (command.do === "stop" ? undefined : engine.command(command)),
          observe: () => engine.observe(),
          close: () => engine.close(),
        };
      };
      const report = await kit.runConformance(subject);
      return {
        text: kit.formatConformanceReport(report),
        total: report.fixtures.length,
        passed: report.passed,
        failed: [...new Set(report.failures.map((failure) => failure.ag))].sort(),
      };
    }, broken),
  );
}

test("the kit's fixtures hold for the package's own engine, in Chromium", { timeout: TIMEOUT }, async () => {
  const result = await play(false);
  console.log(result.text);
  assert.deepEqual(result.failed, [], result.text);
  assert.equal(result.passed, true);
  const written = readdirSync(join(root, "crates/baton-conformance/fixtures")).filter((name) => name.endsWith(".json"));
  assert.equal(result.total, written.length, "every fixture the native kit plays");
  // Every fixture played, the page's own ones too: none skipped.
  const summary = result.text.split("\n").at(-1);
  assert.match(summary, /^conformance: \d+ fixtures, \d+ passed, 0 failed, 0 skipped \(no page observed\); requirements proven: \d+$/);
  assert.ok(Number(summary.split(": ").at(-1)) >= 45, summary);
});

test("an engine that ignores stop fails the JS kit with AG-4 and AG-42, each line leading with its AG-n", { timeout: TIMEOUT }, async () => {
  const result = await play(true);
  assert.deepEqual(result.failed, ["AG-4", "AG-42"], result.text);
  assert.equal(result.passed, false);
  for (const line of result.text.split("\n").slice(0, -1)) assert.match(line, /^AG-\d+ [a-z0-9-]+ step \d+: /);
});

test("a kit that plays nothing does not pass: no fixtures, or every one skipped", { timeout: TIMEOUT }, async () => {
  const result = await withPage((page) =>
    page.evaluate(async () => {
      const baton = await import("baton-engine");
      const kit = await import("baton-engine/conformance");
      const { createEngineSubject } = await import("baton-engine/conformance/engine");
      await baton.default();
      const none = await kit.runConformance(() => createEngineSubject(baton), { fixtures: [] });
      // A subject that observes no page skips the fixtures that need one.
      const blind = () => {
        const engine = createEngineSubject(baton);
        const observe = async () => {
          const { page, ...rest } = await engine.observe();
          return rest;
        };
        return { start: (setup) => engine.start(setup), command: (c) => engine.command(c), observe, close: () => engine.close() };
      };
      const fixtures = (await kit.loadFixtures()).filter((fixture) => fixture.observer === "page");
      const skipped = await kit.runConformance(blind, { fixtures });
      return {
        none: [none.passed, none.played, kit.formatConformanceReport(none)],
        skipped: [skipped.passed, skipped.played, skipped.fixtures.length, skipped.fixtures.every((f) => f.skipped), kit.formatConformanceReport(skipped)],
      };
    }),
  );
  assert.deepEqual(result.none.slice(0, 2), [false, 0]);
  assert.match(result.none[2], /nothing is proven/);
  const [passed, played, count, allSkipped, text] = result.skipped;
  assert.ok(count > 0, "the kit has fixtures that observe a page");
  assert.deepEqual([passed, played, allSkipped], [false, 0, true], text);
});
