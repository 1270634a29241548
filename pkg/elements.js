// Default surfaces of `baton-engine`, as framework-free custom elements:
//
//   import "baton-engine/elements";
//   document.querySelector("baton-presence").engine = engine;
//
// <baton-review> shows a plan's concrete changes (or an escalated call's)
// with Authorize / Reject. <baton-presence> shows the delegation cycle in text and in shape (never
// colour alone, AG-44): idle, planning, waiting for review, acting, needs you,
// and how the last run ended, each with its own words and its own shape. It
// has a badge of what needs the person, visible Stop and "Stop everything"
// controls (AG-42), and Undo for the run that ended last (A.2): when what that
// run changed was changed since, it says so and offers the choice — undo only
// the rest, undo everything anyway, or keep everything. Under
// prefers-reduced-motion it is shown static, never hidden (AG-43); under forced
// colours it uses system colours. It attaches to the engine as a presence
// surface (AG-35). It has no live region of its own — the engine's one region
// speaks — never moves focus, and builds its DOM without innerHTML (it runs
// under Trusted Types). Style it through the parts `status`, `shape`, `text`,
// `badge`, `stop`, `kill`, `undo`, `undo-choice`, `undo-note`, `undo-rest`,
// `undo-force`, `undo-keep`, and the custom properties `--baton-gap` and
// `--baton-shape-size`.

import { BatonPresence } from "./element-presence.js";
import { BatonQuestion } from "./element-question.js";
import { BatonReview } from "./element-review.js";

export { BatonPresence, BatonQuestion, BatonReview };

if (!customElements.get("baton-presence")) customElements.define("baton-presence", BatonPresence);
if (!customElements.get("baton-question")) customElements.define("baton-question", BatonQuestion);
if (!customElements.get("baton-review")) customElements.define("baton-review", BatonReview);
