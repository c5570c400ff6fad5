// test_plots.mjs — attention.plot's SVG in a real browser (Debian's Chromium, headless, driven by
// playwright-core as test_pages.mjs does). Each check is a node:test test; tests/run.sh asks for TAP:
//
//   node --test-reporter=tap tests/browser/test_plots.mjs ATTN [CHROMIUM]
//
// Lesson 19's page (`attn --html`) shows the plot of the gradient norm against d_k as SVG: it loads with
// no console error and no request; the picture and its plot area have a size; each series has a marker
// per d_k, every marker inside the plot area, further right for a larger d_k and higher for a larger
// norm, and its numbers are the ones the lesson's table prints (to its 4 decimals); the axes' labels
// and the legend are there and inside the picture; in the dark theme its text follows the page's
// colour. From the REPL: attention.plot{svg =} writes a file that opens on its own as SVG, a title
// <script> in it stays text, and a screenshot of it is not blank (build/test-logs/browser-plot.png).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { colours, launch, open } from "./browser.mjs";

const attn = resolve(process.argv[2] || "./attn");
const browserPath = process.argv[3] || "/usr/bin/chromium";
const root = resolve(new URL(".", import.meta.url).pathname, "../..");
const lesson = join(root, "lessons", "19_sqrt_dk_gradients.lua");

// What the browser laid out for each plot on the page: boxes in the page's pixels.
function measure() {
  const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; };
  return [...document.querySelectorAll("svg.plot")].map((svg) => ({
    svg: box(svg),
    area: box(svg.querySelector("rect.area")),
    xlabel: svg.querySelector("text.xlabel")?.textContent,
    ylabel: svg.querySelector("text.ylabel")?.textContent,
    texts: [...svg.querySelectorAll("text")].map((t) => ({ text: t.textContent, box: box(t) })),
    legend: [...svg.querySelectorAll("g.legend text.name")].map((t) => t.textContent),
    fill: getComputedStyle(svg.querySelector("text.xlabel")).fill,
    color: getComputedStyle(svg).color,
    series: [...svg.querySelectorAll("g.series")].map((g) => ({
      name: g.dataset.name, points: Number(g.dataset.points),
      markers: [...g.querySelectorAll(".marker")].map((m) => ({ x: Number(m.dataset.x), y: Number(m.dataset.y),
                                                               box: box(m) })),
    })),
  }));
}

const inside = (b, a) => b.w > 0 && b.h > 0 && b.x >= a.x - 0.5 && b.y >= a.y - 0.5 &&
  b.x + b.w <= a.x + a.w + 0.5 && b.y + b.h <= a.y + a.h + 0.5;
const centre = (b) => ({ x: b.x + b.w / 2, y: b.y + b.h / 2 });

// The lesson's table as the terminal prints it: d_k, then the two norms (the 4th and 5th columns).
function tableNorms(text) {
  const rows = [...text.matchAll(/^\s*(\d+)\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s+([\d.]+)\s*$/gm)];
  return rows.map((m) => ({ d: Number(m[1]), raw: m[2], scaled: m[3] }));
}

const out = mkdtempSync(join(tmpdir(), "attn-plots-"));
const browser = await launch(browserPath);
try {
  const html = join(out, "19.html");
  const made = spawnSync(attn, ["--html", html, lesson], { cwd: root, encoding: "utf8" });
  await test("attn --html writes lesson 19's page", () => assert.equal(made.status, 0, made.stdout + made.stderr));
  const term = spawnSync(attn, [lesson], { cwd: root, encoding: "utf8", input: "", env: { ...process.env, NO_COLOR: "1" } });
  const table = tableNorms(term.stdout);
  await test(`the terminal run prints the table of 4 d_k (${table.map((r) => r.d).join(", ")})`, () =>
    assert.equal(table.length, 4, term.stdout.slice(-2000)));

  const { page, problems } = await open(browser, html);
  await test("the page loads with no console error and no network request", () => assert.deepEqual(problems, []));
  const plots = await page.evaluate(measure);
  await test(`the page has the lesson's plot as SVG (${plots.length})`, () => assert.equal(plots.length, 1));
  const p = plots[0];
  if (p) {
    await test(`the picture (${Math.round(p.svg.w)}×${Math.round(p.svg.h)}) and its plot area (${Math.round(p.area.w)}×${Math.round(p.area.h)}) have a size, the area inside the picture`,
      () => assert.ok(p.svg.w > 200 && p.svg.h > 100 && inside(p.area, p.svg), JSON.stringify({ svg: p.svg, area: p.area })));
    await test("two series, each with a marker for each of the 4 d_k", () =>
      assert.deepEqual(p.series.map((s) => [s.points, s.markers.length]), [[4, 4], [4, 4]]));
    const all = p.series.flatMap((s) => s.markers);
    const outside = all.filter((m) => !inside(m.box, p.area));
    await test("every marker has a size and lies inside the plot area", () => {
      assert.equal(all.length, 8, "the markers");
      assert.deepEqual(outside, [], "markers outside the plot area");
    });
    const disorder = [];
    for (const s of p.series) {
      for (const a of s.markers) {
        for (const b of s.markers) {
          if (a.x < b.x && !(centre(a.box).x < centre(b.box).x)) disorder.push(`${s.name}: d_k ${a.x} not left of ${b.x}`);
          if (a.y > b.y && !(centre(a.box).y < centre(b.box).y)) disorder.push(`${s.name}: norm ${a.y} not above ${b.y}`);
        }
      }
    }
    await test("a larger d_k is further right, a larger norm higher up", () => assert.deepEqual(disorder, []));
    const want = { "softmax(S)": "raw", "softmax(S/√d_k)": "scaled" };
    const diffs = [];
    for (const s of p.series) {
      s.markers.forEach((m, i) => {
        const row = table[i];
        if (!row || row.d !== m.x || m.y.toFixed(4) !== row[want[s.name]]) diffs.push(`${s.name} ${m.x}: ${m.y} vs ${JSON.stringify(row)}`);
      });
    }
    await test("the markers' numbers are the table's (d_k, and each norm rounded to the table's 4 decimals)", () => {
      assert.deepEqual(p.series.map((s) => s.name).filter((name) => !want[name]), [], "series the lesson does not have");
      assert.deepEqual(diffs, []);
    });
    await test("the axes' labels and the legend", () =>
      assert.deepEqual({ x: p.xlabel, y: p.ylabel, legend: p.legend },
                       { x: "d_k (log scale)", y: "‖dL/dz‖", legend: ["softmax(S)", "softmax(S/√d_k)"] }));
    const ticks = ["3", "64", "768", "4096"].filter((t) => !p.texts.some((x) => x.text === t));
    const strays = p.texts.filter((t) => !inside(t.box, p.svg));
    await test("an x tick labelled at each d_k; every text inside the picture", () => {
      assert.deepEqual(ticks, [], "d_k without a tick label");
      assert.deepEqual(strays, [], "texts outside the picture");
    });
    const dark = await open(browser, html, { colorScheme: "dark" });
    const q = (await dark.page.evaluate(measure))[0];
    await test(`the text follows the page's theme (light ${p.color}, dark ${q?.color})`, () => {
      assert.ok(q, "no plot in the dark theme");
      assert.notEqual(q.color, p.color, "the text's colour is the same in both themes");
      assert.equal(q.fill, q.color, "the labels' fill against the page's colour");
    });
    await dark.page.close();
  }
  await page.close();

  // from the REPL: a file of its own, with a title that is markup
  const svgFile = join(out, "loss.svg");
  const made2 = spawnSync(attn, ["-e", `
    local xs, train, val = {}, {}, {}
    for i = 1, 60 do xs[i] = i; train[i] = 4 * math.exp(-i / 15) + 0.5; val[i] = 4 * math.exp(-i / 25) + 0.9 end
    attention.plot{x = xs, series = {{"train", train}, {"val", val}}, xlabel = "step", ylabel = "loss",
                   title = "<script>alert(1)</script>", svg = ${JSON.stringify(svgFile)}}`], { cwd: root, encoding: "utf8" });
  await test("attention.plot{svg =} writes the file and prints nothing", () => {
    assert.equal(made2.status, 0, made2.stderr);
    assert.equal(made2.stdout, "");
  });
  const alone = await open(browser, svgFile);
  const seen = await alone.page.evaluate(() => ({
    root: document.documentElement.tagName,
    title: document.querySelector("text.title")?.textContent,
    scripts: document.querySelectorAll("script").length,
    markers: [...document.querySelectorAll("g.series")].map((g) => g.querySelectorAll(".marker").length),
  }));
  await test("the file opens on its own as SVG; the title <script> is text, and runs nothing", () => {
    assert.deepEqual(alone.problems, []);
    assert.deepEqual({ root: seen.root, scripts: seen.scripts, title: seen.title },
                     { root: "svg", scripts: 0, title: "<script>alert(1)</script>" });
  });
  await test(`60 steps: 30 markers a series (${JSON.stringify(seen.markers)})`, () => assert.deepEqual(seen.markers, [30, 30]));
  const png = await alone.page.locator("svg").screenshot();
  mkdirSync(join(root, "build", "test-logs"), { recursive: true });
  writeFileSync(join(root, "build", "test-logs", "browser-plot.png"), png); // to look at
  const c = await colours(browser, png);
  await test(`a screenshot of it is not blank: ${c} colours (build/test-logs/browser-plot.png)`, () =>
    assert.ok(c >= 8, `${c} colours`));
  await alone.page.close();
} finally {
  await browser.close();
  rmSync(out, { recursive: true, force: true });
}
