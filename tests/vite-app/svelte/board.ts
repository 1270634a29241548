// The task board's manifest and state, shared by the Svelte app's components.
import type { Manifest } from "baton-engine";

export const manifest: Manifest = {
  id: "tasks",
  label: "Task board",
  description: "The team's task board: cards with titles.",
  tier: "reversible-acts",
  history: "native",
  reads: [{ name: "board", description: "The cards and their titles.", origin: "author" }],
  capabilities: [
    {
      name: "rename",
      description: "Give one card a new title.",
      arguments: {
        type: "object",
        required: ["id", "title"],
        additionalProperties: false,
        properties: { id: { type: "string" }, title: { type: "string", minLength: 1 } },
      },
      argumentLimits: { id: 16, title: 120 },
      effects: [{ name: "retitle", reversible: true }],
      reads: ["board"],
    },
  ],
};

export interface Board {
  version: number;
  titles: Record<string, string>;
}
