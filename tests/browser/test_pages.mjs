// test_pages.mjs — attn's lesson pages (`attn --html`) in a real browser: Debian's Chromium, headless,
// driven through its DevTools protocol by playwright-core (tests/browser/package.json). Each check is a
// node:test test; tests/run.sh asks for TAP (on a terminal node prints its own report instead):
//
//   node --test-reporter=tap tests/browser/test_pages.mjs ATTN [CHROMIUM]
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
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { colours, launch, open, pngSize } from "./browser.mjs";

const attn = resolve(process.argv[2] || "./attn");
const browserPath = process.argv[3] || "/usr/bin/chromium";
const here = new URL(".", import.meta.url).pathname;
const root = resolve(here, "../..");
const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null; // ONLY=^0[3-6]: some lessons
const lessons = readdirSync(join(root, "lessons")).filter((f) => f.endsWith(".lua") && (!only || only.test(f))).sort()
  .map((f) => join(root, "lessons", f));
const xssLesson = join(here, "fixtures", "script_token.lua");

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

// ---- the tests ------------------------------------------------------------------------------------

const out = mkdtempSync(join(tmpdir(), "attn-html-"));
const lesson03 = join(root, "lessons", "03_causal_attention.lua"); // presentation mode's tests
const made = spawnSync(attn, ["--html", out, ...new Set([...lessons, lesson03]), xssLesson],
                       { cwd: root, encoding: "utf8" });
await test(`attn --html writes a page for each of the ${lessons.length} lessons and the fixture`, () =>
  assert.equal(made.status, 0, made.stdout + made.stderr));

const browser = await launch(browserPath);
try {
  let heatmapStep = null; // a page and step with a heatmap, for the screenshot
  for (const lesson of lessons) {
    const name = basename(lesson, ".lua");
    const file = join(out, `${name}.html`);
    const size = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    const { page, problems } = await open(browser, file);
    await test(`${name}: the page loads with no console error and no network request`, () =>
      assert.deepEqual(problems, []));
    const term = terminalRun(lesson);
    const steps = await page.locator("section.step").count();
    // a lesson whose files are not here (lesson.needs: GPT-2 small's weights) stops before its first
    // step, and its page says why, as the terminal does
    const skipped = term.includes("which attn did not find.");
    if (skipped) {
      const said = await page.evaluate(() => document.body.textContent.includes("which attn did not find."));
      await test(`${name}: skipped, and the page says which files attn did not find`, () => assert.ok(said));
    }
    await test(`${name}: ${steps} steps, as the terminal prints`, () => {
      assert.ok(steps > 0 || skipped, "the page has no step");
      assert.equal(steps, terminalSteps(term), "the page's steps against the terminal's");
    });
    const want = terminalHeatmaps(term);
    const got = await pageHeatmaps(page);
    const cells = got.reduce((a, rows) => a + rows.reduce((b, r) => b + r.length, 0), 0);
    await test(`${name}: ${got.length} SVG heatmaps (${cells} cells), as many as the terminal draws, each cell's value the terminal's`,
      () => assert.deepEqual(got, want, firstDifference(got, want)));
    if (name.startsWith("03")) {
      await test(`${name}: the page is small (${size} bytes, under 300 KB)`, () =>
        assert.ok(size > 0 && size < 300 * 1024, `${size} bytes`));
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
    await test("presentation: → three times shows step 4, and the fragment says so", () =>
      assert.deepEqual(now, { shown: "4", hash: "#present-4" }));
    await page.keyboard.press("ArrowLeft");
    now = await current();
    await test("presentation: ← goes back to step 3", () => assert.deepEqual(now, { shown: "3", hash: "#present-3" }));
    await page.keyboard.press("End");
    const last = await page.locator("section.step").count();
    now = await current();
    await test(`presentation: End shows the last step (${last})`, () => assert.equal(now.shown, String(last)));
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
    await test(`presentation: printing gives each of the ${last} steps a page of its own (${pages} pages)`, () => {
      assert.ok(pages >= last, `${pages} pages for ${last} steps`);
      assert.equal(printed.length, last, "the steps as printed");
      assert.deepEqual(together, [], "steps hidden or not ending their page");
    });
    await page.keyboard.press("Escape");
    now = await current();
    await test("presentation: Esc goes back to the whole page", () => assert.equal(now.shown.split(",").length, last, now.shown));
    await page.close();
    const again = await open(browser, file, { fragment: "#present-7" });
    const shown = await again.page.evaluate(() => [...document.querySelectorAll("section.step")]
      .filter((s) => getComputedStyle(s).display !== "none").map((s) => s.dataset.step).join(","));
    await test("presentation: a link to #present-7 opens step 7", () => assert.equal(shown, "7"));
    await test("presentation: no console error", () => assert.deepEqual(problems.concat(again.problems), []));
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
    await test("frames: 7 frames, one shown at a time, the first (step 0) named beside the slider", () =>
      assert.deepEqual({ count: first.count, shown: first.shown, title: first.title, label: first.label },
                       { count: 7, shown: 1, title: "step 0", label: "step 0" }));
    const slider = page.locator(".frames input[type=range]");
    await slider.focus();
    await page.keyboard.press("ArrowRight");
    const second = await state();
    await test("frames: → on the slider shows the next frame (step 10), with other values in its cells", () => {
      assert.deepEqual({ shown: second.shown, title: second.title, label: second.label },
                       { shown: 1, title: "step 10", label: "step 10" });
      assert.notEqual(second.cells, first.cells, "the cells of step 10 are those of step 0");
    });
    await slider.fill("7");
    const last = await state();
    await test("frames: the slider moved to its end shows the last frame (step 200)", () => {
      assert.deepEqual({ shown: last.shown, title: last.title, label: last.label },
                       { shown: 1, title: "step 200", label: "step 200" });
      assert.notEqual(last.cells, second.cells, "the cells of step 200 are those of step 10");
    });
    // in presentation mode the arrows on the slider move the slider, not the steps
    const at = await page.evaluate(() => document.querySelector(".frames").closest("section.step").dataset.step);
    await slider.fill("1");
    await page.goto(pathToFileURL(framesFile).href + `#present-${at}`);
    await page.locator("section.step.current .frames input[type=range]").focus();
    await page.keyboard.press("ArrowRight");
    const presenting = await state();
    await test(`frames: in presentation mode → on the slider moves the slider, the step stays (${at})`, () =>
      assert.deepEqual({ step: presenting.step, title: presenting.title }, { step: at, title: "step 10" }));
    // sized for a projector: the frame's numbers at least half as tall as the step's title, not the
    // page's 13px (they were about 8px under headings of 38px)
    const sizes = await page.evaluate(() => {
      const step = document.querySelector("section.step.current");
      const cell = step.querySelector(".frames .frame:not([hidden]) svg text.v");
      return { cell: cell.getBoundingClientRect().height,
               title: parseFloat(getComputedStyle(step.querySelector("h3")).fontSize) };
    });
    await test(`frames: in presentation mode the cells' numbers are large (${JSON.stringify(sizes)})`, () =>
      assert.ok(sizes.cell >= 0.5 * sizes.title, JSON.stringify(sizes)));
    await test("frames: no console error", () => assert.deepEqual(problems, []));
    await page.close();
  }

  // a screenshot of a heatmap step in presentation mode
  await test("some lesson draws a heatmap", () => assert.notEqual(heatmapStep, null));
  if (heatmapStep) {
    const { page } = await open(browser, heatmapStep.file, { fragment: `#present-${heatmapStep.step}` });
    const svg = page.locator("section.step.current svg.heatmap").first();
    await svg.scrollIntoViewIfNeeded();
    const png = await page.screenshot();
    mkdirSync(join(root, "build", "test-logs"), { recursive: true });
    const shot = join(root, "build", "test-logs", "browser-heatmap-step.png"); // to look at
    writeFileSync(shot, png);
    await test(`screenshot of ${basename(heatmapStep.file)} step ${heatmapStep.step}: 1280×800 (build/test-logs/${basename(shot)})`,
      () => assert.deepEqual(pngSize(png), [1280, 800]));
    const c = await colours(browser, png, 7);
    await test(`the screenshot is not blank: ${c} colours`, () => assert.ok(c >= 8, `${c} colours`));
    const box = await svg.boundingBox();
    const one = await svg.screenshot();
    const [sw, sh] = pngSize(one);
    const oneColours = await colours(browser, one, 7);
    await test(`the heatmap alone: ${sw}×${sh}, the size it has on the page, in colour`, () => {
      assert.ok(box && box.width > 100, `its box on the page: ${JSON.stringify(box)}`);
      assert.ok(Math.abs(sw - box.width) <= 1 && Math.abs(sh - box.height) <= 1,
                `screenshot ${sw}×${sh}, box ${JSON.stringify(box)}`);
      assert.ok(oneColours >= 8, `${oneColours} colours`);
    });
    await page.close();
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
    await test("a token <script>alert(1)</script> runs no script", () =>
      assert.deepEqual({ scripts: seen.scripts, pwned: seen.pwned }, { scripts: 1, pwned: false }));
    await test("the token shows as text, in the prose and as a label", () =>
      assert.ok(seen.text && seen.label.some((l) => l.startsWith("<script>")), JSON.stringify(seen)));
    await test("no alert", () => assert.deepEqual(problems.filter((p) => p.startsWith("dialog")), []));
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
    await test("tr:save and attention.heatmap{svg =} write their files", () => assert.equal(made2.status, 0, made2.stderr));
    const drawn = terminalHeatmaps(made2.stdout);
    const svgPage = await open(browser, join(out, "w.svg"));
    const inSvg = await pageHeatmaps(svgPage.page);
    await test("the SVG file opens on its own and holds the values the terminal draws", () => {
      assert.deepEqual(svgPage.problems, []);
      assert.deepEqual(inSvg, drawn, firstDifference(inSvg, drawn));
    });
    await svgPage.page.close();
    const tracePage = await open(browser, join(out, "trace.html"));
    const seen = await tracePage.page.evaluate(() => ({
      steps: document.querySelectorAll("section.step").length,
      heatmaps: document.querySelectorAll("svg.heatmap").length,
      scripts: document.scripts.length,
      label: document.querySelector("svg.heatmap text.row").textContent,
    }));
    await test("tr:save's page: the 3 stages, the weights as a heatmap, no console error, no request", () => {
      assert.deepEqual(tracePage.problems, []);
      assert.deepEqual({ steps: seen.steps, heatmaps: seen.heatmaps, scripts: seen.scripts },
                       { steps: 3, heatmaps: 1, scripts: 1 });
    });
    const inTrace = await pageHeatmaps(tracePage.page);
    await test("tr:save's heatmap holds the values the terminal draws; a token <script> stays text", () => {
      assert.deepEqual(inTrace, drawn, firstDifference(inTrace, drawn));
      assert.ok(seen.label.startsWith("<script>"), `the first row's label: ${seen.label}`);
    });
    await tracePage.page.close();
  }
  // a lesson that steps a tracer backward (fixtures/backward_trace.lua): on its page, the forward steps,
  // then the backward ones in reverse order, the gradients' heatmaps (∂L/∂α, ∂L/∂ω) the terminal's
  {
    const fixture = join(here, "fixtures", "backward_trace.lua");
    const file = join(out, "backward_trace.html");
    const made3 = spawnSync(attn, ["--html", file, fixture], { cwd: root, encoding: "utf8" });
    await test("attn --html writes the page of a lesson that runs tr:run_backward()", () =>
      assert.equal(made3.status, 0, made3.stdout + made3.stderr));
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
    await test("the page shows the 8 forward steps, then the 8 backward steps from context to queries, no console error", () => {
      assert.deepEqual(problems, []);
      assert.deepEqual(seen.forward, stages.map((s, i) => `${i + 1}/8 ${s}`));
      assert.deepEqual(seen.back, wantBack);
    });
    const want = terminalHeatmaps(terminalRun(fixture));
    const got = await pageHeatmaps(page);
    await test("its 5 SVG heatmaps (the weights; ∂L/∂α, ∂L/∂ω_s, ∂L/∂ω_m, ∂L/∂ω) hold the terminal's values, rows labelled with the tokens", () => {
      assert.equal(got.length, 5, "the page's heatmaps");
      assert.deepEqual(got, want, firstDifference(got, want));
      assert.ok(seen.labels.every((l) => l === "Your,journey,starts"), JSON.stringify(seen.labels));
    });
    await page.close();
  }
} finally {
  await browser.close();
  rmSync(out, { recursive: true, force: true });
}
