// bench_web.mjs — the browser page's budgets (page weight, time to the first prompt, lesson 01 against native), run by scripts/bench-web.sh; ratios, no assertions:
//   page weight: build/web/'s files gzip-compressed, against 4 MB
//   first prompt: from navigation to attn's prompt in headless Chromium (median of 5), against 1.5 s; served
//                 with the isolation headers (what a configured host sends) and without (coi-serviceworker
//                 registers and reloads once, the first visit only)
//   lesson 01 --check on the page, against ./attn --check natively in the same run (budget 3×)
//   node build/wasm/attn.js --check lesson 01 against ./attn (the same wasm code without the page)
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { launch } from "../browser/browser.mjs";
import { serve } from "../browser/web_server.mjs";

const root = resolve(new URL(".", import.meta.url).pathname, "../..");
const web = join(root, "build/web");
const chromium = process.argv[2] || "/usr/bin/chromium";
const lesson = "lessons/01_simple_attention.lua";
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x) => x.toFixed(2);

let total = 0;
for (const f of readdirSync(web)) total += gzipSync(readFileSync(join(web, f)), { level: 9 }).length;
console.log(`page weight, gzip -9: ${fmt(total / 1e6)} MB = ${fmt(total / 4e6)} × the 4 MB budget ${total <= 4e6 ? "(met)" : "(not met)"}`);

function time(cmd, args, n = 5) {
  const ts = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    spawnSync(cmd, args, { cwd: root, env: { ...process.env, NO_COLOR: "1" } });
    ts.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(ts);
}
const nativeMs = time(join(root, "attn"), ["--check", lesson]);
const nodeMs = time("node", [join(root, "build/wasm/attn.js"), "--check", lesson], 3);

const browser = await launch(chromium);
for (const isolate of [true, false]) {
  const server = await serve(web, { isolate });
  const ts = [];
  for (let i = 0; i < 5; i++) {
    const context = await browser.newContext(); // a first visit each time
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(server.url);
    await page.waitForSelector("body[data-state=prompt]", { timeout: 120000 });
    ts.push(Date.now() - t0);
    await context.close();
  }
  const m = median(ts);
  console.log(`first prompt, ${isolate ? "isolation headers" : "plain static host (service worker reload)"}: ` +
              `${m} ms = ${fmt(m / 1500)} × the 1.5 s budget ${m <= 1500 ? "(met)" : "(not met)"}`);
  server.close();
}
const server = await serve(web, { isolate: true });
const context = await browser.newContext();
const page = await context.newPage();
await page.goto(server.url);
await page.waitForSelector("body[data-state=prompt]", { timeout: 120000 });
const pageTimes = [];
for (let i = 0; i < 3; i++) {
  const t0 = Date.now();
  await page.click("#lesson-list li:first-child button.check");
  await page.waitForSelector("body[data-state=busy]").catch(() => {});
  await page.waitForSelector("body[data-state=prompt]", { timeout: 300000 });
  pageTimes.push(Date.now() - t0);
}
const pageMs = median(pageTimes);
await browser.close();
server.close();
console.log(`lesson 01 --check: native ${fmt(nativeMs)} ms; on the page ${pageMs} ms = ${fmt(pageMs / nativeMs)} × native ` +
            `(budget 3×: ${pageMs <= 3 * nativeMs ? "met" : "not met"}); node build/wasm/attn.js ${fmt(nodeMs)} ms = ` +
            `${fmt(nodeMs / nativeMs)} × (node's start included)`);
