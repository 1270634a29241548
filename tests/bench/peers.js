// The peers an app would otherwise use, bundled for the bench page by
// esbuild (`cargo xtask bench`): Ajv 8 with formats, Dexie 4 and the AG-UI
// client 1.0.
export { default as Ajv } from "ajv/dist/2020.js";
export { default as addFormats } from "ajv-formats";
export { Dexie } from "dexie";
export { HttpAgent } from "@ag-ui/client";
