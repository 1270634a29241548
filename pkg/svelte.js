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

  const publishMoved = () => {
    if (!current || current.problems.length > 0) return;
    const moved = [];
    for (const [read, version] of Object.entries(given ?? {})) {
      const stamp = typeof version === "number" ? { version } : { ...version };
      if (published.get(read) === stamp.version) continue;
      moved.push([read, stamp, published.has(read)]);
      published.set(read, stamp.version);
    }
    const actor = moved.some(([, , before]) => before) ? callActor(current) : null;
    for (const [read, stamp, before] of moved) {
      if (before && actor) stamp.actor = actor;
      publish(current, read, stamp);
    }
  };

  let unsubscribe = null;
  onMount(() => {
    const held = {
      invoke: (...a) => behaviour.invoke(...a),
      // An element bound after mount (`bind:this`) is read when needed.
      get element() {
        return typeof behaviour.element === "function" ? behaviour.element() : behaviour.element;
      },
    };
    if (behaviour.history) held.history = { mark: (...a) => behaviour.history.mark(...a), revertTo: (...a) => behaviour.history.revertTo(...a) };
    if (behaviour.preview) held.preview = (...a) => behaviour.preview(...a);
    if (behaviour.read) held.read = (...a) => behaviour.read(...a);
    if (behaviour.instance) held.instance = behaviour.instance;
    current = engine.register(text, held);
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
    try {
      gone?.unregister();
    } catch {
      // The engine was closed first: nothing is mounted any more.
    }
  });
  return { subscribe: mounted.subscribe };
}

/** The actor the engine takes a change published now under; none once it is closed. */
function callActor(participant) {
  try {
    return participant.callActor();
  } catch {
    return null;
  }
}

/**
 * Publishes a read's stamp. An actor the engine does not take for it (the
 * run has not changed this participant) makes it the person's change; an
 * engine closed meanwhile takes nothing. Anything else is the app's to see.
 */
function publish(participant, read, stamp) {
  try {
    participant.publish(read, stamp);
  } catch (error) {
    if (error?.code === "invalid-actor") {
      const { actor: _, ...theirs } = stamp;
      participant.publish(read, theirs);
    } else if (error?.code !== "closed") {
      throw error;
    }
  }
}

/**
 * A store of one run's state, review sheet and revision, kept current;
 * `null` without a run. `run` is a `Run`, an id, or a store of either
 * (`toStore(() => run)` in runes mode, so the store follows the prop).
 */
export function useRun(run) {
  const engine = useEngine();
  const given = typeof run?.subscribe === "function" ? run : readable(run);
  let id = null;
  let last = null;
  const read = () => {
    if (id === null) return null;
    try {
      last = { id, state: engine.state(id), review: engine.review(id), revision: engine.revision(id) };
    } catch {
      // Released from memory after it ended: its last state stands.
    }
    return last?.id === id ? last : null;
  };
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
      if (id !== null && (event.run === id || event.runs?.includes(id) === true || event.report?.run === id)) take();
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
    (event) => event.type === "question" || (event.type === "journal" && event.entry.kind.startsWith("question")),
  );
}

/**
 * A store of presence, `{ counters, said }`: while it has subscribers it is
 * a presence surface of the engine (a policy of `presence: "require"`
 * counts it).
 */
export function usePresence() {
  const engine = useEngine();
  let said = null;
  return readable({ counters: engine.counters(), said }, (set) => {
    const surface = {
      handleEvent(event) {
        if (event.type === "announcement") said = event.said;
        set({ counters: engine.counters(), said });
      },
    };
    set({ counters: engine.counters(), said });
    return engine.presence.attach(surface);
  });
}
