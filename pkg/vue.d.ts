// Type declarations of `baton-engine/vue`: the engine in a Vue 3 app (vue 3.3 or later, a peer dependency).

import type { InjectionKey, MaybeRefOrGetter, ShallowRef } from "vue";
import type {
  Behaviour,
  Counters,
  Engine,
  Manifest,
  Origin,
  Participant,
  Question,
  ReviewSheet,
  Run,
  RunId,
  RunState,
  Said,
} from "./baton.js";

/** The injection key the engine is provided under (`app.provide(engineKey, engine)` works too). */
export const engineKey: InjectionKey<Engine>;

/** Gives `engine` to this component's descendants; call it in `setup`. */
export function provideEngine(engine: Engine): void;

/** The engine an ancestor provided; throws without one. */
export function useEngine(): Engine;

/** A read's version as `useParticipant` takes it: the version, or the version with an origin (AG-27). */
export type ReadVersion = number | { version: number; origin?: Origin };

/** A participant's behaviour in a Vue component: its `element` may be a template ref. */
export type VueBehaviour = Omit<Behaviour, "element"> & { element?: MaybeRefOrGetter<Element | null | undefined> };

/**
 * Mounts a participant while the component is mounted, and unmounts it with the component; `null`
 * until mounted. `versions` (an object, a ref or a getter) gives each read's version: when one
 * changes, it is published at once, as the change happens, so a change a call makes is published
 * with that call's actor (the engine says which call it is: `participant.callActor()`, A.2); any
 * other change is the person's. The manifest is read once, at mount.
 */
export function useParticipant(
  manifest: Manifest | string,
  behaviour: VueBehaviour,
  versions?: MaybeRefOrGetter<Record<string, ReadVersion>>,
): ShallowRef<Participant | null>;

/** What `useRun` gives: the run's state now, its review sheet while it waits for review, its revision. */
export interface RunView {
  id: RunId;
  state: RunState;
  review: ReviewSheet | null;
  revision: number;
}

/** A run's state, review sheet and revision, kept current; `null` without a run. */
export function useRun(run: MaybeRefOrGetter<Run | RunId | null | undefined>): ShallowRef<RunView | null>;

/** The session's questions, kept current. */
export function useQuestions(): ShallowRef<Question[]>;

/** What `usePresence` gives: the counters for a badge and the last thing said to the person. */
export interface PresenceView {
  counters: Counters;
  said: Said | null;
}

/** Presence, kept current; the component is a presence surface while mounted. */
export function usePresence(): ShallowRef<PresenceView>;
