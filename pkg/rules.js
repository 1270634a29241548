// Generated from baton-core's rules by `crates/baton-core/tests/js_rules.rs`;
// do not edit. Change the core's constants and run
// `BATON_WRITE_RULES=1 cargo test -p baton-core --test js_rules`.

/** Verbs that make an effect external whatever is declared (AG-18): an
effect named for one (in any ASCII case), alone or followed by one of
`EXTERNAL_VERB_ENDS`, sends, publishes or notifies. */
export const EXTERNAL_VERBS = ["send", "publish", "notify"];

/** What may follow an external verb in an effect's name. */
export const EXTERNAL_VERB_ENDS = ["-", "_", ".", " "];

/** Whether an effect's name makes it external, as the engine judges it. */
export function isExternalVerb(name) {
  const lower = String(name).replace(/[A-Z]/g, (c) => c.toLowerCase());
  return EXTERNAL_VERBS.some((verb) => lower === verb || (lower.startsWith(verb) && EXTERNAL_VERB_ENDS.includes(lower[verb.length])));
}
