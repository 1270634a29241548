// `baton-engine/mcp` type-checked against the official MCP SDK's own types:
// what the SDK calls a tool goes in, and what comes out is one.

import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Manifest } from "baton-engine";
import { manifestFromMcpTools, mcpToolsFromManifest } from "baton-engine/mcp";
import type { AnnotatedMcpTool, McpTool } from "baton-engine/mcp";

declare const listed: Tool[];
declare const manifest: Manifest;

// An SDK tool list is accepted as it is.
const fromSdk: Manifest = manifestFromMcpTools(listed, { id: "files", label: "Files", description: "The files the server keeps.", defaultArgumentLimit: 4096 });
const trusted: Manifest = manifestFromMcpTools(listed, { id: "files", label: "Files", description: "The files the server keeps.", history: "native", trustAnnotations: true });

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
