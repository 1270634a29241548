// The journal as it leaves the browser: `engine.export()` writes every
// run's records as chained JSON Lines, `Engine.verifyExport` reads them
// back, and a single changed byte, a removed line or a cut-short text is
// refused, naming the first line that is not as it was written.
//
//   node --test export.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";

import { TASKS, earlierEngine, logsOf, packagePages, readmeExample } from "./harness.mjs";

const { withPage } = packagePages();

test("export and verifyExport round-trip every run's records with their actors, decisions and fingerprints; a changed byte, a removed line or a truncation is refused, naming the line", { timeout: 60_000 }, async () => {
  const seen = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const { Engine } = baton;
      const dbName = `export-${Math.random()}`;
      const behaviour = { invoke: () => ({ ok: true }), history: { mark: () => "m", revertTo() {} } };
      const plan = (title) => [{ capability: "tasks.rename", arguments: { id: "card-1", title } }];
      const refusal = (call) => {
        try {
          return `answered ${JSON.stringify(call())}`;
        } catch (error) {
          return `${error.code}: ${error.message}`;
        }
      };

      // Runs of an earlier page load of the same session: one reviewed and
      // authorized by the person, one still waiting for review when the
      // page went (the reload cuts it off; its engine reads it back).
      const earlier = await Engine.open({ dbName, ceiling: "auto", session: "audit" });
      earlier.register(manifest, behaviour);
      const reviewed = earlier.delegate({ intent: "Rename to One", initiative: "user", autonomy: "review", plan: plan("One") });
      while (!earlier.review(reviewed)) await new Promise((resolve) => setTimeout(resolve, 10));
      await reviewed.authorize(earlier.revision(reviewed));
      const waiting = earlier.delegate({ intent: "Rename to Later", initiative: "user", autonomy: "review", plan: plan("Later") });
      while (!earlier.review(waiting)) await new Promise((resolve) => setTimeout(resolve, 10));
      const waitingBefore = earlier.journal(waiting).length;
      earlier.close();

      // This page load's: one at auto, after a pause, so `since` can tell them apart.
      const engine = await Engine.open({ dbName, ceiling: "auto", session: "audit" });
      engine.register(manifest, behaviour);
      await new Promise((resolve) => setTimeout(resolve, 20));
      const now = engine.delegate({ intent: "Rename to Two", initiative: "user", autonomy: "auto", plan: plan("Two") });
      // On the engine's own clock (the page's time origin, not Date.now(),
      // which can run a few milliseconds ahead of it): the new run's first record.
      const since = engine.journal(now)[0].at;
      await now.returned;

      const text = await engine.export();
      const lines = text.trimEnd().split("\n");
      const records = lines.slice(1, -1).map((line) => JSON.parse(line).record);
      const summary = Engine.verifyExport(text);
      const later = await engine.export({ since });
      const laterSummary = Engine.verifyExport(later);

      // One byte changed in the middle of a record: the authorized fingerprint's line.
      const at = lines.findIndex((line) => line.includes('"kind":"authorized"'));
      const flipped = lines.map((line, i) => (i === at ? line.replace(/"fingerprint":"(.)/, (_, c) => `"fingerprint":"${c === "0" ? "1" : "0"}`) : line)).join("\n");
      const removed = lines.filter((_, i) => i !== 2).join("\n");
      const cut = lines.slice(0, -1).join("\n");
      const waitingRevisions = records.filter((record) => record.run === waiting.id).map((record) => record.revision);
      const result = {
        runs: [reviewed.id, now.id, waiting.id],
        waitingBefore,
        waitingRevisions,
        summary,
        laterSummary,
        records: records.length,
        recordsOf: [...new Set(records.map((record) => record.run))],
        actors: [...new Set(records.map((record) => record.actor.kind))].sort(),
        authorized: records.find((record) => record.entry.kind === "authorized")?.entry.fingerprint,
        allChained: lines.slice(1).every((line) => /^\{"prev":"[0-9a-f]{64}"/.test(line)),
        laterRuns: [...new Set(later.trimEnd().split("\n").slice(1, -1).map((line) => JSON.parse(line).record.run))],
        flippedLine: at + 1,
        flipped: refusal(() => Engine.verifyExport(flipped)),
        removed: refusal(() => Engine.verifyExport(removed)),
        cut: refusal(() => Engine.verifyExport(cut)),
        notText: refusal(() => Engine.verifyExport(42)),
        options: await (async () => engine.export({ since: "yesterday" }))().then(() => "answered", (error) => error.code),
      };
      engine.close();
      return result;
    }, TASKS),
  );
  assert.deepEqual(seen.summary.records, seen.records);
  assert.equal(seen.summary.runs, 3);
  // The run the reload cut off: what it journalled before the reload, from
  // IndexedDB, then what happened since, from memory — once each, in order.
  assert.ok(seen.waitingRevisions.length > seen.waitingBefore, `${seen.waitingRevisions} after ${seen.waitingBefore} before the reload`);
  assert.deepEqual(seen.waitingRevisions, [...seen.waitingRevisions].sort((a, b) => a - b));
  assert.deepEqual(seen.waitingRevisions, [...new Set(seen.waitingRevisions)]);
  assert.equal(seen.waitingRevisions[0], 1, "from its first record");
  assert.deepEqual(seen.recordsOf.sort(), [...seen.runs].sort(), "both runs, the earlier page load's from IndexedDB");
  assert.ok(seen.actors.includes("person") && seen.actors.includes("engine"), `every record's actor: ${seen.actors}`);
  assert.match(seen.authorized, /^[0-9a-f]{64}$/, "the person's decision, with the fingerprint authorized");
  assert.ok(seen.allChained, "every line after the header carries the digest of the one before");
  assert.ok(seen.laterRuns.includes(seen.runs[1]) && !seen.laterRuns.includes(seen.runs[0]), "`since` keeps what was journalled at or after it");
  assert.equal(seen.flipped, `invalid-export: line ${seen.flippedLine} is not as it was written: the digest line ${seen.flippedLine + 1} carries of it does not match (a line altered, removed, added or moved)`);
  assert.match(seen.removed, /^invalid-export: line 2 is not as it was written/);
  assert.match(seen.cut, /^invalid-export: the export was cut short after line \d+: its closing line is missing$/);
  assert.match(seen.notText, /^invalid-value: the export must be a string, not a number$/);
  assert.equal(seen.options, "invalid-value");
});

test("the package README's audit trail example runs as written: an earlier engine's runs exported, verified, and an altered copy refused", { timeout: 60_000 }, async () => {
  const code = readmeExample("pkg/README.md", "<!-- export-example -->");
  const lines = await withPage(async (page) => {
    // An earlier engine of the same database: two runs.
    await earlierEngine(page, { finished: 2 });
    return logsOf(page, code, (said) => said.length >= 2);
  });
  assert.equal(lines.length, 2, lines.join("\n"));
  assert.match(lines[0], /^\d+ records of 2 runs$/);
  assert.equal(lines[1], "invalid-export");
});
