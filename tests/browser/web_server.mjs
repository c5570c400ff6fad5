// web_server.mjs — a static file server for build/web/ (what `python3 -m http.server` does), for the page's
// tests (test_web.mjs) and benchmark (scripts/bench-web.mjs): plain files, the right types, and the
// cross-origin isolation headers only when asked (without them the page's coi-serviceworker provides it).
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript",
                ".css": "text/css", ".wasm": "application/wasm", ".data": "application/octet-stream",
                ".txt": "text/plain; charset=utf-8", ".svg": "image/svg+xml" };

// serve(dir, {isolate}) -> {url, close(), bytes()}: bytes() counts what was sent, by file.
export function serve(dir, { isolate = false } = {}) {
  const sent = new Map();
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    const file = join(dir, path.endsWith("/") ? path + "index.html" : path);
    try {
      const body = await readFile(file);
      const headers = { "Content-Type": TYPES[extname(file)] || "application/octet-stream" };
      if (isolate) Object.assign(headers, { "Cross-Origin-Opener-Policy": "same-origin",
                                            "Cross-Origin-Embedder-Policy": "require-corp" });
      res.writeHead(200, headers);
      res.end(body);
      sent.set(path, body.length);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close(), sent });
    });
  });
}
