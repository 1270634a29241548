// Type declarations of `baton-engine/webmcp`: a page's capabilities as WebMCP tools, each call inside a Baton run.

import type { Autonomy, Budget, Engine, Initiative, RunId } from "./baton.js";

/** The part of `document.modelContext` the bridge uses (Chromium's WebMCP, or a polyfill). */
export interface ModelContext {
  registerTool(
    tool: {
      name: string;
      title?: string;
      description: string;
      inputSchema: object;
      annotations?: { readOnlyHint?: boolean; consequentialHint?: boolean; untrustedContentHint?: boolean };
      execute(input: unknown, client?: unknown): Promise<unknown>;
    },
    options?: { signal?: AbortSignal },
  ): unknown;
}

/** Options of `attachWebMcp`. */
export interface WebMcpOptions {
  /** Where tools are registered; `document.modelContext` by default (a polyfill such as `@mcp-b/webmcp-polyfill` otherwise). */
  modelContext?: ModelContext;
  /** The most autonomy the browser agent gets; `review` by default; an irreversible call is always reviewed. */
  autonomy?: Autonomy;
  /** Why its runs exist: `system` by default (AG-26 clamps); `user` when the person started the agent. */
  initiative?: Initiative;
  /** The intent its runs carry, in what the person hears. */
  intent?: string;
  /** Each session's budget; the engine's default otherwise. */
  budget?: Budget;
  /** How long the agent may stay silent before its session (its run) ends; 30 s by default. */
  idleMs?: number;
}

/**
 * What a call the engine did not carry out gives the agent — typed, never a hang: MCP's
 * `CallToolResult` for a tool error, Baton's refusal in `structuredContent`.
 */
export interface WebMcpRefusal {
  content: [{ type: "text"; text: string }];
  isError: true;
  structuredContent: {
    /** `invalid-arguments`, `denied`, `stale`, `declined`, `run-ended`, `cancelled`, `detached`, … */
    code: string;
    message: string;
    details?: object;
  };
}

/** The bridge, attached. */
export interface WebMcpBridge {
  readonly attached: true;
  /** The WebMCP names of the tools registered now. */
  readonly tools: string[];
  /** The agent's session run, while it lasts (then the last one): `engine.undo(run)` reverts it in one step. */
  readonly run: RunId | null;
  /** Unregisters every tool and stops the session's run; nothing is left waiting. */
  detach(): void;
}

/** Without a model context: nothing registered, and why. */
export interface WebMcpNotAttached {
  readonly attached: false;
  readonly reason: "no-model-context";
  readonly tools: [];
  readonly run: null;
  detach(): void;
}

/**
 * Registers every capability of `engine` as a WebMCP tool (following participants as they come and
 * go; annotations from the manifests: `readOnlyHint`, `consequentialHint`, `untrustedContentHint`)
 * and runs every call of the browser agent inside a Baton run: validated first, reviewed when
 * autonomy requires (irreversible always), settled with the result or a `WebMcpRefusal`.
 */
export function attachWebMcp(engine: Engine, options?: WebMcpOptions): WebMcpBridge | WebMcpNotAttached;
