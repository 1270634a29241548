// `baton-engine/vue`: the engine in a Vue 3 app. `provideEngine` gives the
// engine to the components below; composables mount participants with the
// components that own them and read runs, questions and presence as
// reactive state. The rules are the engine's, as in the React binding: which
// change is a call's (`participant.callActor()`) is asked of the engine,
// never decided here. Types and documentation: vue.d.ts.

import { getCurrentInstance, inject, onBeforeUnmount, onMounted, onScopeDispose, provide, shallowRef, toValue, watch } from "vue";

/** The injection key the engine is provided under. */
export const engineKey = Symbol("baton-engine");

/** Gives `engine` to this component's descendants (call it in `setup`). */
export function provideEngine(engine) {
  provide(engineKey, engine);
}

/** The engine an ancestor provided; throws without one. */
export function useEngine() {
  const engine = inject(engineKey, null);
  if (!engine) throw new Error("useEngine: no engine here; call provideEngine(engine) in an ancestor's setup");
  return engine;
}

/**
 * A value read from `source`'s events as a shallow ref: `read()` is asked
 * again after every event `relevant` accepts, and a new value (compared as
 * JSON) replaces it. Unsubscribed with the component (or effect scope).
 */
function engineValue(source, read, relevant) {
  const value = shallowRef(read());
  let text = JSON.stringify(value.value);
  const unsubscribe = source.subscribe((event) => {
    if (!relevant(event)) return;
    const next = read();
    const nextText = JSON.stringify(next);
    if (nextText !== text) {
      text = nextText;
      value.value = next;
    }
  });
  onScopeDispose(unsubscribe);
  return value;
}

/**
 * Mounts a participant while the component is mounted; a shallow ref of the
 * `Participant`, `null` until then. `versions` (an object, a ref or a
 * getter) gives each read's version; when one changes it is published at
 * once, as the change happens — so a change a call makes is published while
 * the engine can still say it is the call's (`participant.callActor()`), with
 * that call's actor (A.2); any other is the person's.
 */
export function useParticipant(manifest, behaviour, versions = {}) {
  const engine = useEngine();
  const participant = shallowRef(null);
  const published = new Map();
  const text = typeof manifest === "string" ? manifest : JSON.stringify(manifest);

  const publishMoved = () => {
    const mounted = participant.value;
    if (!mounted || mounted.problems.length > 0) return;
    const moved = [];
    for (const [read, given] of Object.entries(toValue(versions) ?? {})) {
      const stamp = typeof given === "number" ? { version: given } : { ...given };
      if (published.get(read) === stamp.version) continue;
      moved.push([read, stamp, published.has(read)]);
      published.set(read, stamp.version);
    }
    const actor = moved.some(([, , before]) => before) ? callActor(mounted) : null;
    for (const [read, stamp, before] of moved) {
      if (before && actor) stamp.actor = actor;
      publish(mounted, read, stamp);
    }
  };

  onMounted(() => {
    const held = {
      invoke: (...a) => behaviour.invoke(...a),
      // A template ref, read when the engine needs the element.
      get element() {
        return toValue(behaviour.element) ?? undefined;
      },
    };
    if (behaviour.history) held.history = { mark: (...a) => behaviour.history.mark(...a), revertTo: (...a) => behaviour.history.revertTo(...a) };
    if (behaviour.preview) held.preview = (...a) => behaviour.preview(...a);
    if (behaviour.read) held.read = (...a) => behaviour.read(...a);
    if (behaviour.instance) held.instance = behaviour.instance;
    participant.value = engine.register(text, held);
    publishMoved();
  });
  // Synchronously, as the state changes: inside the call that changes it.
  watch(() => JSON.stringify(toValue(versions) ?? {}), publishMoved, { flush: "sync" });
  onBeforeUnmount(() => {
    const mounted = participant.value;
    participant.value = null;
    try {
      mounted?.unregister();
    } catch {
      // The engine was closed first: nothing is mounted any more.
    }
  });
  return participant;
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
 * A run's state, review sheet and revision as a shallow ref, kept current;
 * `null` without a run. `run` may be a `Run`, an id, a ref or a getter.
 */
export function useRun(run) {
  const engine = useEngine();
  const idOf = () => {
    const given = toValue(run);
    return given == null ? null : typeof given === "string" ? given : given.id;
  };
  let last = null;
  const read = () => {
    const id = idOf();
    if (id === null) return null;
    try {
      last = { id, state: engine.state(id), review: engine.review(id), revision: engine.revision(id) };
    } catch {
      // Released from memory after it ended: its last state stands.
    }
    return last?.id === id ? last : null;
  };
  const view = engineValue(engine, read, (event) => {
    const id = idOf();
    return id !== null && (event.run === id || event.runs?.includes(id) === true || event.report?.run === id);
  });
  // Another run asked for: read it now.
  watch(idOf, () => {
    view.value = read();
  });
  return view;
}

/** The session's questions as a shallow ref, kept current. */
export function useQuestions() {
  const engine = useEngine();
  return engineValue(
    engine,
    () => engine.questions(),
    (event) => event.type === "question" || (event.type === "journal" && event.entry.kind.startsWith("question")),
  );
}

/**
 * Presence as a shallow ref of `{ counters, said }`: the component is a
 * presence surface while it is mounted (a policy of `presence: "require"`
 * counts it).
 */
export function usePresence() {
  const engine = useEngine();
  let said = null;
  const listeners = new Set();
  const surface = {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    handleEvent(event) {
      if (event.type === "announcement") said = event.said;
      for (const listener of listeners) listener(event);
    },
  };
  const view = engineValue(surface, () => ({ counters: engine.counters(), said }), () => true);
  if (getCurrentInstance()) {
    let detach = null;
    onMounted(() => {
      detach = engine.presence.attach(surface);
    });
    onBeforeUnmount(() => detach?.());
  } else {
    onScopeDispose(engine.presence.attach(surface));
  }
  return view;
}
