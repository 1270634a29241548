// `baton-engine/mcp` type-checked against the official MCP SDK's own types:
// what the SDK calls a tool goes in, and what comes out is one. And
// `baton-engine/webmcp` as an app attaches it.

import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Manifest } from "baton-engine";
import { manifestFromMcpTools, mcpToolName, mcpToolsFromManifest } from "baton-engine/mcp";
import type { AnnotatedMcpTool, McpTool } from "baton-engine/mcp";
import { attachWebMcp } from "baton-engine/webmcp";
import type { WebMcpRefusal } from "baton-engine/webmcp";
import type { Engine, RunId } from "baton-engine";

declare const listed: Tool[];
declare const manifest: Manifest;

// An SDK tool list is accepted as it is.
const fromSdk: Manifest = manifestFromMcpTools(listed, { id: "files", label: "Files", description: "The files the server keeps.", defaultArgumentLimit: 4096 });
const trusted: Manifest = manifestFromMcpTools(listed, { id: "files", label: "Files", description: "The files the server keeps.", history: "native", trustAnnotations: true });

// The MCP name to call back, from an SDK tool list.
const callName: string | undefined = mcpToolName(listed, { id: "files" }, "files_read");
void callName;

// What comes out is an SDK tool, annotations included.
const tools: Tool[] = mcpToolsFromManifest(manifest);
const annotated: AnnotatedMcpTool[] = mcpToolsFromManifest(manifest);
const plain: McpTool[] = annotated;
const readOnly: boolean = annotated[0].annotations.readOnlyHint;

// And one SDK tool is one of ours.
const one: McpTool = listed[0];

void fromSdk;
void trusted;
void tools;
void plain;
void readOnly;
void one;

declare const engine: Engine;
const bridge = attachWebMcp(engine, { autonomy: "review", initiative: "user", idleMs: 10_000 });
if (bridge.attached) {
  const names: string[] = bridge.tools;
  const run: RunId | null = bridge.run;
  void names;
  void run;
} else {
  const reason: "no-model-context" = bridge.reason;
  void reason;
}
bridge.detach();
declare const refusal: WebMcpRefusal;
const code: string = refusal.structuredContent.code;
const words: string = refusal.content[0].text;
void words;
void code;
