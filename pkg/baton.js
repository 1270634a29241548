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
      try {
        return original.apply(this, args);
      } finally {
        if (name === "close" || name === "free") closedEngines.add(this);
      }
    };
  if (typeof descriptor.value === "function") descriptor.value = guard(descriptor.value);
  if (descriptor.get) descriptor.get = guard(descriptor.get);
  Object.defineProperty(Engine.prototype, name, descriptor);
}
