// `baton-engine/vue`: the engine in a Vue 3 app. `provideEngine` gives the
// engine to the components below; composables mount participants with the
// components that own them and read runs, questions and presence as
// reactive state. The rules are the engine's, as in the React binding: which
// change is a call's (`participant.callActor()`) is asked of the engine,
// never decided here. Types and documentation: vue.d.ts.

import { getCurrentInstance, inject, onBeforeUnmount, onMounted, onScopeDispose, provide, shallowRef, toValue, watch } from "vue";

import { concernsQuestions, concernsRun, heldBehaviour, presenceSurface, publishVersions, readRun, unmount } from "./bindings.js";

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

  const publishMoved = () => publishVersions(participant.value, toValue(versions), published);

  onMounted(() => {
    // A template ref, read when the engine needs the element.
    participant.value = engine.register(text, heldBehaviour(() => behaviour, () => toValue(behaviour.element) ?? undefined));
    publishMoved();
  });
  // Synchronously, as the state changes: inside the call that changes it.
  watch(() => JSON.stringify(toValue(versions) ?? {}), publishMoved, { flush: "sync" });
  onBeforeUnmount(() => {
    const mounted = participant.value;
    participant.value = null;
    unmount(mounted);
  });
  return participant;
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
  const read = () => (last = readRun(engine, idOf(), last));
  const view = engineValue(engine, read, (event) => concernsRun(event, idOf()));
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
    concernsQuestions,
  );
}

/**
 * Presence as a shallow ref of `{ counters, said }`: the component is a
 * presence surface while it is mounted (a policy of `presence: "require"`
 * counts it).
 */
export function usePresence() {
  const engine = useEngine();
  const surface = presenceSurface(engine);
  const view = engineValue(surface, surface.read, () => true);
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
