// `baton-engine/svelte`: the engine in a Svelte 5 app, as stores (the store
// contract works in runes mode through `$name`, and with `toStore` /
// `fromStore` from `svelte/store`). `setEngine` gives the engine to the
// components below through context; the functions mount participants with
// the components that own them and read runs, questions and presence. The
// rules are the engine's, as in the React and Vue bindings: which change is
// a call's (`participant.callActor()`) is asked of the engine, never decided
// here. Types and documentation: svelte.d.ts.

import { getContext, onDestroy, onMount, setContext } from "svelte";
import { readable, writable } from "svelte/store";

import { concernsQuestions, concernsRun, heldBehaviour, presenceSurface, publishVersions, readRun, unmount } from "./bindings.js";

const KEY = Symbol("baton-engine");

/** Gives `engine` to this component's descendants (call it while the component initialises). */
export function setEngine(engine) {
  setContext(KEY, engine);
}

/** The engine an ancestor set; throws without one. */
export function useEngine() {
  const engine = getContext(KEY);
  if (!engine) throw new Error("useEngine: no engine here; call setEngine(engine) in an ancestor");
  return engine;
}

/**
 * A readable store of what `read()` gives, asked again after every event of
 * `source` that `relevant` accepts; subscribed to the engine only while the
 * store has subscribers. A new value is compared as JSON.
 */
function engineValue(source, read, relevant) {
  return readable(read(), (set) => {
    let text = null;
    const take = () => {
      // Asked only on an event: a closed engine has none after `closed`,
      // which only presence's read hears (and keeps its last counters).
      const value = read();
      const next = JSON.stringify(value);
      if (next !== text) {
        text = next;
        set(value);
      }
    };
    take();
    return source.subscribe((event) => {
      if (relevant(event)) take();
    });
  });
}

/**
 * Mounts a participant while the component is mounted: a store of the
 * `Participant`, `null` until then. `versions` — an object, or a store of
 * one (`toStore(() => ({ board: board.version }))` in runes mode) — gives
 * each read's version; when one changes it is published, with the call's
 * actor when the engine says the change is a call's (A.2); any other is
 * the person's.
 */
export function useParticipant(manifest, behaviour, versions = {}) {
  const engine = useEngine();
  const mounted = writable(null);
  const published = new Map();
  let current = null;
  let given = typeof versions?.subscribe === "function" ? {} : versions;
  const text = typeof manifest === "string" ? manifest : JSON.stringify(manifest);

  const publishMoved = () => publishVersions(current, given, published);

  let unsubscribe = null;
  onMount(() => {
    // An element bound after mount (`bind:this`) is read when needed.
    const element = () => (typeof behaviour.element === "function" ? behaviour.element() : behaviour.element);
    current = engine.register(text, heldBehaviour(() => behaviour, element));
    mounted.set(current);
    if (typeof versions?.subscribe === "function") {
      unsubscribe = versions.subscribe((value) => {
        given = value;
        publishMoved();
      });
    } else {
      publishMoved();
    }
  });
  onDestroy(() => {
    unsubscribe?.();
    const gone = current;
    current = null;
    mounted.set(null);
    unmount(gone);
  });
  return { subscribe: mounted.subscribe };
}

/**
 * A store of one run's state, review sheet and revision, kept current;
 * `null` without a run. `run` is a `Run`, an id, or a store of either
 * (`toStore(() => run)` in runes mode, so the store follows the prop).
 */
export function useRun(run) {
  const engine = useEngine();
  // A `Run` has a `subscribe` of its own (to its events): it is a value,
  // not a store.
  const store = typeof run?.subscribe === "function" && typeof run.id !== "string";
  const given = store ? run : readable(run);
  let id = null;
  let last = null;
  const read = () => (last = readRun(engine, id, last));
  return readable(null, (set) => {
    let text;
    const take = () => {
      const value = read();
      const next = JSON.stringify(value);
      if (next !== text) {
        text = next;
        set(value);
      }
    };
    const stopRun = given.subscribe((value) => {
      id = value == null ? null : typeof value === "string" ? value : value.id;
      take();
    });
    const stopEngine = engine.subscribe((event) => {
      if (concernsRun(event, id)) take();
    });
    return () => {
      stopRun();
      stopEngine();
    };
  });
}

/** A store of the session's questions, kept current. */
export function useQuestions() {
  const engine = useEngine();
  return engineValue(
    engine,
    () => engine.questions(),
    concernsQuestions,
  );
}

/**
 * A store of presence, `{ counters, said }`: while it has subscribers it is
 * a presence surface of the engine (a policy of `presence: "require"`
 * counts it).
 */
export function usePresence() {
  const engine = useEngine();
  // One surface for the store's life: what was said last outlives its
  // subscribers coming and going.
  const surface = presenceSurface(engine);
  return readable(surface.read(), (set) => {
    const unsubscribe = surface.subscribe(() => set(surface.read()));
    set(surface.read());
    const detach = engine.presence.attach(surface);
    return () => {
      detach();
      unsubscribe();
    };
  });
}
