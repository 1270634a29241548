// Builds a scratch app the way an app team does: the npm package
// `baton-engine` packed as it would be published (`npm pack` of pkg/, so only
// the files its `files` list ships), installed into a copy of the app's
// sources in a temporary directory, built with Vite's defaults (no config
// file, as the package should need none) and served with `vite preview`.
// Shared by vite-app.test.mjs and react-app.test.mjs.

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build, createLogger, preview } from "vite";

const exec = promisify(execFile);
const here = fileURLToPath(new URL(".", import.meta.url));
const pkg = fileURLToPath(new URL("../../pkg/", import.meta.url));

/**
 * Copies the package this directory installed as `source` (`react-18`, an
 * alias) into `modules` as `name`, with the packages it depends on, as an
 * install would lay them out — so the app's install needs no registry.
 */
async function copyPackage(modules, name, source, from = join(here, "node_modules")) {
  const target = join(modules, name);
  if (existsSync(target)) return;
  const dir = join(from, source);
  await cp(dir, target, { recursive: true, dereference: true });
  const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    // Its own nested copy when the versions differ, else the hoisted one.
    const nested = join(dir, "node_modules");
    const base = existsSync(join(nested, dependency)) ? nested : join(here, "node_modules");
    await copyPackage(modules, dependency, dependency, base);
  }
}

/**
 * Builds and serves the app whose `sources` are in `from` (relative to this
 * directory), depending on the packed tarball and on `packages` (name → the
 * name this directory installed it under, e.g. `{ react: "react-18" }`),
 * copied from this directory's node_modules: nothing comes from a registry.
 * Returns the app's directory, its URL, the server, what Vite said at level
 * warn or above, and `close()`.
 */
export async function buildApp({ from = ".", sources, packages = {}, tools = [] }) {
  for (const file of ["baton_engine_bg.wasm", "baton.js"]) {
    if (!existsSync(join(pkg, file))) {
      throw new Error(`pkg/${file} is missing: build the package first (cargo xtask pkg)`);
    }
  }
  // Outside the repository, so nothing up the tree (a workspace, another
  // node_modules) can stand in for the installed tarball.
  const temp = await mkdtemp(join(tmpdir(), "baton-vite-app-"));
  const packed = await exec("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", temp], { cwd: pkg });
  const [{ filename }] = JSON.parse(packed.stdout);

  const app = join(temp, "app");
  await mkdir(app);
  for (const file of sources) await copyFile(join(here, from, file), join(app, file));
  const manifest = { name: "baton-scratch-app", private: true, type: "module" };
  manifest.dependencies = { "baton-engine": `file:../${filename}` };
  await writeFile(join(app, "package.json"), JSON.stringify(manifest, null, 2));
  await exec("npm", ["install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: app });
  // After the install, which would prune what it did not put there.
  for (const [name, source] of Object.entries(packages)) await copyPackage(join(app, "node_modules"), name, source);
  // The app's build tools (a framework's Vite plugin), linked to this
  // directory's: they run in the build, with the Vite this test drives,
  // and ship nothing into the app.
  for (const name of tools) {
    const link = join(app, "node_modules", name);
    await mkdir(dirname(link), { recursive: true });
    await symlink(join(here, "node_modules", name), link, "dir");
  }

  const said = [];
  const customLogger = createLogger("warn");
  customLogger.warn = (message) => said.push(`warn: ${message}`);
  customLogger.warnOnce = customLogger.warn;
  customLogger.error = (message) => said.push(`error: ${message}`);
  await build({ root: app, logLevel: "warn", customLogger });
  const server = await preview({
    root: app,
    logLevel: "warn",
    customLogger,
    preview: { host: "127.0.0.1", port: 0, strictPort: true, open: false },
  });
  return {
    app,
    server,
    said,
    url: server.resolvedUrls.local[0],
    async close() {
      await server.close();
      await rm(temp, { recursive: true, force: true });
    },
  };
}
