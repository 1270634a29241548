// The Svelte app's own build configuration: Svelte's Vite plugin, as any
// Svelte app has it. baton-engine needs nothing of its own here.
import { svelte } from "@sveltejs/vite-plugin-svelte";

export default { plugins: [svelte()] };
