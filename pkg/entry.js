// The source of the npm package's entry point, `baton.js`: the wasm-bindgen
// output in ./baton_engine.js, plus an `init` that is safe to call more than
// once and publishes the `BatonError` class once the engine is loaded, and
// the `Run` handle. `cargo xtask pkg` bundles the two into `baton.js`, so a
// page loads the engine's JavaScript in one request.

import load, {
  Engine,
  Participant,
  Schema,
  ScriptedTransport,
  AgUiTransport,
  TurnSink,
  approvalKey,
  errorClass,
  panicMessage,
} from "./baton_engine.js";

export { Engine, Participant, Schema, ScriptedTransport, AgUiTransport, TurnSink, approvalKey };

/** Whether an event concerns the run `id` (the engine closing concerns every run). */
function concerns(event, id) {
  return event.run === id || event.runs?.includes(id) === true || event.report?.run === id || event.type === "closed";
}

/** A delegation as the app holds it (`engine.delegate` returns one); see baton.d.ts. */
export class Run {
  #engine;
  #returned = null;

  constructor(engine, id) {
    this.#engine = engine;
    this.id = id;
  }

  toString() {
    return this.id;
  }

  toJSON() {
    return this.id;
  }

  // The terminal state, once the run has ended; a rejection only if the
  // engine closes first (`closed`, what its methods then throw).
  get returned() {
    this.#returned ??= new Promise((resolve, reject) => {
      const ended = (state) => state.state === "returned" || state.state === "cancelled";
      const unsubscribe = this.#engine.subscribe((event) => {
        if (event.type === "closed") {
          try {
            this.#engine.state(this.id);
          } catch (error) {
            reject(error);
          }
        } else if (event.type === "journal" && event.run === this.id && event.entry.kind === "transition" && ended(event.entry.to)) {
          unsubscribe();
          resolve(event.entry.to);
        }
      });
      try {
        const now = this.#engine.state(this.id);
        if (ended(now)) {
          unsubscribe();
          resolve(now);
        }
      } catch {
        // Released from memory after it ended (or never this engine's): its
        // stored journal tells how it ended.
        this.#engine.history(this.id).then((records) => {
          const last = records.findLast((record) => record.entry.kind === "transition" && ended(record.entry.to));
          if (last) {
            unsubscribe();
            resolve(last.entry.to);
          }
        }, () => {});
      }
    });
    return this.#returned;
  }

  state() {
    return this.#engine.state(this.id);
  }

  review() {
    return this.#engine.review(this.id);
  }

  stop() {
    this.#engine.stop(this.id);
  }

  // Both settle as `returned` does.
  authorize(revision, options) {
    this.#engine.authorize(this.id, revision, options);
    return this.returned;
  }

  reject(revision, note) {
    this.#engine.reject(this.id, revision, note);
    return this.returned;
  }

  undo(options) {
    return this.#engine.undo(this.id, options);
  }

  subscribe(listener) {
    return this.#engine.subscribe((event) => {
      if (concerns(event, this.id)) listener(event);
    });
  }
}

/** Engine methods that start a run: they return a `Run`. */
const STARTS_A_RUN = new Set(["delegate", "resume", "reviewAgain"]);

/** The class of every error Baton throws; set when `init()` resolves. */
export let BatonError;

let loading;

/**
 * Loads the engine's WebAssembly (from next to this file by default, or from
 * `input`: a URL, a Response, bytes or a compiled module) and resolves with
 * its exports (`memory` among them). Calling it again, even concurrently,
 * waits for the same load; after a failed load it tries again.
 */
export default function init(input) {
  loading ??= (async () => {
    const exports = await load(input === undefined ? undefined : { module_or_path: input });
    BatonError = errorClass();
    return exports;
  })().catch((error) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/**
 * What a call into the module threw, as a `BatonError`: a WebAssembly trap
 * (a panic, or a forged handle's pointer) is `internal`, and the engine it
 * struck closes itself at its next call; a freed handle is `closed`.
 */
function typed(error) {
  if (error instanceof WebAssembly.RuntimeError) {
    const why = panicMessage() ?? error.message;
    return new BatonError("internal", `an internal error: ${why}; an engine it struck closes itself`);
  }
  if (error?.message === "null pointer passed to rust") return new BatonError("closed", "this handle was freed");
  return error;
}

// Every method of the module's classes goes through one door: a trap
// comes out typed. A `Run` handle goes wherever a run id does (it is a JS
// class, so the engine's methods take its id), and the methods that start a
// run return one. A closed engine's methods throw `closed` on their own, in
// Rust; wrong arguments are refused there too, before anything else.
for (const [holder, startsRuns] of [
  [Engine.prototype, STARTS_A_RUN],
  [Engine, new Set()],
  [Participant.prototype, new Set()],
  [Schema.prototype, new Set()],
  [Schema, new Set()],
]) {
  for (const name of Object.getOwnPropertyNames(holder)) {
    const original = Object.getOwnPropertyDescriptor(holder, name).value;
    // Getters, constructors, prototypes and wasm-bindgen's own helpers stay as they are.
    if (typeof original !== "function" || name === "constructor" || name.startsWith("__") || name === "free") continue;
    const startsRun = startsRuns.has(name);
    Object.defineProperty(holder, name, {
      value(...args) {
        const ids = args.map((arg) => (arg instanceof Run ? arg.id : arg));
        let result;
        try {
          result = original.apply(this, ids);
        } catch (error) {
          throw typed(error);
        }
        return startsRun ? new Run(this, result) : result;
      },
      writable: true,
      configurable: true,
    });
  }
}
