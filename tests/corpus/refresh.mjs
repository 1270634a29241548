// Every regular expression of the SchemaStore catalog, judged by recheck.
//
//   node refresh.mjs --schemastore DIR --out FILE   extract from a checkout, then judge
//   node refresh.mjs --verdicts FILE --out FILE     judge the recorded patterns again
//
// The output is the corpus baton-schema's tests read: each distinct pattern
// with how many schema files use it, whether it is a regular expression with
// the `u` flag at all, and recheck's verdict — for a vulnerable pattern its
// attack, as pumps (`prefix`, then `pump` repeated `base + bias` times) and a
// `suffix`, so a test can rebuild the attack at any length.

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkSync } from "recheck";

const SOURCE = "https://github.com/SchemaStore/schemastore";
const CHECKER = "recheck 4.5.0";
// Keywords whose value maps names to schemas: a `pattern` key inside is a name.
const MAPS = new Set(["properties", "definitions", "$defs", "dependentSchemas", "dependencies"]);

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, arg, i, all) => (arg.startsWith("--") ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []),
);

/** Every pattern of one schema document, keyed by pattern. */
function collect(node, found, isMap = false) {
  if (Array.isArray(node)) return node.forEach((item) => collect(item, found));
  if (node === null || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    if (isMap) collect(value, found);
    else if (key === "pattern" && typeof value === "string") found.add(value);
    else if (key === "patternProperties" && value && typeof value === "object" && !Array.isArray(value)) {
      Object.keys(value).forEach((pattern) => found.add(pattern));
      collect(value, found, true);
    } else collect(value, found, MAPS.has(key));
  }
}

function extract(dir) {
  const schemas = join(dir, "src/schemas/json");
  const byPattern = new Map();
  let files = 0;
  let unreadable = 0;
  for (const name of readdirSync(schemas).filter((n) => n.endsWith(".json")).sort()) {
    let document;
    try {
      document = JSON.parse(readFileSync(join(schemas, name), "utf8"));
    } catch {
      unreadable += 1;
      continue;
    }
    files += 1;
    const found = new Set();
    collect(document, found);
    for (const pattern of found) {
      const entry = byPattern.get(pattern) ?? { pattern, files: 0, examples: [] };
      entry.files += 1;
      if (entry.examples.length < 3) entry.examples.push(name);
      byPattern.set(pattern, entry);
    }
  }
  const commit = args.commit ?? execFileSync("git", ["-C", dir, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  return { commit, files, unreadable, patterns: [...byPattern.values()] };
}

function judge(entry) {
  const { pattern, files, examples } = entry;
  const judged = { pattern, files, examples };
  try {
    new RegExp(pattern, "u");
    judged.valid = true;
  } catch (error) {
    return { ...judged, valid: false, error: error.message };
  }
  const verdict = checkSync(pattern, "u", { timeout: 10_000 });
  judged.status = verdict.status;
  if (verdict.checker) judged.checker = verdict.checker;
  if (verdict.status === "unknown") return { ...judged, error: verdict.error?.kind ?? "unknown" };
  judged.complexity = verdict.complexity.type;
  if (verdict.complexity.type === "polynomial") judged.degree = verdict.complexity.degree;
  if (verdict.status === "vulnerable") {
    const { pumps, suffix, base } = verdict.attack;
    judged.attack = { pumps, suffix, base };
  }
  return judged;
}

const started = Date.now();
let corpus;
if (args.schemastore) {
  corpus = extract(args.schemastore);
} else if (args.verdicts) {
  const recorded = JSON.parse(readFileSync(args.verdicts, "utf8"));
  corpus = { ...recorded, patterns: recorded.patterns.map(({ pattern, files, examples }) => ({ pattern, files, examples })) };
} else {
  throw new Error("usage: node refresh.mjs (--schemastore DIR | --verdicts FILE) --out FILE");
}
const patterns = corpus.patterns
  .sort((a, b) => (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0))
  .map(judge);
const out = {
  source: SOURCE,
  commit: corpus.commit,
  checker: CHECKER,
  files: corpus.files,
  unreadable: corpus.unreadable,
  patterns,
};
// One pattern per line: diffs show what changed.
const lines = patterns.map((p) => "    " + JSON.stringify(p)).join(",\n");
const head = JSON.stringify({ ...out, patterns: [] }, null, 2).replace(/\[\]\n}$/, "");
writeFileSync(args.out, `${head}[\n${lines}\n  ]\n}\n`);
const count = (f) => patterns.filter(f).length;
console.log(
  `${patterns.length} patterns from ${out.files} files in ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
    `${count((p) => p.complexity === "safe" || p.complexity === "linear" || p.complexity === "constant")} safe, ` +
    `${count((p) => p.complexity === "polynomial")} polynomial, ${count((p) => p.complexity === "exponential")} exponential, ` +
    `${count((p) => p.status === "unknown")} unknown, ${count((p) => p.valid === false)} not valid with the u flag`,
);
