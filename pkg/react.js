// `baton-engine/react`: the engine in a React app (18 or 19). A provider
// gives the engine to the tree; hooks mount participants with the
// components that own them and read runs, questions and presence as state.
// The default surfaces (`baton-engine/elements`) are custom elements, used
// in JSX as they are. Types and documentation: react.d.ts.

import { createContext, createElement, useContext, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";

import { concernsQuestions, concernsRun, heldBehaviour, presenceSurface, publishVersions, readRun, unmount } from "./bindings.js";

const EngineContext = createContext(null);

export function BatonProvider({ engine, children }) {
  return createElement(EngineContext.Provider, { value: engine }, children);
}

export function useEngine() {
  const engine = useContext(EngineContext);
  if (!engine) throw new Error("useEngine: no engine here; render inside <BatonProvider engine={…}>");
  return engine;
}

/**
 * A value read from the engine, kept as React state: `read()` is asked
 * again after every event `relevant` accepts, and a new value (compared as
 * JSON) renders the component again.
 */
function useEngineValue(source, read, relevant, key = null) {
  const cache = useRef(null);
  const readRef = useRef(read);
  readRef.current = read;
  const take = () => {
    let value;
    try {
      value = readRef.current();
    } catch (error) {
      // A closed engine reads nothing more: the last value stands.
      if (error?.code === "closed" && cache.current !== null) return cache.current.value;
      throw error;
    }
    const text = JSON.stringify(value);
    if (cache.current === null || cache.current.text !== text) cache.current = { text, value };
    return cache.current.value;
  };
  const subscribe = useMemo(
    () => (changed) =>
      source.subscribe((event) => {
        if (relevant(event)) changed();
      }),
    // `relevant` changes only with `key`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [source, key],
  );
  return useSyncExternalStore(subscribe, take, take);
}

/**
 * Mounts a participant while the component is mounted. `versions` gives each
 * read's version (a number, or a stamp `{ version, origin }`); when one
 * changes, it is published. A change that a call made is the run's (A.2):
 * the engine says which call a change is (`participant.callActor()`: the
 * first change committed while a state-changing call runs, or just after it
 * returns), and it is published with that call's actor; any other change is
 * the person's.
 */
export function useParticipant(manifest, behaviour, versions = {}) {
  const engine = useEngine();
  const latest = useRef(behaviour);
  latest.current = behaviour;
  const published = useRef(new Map());
  const [participant, setParticipant] = useState(null);
  const text = typeof manifest === "string" ? manifest : JSON.stringify(manifest);
  // Read once, at registration: a new instance name mounts it again.
  const instance = behaviour.instance;

  useEffect(() => {
    // The behaviour the engine holds calls the component's latest one; the
    // element is read when the engine needs it (a ref is set after the
    // first render).
    const mounted = engine.register(text, heldBehaviour(() => latest.current, () => latest.current.element));
    published.current = new Map();
    setParticipant(mounted);
    return () => {
      setParticipant(null);
      unmount(mounted);
    };
  }, [engine, text, instance]);

  const stamps = JSON.stringify(versions);
  // As the change is committed, before anything else can happen.
  useLayoutEffect(() => {
    publishVersions(participant, versions, published.current);
    // `stamps` stands for `versions`, compared by value.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [participant, stamps]);

  return participant;
}

/** A run's state and review sheet, as state; `null` before there is a run. */
export function useRun(run) {
  const engine = useEngine();
  const id = run == null ? null : typeof run === "string" ? run : run.id;
  const last = useRef(null);
  return useEngineValue(
    engine,
    () => (last.current = readRun(engine, id, last.current)),
    (event) => concernsRun(event, id),
    id,
  );
}

/** The session's questions, as state. */
export function useQuestions() {
  const engine = useEngine();
  return useEngineValue(
    engine,
    () => engine.questions(),
    concernsQuestions,
  );
}

/**
 * Presence as state: the component is a presence surface while mounted (a
 * policy of `presence: "require"` counts it), and gets the counters and the
 * last thing said to the person.
 */
export function usePresence() {
  const engine = useEngine();
  const surface = useMemo(() => presenceSurface(engine), [engine]);
  useEffect(() => engine.presence.attach(surface), [engine, surface]);
  return useEngineValue(surface, surface.read, () => true);
}
