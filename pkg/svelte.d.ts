// Type declarations of `baton-engine/svelte`: the engine in a Svelte 5 app, as stores (svelte 5, a peer dependency).

import type { Readable } from "svelte/store";
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

/** Gives `engine` to this component's descendants, through context; call it while the component initialises. */
export function setEngine(engine: Engine): void;

/** The engine an ancestor set; throws without one. */
export function useEngine(): Engine;

/** A read's version as `useParticipant` takes it: the version, or the version with an origin (AG-27). */
export type ReadVersion = number | { version: number; origin?: Origin };

/** A participant's behaviour in a Svelte component: its `element` may be a getter (for `bind:this`). */
export type SvelteBehaviour = Omit<Behaviour, "element"> & { element?: Element | (() => Element | null | undefined) };

/**
 * Mounts a participant while the component is mounted, and unmounts it with the component: a store
 * of the participant, `null` until mounted. `versions` — an object, or a store of one
 * (`toStore(() => ({ board: board.version }))` in runes mode) — gives each read's version: when one
 * changes it is published, with the call's actor when the engine says the change is a call's
 * (`participant.callActor()`, A.2); any other change is the person's.
 */
export function useParticipant(
  manifest: Manifest | string,
  behaviour: SvelteBehaviour,
  versions?: Record<string, ReadVersion> | Readable<Record<string, ReadVersion>>,
): Readable<Participant | null>;

/** What `useRun` gives: the run's state now, its review sheet while it waits for review, its revision. */
export interface RunView {
  id: RunId;
  state: RunState;
  review: ReviewSheet | null;
  revision: number;
}

/**
 * A store of one run's state, review sheet and revision, kept current; `null` without a run. `run`
 * is a `Run`, an id, or a store of either (`toStore(() => run)` in runes mode follows a prop).
 */
export function useRun(
  run: Run | RunId | null | undefined | Readable<Run | RunId | null | undefined>,
): Readable<RunView | null>;

/** A store of the session's questions, kept current. */
export function useQuestions(): Readable<Question[]>;

/** What `usePresence` gives: the counters for a badge and the last thing said to the person. */
export interface PresenceView {
  counters: Counters;
  said: Said | null;
}

/** A store of presence, kept current; while it has subscribers it is a presence surface of the engine. */
export function usePresence(): Readable<PresenceView>;
