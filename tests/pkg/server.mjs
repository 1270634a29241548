// A tiny static file server for the package tests: serves the repository
// root on 127.0.0.1 at a free port, with the MIME types a browser insists on
// (`application/wasm` for streaming compilation, `text/javascript` for
// modules). No dependencies.
//
//   import { serve } from "./server.mjs";
//   const server = await serve();   // server.url = "http://127.0.0.1:<port>"
//   await server.close();
//
// Run directly (`node server.mjs`) it prints its URL and serves until stopped.

import { createServer } from "node:http";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { extname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: two levels above this file. */
export const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));

const types = {
  ".wasm": "application/wasm",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".ts": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

/** The content type of a file, by its extension. */
export function contentType(path) {
  return types[extname(path).toLowerCase()] ?? "application/octet-stream";
}

/** Maps a request path to a file under `base`, or null if it leaves it. */
function fileFor(base, pathname) {
  let decoded;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes("\0")) return null;
  const file = resolve(base, "." + decoded);
  return file === base || file.startsWith(base + sep) ? file : null;
}

/**
 * Starts serving `base` (the repository root by default). `headers` are
 * added to every file served (the bench isolates its pages with COOP/COEP,
 * which gives `performance.now()` microsecond resolution).
 */
export function serve({ base = root, port = 0, host = "127.0.0.1", headers = {} } = {}) {
  const server = createServer(async (request, response) => {
    const send = (status, text) => {
      response.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
      response.end(request.method === "HEAD" ? undefined : text);
    };
    if (request.method !== "GET" && request.method !== "HEAD") {
      return send(405, "method not allowed");
    }
    const { pathname } = new URL(request.url ?? "/", "http://localhost");
    let file = fileFor(base, pathname);
    if (file === null) return send(403, "forbidden");
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        file = resolve(file, "index.html");
        info = await stat(file);
      }
      response.writeHead(200, {
        "content-type": contentType(file),
        "content-length": info.size,
        "cache-control": "no-store",
        ...headers,
      });
      if (request.method === "HEAD") return response.end();
      createReadStream(file)
        .on("error", () => response.destroy())
        .pipe(response);
    } catch {
      send(404, `not found: ${pathname}`);
    }
  });
  return new Promise((resolveStart, rejectStart) => {
    server.once("error", rejectStart);
    server.listen(port, host, () => {
      const { port: bound } = server.address();
      resolveStart({
        url: `http://${host}:${bound}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { url } = await serve();
  console.log(`serving ${root} at ${url}`);
}
