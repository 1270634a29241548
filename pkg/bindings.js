// What the framework bindings (`baton-engine/react`, `/vue`, `/svelte`)
// share: how a participant's read versions are published, which events
// concern a run or the questions, and the presence surface a binding attaches. Which change is a call's is the engine's
// rule (`participant.callActor()`); a binding only asks.

/**
 * Publishes each read of `versions` (a version, or `{ version, origin }`)
 * whose version moved since `published` (a Map the binding keeps per
 * participant). A change after the first publish goes with the actor the
 * engine names for a change published now — the call's, when a call made
 * it (A.2) — and any other is the person's.
 */
export function publishVersions(participant, versions, published) {
  if (!participant || participant.problems.length > 0) return;
  const moved = [];
  for (const [read, given] of Object.entries(versions ?? {})) {
    const stamp = typeof given === "number" ? { version: given } : { ...given };
    if (published.get(read) === stamp.version) continue;
    moved.push([read, stamp, published.has(read)]);
    published.set(read, stamp.version);
  }
  // A mount's first publish is no change.
  const actor = moved.some(([, , before]) => before) ? callActor(participant) : null;
  for (const [read, stamp, before] of moved) {
    if (before && actor) stamp.actor = actor;
    publish(participant, read, stamp);
  }
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

/** The behaviour the engine holds: it calls the component's `latest()` one, read when needed. */
export function heldBehaviour(latest, element) {
  const current = latest();
  const held = {
    invoke: (...a) => latest().invoke(...a),
    get element() {
      return element();
    },
  };
  if (current.history) held.history = { mark: (...a) => latest().history.mark(...a), revertTo: (...a) => latest().history.revertTo(...a) };
  if (current.preview) held.preview = (...a) => latest().preview(...a);
  if (current.read) held.read = (...a) => latest().read(...a);
  if (current.instance) held.instance = current.instance;
  return held;
}

/** Unregisters a participant; an engine closed first has nothing mounted any more. */
export function unmount(participant) {
  try {
    participant?.unregister();
  } catch {
    // The engine was closed first.
  }
}

/** Whether `event` concerns run `id`. */
export const concernsRun = (event, id) =>
  id !== null && (event.run === id || event.runs?.includes(id) === true || event.report?.run === id);

/** Whether `event` changes the session's questions. */
export const concernsQuestions = (event) =>
  event.type === "question" || (event.type === "journal" && event.entry.kind.startsWith("question"));

/**
 * A run's view — state, review sheet, revision — read now; `last` (the
 * previous view) stands once the run has left memory after it ended.
 */
export function readRun(engine, id, last) {
  if (id === null) return null;
  try {
    return { id, state: engine.state(id), review: engine.review(id), revision: engine.revision(id) };
  } catch {
    return last?.id === id ? last : null;
  }
}

/**
 * A presence surface for a binding to attach (`engine.presence.attach`): it
 * keeps the last thing said to the person, tells its listeners of every
 * event, and `read()` is the view `{ counters, said }` (the last one once
 * the engine has closed).
 */
export function presenceSurface(engine) {
  let said = null;
  let counters = null;
  const listeners = new Set();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    handleEvent(event) {
      if (event.type === "announcement") said = event.said;
      for (const listener of listeners) listener(event);
    },
    read() {
      try {
        counters = engine.counters();
      } catch (error) {
        // Closed (its last event, `closed`, asks for a read): what it last
        // counted stands.
        if (error?.code !== "closed" || counters === null) throw error;
      }
      return { counters, said };
    },
  };
}
