// test_pages.mjs — attn's lesson pages (`attn --html`) in a real browser: Debian's Chromium, headless,
// driven through its DevTools protocol by playwright-core (tests/browser/package.json). TAP output.
//
//   node tests/browser/test_pages.mjs ATTN [CHROMIUM]
//
// For every lesson: the page loads with no console error and asks the network for nothing; it has as
// many steps as the terminal run prints rules for, and its SVG heatmaps hold, cell by cell, the values
// the terminal run draws in colour (the terminal run goes through `script`, so that attn sees a
// terminal and colours its heatmaps). Presentation mode: → three times shows step 4 and the fragment
// says #present-4, ← goes back, a reload of #present-7 opens step 7, printing gives each step a page.
// Frames (lesson 20's weights at its training checkpoints): one shown at a time, the slider (arrow
// keys, or moved to its end) shows another with other values, also in presentation mode without
// changing the step. A screenshot of a heatmap step has the window's size and is not blank. A lesson whose token is
// <script>alert(1)</script> shows it as text and runs no script. From the REPL: attention.heatmap's
// SVG file and tr:save's page open on their own and hold the values the terminal draws. A lesson that
// steps a tracer backward shows the backward steps on its page.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const attn = resolve(process.argv[2] || "./attn");
const browserPath = process.argv[3] || "/usr/bin/chromium";
const here = new URL(".", import.meta.url).pathname;
const root = resolve(here, "../..");
const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null; // ONLY=^0[3-6]: some lessons
const lessons = readdirSync(join(root, "lessons")).filter((f) => f.endsWith(".lua") && (!only || only.test(f))).sort()
  .map((f) => join(root, "lessons", f));
const xssLesson = join(here, "fixtures", "script_token.lua");

let n = 0;
let failed = 0;
function ok(cond, what, detail) {
  n += 1;
  if (cond) {
    console.log(`ok ${n} - ${what}`);
  } else {
    failed += 1;
    console.log(`not ok ${n} - ${what}`);
    if (detail !== undefined) for (const l of String(detail).split("\n")) console.log(`#   ${l}`);
  }
}

// ---- the terminal's side -------------------------------------------------------------------------

// What attn prints for a lesson run straight through on a terminal (colour on).
function terminalRun(lesson) {
  const cmd = `${JSON.stringify(attn)} ${JSON.stringify(lesson)}`;
  // ATTN_VERDICT_STEPS=0: lesson 21 runs its quick part (what its page shows), not ten epochs of GPT-2 small
  const env = { ...process.env, TERM: "xterm-256color", COLUMNS: "200", LINES: "50", ATTN_VERDICT_STEPS: "0" };
  delete env.NO_COLOR;
  const r = spawnSync("script", ["-qec", cmd, "/dev/null"], { cwd: root, env, encoding: "utf8",
                                                              maxBuffer: 64 << 20, input: "" });
  return (r.stdout || "").replace(/\r\n/g, "\n");
}

// The heatmaps the terminal run draws in colour: [[row, ...], ...], a row the cells' values. Cells
// drawn next to each other are one heatmap's row; the lines of cells between two lines of other text
// are one drawing, or several side by side (lesson.heatmaps), told apart by the column they start at.
const CELL = /\x1b\[48;5;[\d;]+m([^\x1b]*)\x1b\[0m/g;
// The columns a text takes on a terminal: CJK characters take two (row labels such as 你的 and 从 are
// padded to the same width, not to the same number of characters).
function displayWidth(s) {
  let w = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0);
    const wide = (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
      (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x20000 && c <= 0x3fffd);
    w += wide ? 2 : 1;
  }
  return w;
}
function terminalHeatmaps(text) {
  const maps = [];
  let block = null; // the column each heatmap of the current drawing starts at -> its rows
  for (const line of text.split("\n")) {
    const segments = [];
    let end = -1;
    for (const m of line.matchAll(CELL)) {
      if (m.index !== end) {
        const column = displayWidth(line.slice(0, m.index).replace(/\x1b\[[\d;]*m/g, ""));
        segments.push({ column, cells: [] });
      }
      segments[segments.length - 1].cells.push(m[1].trim());
      end = m.index + m[0].length;
    }
    if (segments.length === 0) {
      block = null;
      continue;
    }
    block = block || new Map();
    for (const seg of segments) {
      if (!block.has(seg.column)) {
        block.set(seg.column, []);
        maps.push(block.get(seg.column));
      }
      block.get(seg.column).push(seg.cells);
    }
  }
  return maps;
}

function firstDifference(got, want) {
  let i = 0;
  while (i < got.length && i < want.length && JSON.stringify(got[i]) === JSON.stringify(want[i])) i++;
  return `page ${got.length} heatmaps, terminal ${want.length}; first difference at heatmap ${i + 1}:\n` +
    `page     ${JSON.stringify(got[i])}\nterminal ${JSON.stringify(want[i])}`;
}

function terminalSteps(text) {
  const m = [...text.matchAll(/── step (\d+)\/(\d+) · /g)];
  return m.length;
}

// ---- the page's side ------------------------------------------------------------------------------

// The page's SVG heatmaps: [[row, ...], ...], a row the values in its cells.
async function pageHeatmaps(page) {
  return page.evaluate(() => [...document.querySelectorAll("svg.heatmap")].map((s) =>
    [...s.querySelectorAll("g.r")].map((g) => [...g.querySelectorAll("text.v")].map((t) => t.textContent.trim()))));
}

async function open(browser, file, fragment = "") {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems = [];
  const url = pathToFileURL(file).href;
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => { if (r.url().split("#")[0] !== url) problems.push(`request: ${r.url()}`); });
  page.on("dialog", (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss(); });
  await page.goto(url + fragment);
  await page.waitForLoadState("load");
  return { page, problems, url };
}

// How many different colours a PNG has, counted by the browser itself on a blank page.
async function colours(browser, png) {
  const page = await browser.newPage();
  const count = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4 * 7) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    return seen.size;
  }, png.toString("base64"));
  await page.close();
  return count;
}

// ---- the tests ------------------------------------------------------------------------------------

const out = mkdtempSync(join(tmpdir(), "attn-html-"));
const lesson03 = join(root, "lessons", "03_causal_attention.lua"); // presentation mode's tests
const made = spawnSync(attn, ["--html", out, ...new Set([...lessons, lesson03]), xssLesson],
                       { cwd: root, encoding: "utf8" });
ok(made.status === 0, `attn --html writes a page for each of the ${lessons.length} lessons and the fixture`,
   made.stdout + made.stderr);

const browser = await chromium.launch({
  executablePath: browserPath,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
try {
  let heatmapStep = null; // a page and step with a heatmap, for the screenshot
  for (const lesson of lessons) {
    const name = basename(lesson, ".lua");
    const file = join(out, `${name}.html`);
    const size = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    const { page, problems } = await open(browser, file);
    ok(problems.length === 0, `${name}: the page loads with no console error and no network request`,
       problems.join("\n"));
    const term = terminalRun(lesson);
    const steps = await page.locator("section.step").count();
    ok(steps > 0 && steps === terminalSteps(term), `${name}: ${steps} steps, as the terminal prints`,
       `page ${steps}, terminal ${terminalSteps(term)}`);
    const want = terminalHeatmaps(term);
    const got = await pageHeatmaps(page);
    const cells = got.reduce((a, rows) => a + rows.reduce((b, r) => b + r.length, 0), 0);
    ok(JSON.stringify(got) === JSON.stringify(want),
       `${name}: ${got.length} SVG heatmaps (${cells} cells), as many as the terminal draws, each cell's value the terminal's`,
       firstDifference(got, want));
    if (name.startsWith("03")) {
      ok(size > 0 && size < 300 * 1024, `${name}: the page is small (${size} bytes, under 300 KB)`);
    }
    if (!heatmapStep && got.length > 0) {
      heatmapStep = { file, step: await page.evaluate(() =>
        document.querySelector("svg.heatmap").closest("section.step").dataset.step) };
    }
    await page.close();
  }

  // presentation mode, on lesson 03
  {
    const file = join(out, "03_causal_attention.html");
    const { page, problems } = await open(browser, file);
    const current = () => page.evaluate(() => {
      const shown = [...document.querySelectorAll("section.step")]
        .filter((s) => getComputedStyle(s).display !== "none");
      return { shown: shown.map((s) => s.dataset.step).join(","), hash: location.hash };
    });
    await page.click("#present");
    for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
    let now = await current();
    ok(now.shown === "4" && now.hash === "#present-4", "presentation: → three times shows step 4, and the fragment says so",
       JSON.stringify(now));
    await page.keyboard.press("ArrowLeft");
    now = await current();
    ok(now.shown === "3" && now.hash === "#present-3", "presentation: ← goes back to step 3", JSON.stringify(now));
    await page.keyboard.press("End");
    const last = await page.locator("section.step").count();
    now = await current();
    ok(now.shown === String(last), `presentation: End shows the last step (${last})`, JSON.stringify(now));
    const pdf = await page.pdf({ format: "A4", landscape: true });
    const pages = (pdf.toString("latin1").match(/\/Type\s*\/Page[^s]/g) || []).length;
    // as printed: every step shown, each ending its page (a long step may take more than one page,
    // so the count of pages alone would not see the steps run together)
    await page.emulateMedia({ media: "print" });
    const printed = await page.evaluate(() => [...document.querySelectorAll("section.step")].map((s) => {
      const c = getComputedStyle(s);
      return c.display !== "none" && (c.breakAfter === "page" || c.pageBreakAfter === "always");
    }));
    await page.emulateMedia({ media: "screen" });
    const together = printed.map((p, i) => (p ? 0 : i + 1)).filter((i) => i > 0);
    ok(pages >= last && printed.length === last && together.length === 0,
       `presentation: printing gives each of the ${last} steps a page of its own (${pages} pages)`,
       `${pages} pages; steps hidden or not ending their page: ${together.join(", ")}`);
    await page.keyboard.press("Escape");
    now = await current();
    ok(now.shown.split(",").length === last, "presentation: Esc goes back to the whole page", JSON.stringify(now));
    await page.close();
    const again = await open(browser, file, "#present-7");
    const shown = await again.page.evaluate(() => [...document.querySelectorAll("section.step")]
      .filter((s) => getComputedStyle(s).display !== "none").map((s) => s.dataset.step).join(","));
    ok(shown === "7", "presentation: a link to #present-7 opens step 7", shown);
    ok(problems.length === 0 && again.problems.length === 0, "presentation: no console error",
       problems.concat(again.problems).join("\n"));
    await again.page.close();
  }

  // frames (lesson.heatmaps' {frames = title}): lesson 20's attention weights at its training
  // checkpoints, one shown at a time; the slider moves through them, also in presentation mode
  const framesFile = join(out, "20_watch_attention_learn.html");
  if (statSync(framesFile, { throwIfNoEntry: false })) {
    const { page, problems } = await open(browser, framesFile);
    const state = () => page.evaluate(() => {
      const box = document.querySelector(".frames");
      const shown = [...box.querySelectorAll(".frame")].filter((f) => getComputedStyle(f).display !== "none");
      return {
        count: box.querySelectorAll(".frame").length,
        shown: shown.length,
        title: shown.length ? shown[0].dataset.title : null,
        label: box.querySelector("output").textContent,
        cells: shown.length ? [...shown[0].querySelectorAll("text.v")].map((t) => t.textContent.trim()).join(" ") : "",
        step: (document.querySelector("section.step.current") || {}).dataset?.step || null,
      };
    });
    const first = await state();
    ok(first.count === 7 && first.shown === 1 && first.title === "step 0" && first.label === "step 0",
       "frames: 7 frames, one shown at a time, the first (step 0) named beside the slider", JSON.stringify(first));
    const slider = page.locator(".frames input[type=range]");
    await slider.focus();
    await page.keyboard.press("ArrowRight");
    const second = await state();
    ok(second.shown === 1 && second.title === "step 10" && second.label === "step 10" && second.cells !== first.cells,
       "frames: → on the slider shows the next frame (step 10), with other values in its cells",
       JSON.stringify({ first, second }));
    await slider.fill("7");
    const last = await state();
    ok(last.shown === 1 && last.title === "step 200" && last.label === "step 200" && last.cells !== second.cells,
       "frames: the slider moved to its end shows the last frame (step 200)", JSON.stringify(last));
    // in presentation mode the arrows on the slider move the slider, not the steps
    const at = await page.evaluate(() => document.querySelector(".frames").closest("section.step").dataset.step);
    await slider.fill("1");
    await page.goto(pathToFileURL(framesFile).href + `#present-${at}`);
    await page.locator("section.step.current .frames input[type=range]").focus();
    await page.keyboard.press("ArrowRight");
    const presenting = await state();
    ok(presenting.step === at && presenting.title === "step 10",
       `frames: in presentation mode → on the slider moves the slider, the step stays (${at})`, JSON.stringify(presenting));
    ok(problems.length === 0, "frames: no console error", problems.join("\n"));
    await page.close();
  }

  // a screenshot of a heatmap step in presentation mode
  {
    ok(heatmapStep !== null, "some lesson draws a heatmap");
    if (heatmapStep) {
      const { page } = await open(browser, heatmapStep.file, `#present-${heatmapStep.step}`);
      const svg = page.locator("section.step.current svg.heatmap").first();
      await svg.scrollIntoViewIfNeeded();
      const png = await page.screenshot();
      mkdirSync(join(root, "build", "test-logs"), { recursive: true });
      const shot = join(root, "build", "test-logs", "browser-heatmap-step.png"); // to look at
      writeFileSync(shot, png);
      const w = png.readUInt32BE(16);
      const h = png.readUInt32BE(20);
      ok(w === 1280 && h === 800, `screenshot of ${basename(heatmapStep.file)} step ${heatmapStep.step}: 1280×800 (build/test-logs/${basename(shot)})`,
         `${w}×${h}`);
      const c = await colours(browser, png);
      ok(c >= 8, `the screenshot is not blank: ${c} colours`, `${c} colours`);
      const box = await svg.boundingBox();
      const one = await svg.screenshot();
      const [sw, sh] = [one.readUInt32BE(16), one.readUInt32BE(20)];
      ok(box && Math.abs(sw - box.width) <= 1 && Math.abs(sh - box.height) <= 1 && box.width > 100 &&
         (await colours(browser, one)) >= 8,
         `the heatmap alone: ${sw}×${sh}, the size it has on the page, in colour`, JSON.stringify({ sw, sh, box }));
      await page.close();
    }
  }

  // a token that is markup
  {
    const { page, problems } = await open(browser, join(out, "script_token.html"));
    const seen = await page.evaluate(() => ({
      scripts: document.scripts.length,
      text: document.body.textContent.includes("<script>alert(1)</script>"),
      label: [...document.querySelectorAll("svg.heatmap text.row")].map((t) => t.textContent),
      pwned: window.pwned === true,
    }));
    ok(seen.scripts === 1 && !seen.pwned, "a token <script>alert(1)</script> runs no script", JSON.stringify(seen));
    ok(seen.text && seen.label.some((l) => l.startsWith("<script>")), "the token shows as text, in the prose and as a label",
       JSON.stringify(seen));
    ok(!problems.some((p) => p.startsWith("dialog")), "no alert", problems.join("\n"));
    await page.close();
  }
  // from the REPL: a heatmap as an SVG file, a tracer's stages as a page
  {
    const made2 = spawnSync(attn, ["-e", `
      inputs = torch.tensor{{0.43, 0.15, 0.89}, {0.55, 0.87, 0.66}, {0.57, 0.85, 0.64}}
      tr = attention.trace{x = inputs, tokens = {"<script>alert(1)</script>", "journey", "starts"}}
      tr:save(${JSON.stringify(join(out, "trace.html"))})
      attention.heatmap(tr.weights, {rows = tr.tokens, cols = {"a", "b", "c"}, svg = ${JSON.stringify(join(out, "w.svg"))}})
      attention.heatmap(tr.weights, {rows = tr.tokens, cols = {"a", "b", "c"}, color = true})`],
      { cwd: root, encoding: "utf8" });
    ok(made2.status === 0, "tr:save and attention.heatmap{svg =} write their files", made2.stderr);
    const drawn = terminalHeatmaps(made2.stdout);
    const svgPage = await open(browser, join(out, "w.svg"));
    const inSvg = await pageHeatmaps(svgPage.page);
    ok(svgPage.problems.length === 0 && JSON.stringify(inSvg) === JSON.stringify(drawn),
       "the SVG file opens on its own and holds the values the terminal draws", firstDifference(inSvg, drawn));
    await svgPage.page.close();
    const tracePage = await open(browser, join(out, "trace.html"));
    const seen = await tracePage.page.evaluate(() => ({
      steps: document.querySelectorAll("section.step").length,
      heatmaps: document.querySelectorAll("svg.heatmap").length,
      scripts: document.scripts.length,
      label: document.querySelector("svg.heatmap text.row").textContent,
    }));
    ok(tracePage.problems.length === 0 && seen.steps === 3 && seen.heatmaps === 1 && seen.scripts === 1,
       "tr:save's page: the 3 stages, the weights as a heatmap, no console error, no request",
       JSON.stringify(seen) + "\n" + tracePage.problems.join("\n"));
    const inTrace = await pageHeatmaps(tracePage.page);
    ok(JSON.stringify(inTrace) === JSON.stringify(drawn) && seen.label.startsWith("<script>"),
       "tr:save's heatmap holds the values the terminal draws; a token <script> stays text",
       firstDifference(inTrace, drawn));
    await tracePage.page.close();
  }
  // a lesson that steps a tracer backward (fixtures/backward_trace.lua): on its page, the forward steps,
  // then the backward ones in reverse order, the gradients' heatmaps (∂L/∂α, ∂L/∂ω) the terminal's
  {
    const fixture = join(here, "fixtures", "backward_trace.lua");
    const file = join(out, "backward_trace.html");
    const made3 = spawnSync(attn, ["--html", file, fixture], { cwd: root, encoding: "utf8" });
    ok(made3.status === 0, "attn --html writes the page of a lesson that runs tr:run_backward()", made3.stdout + made3.stderr);
    const { page, problems } = await open(browser, file);
    const seen = await page.evaluate(() => {
      const text = document.querySelector("section.step").textContent;
      return { forward: [...text.matchAll(/\[(\d+)\/(\d+)\]\s+(\S+)/g)].map((m) => `${m[1]}/${m[2]} ${m[3]}`),
               back: [...text.matchAll(/\[←(\d+)\/(\d+)\]\s+(\S+)/g)].map((m) => `${m[1]}/${m[2]} ${m[3]}`),
               labels: [...document.querySelectorAll("svg.heatmap")].map((s) =>
                 [...s.querySelectorAll("text.row")].map((t) => t.textContent).join(",")) };
    });
    const stages = ["queries", "keys", "values", "scores", "masked", "scaled", "weights", "context"];
    const wantBack = stages.slice().reverse().map((s, i) => `${i + 1}/8 ${s}`);
    ok(problems.length === 0 && JSON.stringify(seen.forward) === JSON.stringify(stages.map((s, i) => `${i + 1}/8 ${s}`)) &&
       JSON.stringify(seen.back) === JSON.stringify(wantBack),
       "the page shows the 8 forward steps, then the 8 backward steps from context to queries, no console error",
       JSON.stringify(seen) + "\n" + problems.join("\n"));
    const want = terminalHeatmaps(terminalRun(fixture));
    const got = await pageHeatmaps(page);
    ok(got.length === 5 && JSON.stringify(got) === JSON.stringify(want) &&
       seen.labels.every((l) => l === "Your,journey,starts"),
       "its 5 SVG heatmaps (the weights; ∂L/∂α, ∂L/∂ω_s, ∂L/∂ω_m, ∂L/∂ω) hold the terminal's values, rows labelled with the tokens",
       firstDifference(got, want) + "\n" + JSON.stringify(seen.labels));
    await page.close();
  }
} finally {
  await browser.close();
  rmSync(out, { recursive: true, force: true });
}
console.log(`1..${n}`);
process.exit(failed > 0 ? 1 : 0);
