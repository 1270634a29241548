// The hand-written declarations (pkg/baton.d.ts) against what the build
// produces. Every check is a type that is `true` only when the two sides
// agree; `tsc --noEmit` fails on the first `false`, naming it.
//
// - Every class the wasm-bindgen output declares has, in baton.d.ts, exactly
//   the same instance and static members (both ways: nothing missing, nothing
//   invented), `free` and `[Symbol.dispose]` aside.
// - `BatonErrorCode` is exactly the set of codes the built engine can throw
//   (its Rust `Code` enum, read from the wasm by emit-built.mjs): an unused
//   code or a missing one fails.

import type * as Built from "../../pkg/baton_engine.js";
import type * as Hand from "baton-engine";
import type { BuiltErrorCode } from "./built/codes.js";

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
