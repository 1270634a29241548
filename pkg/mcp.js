// MCP tool definitions and Baton manifests, both ways (`baton-engine/mcp`).
//
// MCP annotates tools with hints — `readOnlyHint`, `destructiveHint` (true
// unless said otherwise), `openWorldHint` (likewise) — that its own
// specification calls untrusted: a server may say anything. A hint that asks
// for more control (destructive, open world) is always taken. One that would
// lower the control the Delegation Contract requires (read-only, not
// destructive, closed world) is taken only from a source the app trusts
// (`trustAnnotations: true`); otherwise every tool is an irreversible,
// external act, and so always reviewed (AG-18, AG-25). What the contract
// refuses — a tool without a description (AG-14), arguments without byte
// limits (AG-16) — is left for `engine.register` to name, with its usual
// problems.

import { isExternalVerb } from "./rules.js";

/** An identifier the engine accepts: ASCII letters, digits, `-`, `_`, starting with a letter. */
function identifier(name) {
  const cleaned = String(name).toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^[^a-z]+/, "").slice(0, 64);
  return cleaned || "act";
}

/**
 * Each tool's capability name: its MCP name (up to 128 of `[A-Za-z0-9_.-]`)
 * as an identifier the engine accepts — `.` and anything else outside it as
 * `_`, starting with a letter — short enough that its wire name
 * (`participant__capability`) stays within model APIs' 64, and unique
 * among the tools (a second `a_b` is `a_b-2`). A name that already is one
 * stays as it is.
 */
function capabilityNames(tools, participant) {
  const room = Math.max(8, 64 - 2 - String(participant?.id ?? "").length);
  const taken = new Set();
  return tools.map((tool) => {
    const base = String(tool.name).replace(/[^A-Za-z0-9_-]/g, "_").replace(/^[^A-Za-z]+/, "").slice(0, room - 4) || "tool";
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    taken.add(name);
    return name;
  });
}

/**
 * The MCP name of the tool `manifestFromMcpTools(tools, participant)` made
 * the capability `capability` of: what to call on the MCP server when the
 * engine invokes it. `undefined` for a capability none of `tools` became.
 */
export function mcpToolName(tools, participant, capability) {
  const at = capabilityNames(tools, participant).indexOf(capability);
  return at < 0 ? undefined : tools[at].name;
}

/**
 * What an MCP tool becomes, as capability `name`: a query, or an act with
 * one effect. A tool that sends, publishes or notifies is an external act
 * whatever it claims (AG-18).
 */
function capabilityOf(tool, name, history, trusted) {
  const hints = tool.annotations ?? {};
  const capability = { name, arguments: tool.inputSchema ?? { type: "object" } };
  if (tool.description !== undefined) capability.description = tool.description;
  const sends = isExternalVerb(tool.name);
  if (trusted && !sends && hints.readOnlyHint === true) return { ...capability, readOnly: true, effects: [] };
  const destructive = trusted ? hints.destructiveHint !== false : true;
  const external = sends || (trusted ? hints.openWorldHint !== false : true);
  const reversible = !destructive && !external && history === "native";
  return { ...capability, effects: [{ name: identifier(tool.name), reversible, external }] };
}

/**
 * A Baton manifest for a participant whose capabilities are MCP tools.
 * `participant` names it (`id`, `label`, `description`) and says what the
 * app knows: its `history` (`"none"` by default: nothing can be undone), a
 * `defaultArgumentLimit` in bytes, and whether its tools' annotations come
 * from a source it trusts (`trustAnnotations`, `false` by default).
 */
export function manifestFromMcpTools(tools, participant) {
  const { id, label, description, history = "none", defaultArgumentLimit, trustAnnotations = false } = participant;
  const names = capabilityNames(tools, participant);
  const capabilities = tools.map((tool, at) => capabilityOf(tool, names[at], history, trustAnnotations === true));
  const acts = capabilities.filter((capability) => !capability.readOnly);
  const reversible = acts.every((capability) => capability.effects.every((effect) => effect.reversible && !effect.external));
  const tier = acts.length === 0 ? "reads-only" : reversible ? "reversible-acts" : "full-acts";
  const manifest = { id, label, description, tier, history, capabilities };
  if (defaultArgumentLimit !== undefined) manifest.defaultArgumentLimit = defaultArgumentLimit;
  return manifest;
}

/**
 * MCP tool definitions for a manifest's capabilities, named as the engine
 * names them on the wire (`participant__capability`), with annotations from
 * what the manifest declares: a query is read-only; an irreversible effect is
 * destructive; an external one, or one that sends, publishes or notifies, is
 * open-world.
 */
export function mcpToolsFromManifest(manifest) {
  return (manifest.capabilities ?? []).map((capability) => {
    const effects = capability.effects ?? [];
    const external = effects.some((effect) => effect.external === true || isExternalVerb(effect.name));
    const irreversible = external || effects.some((effect) => effect.reversible !== true);
    const readOnly = capability.readOnly === true;
    return {
      name: `${manifest.id}__${capability.name}`,
      title: `${manifest.label}: ${capability.name}`,
      description: capability.description,
      inputSchema: capability.arguments,
      annotations: {
        readOnlyHint: readOnly,
        destructiveHint: !readOnly && irreversible,
        idempotentHint: readOnly,
        openWorldHint: !readOnly && external,
      },
    };
  });
}
