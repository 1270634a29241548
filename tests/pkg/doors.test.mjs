// Every door of the package, knocked on with what JavaScript can pass where
// an id, a number, a function or an object belongs: the methods of
// `Engine`, `Run`, `Participant` and `Schema`, the statics and constructors,
// and the default surfaces' public properties and methods. The list of
// methods is read from the exports themselves, so a new method is covered
// without anyone adding it here. Every call must answer — a result, or a
// `BatonError` with a `code` — never a WebAssembly trap or an untyped glue
// error; and the same engine still delegates and undoes afterwards.
//
//   node --test doors.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";

import { TASKS, packagePages } from "./harness.mjs";

const { withPage } = packagePages();

/** In the page: every method with the table of wrong values; what went wrong, as text. */
async function knockOnEveryDoor(manifest) {
  const baton = await import("baton-engine");
  await baton.default();
  const { Engine, Schema, ScriptedTransport, AgUiTransport, BatonError } = baton;
  await import("baton-engine/elements");

  const WRONG = [
    ["a number", 42],
    ["undefined", undefined],
    ["an object", { id: 7 }],
    ["an empty string", ""],
    ["null", null],
    ["a fraction", 2.5],
    ["an array", ["s/r1"]],
    ["a negative number", -1],
    ["NaN", NaN],
    ["a function", () => {}],
    ["a long string", "x".repeat(600)],
    ["a string with a line break", "s/r1\n"],
    ["a symbol", Symbol("s")],
    ["a BigInt", 10n],
  ];
  const failures = [];
  let calls = 0;
  const typed = (error) => error instanceof BatonError && typeof error.code === "string" && error.code.length > 0;
  /** Calls `call()`; a failure unless it returns, or throws or rejects with a `BatonError`. */
  async function knock(label, call) {
    calls += 1;
    try {
      const result = call();
      if (result && typeof result.then === "function") {
        // A promise that settles later: rejections must be typed too.
        await Promise.race([result, new Promise((resolve) => setTimeout(resolve, 200))]).catch((error) => {
          if (!typed(error)) failures.push(`${label} rejected untyped: ${error?.name}: ${error?.message}`);
        });
      }
    } catch (error) {
      if (!typed(error)) failures.push(`${label} threw untyped: ${error?.name}: ${error?.message}`);
    }
  }
  /** The methods a prototype offers (getters and the wasm glue's own left out). */
  const methods = (prototype, skip = []) =>
    Object.getOwnPropertyNames(prototype).filter((name) => {
      const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
      return typeof descriptor.value === "function" && name !== "constructor" && !name.startsWith("__") && name !== "free" && !skip.includes(name);
    });
  /** `object[name]` with each wrong value at each of the first four places, after `before` valid ones. */
  async function everyPlace(label, object, name, valid = []) {
    for (const [what, value] of WRONG) {
      for (let place = valid.length; place < valid.length + 4; place++) {
        const args = [...valid, ...Array(place - valid.length).fill(value), value];
        await knock(`${label}.${name}(${valid.length ? "valid…, " : ""}${what} ×${args.length - valid.length})`, () => object[name](...args));
      }
    }
  }

  const behaviour = () => {
    const cards = { "card-1": "Draft" };
    return {
      invoke: (_capability, args) => {
        cards[args.id] = args.title;
        return { renamed: args.id };
      },
      history: { mark: () => JSON.stringify(cards), revertTo: (token) => Object.assign(cards, JSON.parse(token)) },
    };
  };
  const plan = [{ capability: "tasks.rename", arguments: { id: "card-1", title: "Ship" } }];
  /** Delegates and undoes a fixed plan: the engine is whole. */
  async function stillWorks(engine, label) {
    try {
      engine.enable();
      const run = engine.delegate({ intent: "Rename card 1", initiative: "user", autonomy: "auto", plan });
      const ended = await run.returned;
      const undone = await run.undo();
      if (ended.outcome !== "completed" || undone.reverted.length !== 1) failures.push(`${label}: after the table, ${JSON.stringify({ ended, undone })}`);
    } catch (error) {
      failures.push(`${label}: after the table the engine no longer delegates and undoes: ${error?.name}: ${error?.message}`);
    }
  }

  // Statics (read from the classes) and constructors.
  const opened = [];
  const statics = (cls) => Object.getOwnPropertyNames(cls).filter((name) => typeof cls[name] === "function" && !name.startsWith("__"));
  for (const [label, cls] of [["Engine", Engine], ["Schema", Schema]]) {
    for (const name of statics(cls)) {
      for (const [what, value] of WRONG) {
        await knock(`${label}.${name}(${what})`, () => {
          const result = cls[name](value);
          // An engine a wrong value still opened (defaults) is closed afterwards.
          if (result && typeof result.then === "function") return result.then((made) => made instanceof Engine && opened.push(made));
          return result;
        });
      }
    }
  }
  for (const [what, value] of WRONG) {
    await knock(`new ScriptedTransport(${what})`, () => new ScriptedTransport(value));
    await knock(`new AgUiTransport(${what})`, () => new AgUiTransport(value));
  }
  for (const engine of opened) engine.close();

  // The engine: each method on an engine of its own, holding a run under review.
  for (const name of methods(Engine.prototype, ["close"])) {
    const engine = await Engine.open({ storage: "memory", ceiling: "auto" });
    const participant = engine.register(manifest, behaviour());
    const run = engine.delegate({ intent: "Rename card 1", initiative: "user", autonomy: "review", plan });
    await everyPlace("engine", engine, name);
    // Past a valid run id, to the checks of the later arguments.
    await everyPlace("engine", engine, name, [run.id]);
    await everyPlace("engine", engine, name, [run.id, 0]);
    // The `Run` handle where an id belongs.
    await everyPlace("engine", engine, name, [run]);
    await stillWorks(engine, `engine.${name}`);
    participant.unregister();
    engine.close();
  }

  // A run, a participant and a schema.
  {
    const engine = await Engine.open({ storage: "memory", ceiling: "auto" });
    const participant = engine.register(manifest, behaviour());
    for (const name of methods(Object.getPrototypeOf(participant), ["unregister"])) await everyPlace("participant", participant, name);
    const run = engine.delegate({ intent: "Rename card 1", initiative: "user", autonomy: "review", plan });
    for (const name of methods(Object.getPrototypeOf(run))) await everyPlace("run", run, name);
    const schema = Schema.compile({ type: "string", pattern: "^a" });
    for (const name of methods(Object.getPrototypeOf(schema))) await everyPlace("schema", schema, name);

    // The default surfaces: their public properties and methods.
    for (const tag of ["baton-review", "baton-presence", "baton-question"]) {
      const element = document.createElement(tag);
      document.body.append(element);
      element.engine = engine;
      const prototype = customElements.get(tag).prototype;
      for (const name of ["engine", "run", "question"]) {
        if (!(name in prototype)) continue;
        for (const [what, value] of WRONG) await knock(`<${tag}>.${name} = ${what}`, () => (element[name] = value));
        element.engine = engine;
      }
      for (const name of methods(prototype, ["connectedCallback", "disconnectedCallback", "attributeChangedCallback", "handleEvent", "render", "engineChanged"])) {
        await everyPlace(`<${tag}>`, element, name);
      }
      element.remove();
    }
    await stillWorks(engine, "the engine of the run, participant and surfaces");
    engine.close();
  }
  return { calls, failures };
}

test("every public method answers wrong-typed arguments with a typed error, never a trap or a glue error, and the engine still delegates and undoes", { timeout: 300_000 }, async () => {
  const { calls, failures } = await withPage((page) => page.evaluate(knockOnEveryDoor, TASKS));
  assert.ok(calls > 2_000, `every door was knocked on (${calls} calls)`);
  assert.deepEqual(failures, []);
});

test("a wrong argument is `invalid-value` naming the argument and what it must be; wrong options to open are `invalid-options`", async () => {
  const seen = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const { Engine } = baton;
      const refusal = async (call) => {
        try {
          await call();
          return "answered";
        } catch (error) {
          return `${error.code}: ${error.message}`;
        }
      };
      const engine = await Engine.open({ storage: "memory" });
      engine.register(manifest, { invoke: () => ({}), history: { mark: () => "m", revertTo() {} } });
      const run = engine.delegate({ intent: "Rename", initiative: "user", autonomy: "review", plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "T" } }] });
      const seen = {
        state: await refusal(() => engine.state(42)),
        stop: await refusal(() => engine.stop(undefined)),
        authorize: await refusal(() => engine.authorize(run, "1")),
        reject: await refusal(() => engine.reject(run, 0, { note: "no" })),
        postpone: await refusal(() => engine.postpone("s/q1", 1.5)),
        subscribe: await refusal(() => engine.subscribe("listener")),
        undo: await refusal(() => engine.undo(["s/r1"])),
        open: await refusal(() => Engine.open(42)),
        session: await refusal(() => Engine.open({ storage: "memory", session: "tab\n1" })),
        unknown: await refusal(() => engine.state("s/r404")),
      };
      engine.close();
      return seen;
    }, TASKS),
  );
  assert.deepEqual(seen, {
    state: "invalid-value: `run` must be an id (a string of 1 to 512 characters, no control characters), not a number",
    stop: "invalid-value: `run` must be an id (a string of 1 to 512 characters, no control characters), not undefined",
    authorize: "invalid-value: a revision must be a number, not a string",
    reject: "invalid-value: `note`, when given, must be a string, not an object",
    postpone: "invalid-number: a time must be a whole number from 0 to 2^53 − 1, not 1.5",
    subscribe: "invalid-value: `listener` must be a function, not a string",
    undo: "invalid-value: `run` must be an id (a string of 1 to 512 characters, no control characters), not an array",
    open: "invalid-options: invalid type: integer `42`, expected struct OpenOptions",
    session: "invalid-options: the session must be 1 to 256 characters, with no control characters",
    unknown: seen.unknown,
  });
  assert.match(seen.unknown, /^unknown-run: unknown run s\/r404/, "a well-formed id that names nothing is the core's to refuse");
});

test("a trap is never what a caller meets: a forged handle's call is `internal`, a freed engine's is `closed`, and another engine goes on", async () => {
  const seen = await withPage((page) =>
    page.evaluate(async (manifest) => {
      const baton = await import("baton-engine");
      await baton.default();
      const { Engine, Schema, BatonError } = baton;
      const refusal = (call) => {
        try {
          call();
          return "answered";
        } catch (error) {
          return `${error instanceof BatonError} ${error.code}: ${error.message}`;
        }
      };
      // A handle whose pointer is not one the module handed out: the
      // module reads outside its memory, and traps.
      const forged = Object.create(Engine.prototype);
      forged.__wbg_ptr = 0xfffffff0;
      const forgedSchema = Object.create(Schema.prototype);
      forgedSchema.__wbg_ptr = 0xfffffff0;
      const freed = await Engine.open({ storage: "memory" });
      freed.free();
      const engine = await Engine.open({ storage: "memory", ceiling: "auto" });
      engine.register(manifest, { invoke: () => ({}), history: { mark: () => "m", revertTo() {} } });
      const result = {
        forged: refusal(() => forged.state("s/r1")),
        forgedSchema: refusal(() => forgedSchema.isValid(1)),
        freed: refusal(() => freed.state("s/r1")),
        goesOn: (await engine.delegate({ intent: "Rename", initiative: "user", autonomy: "auto", plan: [{ capability: "tasks.rename", arguments: { id: "a", title: "T" } }] }).returned).outcome,
      };
      engine.close();
      return result;
    }, TASKS),
  );
  assert.match(seen.forged, /^true internal: an internal error: .+; an engine it struck closes itself$/);
  assert.match(seen.forgedSchema, /^true internal: /);
  assert.equal(seen.freed, "true closed: this handle was freed");
  assert.equal(seen.goesOn, "completed");
});
