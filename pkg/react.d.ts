// Type declarations of `baton-engine/react`: the engine in a React app (react 18 or 19, a peer dependency).

import type { DetailedHTMLProps, HTMLAttributes, ReactNode } from "react";
import type { BatonPresence, BatonQuestion, BatonReview } from "./elements.js";
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

/** Gives `engine` to the components below (`useEngine()` and every hook). */
export function BatonProvider(props: { engine: Engine; children?: ReactNode }): ReactNode;

/** The engine of the nearest `<BatonProvider>`; throws outside one. */
export function useEngine(): Engine;

/** A read's version as `useParticipant` takes it: the version, or the version with an origin (AG-27). */
export type ReadVersion = number | { version: number; origin?: Origin };

/**
 * Mounts a participant while the component is mounted, and unmounts it with the component; `null`
 * until mounted. The engine calls the component's latest `behaviour`, so it may close over state.
 * `versions` gives each read's version: when one changes, it is published (AG-20). The first change
 * committed while a call that changes state runs, or within 100 ms after its `invoke` returns, is
 * that call's, published with its actor (A.2); any other is the person's. (To say it yourself, call
 * `participant.publish(read, { version, actor })` from `invoke`; the hook publishing the same
 * version again changes nothing.) A manifest's problems are on the participant (`problems`), as with
 * `engine.register`. The manifest is compared by value: a new object with the same content does not
 * mount it again.
 */
export function useParticipant(
  manifest: Manifest | string,
  behaviour: Behaviour,
  versions?: Record<string, ReadVersion>,
): Participant | null;

/** What `useRun` gives: the run's state now, its review sheet while it waits for review, its revision. */
export interface RunView {
  id: RunId;
  state: RunState;
  review: ReviewSheet | null;
  revision: number;
}

/** A run's state, review sheet and revision, kept current; `null` without a run. */
export function useRun(run: Run | RunId | null | undefined): RunView | null;

/** The session's questions, kept current. */
export function useQuestions(): Question[];

/** What `usePresence` gives: the counters for a badge and the last thing said to the person. */
export interface PresenceView {
  counters: Counters;
  said: Said | null;
}

/**
 * Presence, kept current. The component is a presence surface while mounted, so an engine opened
 * with `presence: "require"` may act.
 */
export function usePresence(): PresenceView;

/** A default surface in JSX: its HTML attributes, and the engine it shows (set as a property, React 19). */
export type SurfaceProps<Element extends HTMLElement> = DetailedHTMLProps<HTMLAttributes<Element>, Element> & {
  engine?: Engine | null;
};

declare module "react" {
  namespace JSX {
    interface IntrinsicElements {
      "baton-presence": SurfaceProps<BatonPresence>;
      "baton-review": SurfaceProps<BatonReview>;
      "baton-question": SurfaceProps<BatonQuestion>;
    }
  }
}
