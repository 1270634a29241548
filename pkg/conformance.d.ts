// Type declarations of `baton-engine/conformance`: the portable protocol
// fixture kit's JS runner. The fixture format and the observation are
// documented in the kit's README (crates/baton-conformance/README.md).

import type { Requirement } from "./baton.js";

/** One fixture, as the kit's JSON files write it (format `baton-conformance/1`). */
export interface Fixture {
  format: "baton-conformance/1";
  id: string;
  title: string;
  proves: Requirement[];
  rules?: string[];
  /** `page`: only a subject that observes its page can play it. */
  observer?: "page";
  engine?: Record<string, unknown>;
  participants?: { manifest: unknown; instance?: string; behaviour?: Record<string, unknown> }[];
  steps: Record<string, unknown>[];
}

/** What a fixture sets up: engine settings that differ from the defaults, and participants to mount. */
export interface SubjectSetup {
  engine: Record<string, unknown>;
  participants: NonNullable<Fixture["participants"]>;
}

/**
 * An engine under test, behind a small adapter. `command` throws an error
 * carrying the engine's stable `code` when the engine refuses; `observe`
 * returns the observation the kit's README documents.
 */
export interface ConformanceSubject {
  start(setup: SubjectSetup): void | Promise<void>;
  command(command: Record<string, unknown>): void | Promise<void>;
  observe(): unknown | Promise<unknown>;
  close?(): void | Promise<void>;
}

/** A fixture that did not hold: its requirement first. */
export interface ConformanceFailure {
  ag: Requirement;
  fixture: string;
  /** The step, counting from 1 (0: the subject did not start). */
  step: number;
  /** A JSON Pointer into the observation, or a command's verb. */
  what: string;
  expected: string;
  observed: string;
}

/** How one fixture went. */
export interface FixtureReport {
  fixture: string;
  proves: Requirement[];
  failure: ConformanceFailure | null;
  /** Skipped: it needs a page the subject does not observe. */
  skipped: boolean;
}

/** How the kit went. */
export interface ConformanceReport {
  fixtures: FixtureReport[];
  failures: ConformanceFailure[];
  /** How many fixtures were played (not skipped). */
  played: number;
  /** At least one fixture played and none failed: a kit that played nothing does not pass. */
  passed: boolean;
}

/** The fixtures shipped with the package. */
export function loadFixtures(): Promise<Fixture[]>;
/** Plays one fixture against a subject; stops at its first failure. */
export function runFixture(fixture: Fixture, subject: ConformanceSubject): Promise<FixtureReport>;
/** Plays every fixture (the package's own unless given) against a fresh subject from the factory. */
export function runConformance(
  subjectFactory: () => ConformanceSubject | Promise<ConformanceSubject>,
  options?: { fixtures?: Fixture[] },
): Promise<ConformanceReport>;
/** One line per failure, leading with its AG-n, then a summary line. */
export function formatConformanceReport(report: ConformanceReport): string;
