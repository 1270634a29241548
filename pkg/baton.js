// The entry point of the npm package `baton-engine`: the wasm-bindgen output
// in ./baton_engine.js, plus an `init` that is safe to call more than once
// and publishes the `BatonError` class once the engine is loaded.

import load, {
  Engine,
  Participant,
  Schema,
  ScriptedTransport,
  AgUiTransport,
  TurnSink,
  errorClass,
} from "./baton_engine.js";

export { Engine, Participant, Schema, ScriptedTransport, AgUiTransport, TurnSink };

/** Whether an event concerns the run `id`. */
function concerns(event, id) {
  return event.run === id || event.runs?.includes(id) === true || event.report?.run === id;
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

  // The terminal state, once the run has ended; never a rejection.
  get returned() {
    this.#returned ??= new Promise((resolve) => {
      const ended = (state) => state.state === "returned" || state.state === "cancelled";
      const unsubscribe = this.#engine.subscribe((event) => {
        if (event.type === "journal" && event.run === this.id && event.entry.kind === "transition" && ended(event.entry.to)) {
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
        // Released from memory after it ended: its transition was heard.
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
 * `input`: a URL, a Response, bytes or a compiled module). Calling it again,
 * even concurrently, waits for the same load; after a failed load it tries
 * again.
 */
export default function init(input) {
  loading ??= (async () => {
    await load(input === undefined ? undefined : { module_or_path: input });
    BatonError = errorClass();
  })().catch((error) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

// After `close()` (or `free()`), an engine's methods throw a BatonError with
// code `closed`, as its participants' handles do, instead of wasm-bindgen's
// untyped "null pointer passed to rust". Closing twice is harmless.
const closedEngines = new WeakSet();
for (const name of Object.getOwnPropertyNames(Engine.prototype)) {
  // wasm-bindgen's own helpers (`__destroy_into_raw`) stay as they are.
  if (name === "constructor" || name.startsWith("__")) continue;
  const descriptor = Object.getOwnPropertyDescriptor(Engine.prototype, name);
  const guard = (original) =>
    function (...args) {
      if (closedEngines.has(this)) {
        if (name === "close" || name === "free") return undefined;
        throw new BatonError("closed", `the engine is closed: \`${name}\` cannot be used`);
      }
      // Wherever a run id goes, a `Run` may go.
      for (let i = 0; i < args.length; i += 1) if (args[i] instanceof Run) args[i] = args[i].id;
      try {
        const result = original.apply(this, args);
        return STARTS_A_RUN.has(name) ? new Run(this, result) : result;
      } finally {
        if (name === "close" || name === "free") closedEngines.add(this);
      }
    };
  if (typeof descriptor.value === "function") descriptor.value = guard(descriptor.value);
  if (descriptor.get) descriptor.get = guard(descriptor.get);
  Object.defineProperty(Engine.prototype, name, descriptor);
}
