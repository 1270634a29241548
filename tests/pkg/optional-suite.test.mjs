// The JSON-Schema-Test-Suite's optional tests for draft 2020-12, file by
// file: Baton in the browser (Chromium, Firefox or WebKit: its patterns on
// that engine's RegExp) against Ajv 8
// with ajv-formats in Node — the validator an application would otherwise
// use — in the same run. Baton passes at least as many tests as Ajv on
// every file.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

import { packagePages } from "./harness.mjs";
import { root } from "./server.mjs";

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const addFormats = addFormatsModule.default ?? addFormatsModule;

const OPTIONAL = join(root, "crates/baton-schema/tests/json-schema-test-suite/tests/optional");

/** Every optional file, `format/` included: `[name, groups]`. */
function optionalFiles() {
  const read = (dir, prefix) =>
    readdirSync(dir)
      .filter((name) => name.endsWith(".json"))
      .sort()
      .map((name) => [prefix + name, JSON.parse(readFileSync(join(dir, name), "utf8"))]);
  return [...read(OPTIONAL, ""), ...read(join(OPTIONAL, "format"), "format/")];
}

/** Ajv's tally for one file: a schema it cannot compile fails its tests. */
function ajvTally(groups) {
  let passed = 0;
  let total = 0;
  for (const group of groups) {
    let validate = null;
    try {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      validate = ajv.compile(group.schema);
    } catch {
      validate = null;
    }
    for (const { data, valid } of group.tests) {
      total += 1;
      try {
        if (validate && validate(data) === valid) passed += 1;
      } catch {
        // A throw is a failed test.
      }
    }
  }
  return { passed, total };
}

/** In the page: Baton's tally for each file, the same way. */
async function batonTallies(files) {
  const { default: init, Schema } = await import("baton-engine");
  await init();
  const tallies = {};
  for (const [name, groups] of files) {
    let passed = 0;
    let total = 0;
    for (const group of groups) {
      let schema = null;
      try {
        schema = Schema.compile(group.schema);
      } catch {
        schema = null;
      }
      for (const { data, valid } of group.tests) {
        total += 1;
        try {
          if (schema && schema.isValid(data) === valid) passed += 1;
        } catch {
          // A throw is a failed test.
        }
      }
      schema?.free();
    }
    tallies[name] = { passed, total };
  }
  return tallies;
}

const { withPage } = packagePages(() => {
  if (!existsSync(join(root, "pkg/baton.js"))) {
    throw new Error("pkg/baton.js is missing: build the package first (cargo xtask pkg)");
  }
});

test("the optional suite passes at least as many tests as Ajv on every file", async () => {
  const files = optionalFiles();
  const baton = await withPage((page) => page.evaluate(batonTallies, files));
  const rows = files.map(([name, groups]) => ({ name, baton: baton[name], ajv: ajvTally(groups) }));
  const sum = (side) => rows.reduce((total, row) => total + row[side].passed, 0);
  const tests = rows.reduce((total, row) => total + row.ajv.total, 0);
  console.log(rows.map(({ name, baton, ajv }) => `${name}: Baton ${baton.passed}/${baton.total}, Ajv ${ajv.passed}/${ajv.total}`).join("\n"));
  console.log(`optional suite: Baton ${sum("baton")}/${tests}, Ajv ${sum("ajv")}/${tests}`);
  assert.ok(rows.length > 20, "the optional files are present");
  for (const { name, baton, ajv } of rows) {
    assert.equal(baton.total, ajv.total, `${name}: both ran every test`);
    assert.ok(baton.passed >= ajv.passed, `${name}: Baton ${baton.passed}/${baton.total} is below Ajv ${ajv.passed}/${ajv.total}`);
  }
});
