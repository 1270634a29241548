// baton-engine/conformance — the portable protocol fixture kit, in JS.
//
// Plays the kit's fixtures (the same JSON files the native runner plays;
// `cargo xtask pkg` bundles them as conformance-fixtures.json) against any
// engine behind a small subject adapter:
//
//   { start(setup), command(command), observe() }   (each may be async)
//
// `command` throws an error with a `code` when the engine refuses;
// `observe` returns the observation documented in the kit's README. The kit
// never imports the engine it tests: it only talks to the subject.

/** The fixtures shipped with the package. */
export async function loadFixtures() {
  const response = await fetch(new URL("./conformance-fixtures.json", import.meta.url));
  if (!response.ok) throw new Error(`the conformance fixtures could not be loaded: ${response.status}`);
  return response.json();
}

/** A JSON Pointer into a value; `undefined` when nothing is there. */
function pointer(value, path) {
  if (path === "") return value;
  let here = value;
  for (const raw of path.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (here === null || typeof here !== "object" || !(key in here)) return undefined;
    here = Array.isArray(here) ? here[Number(key)] : here[key];
  }
  return here;
}

/** Deep equality of JSON values, key order aside. */
function same(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((item, i) => same(item, b[i]));
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => key in b && same(a[key], b[key]));
}

const MATCHERS = ["is", "includes", "excludes", "length", "atLeast", "absent"];
const show = (value) => (value === undefined ? "nothing" : JSON.stringify(value));

/** `null` when the expectation holds; otherwise [expected, observed] in words. */
function check(step, observation) {
  const found = pointer(observation, step.expect);
  const matcher = MATCHERS.find((name) => name in step);
  const wanted = step[matcher];
  const length = Array.isArray(found) || typeof found === "string" ? [...found].length : undefined;
  let holds;
  switch (matcher) {
    case "is": holds = found !== undefined && same(found, wanted); break;
    case "includes": {
      let rest = Array.isArray(found) ? [...found] : null;
      holds = rest !== null && wanted.every((item) => {
        const at = rest.findIndex((candidate) => same(candidate, item));
        if (at < 0) return false;
        rest = rest.slice(at + 1);
        return true;
      });
      break;
    }
    case "excludes": holds = Array.isArray(found) && wanted.every((item) => !found.some((c) => same(c, item))); break;
    case "length": holds = length === wanted; break;
    case "atLeast": holds = length !== undefined && length >= wanted; break;
    default: holds = found === undefined || found === null;
  }
  if (holds) return null;
  const expected = {
    is: () => JSON.stringify(wanted),
    includes: () => `${JSON.stringify(wanted)} in this order`,
    excludes: () => `none of ${JSON.stringify(wanted)}`,
    length: () => `length ${wanted}`,
    atLeast: () => `length at least ${wanted}`,
  }[matcher]?.() ?? "nothing";
  return [expected, show(found)];
}

/** Plays one fixture against a subject; stops at its first failure. */
export async function runFixture(fixture, subject) {
  const cited = fixture.proves[0];
  const fail = (step, what, expected, observed, ag = cited) => ({
    fixture: fixture.id, proves: fixture.proves, skipped: false,
    failure: { ag, fixture: fixture.id, step, what, expected, observed },
  });
  try {
    await subject.start({ engine: fixture.engine ?? {}, participants: fixture.participants ?? [] });
  } catch (error) {
    return fail(0, "start", "the subject to start", String(error?.message ?? error));
  }
  // A fixture about the page (live regions, focus, aria-busy) needs a subject that observes one.
  if (fixture.observer === "page" && !("page" in ((await subject.observe()) ?? {}))) {
    return { fixture: fixture.id, proves: fixture.proves, failure: null, skipped: true };
  }
  for (const [index, step] of fixture.steps.entries()) {
    const number = index + 1;
    if ("expect" in step) {
      const mismatch = check(step, await subject.observe());
      if (mismatch) return fail(number, step.expect, mismatch[0], mismatch[1], step.ag ?? cited);
      continue;
    }
    const { fails, ...command } = step;
    let error = null;
    try {
      await subject.command(command);
    } catch (thrown) {
      error = thrown;
    }
    const code = error?.code;
    if (!fails && error) return fail(number, command.do, "success", `error \`${code ?? "uncoded"}: ${error.message}\``);
    if (fails && !error) return fail(number, command.do, `error \`${fails}\``, "success");
    if (fails && code !== fails) return fail(number, command.do, `error \`${fails}\``, `error \`${code ?? "uncoded"}: ${error.message}\``);
  }
  return { fixture: fixture.id, proves: fixture.proves, failure: null, skipped: false };
}

/**
 * Plays every fixture (the package's own unless `options.fixtures` is
 * given) against a fresh subject from `subjectFactory`.
 */
export async function runConformance(subjectFactory, options = {}) {
  const fixtures = options.fixtures ?? (await loadFixtures());
  const reports = [];
  for (const fixture of fixtures) {
    const subject = await subjectFactory();
    try {
      reports.push(await runFixture(fixture, subject));
    } finally {
      await subject.close?.();
    }
  }
  const failures = reports.filter((report) => report.failure).map((report) => report.failure);
  // A kit that played nothing (no fixtures, or all skipped) proves nothing.
  const played = reports.filter((report) => !report.skipped).length;
  return { fixtures: reports, failures, played, passed: played > 0 && failures.length === 0 };
}

/** The report as text: one line per failure, leading with its AG-n, then a summary. */
export function formatConformanceReport(report) {
  const lines = report.failures.map(
    (f) => `${f.ag} ${f.fixture} step ${f.step}: ${f.what} — expected ${f.expected}, observed ${f.observed}`,
  );
  const total = report.fixtures.length;
  const skipped = report.fixtures.filter((r) => r.skipped).length;
  const proven = new Set(report.fixtures.filter((r) => !r.failure && !r.skipped).flatMap((r) => r.proves));
  lines.push(`conformance: ${total} fixtures, ${total - report.failures.length - skipped} passed, ${report.failures.length} failed, ${skipped} skipped (no page observed); requirements proven: ${proven.size}`);
  if (total === skipped) lines.push("conformance: no fixture was played, so nothing is proven: the kit does not pass");
  return lines.join("\n");
}
