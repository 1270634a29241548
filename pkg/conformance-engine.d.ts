// Type declarations of `baton-engine/conformance/engine`: the package's own
// conformance subject, the JS engine behind the kit's subject interface.

import type { ConformanceSubject } from "./conformance.js";

/**
 * A conformance subject for the JS engine of the `baton-engine` module given
 * (after its `default()` init). Time is virtual while it runs: `Date.now`
 * and the page's timers are its own until `close()`.
 */
export function createEngineSubject(baton: typeof import("./baton.js")): ConformanceSubject & { close(): Promise<void> };
