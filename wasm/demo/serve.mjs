// A small static server for the demo and the browser test, on 127.0.0.1:
// serves the repository's wasm/demo, wasm/pkg and tests/fixtures folders
// and nothing else. `node wasm/demo/serve.mjs [PORT]` prints the demo's URL.
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SERVED = ["/wasm/demo/", "/wasm/pkg/", "/tests/fixtures/"];
const TYPES = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".css": "text/css",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".ts": "text/plain",
};

/** Starts the server on `port` (0: any free one); resolves to { url, close }. */
export function serve(port = 0) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (path === "/") {
      res.writeHead(302, { location: "/wasm/demo/" });
      res.end();
      return;
    }
    const file = path.endsWith("/") ? path + "index.html" : path;
    if (!SERVED.some((p) => file.startsWith(p))) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(join(ROOT, file));
      res.writeHead(200, {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${server.address().port}`;
      resolve({ url, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { url } = await serve(Number(process.argv[2] ?? 8000));
  console.log(`${url}/wasm/demo/  (build the package first: wasm/build.sh)`);
}
