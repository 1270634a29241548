// The Svelte app's entry: the engine opened, the app mounted with it.
import init, { Engine, ScriptedTransport, type WireEvent } from "baton-engine";
import "baton-engine/elements";
import { mount } from "svelte";
import { version } from "svelte/package.json";
import App from "./App.svelte";

await init();
// The acting party, scripted: asked to tidy the board, it asks which column.
const at = (event: WireEvent) => ({ atMs: 0, event });
const transport = new ScriptedTransport({
  protocol: "baton/1",
  turns: [
    {
      events: [
        at({ type: "turn-started" }),
        at({ type: "elicitation", request: "q1", prompt: "Which column?", schema: { enum: ["todo", "done"] } }),
        at({ type: "turn-finished", outcome: "interrupted" }),
      ],
    },
    { events: [at({ type: "turn-started" }), at({ type: "turn-finished", outcome: "completed" })] },
  ],
});
const engine = await Engine.open({ appName: "Svelte app", transport });
Object.assign(window, { app: { engine, framework: `svelte ${version}` } });
mount(App, { target: document.getElementById("root")!, props: { engine } });
document.documentElement.dataset.ready = "true";
