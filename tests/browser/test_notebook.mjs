// test_notebook.mjs — a lesson's notebook (attn --ipynb) in the classic Jupyter Notebook (Debian's
// jupyter-notebook) in Debian's headless Chromium, driven by playwright-core: the notebook opens with
// the attn kernel, Cell > Run All runs every cell without an error, and the heatmaps arrive as SVG in
// the page (the outputs are cleared before, so they can only come from this run). A screenshot of the
// first heatmap goes to build/test-logs/notebook-heatmap.png. Each check is a node:test test (tests/run.sh
// asks for TAP). Run through tests/jupyter/with_kernel.sh (JUPYTER_PATH names the kernelspec of the attn
// under test):
//   node --test-reporter=tap tests/browser/test_notebook.mjs ATTN CHROMIUM [LESSON]
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { test } from "node:test";
import { launch } from "./browser.mjs";

const attn = resolve(process.argv[2] || "./attn");
const browserPath = process.argv[3] || "/usr/bin/chromium";
const lesson = process.argv[4] || "lessons/09_bahdanau_luong.lua";
const logs = resolve("build/test-logs");

const dir = mkdtempSync(join(tmpdir(), "attn-nb-"));
const name = basename(lesson, ".lua");
const nbPath = join(dir, `${name}.ipynb`);
const made = spawnSync(attn, ["--ipynb", nbPath, lesson], { encoding: "utf8" });
await test(`attn --ipynb writes ${name}.ipynb`, () => assert.equal(made.status, 0, made.stderr));
// the outputs cleared: what the page shows after Run All is this run's
const nb = JSON.parse(readFileSync(nbPath, "utf8"));
const expectedSvgs = nb.cells.flatMap((c) => c.outputs || []).filter((o) => o.data && o.data["image/svg+xml"]).length;
for (const c of nb.cells) if (c.cell_type === "code") { c.outputs = []; c.execution_count = null; }
writeFileSync(nbPath, JSON.stringify(nb));

const token = "attn-test-" + process.pid;
const port = 18000 + (process.pid % 2000);
const server = spawn("/usr/bin/jupyter-notebook", ["--no-browser", `--port=${port}`, "--port-retries=50", "--ip=127.0.0.1",
  `--NotebookApp.token=${token}`, `--notebook-dir=${dir}`, "--NotebookApp.open_browser=False",
  ...(process.getuid() === 0 ? ["--allow-root"] : [])],  // the server refuses root (a container) without it
  { stdio: ["ignore", "pipe", "pipe"], env: process.env });
let serverLog = "";
const url = await new Promise((res) => {
  const timer = setTimeout(() => res(null), 60000);
  const look = (d) => {
    serverLog += d;
    const m = serverLog.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
    if (m) { clearTimeout(timer); res(`http://127.0.0.1:${m[1]}`); }
  };
  server.on("exit", () => { clearTimeout(timer); res(null); });
  server.stdout.on("data", look);
  server.stderr.on("data", look);
});
await test("the Notebook server starts", () => assert.notEqual(url, null, serverLog.slice(-2000)));

const browser = await launch(browserPath);
try {
  if (url) {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${url}/notebooks/${name}.ipynb?token=${token}`, { waitUntil: "load", timeout: 60000 });
    const ready = await page.waitForFunction(() => window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel &&
      Jupyter.notebook.kernel.is_connected() && Jupyter.notebook.kernel.info_reply &&
      Jupyter.notebook.kernel.info_reply.implementation === "attn", null, { timeout: 60000 }).then(() => true, () => false);
    await test("the notebook opens with the attn kernel connected (kernel_info over the server's websocket)", () =>
      assert.ok(ready, "no attn kernel connected within 60 s"));
    // Cell > Run All, through the menu as a user would
    await page.click("#celllink");
    await page.click("#run_all_cells > a");
    const done = await page.waitForFunction(() => {
      const cells = Jupyter.notebook.get_cells().filter((c) => c.cell_type === "code");
      return cells.length > 0 && cells.every((c) => typeof c.input_prompt_number === "number") && !Jupyter.notebook.kernel_busy;
    }, null, { timeout: 90000, polling: 250 }).then(() => true, () => false);
    await test("Cell > Run All runs every code cell (each has its execution count)", () =>
      assert.ok(done, "not every code cell ran within 90 s"));
    const errorOutputs = await page.locator(".output_error").count();
    const errorTexts = errorOutputs ? await page.locator(".output_error").allInnerTexts().catch(() => []) : [];
    await test("no cell shows an error", () => assert.equal(errorOutputs, 0, errorTexts.join("\n")));
    // the last outputs may still be on their way into the page when the kernel says idle
    await page.waitForFunction((n) => document.querySelectorAll(".output_svg svg.heatmap").length >= n,
      expectedSvgs, { timeout: 15000 }).catch(() => {});
    const svgs = await page.locator(".output_svg svg.heatmap, .output_html svg.heatmap").count();
    await test(`the heatmaps are SVG in the page (${svgs}; the written notebook had ${expectedSvgs})`, () =>
      assert.ok(svgs >= 1 && svgs >= expectedSvgs, `${svgs} SVG heatmaps`));
    const cells = await page.locator(".output_svg svg.heatmap rect").count();
    await test("the SVG heatmap has its cells drawn (rect elements)", () => assert.ok(cells > 0, "no rect"));
    const first = page.locator(".output_svg svg.heatmap").first();
    await first.scrollIntoViewIfNeeded();
    const cell = first.locator("xpath=ancestor::div[contains(@class, 'cell')][1]");
    mkdirSync(logs, { recursive: true });
    await cell.screenshot({ path: join(logs, "notebook-heatmap.png") });
    await page.screenshot({ path: join(logs, "notebook-page.png") });
    await test("no script error in the page", () => assert.deepEqual(errors, []));
    // the kernel ends with the notebook: shut it down through the server, as File > Close and Halt does
    await page.evaluate(() => Jupyter.notebook.session.delete());
    await page.close();
  }
} finally {
  await browser.close();
  // SIGTERM, then SIGKILL after 10 s: node ends only once the server has (its pipes keep node running),
  // and the timer is cleared, or it would keep node running for those 10 s
  const gone = () => server.exitCode !== null || server.signalCode !== null;
  for (const signal of ["SIGTERM", "SIGKILL"]) {
    if (gone()) break;
    await new Promise((res) => {
      const timer = setTimeout(res, 10000);
      server.once("exit", () => { clearTimeout(timer); res(); });
      server.kill(signal);
    });
  }
}
const left = spawnSync("pgrep", ["-f", `^${attn} --kernel ${dir}`], { encoding: "utf8" }).stdout.trim();
const runtimeLeft = spawnSync("pgrep", ["-f", `^${attn} --kernel .*${process.env.JUPYTER_RUNTIME_DIR || "kernel-"}`], { encoding: "utf8" }).stdout.trim();
await test("no kernel left behind once the server has stopped", () => assert.equal(left + runtimeLeft, ""));
rmSync(dir, { recursive: true, force: true });
