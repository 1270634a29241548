// Type declarations of `baton-engine/mcp`: MCP tool definitions and Baton manifests, both ways.

import type { Manifest } from "./baton.js";

/** An MCP tool's input schema: a JSON Schema object with an object root. */
export interface McpInputSchema {
  type: "object";
  properties?: { [property: string]: object };
  required?: string[];
  [keyword: string]: unknown;
}

/** An MCP tool definition, as the MCP specification and SDK shape it (the fields Baton reads and writes). */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: McpInputSchema;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** An MCP tool definition written from a manifest: every annotation set. */
export interface AnnotatedMcpTool extends McpTool {
  title: string;
  description: string;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
}

/** The participant MCP tools are mounted as, and what the app knows of them. */
export interface McpParticipant {
  /** The participant's id: the first part of its tool names. */
  id: string;
  /** A label for people. */
  label: string;
  /** What it is, for the acting party (AG-14). */
  description: string;
  /** Whether the app keeps a history that can undo what the tools do; `"none"` by default. */
  history?: "native" | "none";
  /** The byte limit of arguments without one of their own (AG-16); MCP declares none. */
  defaultArgumentLimit?: number;
  /**
   * Whether the tools' annotations come from a source the app trusts. Without it (the default),
   * a hint that would lower the control the contract requires — read-only, not destructive,
   * closed world — is ignored: every tool is an irreversible, external act, always reviewed.
   */
  trustAnnotations?: boolean;
}

/**
 * A Baton manifest for a participant whose capabilities are MCP tools: `readOnlyHint` → a
 * capability that changes nothing; `destructiveHint` (true unless said otherwise) → an
 * irreversible effect; `openWorldHint` → an external effect. What the contract refuses (a missing
 * description, AG-14; arguments without limits, AG-16) is named by `engine.register`.
 */
export function manifestFromMcpTools(tools: readonly McpTool[], participant: McpParticipant): Manifest;

/**
 * The MCP name of the tool that became capability `capability` in
 * `manifestFromMcpTools(tools, participant)` — a tool's name is made an identifier the engine
 * accepts (`files.read` → `files_read`), short enough for its wire name and unique among the
 * tools — or `undefined`: what to call on the MCP server when the engine invokes it.
 */
export function mcpToolName(tools: readonly McpTool[], participant: Pick<McpParticipant, "id">, capability: string): string | undefined;

/** MCP tool definitions for a manifest's capabilities (`participant__capability`), annotated from what it declares. */
export function mcpToolsFromManifest(manifest: Manifest): AnnotatedMcpTool[];
