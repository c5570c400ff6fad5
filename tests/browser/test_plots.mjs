// test_plots.mjs — attention.plot's SVG in a real browser (Debian's Chromium, headless, driven by
// playwright-core as test_pages.mjs does). TAP output.
//
//   node tests/browser/test_plots.mjs ATTN [CHROMIUM]
//
// Lesson 19's page (`attn --html`) shows the plot of the gradient norm against d_k as SVG: it loads with
// no console error and no request; the picture and its plot area have a size; each series has a marker
// per d_k, every marker inside the plot area, further right for a larger d_k and higher for a larger
// norm, and its numbers are the ones the lesson's table prints (to its 4 decimals); the axes' labels
// and the legend are there and inside the picture; in the dark theme its text follows the page's
// colour. From the REPL: attention.plot{svg =} writes a file that opens on its own as SVG, a title
// <script> in it stays text, and a screenshot of it is not blank (build/test-logs/browser-plot.png).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const attn = resolve(process.argv[2] || "./attn");
const browserPath = process.argv[3] || "/usr/bin/chromium";
const root = resolve(new URL(".", import.meta.url).pathname, "../..");
const lesson = join(root, "lessons", "19_sqrt_dk_gradients.lua");

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

async function open(browser, file, colorScheme = "light") {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme });
  const problems = [];
  const url = pathToFileURL(file).href;
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => { if (r.url().split("#")[0] !== url) problems.push(`request: ${r.url()}`); });
  page.on("dialog", (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss(); });
  await page.goto(url);
  await page.waitForLoadState("load");
  return { page, problems };
}

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
const browser = await chromium.launch({
  executablePath: browserPath,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
try {
  const html = join(out, "19.html");
  const made = spawnSync(attn, ["--html", html, lesson], { cwd: root, encoding: "utf8" });
  ok(made.status === 0, "attn --html writes lesson 19's page", made.stdout + made.stderr);
  const term = spawnSync(attn, [lesson], { cwd: root, encoding: "utf8", input: "", env: { ...process.env, NO_COLOR: "1" } });
  const table = tableNorms(term.stdout);
  ok(table.length === 4, `the terminal run prints the table of 4 d_k (${table.map((r) => r.d).join(", ")})`, term.stdout.slice(-2000));

  const { page, problems } = await open(browser, html);
  ok(problems.length === 0, "the page loads with no console error and no network request", problems.join("\n"));
  const plots = await page.evaluate(measure);
  ok(plots.length === 1, `the page has the lesson's plot as SVG (${plots.length})`);
  const p = plots[0];
  if (p) {
    ok(p.svg.w > 200 && p.svg.h > 100 && inside(p.area, p.svg),
       `the picture (${Math.round(p.svg.w)}×${Math.round(p.svg.h)}) and its plot area (${Math.round(p.area.w)}×${Math.round(p.area.h)}) have a size, the area inside the picture`,
       JSON.stringify({ svg: p.svg, area: p.area }));
    ok(p.series.length === 2 && p.series.every((s) => s.points === 4 && s.markers.length === 4),
       "two series, each with a marker for each of the 4 d_k", JSON.stringify(p.series.map((s) => [s.name, s.points, s.markers.length])));
    const all = p.series.flatMap((s) => s.markers);
    const outside = all.filter((m) => !inside(m.box, p.area));
    ok(all.length === 8 && outside.length === 0, "every marker has a size and lies inside the plot area",
       JSON.stringify(outside));
    let order = true;
    for (const s of p.series) {
      for (const a of s.markers) {
        for (const b of s.markers) {
          if (a.x < b.x && !(centre(a.box).x < centre(b.box).x)) order = false;
          if (a.y > b.y && !(centre(a.box).y < centre(b.box).y)) order = false;
        }
      }
    }
    ok(order, "a larger d_k is further right, a larger norm higher up");
    const want = { "softmax(S)": "raw", "softmax(S/√d_k)": "scaled" };
    const diffs = [];
    for (const s of p.series) {
      s.markers.forEach((m, i) => {
        const row = table[i];
        if (!row || row.d !== m.x || m.y.toFixed(4) !== row[want[s.name]]) diffs.push(`${s.name} ${m.x}: ${m.y} vs ${JSON.stringify(row)}`);
      });
    }
    ok(diffs.length === 0 && p.series.every((s) => want[s.name]),
       "the markers' numbers are the table's (d_k, and each norm rounded to the table's 4 decimals)", diffs.join("\n"));
    ok(p.xlabel === "d_k (log scale)" && p.ylabel === "‖dL/dz‖" &&
       JSON.stringify(p.legend) === JSON.stringify(["softmax(S)", "softmax(S/√d_k)"]),
       "the axes' labels and the legend", JSON.stringify({ x: p.xlabel, y: p.ylabel, legend: p.legend }));
    const ticks = ["3", "64", "768", "4096"].every((t) => p.texts.some((x) => x.text === t));
    const strays = p.texts.filter((t) => !inside(t.box, p.svg));
    ok(ticks && strays.length === 0, "an x tick labelled at each d_k; every text inside the picture",
       JSON.stringify(strays));
    const dark = await open(browser, html, "dark");
    const q = (await dark.page.evaluate(measure))[0];
    ok(q && q.color !== p.color && q.fill === q.color,
       `the text follows the page's theme (light ${p.color}, dark ${q?.color})`, JSON.stringify({ light: p.fill, dark: q?.fill }));
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
  ok(made2.status === 0 && made2.stdout === "", "attention.plot{svg =} writes the file and prints nothing", made2.stderr);
  const alone = await open(browser, svgFile);
  const seen = await alone.page.evaluate(() => ({
    root: document.documentElement.tagName,
    title: document.querySelector("text.title")?.textContent,
    scripts: document.querySelectorAll("script").length,
    markers: [...document.querySelectorAll("g.series")].map((g) => g.querySelectorAll(".marker").length),
  }));
  ok(alone.problems.length === 0 && seen.root === "svg" && seen.scripts === 0 && seen.title === "<script>alert(1)</script>",
     "the file opens on its own as SVG; the title <script> is text, and runs nothing",
     JSON.stringify(seen) + "\n" + alone.problems.join("\n"));
  ok(JSON.stringify(seen.markers) === "[30,30]", `60 steps: 30 markers a series (${JSON.stringify(seen.markers)})`);
  const png = await alone.page.locator("svg").screenshot();
  mkdirSync(join(root, "build", "test-logs"), { recursive: true });
  writeFileSync(join(root, "build", "test-logs", "browser-plot.png"), png); // to look at
  const colours = await alone.page.evaluate(async (b64) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const c = document.createElementNS("http://www.w3.org/1999/xhtml", "canvas"); // an SVG document's
    [c.width, c.height] = [img.width, img.height];
    const ctx = c.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
    return seen.size;
  }, png.toString("base64"));
  ok(colours >= 8, `a screenshot of it is not blank: ${colours} colours (build/test-logs/browser-plot.png)`);
  await alone.page.close();
} finally {
  await browser.close();
  rmSync(out, { recursive: true, force: true });
}
console.log(`1..${n}`);
process.exit(failed > 0 ? 1 : 0);
