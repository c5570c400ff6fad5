// test_web.mjs — the page of `make web` (build/web/) in Debian's headless Chromium, served as a static
// host serves it (web_server.mjs: plain files, no special headers, as `python3 -m http.server`). Each check
// is a node:test test; tests/run.sh asks for TAP:
//
//   node --test-reporter=tap tests/browser/test_web.mjs ATTN [CHROMIUM]
//
// The expected side is never typed here: the book's prints come from tests/data/book/ch3_tensors.txt,
// the rest from ./attn itself run natively on the same input (the page must print what it prints). The
// screenshots go to build/test-logs/web-*.png.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { launch } from "./browser.mjs";
import { serve } from "./web_server.mjs";

const attn = resolve(process.argv[2] || "./attn");
const browserPath = process.argv[3] || "/usr/bin/chromium";
const root = resolve(new URL(".", import.meta.url).pathname, "../..");
const logs = join(root, "build", "test-logs");
mkdirSync(logs, { recursive: true });

// The book's prints (tests/data/book/ch3_tensors.txt), by number.
const book = {};
{
  let k = null;
  for (const line of readFileSync(join(root, "tests/data/book/ch3_tensors.txt"), "utf8").split("\n")) {
    const head = line.match(/^=== (\d+)/);
    if (head) { k = head[1]; book[k] = []; } else if (k && !line.startsWith("#")) book[k].push(line);
  }
  for (const key of Object.keys(book)) book[key] = book[key].join("\n").replace(/\n+$/, "");
}

// ./attn natively, for the expected side of the checks that are not the book's.
function native(args, { env = {}, cwd = root } = {}) {
  const r = spawnSync(attn, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env } });
  return r.stdout + r.stderr;
}

let server, browser;
before(async () => {
  server = await serve(join(root, "build", "web"));
  browser = await launch(browserPath);
});
after(async () => {
  await browser?.close();
  server?.close();
});

// A page at the prompt, with its problems (console errors, page errors, requests off the page's host).
async function openPage({ locale = "en-US" } = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 850 }, locale });
  const page = await context.newPage();
  const problems = [];
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => { if (!r.url().startsWith(server.url)) problems.push(`request: ${r.url()}`); });
  await page.goto(server.url);
  // coi-serviceworker reloads a page that is not yet cross-origin isolated, possibly after its first
  // prompt: what is typed or pasted before that reload is lost, so ready means isolated and at a prompt
  await page.waitForFunction(() => self.crossOriginIsolated && document.body.dataset.state === "prompt", null,
    { timeout: 120000 });
  return { page, problems, context };
}
const atPrompt = (page) => page.waitForSelector("body[data-state=prompt]", { timeout: 300000 });

// The terminal's whole buffer as text (colours dropped by xterm.js), lines the terminal wrapped joined
// again, trailing blank lines removed.
function screen(page) {
  return page.evaluate(() => {
    const b = window.attnTerminal.buffer.active, out = [];
    for (let i = 0; i < b.length; i++) {
      const line = b.getLine(i);
      if (line.isWrapped && out.length) out[out.length - 1] += line.translateToString(true);
      else out.push(line.translateToString(true));
    }
    return out.join("\n").replace(/\n+$/, "");
  });
}
// What the terminal shows after its last prompt-free mark: the text after the last occurrence of s.
const after_ = (text, s) => text.slice(text.lastIndexOf(s) + s.length);

async function type(page, line) {
  await page.keyboard.type(line);
  await page.keyboard.press("Enter");
  // the typed line, then a fresh prompt after its output: the body's state may still say "prompt" from
  // before the line went to the worker, and its output was then read half-written
  await page.waitForFunction((typed) => {
    const b = window.attnTerminal.buffer.active, out = [];
    for (let i = 0; i < b.length; i++) {
      const l = b.getLine(i);
      if (l.isWrapped && out.length) out[out.length - 1] += l.translateToString(true);
      else out.push(l.translateToString(true));
    }
    // after either prompt, attn's or the one of a chunk's next line ("  ..> ")
    const text = out.join("\n").replace(/\n+$/, ""), at = text.lastIndexOf("> " + typed);
    return at >= 0 && /\n(attn|  \.\.)> ?$/.test(text.slice(at + 2 + typed.length));
  }, line, { timeout: 300000 });
  await atPrompt(page);
}

test("the page starts offline from a static host: the banner and a prompt, cross-origin isolated", async () => {
  const { page, problems, context } = await openPage();
  const text = await screen(page);
  const banner = native(["-e", "io.write(require('attn.repl').banner('0.1', _VERSION))"]);
  assert.ok(text.startsWith(banner.trim()), `the banner: ${text.slice(0, 200)}`);
  assert.match(text, /attn> $/);
  assert.equal(await page.evaluate(() => self.crossOriginIsolated), true, "coi-serviceworker isolates the page");
  assert.deepEqual(problems, []);
  await context.close();
});

test("the 6-token example typed at the prompt prints the book's numbers", async () => {
  const { page, problems, context } = await openPage();
  // the inputs as lesson 01 writes them (the embedded words of "Your journey starts with one step")
  const src = readFileSync(join(root, "lessons/01_simple_attention.lua"), "utf8");
  const rows = [...src.match(/inputs = torch\.tensor\{([\s\S]*?)\n\s*\}/)[1].matchAll(/\{[-0-9., ]+\}/g)].map((m) => m[0]);
  assert.equal(rows.length, 6, "lesson 01's six rows");
  await type(page, `inputs = torch.tensor{${rows.join(", ")}}`);
  await type(page, "attn_scores = inputs:matmul(inputs.T)");
  await type(page, "attn_scores");
  assert.equal(after_(await screen(page), "attn> attn_scores\n").replace(/\nattn> $/, ""), book[8]);
  await type(page, "torch.softmax(attn_scores, -1)");
  assert.equal(after_(await screen(page), "attn> torch.softmax(attn_scores, -1)\n").replace(/\nattn> $/, ""), book[9]);
  await type(page, "_");
  assert.equal(after_(await screen(page), "attn> _\n").replace(/\nattn> $/, ""), book[9], "_ is the last value");
  await page.screenshot({ path: join(logs, "web-six-tokens.png") });
  assert.deepEqual(problems, []);
  await context.close();
});

test("Tab completes a name; ?name shows its help; a chunk may span lines", async () => {
  const { page, context } = await openPage();
  await page.keyboard.type("torch.softm");
  await page.keyboard.press("Tab");
  // the completion comes back from the worker: wait for it (on a loaded machine, longer than a moment)
  await page.waitForFunction(() => {
    const b = window.attnTerminal.buffer.active;
    return b.getLine(b.baseY + b.cursorY)?.translateToString(true).endsWith("torch.softmax");
  }, null, { timeout: 30000 }).catch(() => {});
  assert.match(await screen(page), /attn> torch\.softmax$/);
  await page.keyboard.press("Control+A");
  await page.keyboard.type("?");
  await page.keyboard.press("Enter");
  await atPrompt(page);
  const help = native(["-e", "require('attn.repl').eval('?torch.softmax', {})"]).trim();
  assert.ok((await screen(page)).includes(help), "?torch.softmax as ./attn prints it");
  await type(page, "for i = 1, 3 do");
  await type(page, "print(i * i) end");
  assert.match(await screen(page), /  \.\.> print\(i \* i\) end\n1\n4\n9\nattn> $/);
  await context.close();
});

test("Ctrl-C stops `while true do end` and keeps the variables", async () => {
  const { page, context } = await openPage();
  await type(page, "x = 6 * 7");
  await page.keyboard.type("while true do end");
  await page.keyboard.press("Enter");
  await page.waitForTimeout(1500);
  assert.equal(await page.evaluate(() => document.body.dataset.state), "busy", "the loop runs");
  await page.keyboard.press("Control+C");
  await atPrompt(page);
  assert.match(await screen(page), /interrupted\nattn> $/);
  await type(page, "x");
  assert.match(await screen(page), /attn> x\n42\nattn> $/);
  await page.screenshot({ path: join(logs, "web-ctrl-c.png") });
  await context.close();
});

test("a lesson in step mode: forward with next, back with back", async () => {
  const { page, context } = await openPage();
  await page.click("#lesson-list li:first-child button.step");
  const wantKey = () => page.waitForSelector("body[data-state=want-key]", { timeout: 60000 });
  await wantKey();
  const lastStep = async () => [...(await screen(page)).matchAll(/step (\d+)\/(\d+)/g)].pop().slice(1, 3).join("/");
  const steps = native(["--list", "lessons/01_simple_attention.lua"]); // (the number of steps: the page's own)
  assert.ok(steps.length > 0);
  assert.match(await lastStep(), /^1\/\d+$/);
  await page.click("#key-next");
  await page.waitForFunction(() => document.body.dataset.state === "busy" || true);
  await wantKey();
  await page.waitForTimeout(300);
  assert.match(await lastStep(), /^2\/\d+$/);
  await page.click("#key-next");
  await page.waitForTimeout(300);
  await wantKey();
  assert.match(await lastStep(), /^3\/\d+$/);
  await page.click("#key-back");
  await page.waitForTimeout(1000);
  await wantKey();
  assert.match(await lastStep(), /^2\/\d+$/, "back shows step 2 again");
  await page.screenshot({ path: join(logs, "web-step.png") });
  await page.click("#key-quit");
  await atPrompt(page);
  await context.close();
});

test("a lesson in check mode prints ./attn --check's report", async () => {
  const { page, context } = await openPage();
  await page.click("#lesson-list li:first-child button.check");
  await page.waitForSelector("body[data-state=busy]").catch(() => {});
  await atPrompt(page);
  // the page's lessons are /attn/lessons/NN_name.lua (make install's layout): the same text otherwise
  const expected = native(["--check", "lessons/01_simple_attention.lua"]).trim().replaceAll("lessons/", "/attn/lessons/");
  const text = await screen(page);
  assert.ok(text.includes(expected), `the page's report is ./attn's:\n${expected.slice(-400)}\n--- page:\n${text.slice(-600)}`);
  await page.screenshot({ path: join(logs, "web-check.png") });
  await context.close();
});

test("a pasted note with one wrong number: the --verify report names its line, as ./attn's does", async () => {
  const { page, context } = await openPage();
  // tests/verify's note, one digit changed (as tests/verify/test_verify.sh does)
  const good = readFileSync(join(root, "tests/verify/six_tokens.md"), "utf8");
  const bad = good.replace("0.1385, 0.2379, 0.2333", "0.1385, 0.2378, 0.2333");
  assert.notEqual(bad, good);
  const line = bad.split("\n").findIndex((l) => l.includes("0.2378")) + 1;
  const dir = mkdtempSync(join(tmpdir(), "attn-web-"));
  writeFileSync(join(dir, "note.md"), bad);
  const expected = native(["--verify", "note.md"], { cwd: dir }).trim();
  rmSync(dir, { recursive: true });
  assert.match(expected, new RegExp(`note\\.md:${line}`), "./attn names the line");
  assert.equal(await page.isVisible("#download"), false, "no note to download before one is checked");
  await page.fill("#note", bad);
  await page.click("#verify");
  await page.waitForSelector("body[data-state=busy]").catch(() => {});
  await atPrompt(page);
  const text = await screen(page);
  assert.ok(text.includes(expected), `the page's report is ./attn's:\n${expected}\n--- page:\n${text.slice(-1500)}`);
  assert.equal(await page.isVisible("#download"), true, "the --update'd note can be downloaded");
  const updated = await page.evaluate(() => fetch(document.getElementById("download").href).then((r) => r.text()));
  assert.ok(updated.includes("0.1385, 0.2379, 0.2333") && !updated.includes("0.2378"), "the update puts the computed number back");
  await page.screenshot({ path: join(logs, "web-note.png") });
  await context.close();
});

test("the language follows the browser (zh-CN) and switches to English and back", async () => {
  const { page, context } = await openPage({ locale: "zh-CN" });
  const zhTitle = native(["--list", "lessons/01_simple_attention.lua"], { env: { ATTN_LANG: "zh_CN" } })
    .split("\n")[0].replace(/^\S+\s+/, "");
  const enTitle = native(["--list", "lessons/01_simple_attention.lua"]).split("\n")[0].replace(/^\S+\s+/, "");
  await page.waitForFunction((t) => document.querySelector("#lesson-list li .title")?.textContent === t, zhTitle);
  await type(page, 'torch.zeros(2) + "a"');
  const zhError = native(["-e", 'require("attn.repl").eval(\'torch.zeros(2) + "a"\', {})'], { env: { ATTN_LANG: "zh_CN" } }).trim();
  assert.ok((await screen(page)).includes(zhError), `the error in Chinese: ${zhError}`);
  await page.screenshot({ path: join(logs, "web-zh.png") });
  await page.click("#lang");
  await page.waitForFunction((t) => document.querySelector("#lesson-list li .title")?.textContent === t, enTitle);
  await type(page, 'torch.zeros(2) + "a"');
  const enError = native(["-e", 'require("attn.repl").eval(\'torch.zeros(2) + "a"\', {})']).trim();
  assert.ok(after_(await screen(page), "+ \"a\"\n").includes(enError), "then in English");
  await page.screenshot({ path: join(logs, "web-en.png") });
  await context.close();
});

// ---- figures: heatmaps and plots as the SVG `attn --html` draws, beside the terminal ------------------
// The SVG's cells (each <text class="v">'s value and its <title>, the exact number on hover), from the
// text of an SVG file or page as ./attn writes it, or from the page's figure (read in the browser).
function svgCells(svg) {
  return [...svg.matchAll(/<rect [^>]*\/><text class="v"[^>]*>([^<]*)<\/text>|<g><title>([^<]*)<\/title><rect [^>]*\/><text class="v"[^>]*>([^<]*)<\/text><\/g>/g)]
    .map((m) => (m[1] !== undefined ? { v: unescapeHtml(m[1]), title: null } : { v: unescapeHtml(m[3]), title: unescapeHtml(m[2]) }));
}
const unescapeHtml = (s) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
const pageCells = (page, selector) => page.$$eval(`${selector} text.v`, (list) => list.map((t) => ({
  v: t.textContent, title: t.parentElement.localName === "g" ? t.parentElement.querySelector("title").textContent : null })));

test("a heatmap typed at the prompt: the terminal's text and, beside it, attn's SVG (labels escaped, exact values on hover)", async () => {
  const { page, problems, context } = await openPage();
  page.on("dialog", (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss(); });
  // labels a page must show as text, never as markup; values PyTorch prints in scientific notation, so
  // that the cells show fixed decimals and the exact print is each cell's <title>
  const rows = '{"<script>", "<b>x</b>"}', cols = '{"a&b", "<img src=x onerror=alert(1)>"}';
  const t = "torch.tensor{{1e-5, 0.5}, {0.25, 1}}";
  await type(page, `attention.heatmap(${t}, {rows = ${rows}, cols = ${cols}})`);
  await page.waitForSelector("#figures svg.heatmap", { timeout: 30000 });
  // the terminal has its text rendition, as ./attn prints it in a terminal with colours (which the
  // terminal's buffer, read here, leaves out)
  const dir = mkdtempSync(join(tmpdir(), "attn-web-"));
  const text = native(["-e", `attention.heatmap(${t}, {rows = ${rows}, cols = ${cols}, color = true})`]);
  const shown = after_(await screen(page), "alert(1)>\"}})\n").replace(/\nattn> $/, "");
  assert.equal(shown.replace(/ +$/gm, ""), text.replace(/\x1b\[[0-9;]*m/g, "").replace(/ +$/gm, "").replace(/\n+$/, ""),
    "the terminal shows the heatmap's text");
  // the page's SVG is the one attention.heatmap{svg =} writes natively (draw/heatmap_svg.lua)
  native(["-e", `attention.heatmap(${t}, {rows = ${rows}, cols = ${cols}, svg = "f.svg"})`], { cwd: dir });
  const file = readFileSync(join(dir, "f.svg"), "utf8");
  rmSync(dir, { recursive: true });
  const expected = svgCells(file);
  assert.equal(expected.length, 4);
  assert.ok(expected.some((c) => c.title !== null), "some cells are rounded: their exact print is a tooltip");
  assert.deepEqual(await pageCells(page, "#figures svg.heatmap"), expected, "the cells and their tooltips");
  const labels = await page.$$eval("#figures svg.heatmap text.row, #figures svg.heatmap text.col", (l) => l.map((e) => e.textContent));
  assert.deepEqual(labels.sort(), ["<b>x</b>", "<img src=x …", "<script>", "a&b"].sort(), "the labels as text (cut to 12 columns)");
  assert.equal(await page.$$eval("#figures script, #figures img, #figures b, #figures foreignObject", (l) => l.length), 0,
    "no label became an element");
  // page.js's guard: an SVG with anything attn's renderer never draws is refused, not shown
  const refused = await page.evaluate(() => [
    '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(2)</script></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(3)"><rect/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><img xmlns="http://www.w3.org/1999/xhtml" src="x"/></foreignObject></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><text>ok</text></svg>',
  ].map((s) => figureElement(s) === null));
  assert.deepEqual(refused, [true, true, true, false]);
  // a plot: the terminal's braille and attn's SVG of the same description
  await type(page, 'print(attention.plot{x = {1, 2, 3}, series = {{"loss", {3, 2, 1.5}}}, title = "<i>t</i>"})');
  await page.waitForSelector("#figures svg.plot", { timeout: 30000 });
  assert.equal(await page.$$eval("#figures svg.plot .marker[data-x]", (l) => l.length), 3, "a marker per point");
  assert.equal(await page.$$eval("#figures i", (l) => l.length), 0);
  await page.screenshot({ path: join(logs, "web-figures-repl.png") });
  assert.deepEqual(problems, []);
  await context.close();
});

test("lesson 20 in step mode, jumped to its last training step: the trained weights' heatmap is on the page", async () => {
  const { page, problems, context } = await openPage();
  const file = "lessons/20_watch_attention_learn.lua";
  // the step that trains to step 200, found in the lesson's source (its order among lesson.step calls)
  const steps = [...readFileSync(join(root, file), "utf8").matchAll(/^lesson\.step\("([^"]*)"/gm)].map((m) => m[1]);
  const n = steps.indexOf("train to step 200") + 1;
  assert.ok(n > 0);
  await page.click(`#lesson-list li[data-file="/attn/${file}"] button.step`);
  const wantKey = () => page.waitForSelector("body[data-state=want-key]", { timeout: 300000 });
  // the step's key, past the "more" lines of a step taller than the terminal (q: the rest unseen)
  const stepKey = async () => {
    await wantKey();
    while (/-- more --[^\n]*$/.test(await screen(page))) {
      await page.keyboard.press("q");
      await wantKey();
    }
  };
  await stepKey();
  await page.fill("#jump-to", String(n));
  const jumped = Date.now();
  await page.click("#key-jump");
  // the figure the step draws: the example's weights after 200 steps of training, a 6×6 heatmap
  const title = "weights after 200 steps";
  await page.waitForSelector(`#figures svg.heatmap[aria-label="${title}"]`, { timeout: 300000 });
  await stepKey();
  console.log(`# lesson 20: the jump to step ${n} (steps 1 to ${n - 1} run again, unseen) took ${(Date.now() - jumped) / 1000} s`);
  const sel = `#figures svg.heatmap[aria-label="${title}"]`;
  assert.equal(await page.$$eval(`${sel} rect`, (l) => l.length), 36, "6 × 6 cells");
  assert.equal(await page.$$eval("#figures svg", (l) => l.length), 1, "the step's one figure");
  // the same cells as the native `attn --html` page of the lesson draws for that step
  const dir = mkdtempSync(join(tmpdir(), "attn-web-"));
  native(["--html", join(dir, "l20.html"), file]);
  const html = readFileSync(join(dir, "l20.html"), "utf8");
  rmSync(dir, { recursive: true });
  const native200 = html.match(new RegExp(`<svg [^>]*aria-label="${title}"[\\s\\S]*?</svg>`))[0];
  assert.deepEqual(await pageCells(page, sel), svgCells(native200), "the cells of ./attn --html's figure");
  const at = [...(await screen(page)).matchAll(/step (\d+)\/(\d+)/g)].pop().slice(1, 3).join("/");
  assert.equal(at, `${n}/${steps.length}`, `the terminal is at step ${n}`);
  await page.screenshot({ path: join(logs, "web-lesson20-heatmap.png"), fullPage: true });
  await page.click("#key-quit");
  await atPrompt(page);
  assert.deepEqual(problems, []);
  await context.close();
});

test("the Chinese page shows no English word outside the terminal: every button, heading and tooltip is translated", async () => {
  const { page, context } = await openPage({ locale: "zh-CN" });
  await page.waitForSelector("#lesson-list li button.step");
  await page.evaluate(() => { document.getElementById("figures-pane").hidden = false; });
  // the page's words: every piece of text on it and every tooltip and label (title, aria-label,
  // placeholder), but the terminal's and the figures' (attn's own catalogs), the name attn, and the
  // language switch (which names English)
  const words = () => page.evaluate(() => {
    const out = [], skip = (el) => el.closest("#terminal, #figures, #lang, h1");
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      if (n.textContent.trim() && !skip(n.parentElement) && !n.parentElement.closest("script")) {
        out.push(`${n.parentElement.id || n.parentElement.className}: ${n.textContent.trim()}`);
      }
    }
    for (const el of document.querySelectorAll("[title], [aria-label], [placeholder]")) {
      if (skip(el)) continue;
      for (const a of ["title", "aria-label", "placeholder"]) if (el.getAttribute(a)) out.push(`${el.id} ${a}: ${el.getAttribute(a)}`);
    }
    return out;
  });
  const zh = await words();
  assert.ok(zh.length >= 25, `the page's words were read (${zh.length})`);
  const english = zh.filter((s) => !/[\u4e00-\u9fff]/.test(s.slice(s.indexOf(": ") + 2)));
  assert.deepEqual(english, [], "every word has Chinese in it");
  await page.screenshot({ path: join(logs, "web-zh-words.png") });
  // and the same words in English after the switch: none of them stays Chinese
  await page.click("#lang");
  await page.waitForFunction(() => document.documentElement.lang === "en");
  await atPrompt(page);
  const en = await words();
  assert.equal(en.length, zh.length);
  assert.deepEqual(en.filter((s) => /[\u4e00-\u9fff]/.test(s)), [], "no Chinese left in English");
  await context.close();
});

// ---- model folders (src/web/page/models.js, worker_models.js) ---------------------------------------
// The REPL lines of a forward of a model at dir (ids below the tiny Qwen3's vocabulary of 64), and ./attn's output
// of the same lines (its REPL's display).
const forwardLines = (load, dir) => [
  "torch.set_printoptions{precision = 10}",
  `m = ${load}("${dir}"):eval()`,
  "logits = torch.no_grad(function() return m(torch.tensor{{15, 7, 30, 42}}) end)",
  "logits[1]:narrow(2, 1, 4)",
];
function nativeForward(lines) {
  const chunk = lines.map((l) => `r.eval(${JSON.stringify(l)}, {})`).join("\n");
  return native(["-e", `local r = require("attn.repl")\n${chunk}`]).trim();
}

test("a model folder picked from the disk (the tests' tiny GPT-2): its forward prints ./attn's logits", async () => {
  const { page, problems, context } = await openPage();
  await page.setInputFiles("#model-folder", join(root, "tests/data/gpt2/tiny"));
  await page.waitForSelector("body[data-model=ready]", { timeout: 60000 });
  const status = await page.textContent("#model-status");
  assert.match(status, /\/models\/tiny/, `the status names where the files are: ${status}`);
  const lines = forwardLines("gpt.GPTModel.from_pretrained", "/models/tiny");
  for (const l of lines) await type(page, l);
  const expected = nativeForward(forwardLines("gpt.GPTModel.from_pretrained", "tests/data/gpt2/tiny"));
  assert.match(expected, /^tensor\(\[\[/);
  const shown = after_(await screen(page), `attn> ${lines[3]}\n`).replace(/\nattn> $/, "");
  assert.equal(shown, expected, "the page's logits, byte for byte ./attn's");
  await page.screenshot({ path: join(logs, "web-model.png") });
  assert.deepEqual(problems, []);
  await context.close();
});

test("the tiny models are on every page: the tests' tiny Qwen3, loaded without picking", async () => {
  const { page, context } = await openPage();
  const lines = forwardLines("qwen3.Qwen3Model.from_pretrained", "/attn/models/qwen3-tiny");
  for (const l of lines) await type(page, l);
  const expected = nativeForward(forwardLines("qwen3.Qwen3Model.from_pretrained", "tests/data/hf_models/qwen3-f32"));
  assert.match(expected, /^tensor\(\[\[/);
  assert.equal(after_(await screen(page), `attn> ${lines[3]}\n`).replace(/\nattn> $/, ""), expected);
  await context.close();
});

test("a model folder larger than the page's memory is refused before anything is copied, in both languages", async () => {
  const dir = mkdtempSync(join(tmpdir(), "attn-web-model-"));
  const folder = join(dir, "huge");
  mkdirSync(folder);
  writeFileSync(join(folder, "config.json"), JSON.stringify({ model_type: "gpt2" }));
  // a safetensors header that claims 5 GB of float32 (the file itself holds its header only)
  const header = Buffer.from(JSON.stringify({ w: { dtype: "F32", shape: [1250000000], data_offsets: [0, 5000000000] } }));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(header.length));
  writeFileSync(join(folder, "model.safetensors"), Buffer.concat([len, header]));
  const { page, context } = await openPage();
  await page.setInputFiles("#model-folder", folder);
  await page.waitForSelector("body[data-model=refused]", { timeout: 60000 });
  assert.match(await page.textContent("#model-status"), /huge is too large for this page: its weights need about 4768\.4 MB/);
  await type(page, 'io.open("/models/huge/config.json")');
  assert.match(await screen(page), /attn> io\.open\("\/models\/huge\/config\.json"\)\nnil/, "nothing was copied");
  await page.click("#lang");
  await page.waitForFunction(() => document.getElementById("model-status").textContent.includes("太大"));
  await page.locator("#model-pane").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(logs, "web-model-refused.png") });
  await context.close();
  rmSync(dir, { recursive: true });
});

test("a folder of GPT-2 small (by its config.json) becomes one of attn's places: from_pretrained(\"gpt2\") looks there", async () => {
  const dir = mkdtempSync(join(tmpdir(), "attn-web-model-"));
  const folder = join(dir, "gpt2");
  mkdirSync(folder);
  // GPT-2 small's sizes in its config, the tiny model's weights beside it: only the finding is checked here
  writeFileSync(join(folder, "config.json"), JSON.stringify({ model_type: "gpt2", n_layer: 12, n_embd: 768, vocab_size: 50257 }));
  writeFileSync(join(folder, "model.safetensors"), readFileSync(join(root, "tests/data/gpt2/tiny/model.safetensors")));
  const { page, context } = await openPage();
  await page.setInputFiles("#model-folder", folder);
  await page.waitForSelector("body[data-model=ready]", { timeout: 60000 });
  assert.match(await page.textContent("#model-status"), /It is GPT-2 small or Qwen3-0\.6B/);
  await type(page, 'require("attn.gpt.load").gpt2_dir("GPTModel.from_pretrained", "gpt2")');
  assert.match(await screen(page), /gpt2_dir\("GPTModel\.from_pretrained", "gpt2"\)\n"?\/home\/web_user\/\.cache\/attn\/gpt2"?\nattn> $/,
    "places.lua's cache folder, linked to the picked folder");
  await context.close();
  rmSync(dir, { recursive: true });
});
