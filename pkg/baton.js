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

/**
 * A delegation as the app holds it (`engine.delegate` returns one): its
 * `id`, a promise of how it ended, and the commands that concern it. Every
 * engine method that takes a run id takes a `Run` as well.
 */
export class Run {
  #engine;
  #returned = null;

  constructor(engine, id) {
    this.#engine = engine;
    /** The run's id. */
    this.id = id;
  }

  /** The id, where text is wanted. */
  toString() {
    return this.id;
  }

  toJSON() {
    return this.id;
  }

  /**
   * Settles with the run's terminal state — `{ state: "returned", outcome,
   * reason }` or `{ state: "cancelled", reason }` — once it has ended. It
   * never rejects because of how the run ended.
   */
  get returned() {
    this.#returned ??= new Promise((resolve) => {
      let unsubscribe = null;
      const settle = (state) => {
        unsubscribe?.();
        resolve(state);
      };
      unsubscribe = this.#engine.subscribe((event) => {
        if (event.type !== "journal" || event.run !== this.id || event.entry.kind !== "transition") return;
        const to = event.entry.to;
        if (to.state === "returned" || to.state === "cancelled") settle(to);
      });
      try {
        const now = this.#engine.state(this.id);
        if (now.state === "returned" || now.state === "cancelled") settle(now);
      } catch {
        // Released from memory after it ended: its transition was heard, or
        // is in `engine.history`.
      }
    });
    return this.#returned;
  }

  /** Its state now. */
  state() {
    return this.#engine.state(this.id);
  }

  /** Its review sheet, while it waits for review; otherwise `null`. */
  review() {
    return this.#engine.review(this.id);
  }

  /** Takes control back (AG-9). */
  stop() {
    this.#engine.stop(this.id);
  }

  /** Undoes it in one step (A.2). */
  undo(options) {
    return this.#engine.undo(this.id, options);
  }

  /** Calls `listener` for every event that concerns this run; returns a function that unsubscribes. */
  subscribe(listener) {
    return this.#engine.subscribe((event) => {
      if (concerns(event, this.id)) listener(event);
    });
  }
}

/** Engine methods whose first argument is a run: they take a `Run` too. */
const TAKES_A_RUN = new Set([
  "state", "revision", "review", "escalation", "journal", "history", "authorize", "reject",
  "resolveEscalation", "pause", "resume", "stop", "undo", "editCall", "reviewAgain", "discard",
]);
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
      if (TAKES_A_RUN.has(name) && args[0] instanceof Run) args[0] = args[0].id;
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
