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
