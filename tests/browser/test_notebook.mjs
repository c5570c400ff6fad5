// test_notebook.mjs — a lesson's notebook (attn --ipynb) in the classic Jupyter Notebook (Debian's
// jupyter-notebook) in Debian's headless Chromium, driven by playwright-core: the notebook opens with
// the attn kernel, Cell > Run All runs every cell without an error, and the heatmaps arrive as SVG in
// the page (the outputs are cleared before, so they can only come from this run). A screenshot of the
// first heatmap goes to build/test-logs/notebook-heatmap.png. Output is TAP. Run through
// tests/jupyter/with_kernel.sh (JUPYTER_PATH names the kernelspec of the attn under test).
//   node tests/browser/test_notebook.mjs ATTN CHROMIUM [LESSON]
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { chromium } from "playwright-core";

const attn = resolve(process.argv[2] || "./attn");
const browserPath = process.argv[3] || "/usr/bin/chromium";
const lesson = process.argv[4] || "lessons/09_bahdanau_luong.lua";
const logs = resolve("build/test-logs");
let n = 0, failed = 0;
function ok(cond, desc, diag = "") {
  n++;
  console.log(`${cond ? "ok" : "not ok"} ${n} - ${desc}`);
  if (!cond) {
    failed++;
    for (const line of String(diag).split("\n").slice(0, 20)) console.log(`# ${line}`);
  }
}

const dir = mkdtempSync(join(tmpdir(), "attn-nb-"));
const name = basename(lesson, ".lua");
const nbPath = join(dir, `${name}.ipynb`);
const made = spawnSync(attn, ["--ipynb", nbPath, lesson], { encoding: "utf8" });
ok(made.status === 0, `attn --ipynb writes ${name}.ipynb`, made.stderr);
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
ok(url !== null, "the Notebook server starts", serverLog.slice(-2000));

const browser = await chromium.launch({
  executablePath: browserPath,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
try {
  if (url) {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${url}/notebooks/${name}.ipynb?token=${token}`, { waitUntil: "load", timeout: 60000 });
    const ready = await page.waitForFunction(() => window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel &&
      Jupyter.notebook.kernel.is_connected() && Jupyter.notebook.kernel.info_reply &&
      Jupyter.notebook.kernel.info_reply.implementation === "attn", null, { timeout: 60000 }).then(() => true, () => false);
    ok(ready, "the notebook opens with the attn kernel connected (kernel_info over the server's websocket)");
    // Cell > Run All, through the menu as a user would
    await page.click("#celllink");
    await page.click("#run_all_cells > a");
    const done = await page.waitForFunction(() => {
      const cells = Jupyter.notebook.get_cells().filter((c) => c.cell_type === "code");
      return cells.length > 0 && cells.every((c) => typeof c.input_prompt_number === "number") && !Jupyter.notebook.kernel_busy;
    }, null, { timeout: 90000, polling: 250 }).then(() => true, () => false);
    ok(done, "Cell > Run All runs every code cell (each has its execution count)");
    const errorOutputs = await page.locator(".output_error").count();
    ok(errorOutputs === 0, "no cell shows an error", await page.locator(".output_error").allInnerTexts().catch(() => ""));
    // the last outputs may still be on their way into the page when the kernel says idle
    await page.waitForFunction((n) => document.querySelectorAll(".output_svg svg.heatmap").length >= n,
      expectedSvgs, { timeout: 15000 }).catch(() => {});
    const svgs = await page.locator(".output_svg svg.heatmap, .output_html svg.heatmap").count();
    ok(svgs >= 1 && svgs >= expectedSvgs, `the heatmaps are SVG in the page (${svgs}; the written notebook had ${expectedSvgs})`);
    const cells = await page.locator(".output_svg svg.heatmap rect").count();
    ok(cells > 0, "the SVG heatmap has its cells drawn (rect elements)");
    const first = page.locator(".output_svg svg.heatmap").first();
    await first.scrollIntoViewIfNeeded();
    const cell = first.locator("xpath=ancestor::div[contains(@class, 'cell')][1]");
    mkdirSync(logs, { recursive: true });
    await cell.screenshot({ path: join(logs, "notebook-heatmap.png") });
    await page.screenshot({ path: join(logs, "notebook-page.png") });
    ok(errors.length === 0, "no script error in the page", errors.join("\n"));
    // the kernel ends with the notebook: shut it down through the server, as File > Close and Halt does
    await page.evaluate(() => Jupyter.notebook.session.delete());
    await page.close();
  }
} finally {
  await browser.close();
  server.kill("SIGTERM");
  await new Promise((res) => { server.on("exit", res); setTimeout(res, 10000); });
}
const left = spawnSync("pgrep", ["-f", `^${attn} --kernel ${dir}`], { encoding: "utf8" }).stdout.trim();
const runtimeLeft = spawnSync("pgrep", ["-f", `^${attn} --kernel .*${process.env.JUPYTER_RUNTIME_DIR || "kernel-"}`], { encoding: "utf8" }).stdout.trim();
ok(left === "" && runtimeLeft === "", "no kernel left behind once the server has stopped", left + runtimeLeft);
rmSync(dir, { recursive: true, force: true });
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
