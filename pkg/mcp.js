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
 * What an MCP tool becomes: a query, or an act with one effect. A tool that
 * sends, publishes or notifies is an external act whatever it claims (AG-18).
 */
function capabilityOf(tool, history, trusted) {
  const hints = tool.annotations ?? {};
  const capability = { name: tool.name, arguments: tool.inputSchema ?? { type: "object" } };
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
  const capabilities = tools.map((tool) => capabilityOf(tool, history, trustAnnotations === true));
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
