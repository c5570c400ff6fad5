// bench_web.mjs — the browser page's budgets (page weight, time to the first prompt, lesson 01 against native, the MHA
// benchmark's products), run by scripts/bench-web.sh; ratios, no assertions:
//   page weight: build/web/'s files gzip-compressed, against 4 MB
//   first prompt: from navigation to attn's prompt in headless Chromium (median of 5), against 1.5 s; served
//                 with the isolation headers (what a configured host sends) and without (coi-serviceworker
//                 registers and reloads once, the first visit only)
//   lesson 01 --check on the page, against ./attn --check natively in the same run (budget 3×): timed in the
//                 page, from the button's click to the prompt (Playwright's own round trips of a click and a
//                 wait, tens of ms, are not the page's); the first check after loading apart (the module's
//                 code not yet tiered up by the engine), then the median of the next ones
//                 and against one more check in the same ./attn --check (no process start: the page's work)
//   node build/wasm/attn.js --check lesson 01 against ./attn (the same wasm code without the page)
//   the MHA benchmark's product (tests/bench/bench.c: nn.Linear's x·Wᵀ, [8192,768]·[768,768]ᵀ) typed at the
//                 page's prompt, against ./attn's rate on 1 thread (the page has one) and on its default threads
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
// one more check in the same process: what a check costs natively without the process's start (each lesson
// of --check has a Lua state of its own, as each check on the page)
const again = 4;
const nativeEachMs = (time(join(root, "attn"), ["--check", ...Array(1 + again).fill(lesson)]) - nativeMs) / again;
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
await page.waitForSelector("#lesson-list li:first-child button.check");
// one check, timed in the page: the click, then the prompt back (body's data-state, page.js's prompt())
const checkOnce = () => page.evaluate(() => new Promise((done) => {
  const t0 = performance.now();
  const seen = new MutationObserver(() => {
    if (document.body.dataset.state !== "prompt") return;
    seen.disconnect();
    done(performance.now() - t0);
  });
  seen.observe(document.body, { attributes: true, attributeFilter: ["data-state"] });
  document.querySelector("#lesson-list li:first-child button.check").click();
}));
const firstMs = await checkOnce();
const pageTimes = [];
for (let i = 0; i < 5; i++) pageTimes.push(await checkOnce());
const pageMs = median(pageTimes);

// the MHA benchmark's product: natively, ./attn -e with CALLS products and with none, the difference per call
// (wall time, as the page's); on the page, the same chunk typed at the prompt (worker.js's eval), timed in the page
const CALLS = 3;
const setup = "torch.set_grad_enabled(false) torch.manual_seed(123) " +
              "mha_x, mha_wt = torch.rand(8192, 768), torch.rand(768, 768):t()";
const products = (n) => `for i = 1, ${n} do local y = mha_x:matmul(mha_wt) end`;
const gflop = 2 * 8192 * 768 * 768 / 1e9;
function nativeProductMs(threads) {
  const set = `torch.set_num_threads(${threads}) ${setup}`;
  const none = time(join(root, "attn"), ["-e", set], 5);
  const some = time(join(root, "attn"), ["-e", `${set} ${products(CALLS)}`], 5);
  return Math.max(some - none, 0) / CALLS;
}
const nativeThreads = Number(spawnSync(join(root, "attn"), ["-e", "io.write(torch.get_num_threads())"]).stdout);
const native1Ms = nativeProductMs(1), nativeNMs = nativeProductMs(nativeThreads);
const evalMs = (chunk) => page.evaluate((chunk) => new Promise((done) => {
  const t0 = performance.now();
  const heard = (e) => {
    if (e.data.type !== "done" || e.data.what !== "eval") return;
    worker.removeEventListener("message", heard);
    done(performance.now() - t0);
  };
  worker.addEventListener("message", heard);
  worker.postMessage({ type: "eval", chunk });
}), chunk);
await evalMs(setup);
await evalMs(products(1)); // the product's code tiered up by the engine, as a user's second product finds it
const productTimes = [];
for (let i = 0; i < 3; i++) productTimes.push((await evalMs(products(CALLS)) - await evalMs(products(0))) / CALLS);
const pageProductMs = median(productTimes);
await browser.close();
server.close();
console.log(`lesson 01 --check: native ${fmt(nativeMs)} ms; on the page ${fmt(pageMs)} ms = ${fmt(pageMs / nativeMs)} × native ` +
            `(budget 3×: ${pageMs <= 3 * nativeMs ? "met" : "not met"}); the first check after loading ${fmt(firstMs)} ms = ` +
            `${fmt(firstMs / nativeMs)} ×; natively one more check in the same process ${fmt(nativeEachMs)} ms, the page ` +
            `${fmt(pageMs / nativeEachMs)} × that; node build/wasm/attn.js ${fmt(nodeMs)} ms = ` +
            `${fmt(nodeMs / nativeMs)} × (node's start included)`);
const rate = (ms) => `${fmt(gflop / ms * 1e3)} GFLOP/s`;
console.log(`MHA product [8192,768]·[768,768]ᵀ: on the page ${fmt(pageProductMs)} ms (${rate(pageProductMs)}); ` +
            `./attn on 1 thread ${fmt(native1Ms)} ms (${rate(native1Ms)}), the page at ${fmt(native1Ms / pageProductMs)} × its rate; ` +
            `on ${nativeThreads} threads ${fmt(nativeNMs)} ms (${rate(nativeNMs)}), the page at ${fmt(nativeNMs / pageProductMs)} ×`);
