// The default surfaces as Svelte's type checker meets them: custom elements
// whose `engine` property Svelte sets.
import type { Engine } from "baton-engine";
import type { HTMLAttributes } from "svelte/elements";

declare module "svelte/elements" {
  export interface SvelteHTMLElements {
    "baton-presence": HTMLAttributes<HTMLElement> & { engine?: Engine | null };
    "baton-review": HTMLAttributes<HTMLElement> & { engine?: Engine | null };
  }
}
export {};
