// The package's README examples run as written, in the browser, as an app
// author pastes them: each is read from pkg/README.md (or the top-level
// README) by its heading and run as a module in a fresh page.
//
//   node --test readme.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";

import { earlierEngine, logsOf, packagePages, readmeExample } from "./harness.mjs";

const TIMEOUT = 30_000;

const { withPage } = packagePages();

test("the README's example runs as written: register, delegate, await the outcome, undo", { timeout: TIMEOUT }, async () => {
  const code = readmeExample();
  const lines = await withPage((page) => logsOf(page, code, (said) => said.length >= 2));
  assert.deepEqual(lines, ["completed Buy milk", "0"]);
});

test("the package README's history example runs as written: runs of an earlier engine, newest first, paged", { timeout: TIMEOUT }, async () => {
  const code = readmeExample("pkg/README.md", "<!-- runs-example -->");
  const lines = await withPage(async (page) => {
    // An earlier engine of the same database: 21 runs, the last waiting for review.
    await earlierEngine(page, { finished: 20, waiting: true });
    return logsOf(page, code, (said) => said.some((line) => line.startsWith("and ")));
  });
  assert.equal(lines.length, 21, lines.join("\n"));
  assert.equal(lines[0], "Rename later: aborted (review it again?)", "newest first; cut off while it waited for review");
  assert.equal(lines[1], "Rename 20: completed");
  assert.equal(lines[19], "Rename 2: completed");
  assert.equal(lines[20], "and 1 more");
});

test("the package README's scripted acting party runs as written: register, delegate, return, undo", { timeout: TIMEOUT }, async () => {
  const code = readmeExample("pkg/README.md", "## An acting party, scripted");
  const logs = await withPage(async (page) => {
    await page.evaluate(() => {
      const list = document.createElement("ul");
      list.id = "todos";
      document.body.append(list);
    });
    const lines = await logsOf(page, code, (said) => said.some((line) => line.startsWith("undone")));
    const items = await page.evaluate(() => document.querySelectorAll("#todos li").length);
    return { lines, items };
  });
  assert.deepEqual(logs.lines, [
    "true invalid-delegation",
    "returned completed: Buy milk",
    "undone todos: 0 left",
  ]);
  assert.equal(logs.items, 0, "the undo re-rendered the list empty");
});

test("the package README's minimal example runs as written", { timeout: TIMEOUT }, async () => {
  const code = readmeExample("pkg/README.md", "## A minimal example");
  const lines = await withPage(async (page) => {
    await page.evaluate(() => {
      const board = document.createElement("section");
      board.id = "board";
      document.body.append(board);
    });
    return logsOf(page, code, (said) => said.some((line) => line.startsWith("returned:")));
  });
  assert.deepEqual(lines, ["returned: completed"]);
});

test("the package README's problems, grants, state and errors example runs as written", { timeout: TIMEOUT }, async () => {
  const code = readmeExample("pkg/README.md", "## Problems, grants, state and errors");
  const lines = await withPage((page) => logsOf(page, code, (said) => said.some((line) => line.startsWith("state:"))));
  assert.deepEqual(lines, [
    "problem: AG-14 $.description",
    "refused: true invalid-delegation AG-2",
    "grants: allow add live=true",
    'state: {"filter":"open","view":"today"}',
  ]);
});
