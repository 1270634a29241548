// The package's declarations (pkg/baton.d.ts, with the data types it
// re-exports from the generated pkg/data.d.ts) against what the build
// produces. Every check is a type that is `true` only when the two sides
// agree; `tsc --noEmit` fails on the first `false`, naming it.
//
// - Every class the wasm-bindgen output declares has, in baton.d.ts, exactly
//   the same instance and static members (both ways: nothing missing, nothing
//   invented), `free` and `[Symbol.dispose]` aside.
// - `BatonErrorCode` is exactly the set of codes the built engine can throw
//   (its Rust `Code` enum, read from the wasm by emit-built.mjs): an unused
//   code or a missing one fails.
// - Every serialised shape the Rust side emits (journal records, events,
//   effects, run states and every reason, from crates/baton-core/tests/
//   shapes.rs) is assignable to its declared type, and every declared variant
//   has a sample: the tags of the two sides are the same set.

import type * as Built from "../../pkg/baton_engine.js";
import type * as Hand from "baton-engine";
import type { BuiltErrorCode } from "./built/codes.js";
import { shapes } from "./built/shapes.js";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Members<T> = Exclude<keyof T, "free" | typeof Symbol.dispose>;
type Statics<T> = Exclude<keyof T, "prototype">;

/** `true`, or a compile error that names what differs. */
function agree<Check extends true>(_check: Check): void {}

// Instance members, both ways.
agree<Same<Members<Built.Engine>, Members<Hand.Engine>>>(true);
agree<Same<Members<Built.Participant>, Members<Hand.Participant>>>(true);
agree<Same<Members<Built.Schema>, Members<Hand.Schema>>>(true);
agree<Same<Members<Built.ScriptedTransport>, Members<Hand.ScriptedTransport>>>(true);
agree<Same<Members<Built.AgUiTransport>, Members<Hand.AgUiTransport>>>(true);
agree<Same<Members<Built.TurnSink>, Members<Hand.TurnSink>>>(true);

// Static members (constructors aside), both ways.
agree<Same<Statics<typeof Built.Engine>, Statics<typeof Hand.Engine>>>(true);
agree<Same<Statics<typeof Built.Schema>, Statics<typeof Hand.Schema>>>(true);

// Error codes, both ways.
agree<Same<BuiltErrorCode, Hand.BatonErrorCode>>(true);

// ----- serialised shapes -------------------------------------------------------

type DeepMutable<T> = T extends readonly (infer Item)[]
  ? DeepMutable<Item>[]
  : T extends object
    ? { -readonly [Key in keyof T]: DeepMutable<T[Key]> }
    : T;
/** Compiles only if the sample is assignable to the declared type. */
function assignable<Declared>(_sample: Declared): void {}
function mutable<T>(value: T): DeepMutable<T> {
  return value as DeepMutable<T>;
}

type Sample<Key extends keyof typeof shapes> = (typeof shapes)[Key][number];

// Rust → TS: every sample is what the declarations say.
assignable<Hand.JournalRecord[]>(mutable(shapes.journal));
assignable<Hand.CoreEvent[]>(mutable(shapes.events));
assignable<Hand.RunState[]>(mutable(shapes.runStates));
assignable<Hand.ReturnReason[]>(mutable(shapes.returnReasons));
assignable<Hand.EscalationReason[]>(mutable(shapes.escalationReasons));
assignable<Hand.Refusal[]>(mutable(shapes.refusals));
assignable<Hand.AnswerOutcome[]>(mutable(shapes.answerOutcomes));
assignable<Hand.FindingReason[]>(mutable(shapes.findingReasons));
assignable<Hand.RunsPage[]>(mutable(shapes.runsPages));

// TS → Rust: every declared variant has a sample, and nothing else does.
agree<Same<Hand.JournalEntry["kind"], Sample<"journal">["entry"]["kind"]>>(true);
agree<Same<Hand.CoreEvent["type"], Sample<"events">["type"]>>(true);
agree<Same<Hand.Effect["kind"], Extract<Sample<"events">, { type: "effect" }>["kind"]>>(true);
agree<Same<Hand.RunState["state"], Sample<"runStates">["state"]>>(true);
agree<Same<Hand.ReturnReason["kind"], Sample<"returnReasons">["kind"]>>(true);
agree<Same<Hand.EscalationReason["kind"], Sample<"escalationReasons">["kind"]>>(true);
agree<Same<Hand.Refusal["code"], Sample<"refusals">["code"]>>(true);
agree<Same<Hand.AnswerOutcome["kind"], Sample<"answerOutcomes">["kind"]>>(true);
agree<Same<Hand.FindingReason["kind"], Sample<"findingReasons">["kind"]>>(true);
agree<Same<Hand.ProtocolViolation, Sample<"protocolViolations">>>(true);
agree<Same<Hand.ReportRefusal, Sample<"reportRefusals">>>(true);
